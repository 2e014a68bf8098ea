import { BrokerSettingsError } from "./errors";
import { displayUrl } from "./redact";
import { DEFAULT_SETTING_NAMES } from "./setting-names";

/**
 * Checks and normalises the API base URL: an absolute http(s) URL whose path ends in `/v1`; a trailing
 * slash is dropped. `source` names where the value came from (such as `broker:baseUrl (or
 * BROKER_BASE_URL)`) so the error says what to fix; `apiKeySetting` where the API key belongs instead
 * of in the URL's user info.
 *
 * @throws BrokerSettingsError `BROKER_SETTINGS_INVALID` when the value is not such a URL.
 */
export function normalizeBaseUrl(
  value: string,
  source: string,
  apiKeySetting: string = DEFAULT_SETTING_NAMES.apiKey,
): string {
  const example = "such as https://broker.example.com/v1";
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    // The raw value is not echoed: a mistyped secret pasted into the wrong setting must not leak.
    throw new BrokerSettingsError(
      "BROKER_SETTINGS_INVALID",
      `Invalid broker API base URL in ${source}: it is not an absolute URL; use an http(s) URL ending in /v1, ${example}`,
    );
  }
  const problems: string[] = [];
  if (url.protocol !== "http:" && url.protocol !== "https:")
    problems.push(`its scheme is ${url.protocol} (use http or https)`);
  if (!/\/v1\/?$/.test(url.pathname)) problems.push("its path does not end in /v1");
  if (url.search !== "" || url.hash !== "") problems.push("it has a query or fragment");
  if (url.username !== "" || url.password !== "")
    problems.push(`it contains user info (put the API key in ${apiKeySetting})`);
  if (problems.length > 0) {
    throw new BrokerSettingsError(
      "BROKER_SETTINGS_INVALID",
      `Invalid broker API base URL ${displayUrl(url)} in ${source}: ${problems.join("; ")}; use an http(s) URL ending in /v1, ${example}`,
    );
  }
  return displayUrl(url);
}
