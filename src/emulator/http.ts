/** HTTP plumbing shared by the API and the controls: bounded body reading and JSON responses. */
import type { IncomingMessage, ServerResponse } from "node:http";
import { ApiError } from "./errors";

/** Largest accepted request body (our choice): 1 MiB. */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * After a 413 the rest of the body is discarded (not buffered) for at most this long, so the client can
 * still read the response before the connection is closed.
 */
export const DISCARD_BODY_MS = 2_000;

/** What a handler answers: the pipeline writes it, or replaces it when a fault says so. */
export interface Reply {
  status: number;
  body: unknown;
  headers?: Readonly<Record<string, string>>;
}

function tooLarge(): ApiError {
  return new ApiError(
    413,
    "payload_too_large",
    `The request body exceeds the limit of ${MAX_BODY_BYTES} bytes`,
  );
}

/** Whether the request announces a body, by either framing HTTP/1.1 allows. */
export function hasBody(req: IncomingMessage): boolean {
  const length = req.headers["content-length"];
  return req.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0");
}

/** Whether the Content-Type is JSON (`application/json`, any parameters, any case). */
export function isJsonContentType(req: IncomingMessage): boolean {
  const type = req.headers["content-type"];
  return type !== undefined && type.split(";")[0]?.trim().toLowerCase() === "application/json";
}

/**
 * Reads the whole body up to {@link MAX_BODY_BYTES}. Beyond that it stops collecting and rejects
 * with 413; the remaining bytes are discarded as they arrive, and the socket is destroyed after
 * {@link DISCARD_BODY_MS} if the client keeps sending.
 */
export function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) overflow();
      else chunks.push(chunk);
    };
    const onEnd = (): void => {
      resolve(Buffer.concat(chunks));
    };
    const overflow = (): void => {
      req.removeListener("data", onData);
      req.removeListener("end", onEnd);
      req.resume();
      // Destroying at once would reset the connection before the client reads the 413; a client
      // that stops sending keeps its connection.
      const timer = setTimeout(() => req.socket.destroy(), DISCARD_BODY_MS).unref();
      req.once("end", () => {
        clearTimeout(timer);
      });
      reject(tooLarge());
    };

    if (Number(req.headers["content-length"] ?? "0") > MAX_BODY_BYTES) {
      overflow();
      return;
    }
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", reject);
    // A client that goes away mid-body must not leave the promise pending forever.
    req.on("close", () => {
      reject(new Error("the client closed the connection before the body ended"));
    });
  });
}

/** Parses a JSON body; an empty body reads as no body, anything unparsable is a 400 `malformed_json`. */
export function parseJson(raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  try {
    return JSON.parse(raw.toString("utf8")) as unknown;
  } catch {
    throw new ApiError(400, "malformed_json", "The request body is not valid JSON");
  }
}

/** The reply for a thrown value: an {@link ApiError} as itself, anything else as a 500 `internal`. */
export function errorReply(error: unknown): Reply {
  if (error instanceof ApiError)
    return { status: error.status, body: error.toBody(), headers: error.headers };
  return { status: 500, body: { code: "internal", message: "The emulator failed to handle the request" } };
}

/** Writes a JSON reply, unless the client is already gone. */
export function sendReply(res: ServerResponse, reply: Reply): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(reply.body);
  res.writeHead(reply.status, {
    ...reply.headers,
    "content-type": "application/json; charset=utf-8",
    "content-length": String(Buffer.byteLength(text)),
  });
  res.end(text);
}

/**
 * The JSON body of a request: `undefined` when there is none, 415 when a body is not declared as JSON,
 * 413 when too large, 400 when unparsable.
 */
export async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  if (!hasBody(req)) return undefined;
  if (!isJsonContentType(req)) {
    throw new ApiError(
      415,
      "unsupported_media_type",
      "A request body must be sent with Content-Type: application/json",
    );
  }
  return parseJson(await readBody(req));
}
