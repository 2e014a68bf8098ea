/**
 * The native door of the look-up functions: `Invoke` of `broker:index:getWorkspace` and the others.
 * It only translates: the engine's property map to the core's plain arguments, the core's result
 * back with the declared secret outputs wrapped as secrets. The logic is the core's
 * (`src/core/lookups/`), the same the dynamic door calls.
 */
import { FUNCTIONS, secretOutputs } from "../core/declarations";
import { LOOKUP_FUNCTIONS } from "../core/lookups";
import { fromCore, toCore, type PropertyMap } from "./codec";
import type { ProviderConfiguration } from "./config";
import { BrokerError } from "../client/errors";

/** An `Invoke` of a function this provider does not have. */
export class UnknownFunctionError extends BrokerError {
  constructor(token: string) {
    const known = FUNCTIONS.map((fn) => fn.token).join(", ");
    super("BROKER_UNKNOWN_FUNCTION", `The broker provider has no function "${token}"; it has ${known}.`);
    this.name = "UnknownFunctionError";
  }
}

/**
 * Runs the function `token` with the provider instance's client (an explicit provider's own
 * endpoint and key, or the default provider's `broker:*` settings) and encodes its result.
 * @throws UnknownFunctionError for a token the package does not declare; the core's errors otherwise.
 */
export async function invokeFunction(
  token: string,
  args: PropertyMap,
  configuration: ProviderConfiguration,
): Promise<PropertyMap> {
  const run = LOOKUP_FUNCTIONS.get(token);
  const declaration = FUNCTIONS.find((fn) => fn.token === token);
  if (run === undefined || declaration === undefined) throw new UnknownFunctionError(token);
  const result = await run({ client: () => configuration.client() }, toCore(args).values);
  return fromCore({ ...result }, { alwaysSecret: secretOutputs(declaration) });
}
