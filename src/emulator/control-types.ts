/** Types of the emulator's test controls (`/_emulator`), shared by the server and {@link EmulatorControls}. */
import type { PermissionsMode } from "./types";

/** The path prefix of the controls, beside `/v1` on the same origin. */
export const CONTROLS_PREFIX = "/_emulator";

/**
 * What a fault does to a matching request:
 * - `latency`: waits `latencyMs` before handling the request (or before answering, with phase "after");
 *   the wait ends when the client closes the connection, and the request is then dropped;
 * - `429`: answers 429 `rate_limited` with a `Retry-After` header;
 * - `503`: answers 503 `service_unavailable`;
 * - `reset`: destroys the connection without an answer (the client sees ECONNRESET / "other side closed").
 */
export type FaultKind = "latency" | "429" | "503" | "reset";

/**
 * When a fault strikes. "before": the request is not processed. "after": the request IS processed
 * (a write is committed), then the fault replaces the answer: a lost response.
 */
export type FaultPhase = "before" | "after";

/** A fault to inject into `/v1` requests. Without `rate` and `count` it applies to every matching request. */
export interface FaultSpec {
  kind: FaultKind;
  /** Probability (0..1) that a matching request is affected. */
  rate?: number;
  /** Affect only the next N matching requests (that the `rate` selects); then the fault is removed. */
  count?: number;
  /**
   * Let the first N matching requests through unaffected, then strike: "the 16th create", exactly,
   * whatever the timing. @default 0
   */
  skip?: number;
  /** Delay of a `latency` fault, in milliseconds (required for `latency`). */
  latencyMs?: number;
  /** `Retry-After` value of a `429` fault. @default "1" */
  retryAfter?: number | string;
  /** Route keys such as `"POST /access-key"` or `"GET /access-key/{accessKey}/permissions"`. @default all /v1 routes */
  routes?: string[];
  /** @default "before" */
  phase?: FaultPhase;
  /** Seed of a deterministic PRNG for `rate`; without it `Math.random` decides. */
  seed?: number;
}

/** An active fault as `GET /_emulator/faults` lists it. */
export interface ActiveFault extends FaultSpec {
  id: string;
  /** How many more requests it affects, when it was given a `count`. */
  remaining?: number;
  /** How many requests it has affected so far. */
  applied: number;
}

/** One `/v1` request as the request log records it: never key values, headers or bodies. */
export interface RequestLogEntry {
  /** Arrival order, starting at 1 and never reused (not even after clearing the log). */
  seq: number;
  method: string;
  /** `"POST /access-key"`, the route template; for an unknown route the method and redacted path. */
  route: string;
  /**
   * The status sent; 0 when a `reset` fault destroyed the connection instead; 499 when the client
   * closed the connection while a `latency` fault held the request (nothing was sent; with phase
   * "before" the request was not processed).
   */
  status: number;
  /** The kind of fault applied, if any (the answering one when a latency fault applied too). */
  fault?: FaultKind;
  /** Present when the rate limit refused the request (a 429 of the limiter, not of a fault). */
  rateLimited?: true;
}

/** Object counts, as `GET /_emulator/stats` returns them. */
export interface EmulatorStats {
  accessKeys: number;
  workspaces: number;
}

/** An out-of-band change to a workspace: rename and/or move (parentId 0 = top level). */
export interface WorkspacePatch {
  name?: string;
  parentId?: number;
}

/** Settings the controls can change at run time. */
export interface EmulatorSettings {
  permissionsMode: PermissionsMode;
}

/** Whose requests share a rate-limit window: each API key its own (`key`), or all requests one (`overall`). */
export type RateLimitScope = "key" | "overall";

/** A rate limit: at most `requestsPerSecond` admitted requests in any one-second window. */
export interface RateLimitSpec {
  /** Requests admitted per second (an integer from 1 to 10 000); the rest get 429 with `Retry-After`. */
  requestsPerSecond: number;
  /** @default "key" */
  scope?: RateLimitScope;
}

/** The rate limit in force, as `GET /_emulator/rate-limit` returns it. */
export interface RateLimitStatus {
  /** The limit, or `null` when requests are not limited. */
  limit: RateLimitSpec | null;
  /**
   * How many requests the limit refused with 429 since the emulator started or was last reset (an
   * "after" fault may still replace such an answer, as it replaces any other).
   */
  rateLimitedResponses: number;
}
