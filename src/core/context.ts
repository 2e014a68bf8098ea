import type { BrokerClient } from "../client";
import type { SettingNames } from "../client/setting-names";

/**
 * What the core needs from whoever calls it: the API client, the endpoint the caller is configured
 * for, and a way to warn the user.
 *
 * The core knows nothing of where these come from. The dynamic provider builds one context from the
 * stack configuration of its process; a native provider builds one per provider instance.
 */
export interface CoreContext {
  /**
   * The API client for the configured endpoint. Throws a clear error naming the missing settings
   * when there are none: it is called only by operations that need the API, never by `check` or
   * `diff`, which must work during a preview without credentials.
   */
  client(): BrokerClient;
  /**
   * The configured API base URL, normalised, or `undefined` when none is configured (or it is
   * invalid). Needs no credentials.
   */
  configuredBaseUrl(): string | undefined;
  /**
   * How messages name this provider's settings: stack config for the default provider
   * (`broker:baseUrl (or BROKER_BASE_URL)`), the arguments of an explicit one.
   */
  readonly settingNames: SettingNames;
  /**
   * Whether `accessKey` (an access key's value) is the API key this provider authenticates with,
   * as configured (`broker:apiKey`, `BROKER_API_KEY`, or an explicit provider's argument); `false`
   * when none is configured. Needs no request and never throws. It compares values only: neither
   * value is ever returned, logged or put in a message. The core asks it before revoking a key, so
   * that no resource, component or door can lock the provider out of the API.
   */
  authenticatesWith(accessKey: string): boolean;
  /** Where warnings for the user go (shown by `pulumi up`/`destroy`). Must never throw. */
  readonly log: {
    warn(message: string): Promise<void>;
  };
}

/** The part of {@link CoreContext} that `check` uses: it makes no request. */
export type CheckContext = Pick<CoreContext, "configuredBaseUrl" | "settingNames">;

/**
 * The part of {@link CoreContext} that tells, without a request, whether deleting an object would be
 * refused (a door's `diff` asks it to warn about a replacement during a preview).
 */
export type DeleteCheckContext = Pick<CoreContext, "authenticatesWith" | "settingNames">;
