import type { ConfigureRequest } from "@pulumi/pulumi/dynamic";
import { getBrokerClient, type BrokerClient, type RateLimitWaitEvent } from "../client";
import {
  CONFIG_KEYS,
  configuredBaseUrl as baseUrlFromSettings,
  resolveConnection,
  STACK_SETTING_NAMES,
  type ConfigSource,
} from "../connection";
import { warn } from "./engine-log";

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
  });
}

/** Waits shorter than this pass silently; `pulumi up` looks stuck only after a while. */
const LONG_WAIT_MS = 5_000;

/** At most one such note per this long: one 429 can hold up every resource of the stack at once. */
const NOTE_EVERY_MS = 30_000;

let lastNoteAt = Number.NEGATIVE_INFINITY;

/**
 * Tells the user, through the engine's log, why `pulumi up` is not moving: the broker's rate limit
 * (a 429) or the pace kept below it holds requests back. One stable function, so that the client
 * cache sees one listener.
 */
function tellAboutLongWaits(event: RateLimitWaitEvent): void {
  if (event.waitMs < LONG_WAIT_MS) return;
  const now = Date.now();
  if (now - lastNoteAt < NOTE_EVERY_MS) return;
  lastNoteAt = now;
  const pace = event.pace === undefined ? "" : ` (pacing at ${Number(event.pace.toPrecision(3))} requests/s)`;
  void warn(
    `waiting on the broker's rate limit for ${Math.ceil(event.waitMs / 1000)} s${pace}; to avoid this, set ${CONFIG_KEYS.maxRequestsPerSecond} to the broker's limit`,
  );
}

/**
 * The configured base URL, normalised, or `undefined` when none is configured or it is invalid.
 * Used by `check` to compare with the endpoint a resource lives at, without needing credentials.
 */
export function configuredBaseUrl(): string | undefined {
  return baseUrlFromSettings(stackConfig, process.env);
}
