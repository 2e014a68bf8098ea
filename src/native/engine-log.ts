/**
 * Messages for the user, through the engine's `Log` RPC.
 *
 * A provider plugin's stdout carries only its port, and whatever it writes to stderr goes to the
 * engine's debug log, which users do not see. Warnings (a key left on the broker, an API key that
 * is not a secret, rate-limit notices) therefore go to the engine, attached to the resource they
 * are about, so that `pulumi up` shows them under that resource.
 */
import { credentials } from "@grpc/grpc-js";
import { EngineClient } from "@pulumi/pulumi/proto/engine_grpc_pb";
import { LogRequest, LogSeverity } from "@pulumi/pulumi/proto/engine_pb";

/** How serious a message is, as the engine shows it. */
export type Severity = "debug" | "info" | "warning" | "error";

const SEVERITIES: Readonly<Record<Severity, LogSeverity>> = {
  debug: LogSeverity.DEBUG,
  info: LogSeverity.INFO,
  warning: LogSeverity.WARNING,
  error: LogSeverity.ERROR,
};

/** Sends messages to the user. Never throws: a message must not fail an operation that succeeded. */
export interface EngineLog {
  /**
   * Shows `message` with `severity`, attached to the resource `urn` (or to the whole operation
   * when `urn` is absent or empty).
   */
  log(severity: Severity, message: string, urn?: string): Promise<void>;
  /** The same log with every message attached to `urn`. */
  forResource(urn: string): ResourceLog;
  /** Closes the connection to the engine. */
  close(): void;
}

/** Messages about one resource. */
export interface ResourceLog {
  /** Shows a warning under the resource. */
  warn(message: string): Promise<void>;
  /** Shows an informational message under the resource. */
  info(message: string): Promise<void>;
}

/** Writes a message to stderr: the engine's debug log, the only place left when the engine is unreachable. */
function toStderr(severity: Severity, message: string): void {
  process.stderr.write(`${severity}: ${message}\n`);
}

/**
 * A log that sends to the engine at `address` (the engine's `host:port`, the plugin's first
 * argument), or to stderr when there is none. A message the engine refuses also goes to stderr.
 */
export function engineLog(address: string | undefined): EngineLog {
  const client =
    address === undefined || address === ""
      ? undefined
      : new EngineClient(address, credentials.createInsecure());
  const log = (severity: Severity, message: string, urn = ""): Promise<void> => {
    if (client === undefined) {
      toStderr(severity, message);
      return Promise.resolve();
    }
    const request = new LogRequest();
    request.setSeverity(SEVERITIES[severity]);
    request.setMessage(message);
    request.setUrn(urn);
    return new Promise<void>((resolve) => {
      try {
        client.log(request, (error) => {
          if (error !== null) toStderr(severity, message);
          resolve();
        });
      } catch {
        toStderr(severity, message);
        resolve();
      }
    });
  };
  return {
    log,
    forResource: (urn) => ({
      warn: (message) => log("warning", message, urn),
      info: (message) => log("info", message, urn),
    }),
    close: () => client?.close(),
  };
}
