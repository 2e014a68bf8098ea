/**
 * Every resource records the API endpoint (`baseUrl`, never a secret) it lives at. A stack whose
 * `broker:baseUrl` later points elsewhere (say, a dev stack edited to the prod URL) must not silently
 * read, change or forget objects in the wrong environment.
 */
import type { PropertyReader } from "./state";
import { checkOptionalBoolean, type CheckFailures } from "./validation";
import type { CheckContext } from "./context";
import { NOT_KNOWN, type NotKnown } from "./unknown";

/** Inputs every resource shares for endpoint tracking. `U` is what a value not known yet becomes. */
export interface EndpointInputsOf<U = never> {
  /** The endpoint the resource lives at, recorded by `check`; absent when none is configured (a preview without settings). */
  baseUrl?: string | U;
  /** Set to move the resource deliberately to the newly configured endpoint (it is replaced there). */
  allowEndpointChange: boolean | U;
}

/** Decodes the endpoint inputs every resource records (`allowEndpointChange`, and `baseUrl` when recorded). */
export function decodeEndpointInputs<U>(r: PropertyReader<U>): EndpointInputsOf<U> {
  const baseUrl = r.optionalString("baseUrl");
  return {
    allowEndpointChange: r.boolean("allowEndpointChange", false),
    ...(baseUrl === undefined ? {} : { baseUrl }),
  };
}

/**
 * The part of `check` every resource type shares: validates `allowEndpointChange`, and decides which
 * endpoint the resource lives at, reporting a failure on `baseUrl` when the configured endpoint
 * differs from the recorded one without `allowEndpointChange: true`.
 *
 * @param recorded the endpoint recorded by the previous `check`, if any.
 * @returns the endpoint to record, `undefined` when neither is known.
 */
export function checkEndpoint(
  ctx: CheckContext,
  failures: CheckFailures,
  recorded: string | undefined,
  allowEndpointChange: unknown,
): string | undefined {
  checkOptionalBoolean(failures, "allowEndpointChange", allowEndpointChange);
  // Recorded URLs are the client's normalised form, comparable as they are.
  const configured = ctx.configuredBaseUrl();
  if (configured === undefined) return recorded;
  if (recorded !== undefined && recorded !== configured && allowEndpointChange !== true) {
    failures.add("baseUrl", endpointMismatchMessage(recorded, configured));
    return recorded;
  }
  return configured;
}

/**
 * Whether a diff moves the resource to another endpoint. A preview without `broker:baseUrl`
 * configured carries no endpoint: that is not a move.
 */
export function endpointMoved(old: string | undefined, now: string | NotKnown | undefined): boolean {
  if (now === NOT_KNOWN) return true;
  return old !== undefined && now !== undefined && old !== now;
}

/** Throws when an operation on an existing resource would run against another endpoint than its own. */
export function assertSameEndpoint(ctx: CheckContext, recorded: string | undefined, what: string): void {
  const configured = ctx.configuredBaseUrl();
  if (recorded === undefined || configured === undefined) return;
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

/**
 * The `baseUrl` part of a resource's state: the endpoint when one is recorded, nothing otherwise
 * (state hand-written or from before endpoints were recorded; the next refresh or update records it).
 */
export function recordedEndpoint(baseUrl: string | undefined): { baseUrl?: string } {
  return baseUrl === undefined ? {} : { baseUrl };
}
