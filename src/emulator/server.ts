/** The HTTP server: splits traffic between the API (`/v1`) and the controls (`/_emulator`). */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { API_PREFIX, handleApiRequest, type ApiDependencies } from "./api";
import { CONTROLS_PREFIX } from "./control-types";
import { handleControlRequest } from "./controls";
import { notFound } from "./errors";
import { errorReply, sendReply } from "./http";

/** What the server needs: the API's dependencies and whether the controls are served. */
export interface ServerDependencies extends ApiDependencies {
  controls: boolean;
}

function under(path: string, prefix: string): string | undefined {
  if (path === prefix) return "";
  return path.startsWith(`${prefix}/`) ? path.slice(prefix.length) : undefined;
}

async function dispatch(req: IncomingMessage, res: ServerResponse, deps: ServerDependencies): Promise<void> {
  const target = req.url ?? "/";
  const mark = target.indexOf("?");
  const path = mark === -1 ? target : target.slice(0, mark);
  const query = new URLSearchParams(mark === -1 ? "" : target.slice(mark + 1));

  const apiPath = under(path, API_PREFIX);
  if (apiPath !== undefined) {
    await handleApiRequest(req, res, { path: apiPath, query }, deps);
    return;
  }
  const controlPath = deps.controls ? under(path, CONTROLS_PREFIX) : undefined;
  if (controlPath !== undefined) {
    await handleControlRequest(req, res, controlPath, deps);
    return;
  }
  sendReply(res, errorReply(notFound(`No route matches this path; the API is served under ${API_PREFIX}`)));
}

/**
 * How long the emulator keeps an idle keep-alive connection open: `0`, no limit; the client closes
 * it (see {@link createEmulatorServer}).
 */
const IDLE_CONNECTION_TIMEOUT_MS = 0;

/** A server whose every request ends in a JSON reply, whatever goes wrong inside. */
export function createEmulatorServer(deps: ServerDependencies): Server {
  const server = createServer((req, res) => {
    dispatch(req, res, deps).catch((error: unknown) => {
      deps.reportError(error);
      sendReply(res, errorReply(error));
    });
  });
  // Idle keep-alive connections are closed by the client alone. Had the server its own idle timer
  // (Node's default is 5 s), a client could send on a connection the server closes at that very
  // moment and get ECONNRESET: a race that shows under load, when either side's timers run late.
  // With no timer on this side, no `Keep-Alive: timeout` is announced and clients keep their own
  // shorter idle timeout (undici's 4 s); close() still ends every connection at once.
  server.keepAliveTimeout = IDLE_CONNECTION_TIMEOUT_MS;
  // Unparsable HTTP never reaches the handler: answer it (when possible) instead of dropping silently.
  server.on("clientError", (_error, socket) => {
    if (socket.writable) {
      const body = JSON.stringify({
        code: "validation_failed",
        message: "The request is not valid HTTP/1.1",
      });
      socket.end(
        `HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
    } else {
      socket.destroy();
    }
  });
  return server;
}
