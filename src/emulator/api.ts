/**
 * The `/v1` request pipeline: faults, the rate limit, authentication, routing, body, handler, then the
 * request log and the inspect callback. Faults stand for the network and proxies in front of the
 * service: a request a "before" fault strikes never reaches the service, so it uses none of the rate
 * limit; the limit is the service's own and comes before authentication. Every failure becomes a JSON
 * error reply; nothing here can crash the server.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { apiRouter } from "./api-routes";
import type { Broker } from "./broker";
import type { RequestLogEntry } from "./control-types";
import { faultReply, NO_FAULTS, type FaultRegistry } from "./faults";
import { errorReply, readJsonBody, sendReply, type Reply } from "./http";
import type { EmulatorExchange } from "./options";
import type { RequestLog } from "./request-log";
import { rateLimitedReply, type RateLimiter } from "./rate-limit";
import type { Timers } from "./timers";

/**
 * The status the request log records for a request whose client closed the connection while a
 * latency fault held it (nginx's "client closed request"): no answer was sent.
 */
export const CLIENT_CLOSED_REQUEST = 499;

/** The prefix of every API path: the last segment of the base URL. */
export const API_PREFIX = "/v1";

/** What the API pipeline works with. */
export interface ApiDependencies {
  broker: Broker;
  faults: FaultRegistry;
  rateLimiter: RateLimiter;
  log: RequestLog;
  timers: Timers;
  inspect: ((exchange: EmulatorExchange) => void) | undefined;
  /** Reports an unexpected exception (never sent to the client). */
  reportError: (error: unknown) => void;
}

/** A request target split into its path (relative to `/v1`) and query. */
export interface ApiTarget {
  path: string;
  query: URLSearchParams;
}

function headerValue(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(", ") : value;
}

function firstValues(query: URLSearchParams): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of query) if (!(name in result)) result[name] = value;
  return result;
}

/** Handles one `/v1` request from arrival to the last byte (or the destroyed socket). */
export async function handleApiRequest(
  req: IncomingMessage,
  res: ServerResponse,
  target: ApiTarget,
  deps: ApiDependencies,
): Promise<void> {
  const method = req.method ?? "GET";
  const seq = deps.log.nextSeq();
  const match = apiRouter.match(method, target.path);
  const route = match.kind === "found" ? match.route : undefined;
  const shownPath = apiRouter.loggable(method, target.path);
  const plan = route === undefined ? NO_FAULTS : deps.faults.plan(route);
  let requestBody: unknown;
  let rateLimited = false;

  const record = (status: number): void => {
    const entry: RequestLogEntry = { seq, method, route: route ?? `${method} ${shownPath}`, status };
    if (plan.label !== undefined) entry.fault = plan.label;
    if (rateLimited) entry.rateLimited = true;
    deps.log.record(entry);
  };

  const process = async (): Promise<Reply> => {
    try {
      deps.broker.authenticate(headerValue(req, "x-api-key"));
      const found = apiRouter.resolve(method, target.path, API_PREFIX);
      const body = method === "POST" || method === "PUT" ? await readJsonBody(req) : undefined;
      requestBody = body;
      return found.handler({ broker: deps.broker, params: found.params, query: target.query, body });
    } catch (error) {
      const reply = errorReply(error);
      if (reply.status === 500) deps.reportError(error);
      return reply;
    }
  };

  // A client that closes its connection while its request is held never reads an answer: the hold
  // ends there. Without this, a request held for minutes would still be processed (before) or logged
  // as answered (after) long after its client died, in the middle of whatever a test does by then.
  const clientGone = new AbortController();
  res.once("close", () => {
    if (!res.writableFinished) clientGone.abort();
  });
  const dropped = (): boolean => {
    if (!clientGone.signal.aborted) return false;
    record(CLIENT_CLOSED_REQUEST);
    return true;
  };

  await deps.timers.sleep(plan.delayBeforeMs, clientGone.signal);
  if (deps.timers.closed || (plan.delayBeforeMs > 0 && dropped())) return;
  const action = plan.action;
  let reply: Reply;
  if (action?.phase === "before") {
    if (action.kind === "reset") {
      req.socket.destroy();
      record(0);
      return;
    }
    reply = faultReply(action);
  } else {
    const admission = deps.rateLimiter.admit(headerValue(req, "x-api-key"));
    if (admission.admitted) {
      reply = await process();
    } else {
      reply = rateLimitedReply(admission);
      rateLimited = action === undefined;
    }
    await deps.timers.sleep(plan.delayAfterMs, clientGone.signal);
    if (plan.delayAfterMs > 0 && dropped()) return;
    if (action?.kind === "reset") {
      req.socket.destroy();
      record(0);
      return;
    }
    if (action) reply = faultReply(action);
  }

  sendReply(res, reply);
  record(reply.status);
  if (deps.inspect) {
    try {
      deps.inspect({
        method,
        path: `${API_PREFIX}${shownPath}`,
        route,
        query: firstValues(target.query),
        requestBody,
        status: reply.status,
        responseBody: reply.body,
      });
    } catch (error) {
      deps.reportError(error);
    }
  }
}
