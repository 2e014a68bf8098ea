import { configuredBaseUrl } from "./connection";
import { isUnknown } from "./unknown";
import { checkOptionalBoolean, type CheckFailures } from "./validation";

/**
 * Every resource records the API endpoint (`baseUrl`, never a secret) it lives at. A stack whose
 * `broker:baseUrl` later points elsewhere (say, a dev stack edited to the prod URL) must not silently
 * read, change or forget objects in the wrong environment.
 */

/** Inputs every resource shares for endpoint tracking. */
export interface EndpointInputs {
  /** The endpoint the resource lives at, recorded by `check`. */
  baseUrl?: string;
  /** Set to move the resource deliberately to the newly configured endpoint (it is replaced there). */
  allowEndpointChange?: boolean;
}

/**
 * Decides which endpoint `check` records for a resource, and reports a failure on `baseUrl` when
 * the configured endpoint differs from the recorded one without `allowEndpointChange`.
 */
export function checkEndpoint(
  failures: CheckFailures,
  olds: EndpointInputs | undefined,
  news: EndpointInputs,
): string | undefined {
  // Recorded URLs are the client's normalised form, comparable as they are.
  const recorded = typeof olds?.baseUrl === "string" ? olds.baseUrl : undefined;
  const configured = configuredBaseUrl();
  if (configured === undefined) return recorded;
  if (recorded !== undefined && recorded !== configured && news.allowEndpointChange !== true) {
    failures.add("baseUrl", endpointMismatchMessage(recorded, configured));
    return recorded;
  }
  return configured;
}

/**
 * The part of `check` every resource type shares: validates `allowEndpointChange` (default false)
 * and records in `inputs` the endpoint the resource lives at.
 */
export function checkEndpointInputs(
  failures: CheckFailures,
  olds: EndpointInputs | undefined,
  news: Record<string, unknown>,
  inputs: Record<string, unknown>,
): void {
  checkOptionalBoolean(failures, "allowEndpointChange", news["allowEndpointChange"]);
  inputs["allowEndpointChange"] = news["allowEndpointChange"] ?? false;
  const baseUrl = checkEndpoint(failures, olds, news);
  if (baseUrl !== undefined) inputs["baseUrl"] = baseUrl;
}

/**
 * Whether a diff moves the resource to another endpoint. A preview without `broker:baseUrl`
 * configured carries no endpoint: that is not a move.
 */
export function endpointMoved(olds: Record<string, unknown>, news: Record<string, unknown>): boolean {
  const old = olds["baseUrl"];
  const value = news["baseUrl"];
  if (isUnknown(value)) return true;
  return typeof old === "string" && typeof value === "string" && old !== value;
}

/** Throws when an operation on an existing resource would run against another endpoint than its own. */
export function assertSameEndpoint(recorded: unknown, what: string): void {
  const configured = configuredBaseUrl();
  if (typeof recorded !== "string" || configured === undefined) return;
  if (recorded !== configured) {
    throw new Error(`${what}: ${endpointMismatchMessage(recorded, configured)}`);
  }
}

function endpointMismatchMessage(recorded: string, configured: string): string {
  return (
    `this resource lives at ${recorded}, but broker:baseUrl (or BROKER_BASE_URL) now points to ${configured}. ` +
    "If the stack's configuration points at the wrong environment, fix broker:baseUrl. " +
    "To move the resource on purpose, set `allowEndpointChange: true` on it: it is then created anew at the new endpoint."
  );
}
