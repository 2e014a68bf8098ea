/**
 * The shape every layer of `request()` has, how layers are composed, and the bottom of the stack:
 * one attempt on the wire through the undici dispatcher, and what came back. The transport neither
 * waits, retries nor judges a status: the layers above do.
 */
import type { Dispatcher } from "undici";

import type { EndpointInfo } from "./endpoints";

/**
 * Why a failed call was not sent again: the failure is not retried for this request (`final`),
 * attempts are used up (`attempts`), the next wait would not fit in the time budget (`budget`), the
 * server's `Retry-After` alone exceeds what is left of it (`retry-after`), or waiting out a 429 would
 * exceed the rate-limit time budget (`rate-limit`, decided by the pacing layer, `pacing.ts`).
 */
export type StopReason = "final" | "attempts" | "budget" | "retry-after" | "rate-limit";

/** A decision not to send a failed call again, and why; written by the retry layer (`retry.ts`). */
export interface RetryStop {
  readonly retry: false;
  readonly why: StopReason;
}

/** A response, read in full. */
export interface Received {
  status: number;
  headers: Dispatcher.ResponseData["headers"];
  text: string;
}

/**
 * The response of one attempt, or why none arrived, as it travels up the layers. A layer may mark
 * it with what it decided, for the layers above and for the error a failed call throws.
 */
export type Sent = (({ ok: true } & Received) | { ok: false; error: unknown }) & {
  /**
   * Set by the pacing layer on a 429 it did not wait out because the next wait (this many ms)
   * would exceed the call's rate-limit budget. Such a 429 is final, whatever the retry policy says.
   */
  readonly outOfTime?: number;
  /** Set by the retry layer on a failure the call ends with: why it was not sent again. */
  readonly stop?: RetryStop;
};

/** Sends a call's request (again, on each call) and gives back what came of it. */
export type Send = () => Promise<Sent>;

/**
 * A layer of the request pipeline: wraps the `Send` below it into the `Send` the layer above calls.
 * Every layer has this one shape; a layer may call `next` several times (retry, pacing), not at all
 * (cancellation), or once with something around it (counting).
 */
export type Layer = (next: Send) => Send;

/** `layers` (outermost first) composed over `bottom`: the one way the pipeline is assembled. */
export function compose(layers: readonly Layer[], bottom: Send): Send {
  return layers.reduceRight<Send>((next, layer) => layer(next), bottom);
}

/** A request ready for the wire: the same for every attempt of a call. */
export interface WireRequest {
  readonly method: EndpointInfo["method"];
  /** The full path with its query, such as `/v1/access-key?limit=100`. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  /** The JSON body, when there is one. */
  readonly payload: string | undefined;
}

/** Sends `wire` through `dispatcher`, once per call of the returned function. Never throws. */
export function transport(dispatcher: Dispatcher, wire: WireRequest): Send {
  const { method, path, headers, payload } = wire;
  return async () => {
    try {
      const res = await dispatcher.request({ method, path, headers, body: payload ?? null });
      // Always read the body: it frees the connection for the next request.
      return { ok: true, status: res.statusCode, headers: res.headers, text: await res.body.text() };
    } catch (error) {
      return { ok: false, error };
    }
  };
}

/** The first value of a response header, by its lower-case name. */
export function header(headers: Received["headers"], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The error code of a network failure. Node reports connection failures as system errors with a
 * `code`; with autoSelectFamily it may be an AggregateError whose members carry it.
 */
export function networkCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string" && code !== "") return code;
  const errors = (error as { errors?: unknown } | null)?.errors;
  if (Array.isArray(errors))
    for (const inner of errors) if (networkCode(inner) !== "UNKNOWN") return networkCode(inner);
  return "UNKNOWN";
}
