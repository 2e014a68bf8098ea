import { spawn, type ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import * as path from "node:path";
import * as readline from "node:readline";

/* eslint-disable @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-explicit-any */

/** The preview sentinel for a value that is not known yet. */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/** A failed gRPC call of the provider host: the message the engine would show, and init-failure details. */
export class ProviderCallError extends Error {
  constructor(
    message: string,
    /** Set when the provider reported "created, but a later step failed". */
    readonly initFailure?: { id: string; properties: Record<string, unknown>; reasons: string[] },
  ) {
    super(message);
    this.name = "ProviderCallError";
  }
}

/**
 * Drives the real dynamic provider host (`@pulumi/pulumi/cmd/dynamic-provider`) over gRPC, as the
 * engine does: a separate `node` process whose working directory is a Pulumi project (here a
 * package fixture), so `require("pulumi-broker-config/...")` in the serialized provider resolves
 * like it does for users.
 */
export class ProviderHost {
  private constructor(
    private readonly child: ChildProcess,
    private readonly client: any,
    private readonly modules: any,
    /** Everything the host wrote to stderr. */
    readonly stderr: string[],
  ) {}

  /** Starts the host in `projectDir` with `env` added to this process's environment. */
  static async start(
    projectDir: string,
    env: Record<string, string | undefined> = {},
  ): Promise<ProviderHost> {
    const requireFromProject = createRequire(path.join(projectDir, "package.json"));
    const hostScript = requireFromProject.resolve("@pulumi/pulumi/cmd/dynamic-provider");
    const sdk = path.dirname(requireFromProject.resolve("@pulumi/pulumi/package.json"));
    const requireFromSdk = createRequire(path.join(sdk, "package.json"));
    const modules = {
      grpc: requireFromSdk("@grpc/grpc-js"),
      services: requireFromSdk("./proto/provider_grpc_pb"),
      messages: requireFromSdk("./proto/provider_pb"),
      status: requireFromSdk("./proto/status_pb"),
      struct: requireFromSdk("google-protobuf/google/protobuf/struct_pb"),
    };
    // The first argument is the engine address; nothing here listens on it, so warnings from the
    // provider fall back to stderr, which we collect.
    const child = spawn(process.execPath, [hostScript, "127.0.0.1:1"], {
      cwd: projectDir,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const stderr: string[] = [];
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => stderr.push(chunk));
    const port = await new Promise<string>((resolve, reject) => {
      const lines = readline.createInterface({ input: child.stdout });
      lines.once("line", (line) => {
        resolve(line.trim());
      });
      child.once("exit", (code) => {
        reject(new Error(`provider host exited with ${code}: ${stderr.join("")}`));
      });
    });
    const client = new modules.services.ResourceProviderClient(
      `127.0.0.1:${port}`,
      modules.grpc.credentials.createInsecure(),
    );
    return new ProviderHost(child, client, modules, stderr);
  }

  private struct(value: Record<string, unknown>): any {
    return this.modules.struct.Struct.fromJavaScript(value);
  }

  private call<T>(method: string, request: any, convert: (response: any) => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.client[method](request, (error: any, response: any) => {
        if (error) {
          reject(this.toCallError(error));
          return;
        }
        resolve(convert(response));
      });
    });
  }

  private toCallError(error: any): ProviderCallError {
    const raw = error.metadata?.get("grpc-status-details-bin")?.[0];
    if (raw === undefined) return new ProviderCallError(String(error.details ?? error.message));
    const status = this.modules.status.Status.deserializeBinary(raw);
    const detail = status.getDetailsList()[0];
    const failure = this.modules.messages.ErrorResourceInitFailed.deserializeBinary(detail.getValue());
    return new ProviderCallError(String(error.details ?? error.message), {
      id: failure.getId(),
      properties: failure.getProperties()?.toJavaScript() ?? {},
      reasons: failure.getReasonsList(),
    });
  }

  /** Configure, as the engine sends it first: `config` holds namespaced stack config keys. */
  configure(config: Record<string, string>): Promise<void> {
    const request = new this.modules.messages.ConfigureRequest();
    request.setArgs(this.struct(config));
    request.setAcceptsecrets(true);
    return this.call("configure", request, () => undefined);
  }

  /** Check: returns the normalised inputs and the failures. */
  check(
    urn: string,
    olds: Record<string, unknown>,
    news: Record<string, unknown>,
  ): Promise<{ inputs: Record<string, unknown>; failures: { property: string; reason: string }[] }> {
    const request = new this.modules.messages.CheckRequest();
    request.setUrn(urn);
    request.setOlds(this.struct(olds));
    request.setNews(this.struct(news));
    return this.call("check", request, (response) => ({
      inputs: response.getInputs()?.toJavaScript() ?? {},
      failures: response
        .getFailuresList()
        .map((f: any) => ({ property: f.getProperty(), reason: f.getReason() })),
    }));
  }

  /** Diff: `changes` is "some", "none" or "unknown". */
  diff(
    urn: string,
    id: string,
    olds: Record<string, unknown>,
    news: Record<string, unknown>,
  ): Promise<{ changes: "some" | "none" | "unknown"; replaces: string[] }> {
    const request = new this.modules.messages.DiffRequest();
    request.setUrn(urn);
    request.setId(id);
    request.setOlds(this.struct(olds));
    request.setNews(this.struct(news));
    const kinds = this.modules.messages.DiffResponse.DiffChanges;
    return this.call("diff", request, (response) => ({
      changes:
        response.getChanges() === kinds.DIFF_SOME
          ? "some"
          : response.getChanges() === kinds.DIFF_NONE
            ? "none"
            : "unknown",
      replaces: response.getReplacesList(),
    }));
  }

  /** Create: returns the id and outputs. */
  create(
    urn: string,
    properties: Record<string, unknown>,
  ): Promise<{ id: string; outs: Record<string, unknown> }> {
    const request = new this.modules.messages.CreateRequest();
    request.setUrn(urn);
    request.setProperties(this.struct(properties));
    return this.call("create", request, (response) => ({
      id: response.getId(),
      outs: response.getProperties()?.toJavaScript() ?? {},
    }));
  }

  /** Read (refresh): an empty id means the object is gone. */
  read(
    urn: string,
    id: string,
    properties: Record<string, unknown>,
  ): Promise<{ id: string; outs: Record<string, unknown>; inputs: Record<string, unknown> | undefined }> {
    const request = new this.modules.messages.ReadRequest();
    request.setUrn(urn);
    request.setId(id);
    request.setProperties(this.struct(properties));
    return this.call("read", request, (response) => ({
      id: response.getId(),
      outs: response.getProperties()?.toJavaScript() ?? {},
      inputs: response.getInputs()?.toJavaScript(),
    }));
  }

  /** Update: returns the new outputs. */
  update(
    urn: string,
    id: string,
    olds: Record<string, unknown>,
    news: Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    const request = new this.modules.messages.UpdateRequest();
    request.setUrn(urn);
    request.setId(id);
    request.setOlds(this.struct(olds));
    request.setNews(this.struct(news));
    return this.call("update", request, (response) => response.getProperties()?.toJavaScript() ?? {});
  }

  /** Delete. */
  delete(urn: string, id: string, properties: Record<string, unknown>): Promise<void> {
    const request = new this.modules.messages.DeleteRequest();
    request.setUrn(urn);
    request.setId(id);
    request.setProperties(this.struct(properties));
    return this.call("delete", request, () => undefined);
  }

  /** Stops the host process. */
  async stop(): Promise<void> {
    this.client.close();
    if (this.child.exitCode !== null) return;
    const exited = new Promise((resolve) => this.child.once("exit", resolve));
    this.child.kill("SIGTERM");
    await exited;
  }
}
