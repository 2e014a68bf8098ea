/**
 * Drives the real dynamic provider host (`@pulumi/pulumi/cmd/dynamic-provider`) over gRPC, as the
 * engine does, so that request counts and throughput include everything between the engine and the
 * API: gRPC, (de)serialization, the provider shim's `require()` and the implementation.
 * (test/support/provider-host.ts is the tests' fuller version; plain Node cannot load it.)
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import * as path from "node:path";
import * as readline from "node:readline";

/* eslint-disable @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-explicit-any -- the SDK's generated gRPC modules are untyped */

type Props = Record<string, unknown>;

/** A provider host process and a gRPC client of it. */
export class ProviderHost {
  readonly #child: ChildProcess;
  readonly #client: any;
  readonly #modules: any;
  /** Everything the host wrote to stderr (warnings fall back to it: no engine is listening). */
  readonly stderr: string[];

  private constructor(child: ChildProcess, client: any, modules: any, stderr: string[]) {
    this.#child = child;
    this.#client = client;
    this.#modules = modules;
    this.stderr = stderr;
  }

  /** Starts a host whose working directory is `projectDir` (where `require()` of the package resolves). */
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
      struct: fromSdk("google-protobuf/google/protobuf/struct_pb"),
    };
    // The argument is the engine's address; nothing listens there, which the provider tolerates.
    const child = spawn(
      process.execPath,
      [fromProject.resolve("@pulumi/pulumi/cmd/dynamic-provider"), "127.0.0.1:1"],
      {
        cwd: projectDir,
        env: { ...process.env, ...env },
        stdio: ["ignore", "pipe", "pipe"],
      },
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
    });
    const client = new modules.services.ResourceProviderClient(
      `127.0.0.1:${port}`,
      modules.grpc.credentials.createInsecure(),
    );
    return new ProviderHost(child, client, modules, stderr);
  }

  #struct(value: Props): any {
    return this.#modules.struct.Struct.fromJavaScript(value);
  }

  #call<T>(method: string, request: any, convert: (response: any) => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#client[method](request, (error: any, response: any) => {
        if (error) reject(new Error(String(error.details ?? error.message)));
        else resolve(convert(response));
      });
    });
  }

  /** Configure with namespaced stack config, as the engine sends it first. */
  configure(config: Record<string, string>): Promise<void> {
    const request = new this.#modules.messages.ConfigureRequest();
    request.setArgs(this.#struct(config));
    request.setAcceptsecrets(true);
    return this.#call("configure", request, () => undefined);
  }

  /** Check: the normalised inputs and any failures. */
  check(urn: string, olds: Props, news: Props): Promise<{ inputs: Props; failures: string[] }> {
    const request = new this.#modules.messages.CheckRequest();
    request.setUrn(urn);
    request.setOlds(this.#struct(olds));
    request.setNews(this.#struct(news));
    return this.#call("check", request, (response) => ({
      inputs: response.getInputs()?.toJavaScript() ?? {},
      failures: response.getFailuresList().map((f: any) => `${f.getProperty()}: ${f.getReason()}`),
    }));
  }

  /** Diff: whether anything changed. */
  diff(urn: string, id: string, olds: Props, news: Props): Promise<{ changed: boolean }> {
    const request = new this.#modules.messages.DiffRequest();
    request.setUrn(urn);
    request.setId(id);
    request.setOlds(this.#struct(olds));
    request.setNews(this.#struct(news));
    const some = this.#modules.messages.DiffResponse.DiffChanges.DIFF_SOME;
    return this.#call("diff", request, (response) => ({ changed: response.getChanges() === some }));
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

  /** Read (refresh). */
  read(urn: string, id: string, properties: Props): Promise<{ id: string; outs: Props }> {
    const request = new this.#modules.messages.ReadRequest();
    request.setUrn(urn);
    request.setId(id);
    request.setProperties(this.#struct(properties));
    return this.#call("read", request, (response) => ({
      id: response.getId(),
      outs: response.getProperties()?.toJavaScript() ?? {},
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

  /** Stops the host process. */
  async stop(): Promise<void> {
    this.#client.close();
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.#child.once("exit", resolve));
    this.#child.kill("SIGTERM");
    await exited;
  }
}

/** The URN the engine would use for a resource of ours. */
export function urnOf(type: string, name: string): string {
  return `urn:pulumi:bench::bench::pulumi-nodejs:dynamic/broker:${type}::${name}`;
}
