/**
 * The test controls under `/_emulator`: no auth, JSON in and out, never part of the API (not in
 * openapi.yaml, not in the request log, not subject to faults).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { apiRouter } from "./api-routes";
import { CONTROLS_PREFIX } from "./control-types";
import type { Broker } from "./broker";
import { notFound } from "./errors";
import { parseFaultSpec, type FaultRegistry } from "./faults";
import { parseRateLimitSpec, type RateLimiter } from "./rate-limit";
import { errorReply, readJsonBody, sendReply, type Reply } from "./http";
import type { RequestLog } from "./request-log";
import { Router } from "./router";
import { parsePermissionsInput, parseSettings, parseWorkspacePatch } from "./validation";

/** What the controls work with. */
export interface ControlDependencies {
  broker: Broker;
  faults: FaultRegistry;
  rateLimiter: RateLimiter;
  log: RequestLog;
  reportError: (error: unknown) => void;
}

interface ControlContext {
  deps: ControlDependencies;
  params: Readonly<Record<string, string>>;
  body: unknown;
}

type ControlHandler = (context: ControlContext) => Reply;

const OK: Reply = { status: 200, body: { ok: true } };

function idParam(context: ControlContext): number {
  const raw = context.params.id ?? "";
  if (!/^\d+$/.test(raw)) throw notFound("The id in the path must be a decimal number");
  return Number(raw);
}

const API_ROUTE_KEYS = apiRouter.keys();

const controlsRouter = new Router<ControlHandler>([
  {
    method: "GET",
    template: "/requests",
    handler: ({ deps }) => ({ status: 200, body: { requests: deps.log.list() } }),
  },
  {
    method: "DELETE",
    template: "/requests",
    handler: ({ deps }) => {
      deps.log.clear();
      return OK;
    },
  },
  {
    method: "POST",
    template: "/reset",
    handler: ({ deps }) => {
      deps.broker.reset();
      deps.faults.clear();
      deps.rateLimiter.reset();
      deps.log.clear();
      return OK;
    },
  },
  {
    method: "POST",
    template: "/faults",
    handler: ({ deps, body }) => ({
      status: 201,
      body: { id: deps.faults.add(parseFaultSpec(body, API_ROUTE_KEYS)) },
    }),
  },
  {
    method: "GET",
    template: "/faults",
    handler: ({ deps }) => ({ status: 200, body: { faults: deps.faults.list() } }),
  },
  {
    method: "DELETE",
    template: "/faults",
    handler: ({ deps }) => {
      deps.faults.clear();
      return OK;
    },
  },
  {
    method: "GET",
    template: "/rate-limit",
    handler: ({ deps }) => ({ status: 200, body: deps.rateLimiter.status() }),
  },
  {
    method: "PUT",
    template: "/rate-limit",
    handler: ({ deps, body }) => {
      deps.rateLimiter.set(parseRateLimitSpec(body));
      return { status: 200, body: deps.rateLimiter.status() };
    },
  },
  {
    method: "DELETE",
    template: "/rate-limit",
    handler: ({ deps }) => {
      deps.rateLimiter.set(undefined);
      return OK;
    },
  },
  {
    method: "PUT",
    template: "/settings",
    handler: ({ deps, body }) => {
      deps.broker.permissionsMode = parseSettings(body).permissionsMode;
      return { status: 200, body: { permissionsMode: deps.broker.permissionsMode } };
    },
  },
  {
    method: "PUT",
    template: "/access-keys/{id}/permissions",
    handler: (context) => {
      context.deps.broker.replacePermissions(idParam(context), parsePermissionsInput(context.body, "body"));
      return OK;
    },
  },
  {
    method: "DELETE",
    template: "/access-keys/{id}",
    handler: (context) => {
      context.deps.broker.removeAccessKey(idParam(context));
      return OK;
    },
  },
  {
    method: "GET",
    template: "/access-keys/{id}/public-key",
    handler: (context) => {
      const key = context.deps.broker.requireKeyById(idParam(context));
      if (!key.keyPair) throw notFound(`Access key ${key.id} is an ACCOUNT key and has no key pair`);
      return { status: 200, body: { publicKey: key.keyPair.publicKey } };
    },
  },
  {
    method: "PATCH",
    template: "/workspaces/{id}",
    handler: (context) => {
      context.deps.broker.updateWorkspace(idParam(context), parseWorkspacePatch(context.body));
      return OK;
    },
  },
  {
    method: "DELETE",
    template: "/workspaces/{id}",
    handler: (context) => {
      context.deps.broker.removeWorkspace(idParam(context));
      return OK;
    },
  },
  { method: "GET", template: "/stats", handler: ({ deps }) => ({ status: 200, body: deps.broker.stats() }) },
]);

/** Handles one request under `/_emulator` (`path` is relative to it). */
export async function handleControlRequest(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  deps: ControlDependencies,
): Promise<void> {
  const method = req.method ?? "GET";
  let reply: Reply;
  try {
    const found = controlsRouter.resolve(method, path, CONTROLS_PREFIX);
    const body = method === "GET" || method === "DELETE" ? undefined : await readJsonBody(req);
    reply = found.handler({ deps, params: found.params, body });
  } catch (error) {
    reply = errorReply(error);
    if (reply.status === 500) deps.reportError(error);
  }
  sendReply(res, reply);
}
