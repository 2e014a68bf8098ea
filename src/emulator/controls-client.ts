/** A typed client for the emulator's test controls, over the global `fetch`. */
import {
  CONTROLS_PREFIX,
  type ActiveFault,
  type EmulatorStats,
  type FaultSpec,
  type RateLimitSpec,
  type RateLimitStatus,
  type RequestLogEntry,
  type WorkspacePatch,
} from "./control-types";
import type { PermissionsInput, PermissionsMode } from "./types";

/** A control request that the emulator refused; `code` is the emulator's error code. */
export class EmulatorControlError extends Error {
  override readonly name = "EmulatorControlError";

  constructor(
    message: string,
    /** The HTTP status. */
    readonly status: number,
    /** The emulator's error code, such as `validation_failed` or `not_found`. */
    readonly code: string,
  ) {
    super(message);
  }
}

/**
 * The controls of a running emulator started with `controls: true` (or `--controls`).
 *
 * @example
 * const controls = new EmulatorControls(handle.controlUrl!);
 * await controls.injectFault({ kind: "503", count: 1, routes: ["POST /workspace"] });
 */
export class EmulatorControls {
  /** Base URL of the controls, `<origin>/_emulator`. */
  readonly baseUrl: string;

  /** @param url the control URL, the emulator's origin, or its API URL (only the origin is used). */
  constructor(url: string) {
    this.baseUrl = new URL(url).origin + CONTROLS_PREFIX;
  }

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const init: RequestInit = { method };
    if (body !== undefined) {
      init.headers = { "content-type": "application/json" };
      init.body = JSON.stringify(body);
    }
    const response = await fetch(this.baseUrl + path, init);
    const text = await response.text();
    const json: unknown = text === "" ? undefined : JSON.parse(text);
    if (!response.ok) {
      const error = (json ?? {}) as { code?: string; message?: string };
      throw new EmulatorControlError(
        `${method} ${CONTROLS_PREFIX}${path} failed: ${response.status} ${error.message ?? response.statusText}`,
        response.status,
        error.code ?? "unknown",
      );
    }
    return json as T;
  }

  /** The request log, in arrival order. */
  async requests(): Promise<RequestLogEntry[]> {
    return (await this.call<{ requests: RequestLogEntry[] }>("GET", "/requests")).requests;
  }

  /** Empties the request log (sequence numbers keep growing). */
  async clearRequests(): Promise<void> {
    await this.call("DELETE", "/requests");
  }

  /**
   * Deletes everything except the admin key, clears faults and the log, restores the initial permissions
   * mode and rate limit (with empty windows and a zero refusal count).
   */
  async reset(): Promise<void> {
    await this.call("POST", "/reset");
  }

  /** Activates a fault; returns its id. */
  async injectFault(spec: FaultSpec): Promise<string> {
    return (await this.call<{ id: string }>("POST", "/faults", spec)).id;
  }

  /** The active faults. */
  async faults(): Promise<ActiveFault[]> {
    return (await this.call<{ faults: ActiveFault[] }>("GET", "/faults")).faults;
  }

  /** Removes every fault. */
  async clearFaults(): Promise<void> {
    await this.call("DELETE", "/faults");
  }

  /**
   * Limits `/v1` requests from now on (replacing any limit; every window starts empty).
   *
   * @example
   * await controls.setRateLimit({ requestsPerSecond: 5, scope: "overall" });
   */
  async setRateLimit(spec: RateLimitSpec): Promise<RateLimitStatus> {
    return this.call<RateLimitStatus>("PUT", "/rate-limit", spec);
  }

  /** Removes the rate limit (the refusal count stays). */
  async clearRateLimit(): Promise<void> {
    await this.call("DELETE", "/rate-limit");
  }

  /** The rate limit in force and how many requests it refused with 429. */
  async rateLimit(): Promise<RateLimitStatus> {
    return this.call<RateLimitStatus>("GET", "/rate-limit");
  }

  /** Switches how `POST /access-key/{accessKey}/permissions` combines lists. */
  async setPermissionsMode(mode: PermissionsMode): Promise<void> {
    await this.call("PUT", "/settings", { permissionsMode: mode });
  }

  /** Replaces all permissions of a key behind the API's back (absent fields become empty). */
  async setKeyPermissions(id: number, permissions: PermissionsInput): Promise<void> {
    await this.call("PUT", `/access-keys/${id}/permissions`, permissions);
  }

  /** Deletes a key behind the API's back (the API has no delete). */
  async removeAccessKey(id: number): Promise<void> {
    await this.call("DELETE", `/access-keys/${id}`);
  }

  /** The public key of a SERVICE key's current pair. */
  async publicKeyOf(id: number): Promise<string> {
    return (await this.call<{ publicKey: string }>("GET", `/access-keys/${id}/public-key`)).publicKey;
  }

  /** Renames and/or moves a workspace behind the API's back. */
  async updateWorkspace(id: number, patch: WorkspacePatch): Promise<void> {
    await this.call("PATCH", `/workspaces/${id}`, patch);
  }

  /** Deletes a workspace and its descendants behind the API's back. */
  async removeWorkspace(id: number): Promise<void> {
    await this.call("DELETE", `/workspaces/${id}`);
  }

  /** How many access keys and workspaces exist. */
  async stats(): Promise<EmulatorStats> {
    return this.call<EmulatorStats>("GET", "/stats");
  }
}
