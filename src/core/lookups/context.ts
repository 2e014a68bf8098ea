/** What a look-up function needs from the door that calls it, and the one place its client is made. */
import type { BrokerClient } from "../../client";
import { BrokerSettingsError, isBrokerSettingsError } from "../../client/errors";
import type { CoreContext } from "../context";

/** A look-up needs only the API client of the configured (or explicit) provider. */
export type LookupContext = Pick<CoreContext, "client">;

/**
 * The client for `fn`. Functions run during `pulumi preview` too (Pulumi's contract), so missing
 * settings fail the preview: the message says which function needed them, since a preview without
 * credentials otherwise passes.
 */
export function lookupClient(fn: string, context: LookupContext): BrokerClient {
  try {
    return context.client();
  } catch (error) {
    if (isBrokerSettingsError(error) && error.code === "BROKER_SETTINGS_MISSING") {
      throw new BrokerSettingsError(
        error.code,
        `${fn} reads the broker API, also during \`pulumi preview\`: ${error.message}`,
      );
    }
    throw error;
  }
}
