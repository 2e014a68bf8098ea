/**
 * Drives the real dynamic provider host (`@pulumi/pulumi/cmd/dynamic-provider`) over gRPC, as the
 * engine does: a separate `node` process whose working directory is a Pulumi project (here a
 * package fixture), so `require("pulumi-broker-config/...")` in the serialized provider resolves
 * as it does for users. Request counts and timings taken through it include everything between the
 * engine and the API: gRPC, (de)serialization, the provider shim's `require()` and the implementation.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import * as path from "node:path";
import * as readline from "node:readline";
import { startEngineStandIn, type EngineLogMessage, type EngineStandIn } from "./engine-stand-in.mts";

/* eslint-disable @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-explicit-any -- the SDK's generated gRPC modules are untyped */

/** Property values as the provider host sends and receives them. */
type Props = Record<string, unknown>;

/** The preview sentinel for a value that is not known yet. */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/** The URN the engine would give a resource of ours of `type` named `name` (stack `dev`, project `harness`). */
export function urnOf(type: string, name: string): string {
  return `urn:pulumi:dev::harness::pulumi-nodejs:dynamic/broker:${type}::${name}`;
}

/** Details of "created, but a later step failed", which the engine records as a partial create. */
export interface InitFailure {
  id: string;
  properties: Props;
  reasons: string[];
}

/** A failed gRPC call of the provider host: the message the engine would show, and init-failure details. */
export class ProviderCallError extends Error {
  /** Set when the provider reported "created, but a later step failed". */
  readonly initFailure: InitFailure | undefined;

  constructor(message: string, initFailure?: InitFailure) {
    super(message);
    this.name = "ProviderCallError";
    this.initFailure = initFailure;
  }
}

/** A provider host process and a gRPC client of it. */
export class ProviderHost {
  readonly #child: ChildProcess;
  readonly #client: any;
  readonly #modules: any;
  readonly #engine: EngineStandIn;
  /** Everything the host wrote to stderr. */
  readonly stderr: string[];

  private constructor(
    child: ChildProcess,
    client: any,
    modules: any,
    engine: EngineStandIn,
    stderr: string[],
  ) {
    this.#child = child;
    this.#client = client;
    this.#modules = modules;
    this.#engine = engine;
    this.stderr = stderr;
  }

  /** What the host sent to the engine's `Log` RPC: the warnings a user would see in `pulumi up`. */
  get engineLog(): readonly EngineLogMessage[] {
    return this.#engine.messages;
  }

  /** Starts the host in `projectDir` (where `require()` of the package resolves) with `env` added to this process's environment. */
  static async start(
    projectDir: string,
    env: Record<string, string | undefined> = {},
  ): Promise<ProviderHost> {
    const fromProject = createRequire(path.join(projectDir, "package.json"));
    const sdk = path.dirname(fromProject.resolve("@pulumi/pulumi/package.json"));
    const fromSdk = createRequire(path.join(sdk, "package.json"));
    const modules = {
      grpc: fromSdk("@grpc/grpc-js"),
      services: fromSdk("./proto/provider_grpc_pb"),
      messages: fromSdk("./proto/provider_pb"),
      status: fromSdk("./proto/status_pb"),
      struct: fromSdk("google-protobuf/google/protobuf/struct_pb"),
    };
    // The argument is the engine's address. Something must answer there for as long as the host
    // runs, as the engine does: the host watches it and cancels every call once it stops answering.
    const engine = await startEngineStandIn();
    const child = spawn(
      process.execPath,
      [fromProject.resolve("@pulumi/pulumi/cmd/dynamic-provider"), engine.address],
      { cwd: projectDir, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] },
    );
    const stderr: string[] = [];
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => stderr.push(chunk));
    const port = await new Promise<string>((resolve, reject) => {
      readline.createInterface({ input: child.stdout }).once("line", (line) => {
        resolve(line.trim());
      });
      child.once("exit", (code) => {
        reject(new Error(`provider host exited with ${String(code)}: ${stderr.join("")}`));
      });
    }).catch(async (error: unknown) => {
      await engine.close();
      throw error;
    });
    const client = new modules.services.ResourceProviderClient(
      `127.0.0.1:${port}`,
      modules.grpc.credentials.createInsecure(),
    );
    return new ProviderHost(child, client, modules, engine, stderr);
  }

  #struct(value: Props): any {
    return this.#modules.struct.Struct.fromJavaScript(value);
  }

  #call<T>(method: string, request: any, convert: (response: any) => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#client[method](request, (error: any, response: any) => {
        if (error) reject(this.#toCallError(error));
        else resolve(convert(response));
      });
    });
  }

  #toCallError(error: any): ProviderCallError {
    const message = String(error.details ?? error.message);
    const raw = error.metadata?.get("grpc-status-details-bin")?.[0];
    if (raw === undefined) return new ProviderCallError(message);
    const status = this.#modules.status.Status.deserializeBinary(raw);
    const detail = status.getDetailsList()[0];
    const failure = this.#modules.messages.ErrorResourceInitFailed.deserializeBinary(detail.getValue());
    return new ProviderCallError(message, {
      id: failure.getId(),
      properties: failure.getProperties()?.toJavaScript() ?? {},
      reasons: failure.getReasonsList(),
    });
  }

  /** Configure, as the engine sends it first: `config` holds namespaced stack config keys. */
  configure(config: Record<string, string>): Promise<void> {
    const request = new this.#modules.messages.ConfigureRequest();
    request.setArgs(this.#struct(config));
    request.setAcceptsecrets(true);
    return this.#call("configure", request, () => undefined);
  }

  /** Check: the normalised inputs and the failures. */
  check(
    urn: string,
    olds: Props,
    news: Props,
  ): Promise<{ inputs: Props; failures: { property: string; reason: string }[] }> {
    const request = new this.#modules.messages.CheckRequest();
    request.setUrn(urn);
    request.setOlds(this.#struct(olds));
    request.setNews(this.#struct(news));
    return this.#call("check", request, (response) => ({
      inputs: response.getInputs()?.toJavaScript() ?? {},
      failures: response
        .getFailuresList()
        .map((f: any) => ({ property: f.getProperty(), reason: f.getReason() })),
    }));
  }

  /** Diff: `changes` is "some", "none" or "unknown"; `replaces` the properties that force a replacement. */
  diff(
    urn: string,
    id: string,
    olds: Props,
    news: Props,
  ): Promise<{ changes: "some" | "none" | "unknown"; replaces: string[] }> {
    const request = new this.#modules.messages.DiffRequest();
    request.setUrn(urn);
    request.setId(id);
    request.setOlds(this.#struct(olds));
    request.setNews(this.#struct(news));
    const kinds = this.#modules.messages.DiffResponse.DiffChanges;
    return this.#call("diff", request, (response) => ({
      changes:
        response.getChanges() === kinds.DIFF_SOME
          ? "some"
          : response.getChanges() === kinds.DIFF_NONE
            ? "none"
            : "unknown",
      replaces: response.getReplacesList(),
    }));
  }

  /** Create: the id and outputs. */
  create(urn: string, properties: Props): Promise<{ id: string; outs: Props }> {
    const request = new this.#modules.messages.CreateRequest();
    request.setUrn(urn);
    request.setProperties(this.#struct(properties));
    return this.#call("create", request, (response) => ({
      id: response.getId(),
      outs: response.getProperties()?.toJavaScript() ?? {},
    }));
  }

  /** Read (refresh): an empty id means the object is gone. */
  read(
    urn: string,
    id: string,
    properties: Props,
  ): Promise<{ id: string; outs: Props; inputs: Props | undefined }> {
    const request = new this.#modules.messages.ReadRequest();
    request.setUrn(urn);
    request.setId(id);
    request.setProperties(this.#struct(properties));
    return this.#call("read", request, (response) => ({
      id: response.getId(),
      outs: response.getProperties()?.toJavaScript() ?? {},
      inputs: response.getInputs()?.toJavaScript(),
    }));
  }

  /** Update: the new outputs. */
  update(urn: string, id: string, olds: Props, news: Props): Promise<Props> {
    const request = new this.#modules.messages.UpdateRequest();
    request.setUrn(urn);
    request.setId(id);
    request.setOlds(this.#struct(olds));
    request.setNews(this.#struct(news));
    return this.#call("update", request, (response) => response.getProperties()?.toJavaScript() ?? {});
  }

  /** Delete. */
  delete(urn: string, id: string, properties: Props): Promise<void> {
    const request = new this.#modules.messages.DeleteRequest();
    request.setUrn(urn);
    request.setId(id);
    request.setProperties(this.#struct(properties));
    return this.#call("delete", request, () => undefined);
  }

  /** Stops the host process, then its stand-in engine. */
  async stop(): Promise<void> {
    this.#client.close();
    if (this.#child.exitCode === null && this.#child.signalCode === null) {
      const exited = new Promise((resolve) => this.#child.once("exit", resolve));
      this.#child.kill("SIGTERM");
      await exited;
    }
    await this.#engine.close();
  }
}
