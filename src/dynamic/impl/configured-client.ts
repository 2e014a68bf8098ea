import type { ConfigureRequest } from "@pulumi/pulumi/dynamic";
import { getBrokerClient, type BrokerClient } from "../../client";
import {
  configuredBaseUrl as baseUrlFromSettings,
  isConfiguredApiKey,
  resolveConnection,
  STACK_SETTING_NAMES,
  type ConfigSource,
} from "../../settings/connection";
import { rateLimitNotifier } from "../../core/rate-limit-notice";
import { runCancellation } from "./host-cancellation";
import { warn } from "./host-log";

/**
 * The connection every provider of this process uses.
 *
 * The provider host calls `configure` once per resource type with the whole stack configuration
 * (secrets decrypted). We only remember where to read settings from: `configure` also runs during
 * `pulumi preview`, which must work with no credentials at all, so nothing here may throw until an
 * operation really needs the API.
 */
let stackConfig: ConfigSource | undefined;

/** Remembers the stack configuration; never throws and makes no request. */
export function configure(request: ConfigureRequest): Promise<void> {
  stackConfig = (key) => request.config.get(key);
  return Promise.resolve();
}

/**
 * The API client for the configured endpoint. Throws a `BrokerSettingsError` naming `broker:baseUrl` /
 * `broker:apiKey` and `BROKER_BASE_URL` / `BROKER_API_KEY` when settings are missing (all missing
 * ones in one message). The client's own messages name the same stack settings.
 */
export function brokerClient(): BrokerClient {
  const settings = resolveConnection(undefined, stackConfig, process.env);
  return getBrokerClient({
    ...settings,
    settingNames: STACK_SETTING_NAMES,
    onRateLimitWait: tellAboutLongWaits,
    signal: runCancellation(),
  });
}

/**
 * Tells the user, through the engine's log, about long waits on the broker's rate limit. One
 * listener for the process, so that the client cache sees one listener.
 */
const tellAboutLongWaits = rateLimitNotifier((message) => void warn(message));

/** Whether `accessKey` is the configured API key (compared, never returned; see `CoreContext`). */
export function authenticatesWith(accessKey: string): boolean {
  return isConfiguredApiKey(accessKey, stackConfig, process.env);
}

/**
 * The configured base URL, normalised, or `undefined` when none is configured or it is invalid.
 * Used by `check` to compare with the endpoint a resource lives at, without needing credentials.
 */
export function configuredBaseUrl(): string | undefined {
  return baseUrlFromSettings(stackConfig, process.env);
}
