/**
 * The bottom layer of `request()`: one attempt on the wire through the undici dispatcher, and what
 * came back. It neither waits, retries nor judges a status: the layers above do.
 */
import type { Dispatcher } from "undici";

import type { EndpointInfo } from "./endpoints";

/** A response, read in full. */
export interface Received {
  status: number;
  headers: Dispatcher.ResponseData["headers"];
  text: string;
}

/** The response of one attempt, or why none arrived. */
export type Sent = ({ ok: true } & Received) | { ok: false; error: unknown };

/** Sends one attempt of a call; every layer of the pipeline takes one and gives one back. */
export type Send = () => Promise<Sent>;

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
