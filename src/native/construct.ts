/**
 * The plugin's `Construct`: the engine asks it to build a component (`isComponent` in the schema)
 * and passes the resource monitor's address; the component registers its children there itself.
 *
 * The Pulumi runtime plumbing is the SDK's own, as `@pulumi/pulumi/provider`'s server does it
 * (`provider/server.js`, `Server.construct`): the runtime's options and stack config are reset from
 * the request, the inputs deserialized with their dependencies (`deserializeInputs`), the component
 * built in an async-local runtime state of its own (`withLocalStorage`) with the request's parent,
 * providers and options, its state serialized (`serializeResourceProperties`), and the answer sent
 * once the runtime's RPCs are done (`waitForRPCs`). This file only translates the request and
 * answer; which components exist is {@link COMPONENT_BUILDERS}.
 *
 * The SDK is the `@pulumi/pulumi` installed beside the plugin (bundled into the single executable),
 * required here when the first `Construct` arrives: the resource operations never load its runtime.
 */
import type * as pulumi from "@pulumi/pulumi";
import { LogSeverity, type LogRequest } from "@pulumi/pulumi/proto/engine_pb";
import { ConstructResponse, type ConstructRequest } from "@pulumi/pulumi/proto/provider_pb";
import type { Struct } from "google-protobuf/google/protobuf/struct_pb";
import { Struct as StructMessage } from "google-protobuf/google/protobuf/struct_pb";
import { ENVIRONMENT } from "../core/declarations";
import { UnknownResourceTypeError } from "./errors";
import { BrokerError } from "../client/errors";

/** A component's builder: its URN and the state `Construct` answers (outputs, possibly secret). */
export type ComponentBuilder = (
  name: string,
  inputs: Record<string, unknown>,
  opts: pulumi.ComponentResourceOptions,
) => { urn: pulumi.Output<string>; state: Record<string, unknown> };

/** The components the plugin builds, by type token; each module is loaded on first use. */
export const COMPONENT_BUILDERS: ReadonlyMap<string, () => ComponentBuilder> = new Map([
  [
    ENVIRONMENT.token,
    () => (require("./environment") as typeof import("./environment")).constructEnvironment,
  ],
]);

/** The parts of the SDK's runtime that `Construct` needs (internal to the SDK, so typed here). */
interface SdkRuntime {
  readonly pulumi: typeof import("@pulumi/pulumi");
  readonly settings: {
    resetOptions(
      project: string,
      stack: string,
      parallel: number,
      engineAddr: string,
      monitorAddr: string,
      preview: boolean,
      organization: string,
    ): void;
    awaitFeatureSupport?(): Promise<void>;
    waitForRPCs(): Promise<void>;
    /** The client of the engine's log service for this Construct's store (made on first use). */
    getEngine(): EngineLog | undefined;
  };
  readonly config: { setAllConfig(config: Record<string, string>, secretKeys?: string[]): void };
  readonly state: { withLocalStorage<T>(callback: () => Promise<T>): Promise<T> };
  readonly rpc: {
    serializeResourceProperties(
      label: string,
      props: Record<string, unknown>,
    ): Promise<[Record<string, unknown>, Map<string, Set<pulumi.Resource>>]>;
  };
  readonly server: {
    deserializeInputs(
      inputs: Struct | undefined,
      dependencies: ReturnType<ConstructRequest["getInputdependenciesMap"]>,
    ): Promise<Record<string, unknown>>;
  };
}

/** The engine's log service as the SDK's runtime calls it (`log/index.js`). */
interface EngineLog {
  log(request: LogRequest, callback: (error: Error | null) => void): unknown;
}

/**
 * Keeps the SDK runtime's debug lines of this Construct from the engine. The runtime logs each
 * registration's answer at debug level, its outputs whole (`RegisterResource RPC finished: … resp: …`),
 * and a child access key's outputs hold its value: `pulumi up --json` and `--debug` would print it
 * (docs/resources.md, "Secrets"). Information, warnings and errors still reach the engine.
 */
function withoutDebugLines(engine: EngineLog | undefined): void {
  if (engine === undefined) return;
  const forward = engine.log.bind(engine);
  engine.log = (request, callback) => {
    if (request.getSeverity() === LogSeverity.DEBUG) {
      callback(null);
      return undefined;
    }
    return forward(request, callback);
  };
}

function sdkRuntime(): SdkRuntime {
  return {
    pulumi: require("@pulumi/pulumi") as SdkRuntime["pulumi"],
    settings: require("@pulumi/pulumi/runtime/settings") as SdkRuntime["settings"],
    config: require("@pulumi/pulumi/runtime/config") as SdkRuntime["config"],
    state: require("@pulumi/pulumi/runtime/state") as SdkRuntime["state"],
    rpc: require("@pulumi/pulumi/runtime/rpc") as SdkRuntime["rpc"],
    server: require("@pulumi/pulumi/provider/server") as SdkRuntime["server"],
  };
}

/** The input `name` of a component is not known yet (the output of a resource still to be made). */
export class UnknownComponentInputError extends BrokerError {
  constructor(type: string, name: string) {
    super(
      "BROKER_COMPONENT_INPUT_UNKNOWN",
      `${type}'s \`${name}\` is not known yet: it decides which resources the component declares, so it must be known when the program runs (a literal, a file's text or stack config), not the output of a resource still to be created.`,
    );
    this.name = "UnknownComponentInputError";
  }
}

/**
 * Answers `Construct`: builds the component of the request's type and reports its URN and state.
 * @param engineAddress The engine's address, which the runtime logs to.
 */
export async function construct(
  request: ConstructRequest,
  engineAddress: string | undefined,
): Promise<ConstructResponse> {
  const type = request.getType();
  const builder = COMPONENT_BUILDERS.get(type);
  if (builder === undefined) throw new UnknownResourceTypeError(type, [...COMPONENT_BUILDERS.keys()]);
  if (engineAddress === undefined)
    throw new Error(
      "The broker provider cannot build a component: it was started without the engine's address. Let the Pulumi engine start the plugin (or attach it with PULUMI_DEBUG_PROVIDERS).",
    );
  const sdk = sdkRuntime();
  // The runtime's settings are globals of the SDK's async-local store: each Construct gets its own.
  return sdk.state.withLocalStorage(async () => {
    sdk.settings.resetOptions(
      request.getProject(),
      request.getStack(),
      request.getParallel(),
      engineAddress,
      request.getMonitorendpoint(),
      request.getDryrun(),
      request.getOrganization(),
    );
    withoutDebugLines(sdk.settings.getEngine());
    await sdk.settings.awaitFeatureSupport?.();
    sdk.config.setAllConfig(
      Object.fromEntries(request.getConfigMap().entries()),
      request.getConfigsecretkeysList(),
    );

    const inputs = await sdk.server.deserializeInputs(request.getInputs(), request.getInputdependenciesMap());
    const known = await knownInputs(sdk.pulumi, type, inputs);
    const { urn, state } = builder()(request.getName(), known, componentOptions(sdk.pulumi, request));

    const response = new ConstructResponse();
    response.setUrn(await promiseOf(sdk.pulumi.output(urn)));
    const [serialized, dependencies] = await sdk.rpc.serializeResourceProperties(
      `construct(${type}, ${request.getName()})`,
      state,
    );
    const dependencyMap = response.getStatedependenciesMap();
    for (const [key, resources] of dependencies) {
      const urns = await Promise.all([...resources].map((r) => promiseOf(r.urn)));
      dependencyMap.set(key, new ConstructResponse.PropertyDependencies().setUrnsList(urns));
    }
    response.setState(
      StructMessage.fromJavaScript(serialized as Parameters<typeof StructMessage.fromJavaScript>[0]),
    );
    // The children's registrations are RPCs still in flight: answer once the engine has them all.
    await sdk.settings.waitForRPCs();
    return response;
  });
}

/** The component's options from the request, as the SDK's provider server rebuilds them. */
function componentOptions(
  sdk: typeof import("@pulumi/pulumi"),
  request: ConstructRequest,
): pulumi.ComponentResourceOptions {
  const providers: Record<string, pulumi.ProviderResource> = {};
  for (const [pkg, ref] of request.getProvidersMap().entries()) {
    // `urn::id` of a provider the program registered (an explicit `broker.Provider`): its children use it.
    providers[pkg] = new sdk.DependencyProviderResource(ref);
  }
  const parent = request.getParent();
  const timeouts = request.getCustomtimeouts()?.toObject();
  return {
    ...(timeouts === undefined ? {} : { customTimeouts: timeouts }),
    providers,
    dependsOn: request.getDependenciesList().map((urn) => new sdk.DependencyResource(urn)),
    protect: request.getProtect() ?? false,
    ...(parent === "" ? {} : { parent: new sdk.DependencyResource(parent) }),
    ignoreChanges: request.getIgnorechangesList(),
    replaceOnChanges: request.getReplaceonchangesList(),
    retainOnDelete: request.getRetainondelete() ?? false,
    aliases: request.getAliasesList().flatMap((alias) => aliasOf(sdk, alias)),
  };
}

/** An alias of the request as the SDK's options take it: a URN, or a spec of what changed. */
function aliasOf(
  sdk: typeof import("@pulumi/pulumi"),
  alias: ReturnType<ConstructRequest["getAliasesList"]>[number],
): pulumi.Input<string | pulumi.Alias>[] {
  if (alias.hasUrn()) return [alias.getUrn()];
  const spec = alias.getSpec();
  if (spec === undefined) return [];
  return [
    {
      ...(spec.getName() === "" ? {} : { name: spec.getName() }),
      ...(spec.getType() === "" ? {} : { type: spec.getType() }),
      ...(spec.getProject() === "" ? {} : { project: spec.getProject() }),
      ...(spec.getStack() === "" ? {} : { stack: spec.getStack() }),
      ...(spec.hasParenturn()
        ? { parent: spec.getParenturn() }
        : spec.hasNoparent() && spec.getNoparent()
          ? { parent: sdk.rootStackResource }
          : {}),
    },
  ];
}

/**
 * The inputs as plain values: a component that declares resources from its inputs needs them known.
 * Secret or dependent inputs arrive as outputs; their values are taken (a document holds no secret:
 * key values are never in one), and an unknown one fails with {@link UnknownComponentInputError}.
 * @internal Exported for its unit test.
 */
export async function knownInputs(
  sdk: typeof import("@pulumi/pulumi"),
  type: string,
  inputs: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const known: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(inputs)) {
    if (!sdk.Output.isInstance(value)) {
      known[name] = value;
      continue;
    }
    const internal = value as unknown as InternalOutput;
    if (!(await internal.isKnown)) throw new UnknownComponentInputError(type, name);
    known[name] = await internal.promise();
  }
  return known;
}

/** What the SDK's `Output` has beyond its public type: its value and whether it is known. */
interface InternalOutput {
  readonly isKnown: Promise<boolean>;
  promise(withUnknowns?: boolean): Promise<unknown>;
}

function promiseOf<T>(output: pulumi.Output<T>): Promise<T> {
  return (output as unknown as InternalOutput).promise() as Promise<T>;
}
