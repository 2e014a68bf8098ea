/**
 * The `broker` provider plugin's gRPC server: the `ResourceProvider` service over the stubs
 * `@pulumi/pulumi` ships.
 *
 * Each method is thin: decode the request (`codec.ts`), ask the provider configuration
 * (`config.ts`) or the resource type's adapter (`resources/`), encode the answer, and map any error
 * through `errors.ts`. `Invoke` runs the look-up functions (`functions.ts`); `Construct` builds the
 * package's components (`construct.ts`: the `Environment`), whose children come back to this server
 * as ordinary resource operations. RPCs this provider does not have (`Call`, `Parameterize`,
 * `GetMapping(s)`) are left out, so the server answers them `UNIMPLEMENTED`, which the engine expects
 * and handles.
 *
 * `Handshake` (CLI 3.259 and 3.274 call it first, and 3.274 negotiates some capabilities only there)
 * is served when the `@pulumi/pulumi` installed beside the plugin ships its stubs (3.259 and 3.270 do,
 * 3.139 does not): the service definition comes from those stubs, so with older ones grpc-js answers
 * it `UNIMPLEMENTED` and the engine falls back to what `Configure` answers, as before.
 */
import {
  Server,
  ServerCredentials,
  status,
  type sendUnaryData,
  type ServerUnaryCall,
  type StatusObject,
  type UntypedServiceImplementation,
} from "@grpc/grpc-js";
import type { PluginAttach } from "@pulumi/pulumi/proto/plugin_pb";
import { PluginInfo } from "@pulumi/pulumi/proto/plugin_pb";
import { ResourceProviderService } from "@pulumi/pulumi/proto/provider_grpc_pb";
import {
  CheckFailure,
  CheckResponse,
  ConfigureResponse,
  type ConstructRequest,
  type ConstructResponse,
  CreateResponse,
  GetSchemaResponse,
  InvokeResponse,
  ProviderHandshakeResponse,
  ReadResponse,
  UpdateResponse,
  type CheckRequest,
  type ConfigureRequest,
  type CreateRequest,
  type DeleteRequest,
  type DiffRequest,
  type GetSchemaRequest,
  type InvokeRequest,
  type ProviderHandshakeRequest,
  type ReadRequest,
  type UpdateRequest,
} from "@pulumi/pulumi/proto/provider_pb";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import type { Struct } from "google-protobuf/google/protobuf/struct_pb";
import { decodeStruct, encodeStruct, type PropertyMap } from "./codec";
import { rateLimitNotifier } from "../core/rate-limit-notice";
import { checkConfig, diffConfig, plainApiKeyWarning, ProviderConfiguration, requestOrigin } from "./config";
import { settingPlace, STACK_ORIGIN, type SettingsOrigin } from "../settings/wording";
import { construct } from "./construct";
import { toDiffResponse } from "./diff";
import { invokeFunction } from "./functions";
import { engineLog, type EngineLog } from "./engine-log";
import { messageOf, toGrpcError, UnknownResourceTypeError, type ErrorContext } from "./errors";
import type { CheckInput, OperationContext, ResourceAdapter } from "./resource-adapter";
import type { AutonamingProposal } from "../core/autoname";
import { packageSchema, packageVersion } from "./schema";

/** The resource type of a request: its `type` field, or the type part of its URN (older engines). */
export function resourceType(type: string, urn: string): string {
  if (type !== "") return type;
  // urn:pulumi:<stack>::<project>::<parent types $-separated>$<type>::<name>
  const qualified = urn.split("::")[2] ?? "";
  return qualified.slice(qualified.lastIndexOf("$") + 1);
}

/** Options of {@link startProviderServer}. */
export interface ServerOptions {
  /** The engine's address (`host:port`) for its `Log` RPC; absent: messages go to stderr. */
  readonly engineAddress?: string | undefined;
  /** The resource types served. */
  readonly resources: readonly ResourceAdapter[];
  /** The environment, for `BROKER_BASE_URL` / `BROKER_API_KEY`. @default process.env */
  readonly env?: NodeJS.ProcessEnv;
  /** The version to report. @default the package's version */
  readonly version?: string;
  /** Where to listen. @default "127.0.0.1:0" (a free port on the loopback interface) */
  readonly address?: string;
}

/** A started server. */
export interface RunningServer {
  /** The port the server listens on: the plugin prints it, and only it, on stdout. */
  readonly port: number;
  /** Fails every call still in flight with `error` (used when the process is about to crash). */
  failInFlight(error: unknown): void;
  /** Cancels the run's calls, as the engine's `Cancel` RPC does (used when the engine is gone). */
  cancel(): void;
  /** Stops accepting calls, waits for the ones in flight, and closes the engine connection. */
  close(): Promise<void>;
}

/** The gRPC settings of the SDK's own servers: the engine may send large states. */
const GRPC_OPTIONS = { "grpc.max_receive_message_length": 400 * 1024 * 1024 };

/** The provider's state and its RPC methods. */
class BrokerProvider {
  private configuration: ProviderConfiguration;
  private log: EngineLog;
  private engineAddress: string | undefined;
  private readonly adapters: ReadonlyMap<string, ResourceAdapter>;
  private readonly pending = new Set<(error: Partial<StatusObject>) => void>();
  /** Whose settings this plugin serves, as the last `CheckConfig` named the provider. */
  private checkedOrigin: SettingsOrigin | undefined;
  /** Aborted by the engine's `Cancel` (or when the engine is gone): every client stops sending. */
  private readonly cancellation = new AbortController();
  /**
   * The resource operations and invokes not yet answered: the calls whose requests may be queued, on
   * the wire, or waiting on the rate limit or a retry's back-off. A `Cancel` that finds none cut
   * nothing short (see {@link BrokerProvider.cancel}).
   */
  private operationsInFlight = 0;

  constructor(
    private readonly options: ServerOptions,
    private readonly version: string,
  ) {
    this.adapters = new Map(options.resources.map((adapter) => [adapter.token, adapter]));
    this.engineAddress = options.engineAddress;
    this.log = engineLog(options.engineAddress);
    // Until Configure arrives, settings come from the environment only.
    this.configuration = new ProviderConfiguration(
      {},
      options.env ?? process.env,
      undefined,
      STACK_ORIGIN,
      this.cancellation.signal,
    );
  }

  /**
   * Cancels the run's calls: the engine sends `Cancel` on the first Ctrl-C (or SIGTERM) and then
   * waits for the operations in flight. Calls not yet on the wire fail at once with
   * `BROKER_CANCELLED`; requests already sent, and the reads that learn what a create made, finish,
   * so the engine records every object that exists.
   *
   * The engine also sends `Cancel` to every plugin it shuts down, at the end of each run that
   * succeeded (CLI 3.259 and 3.274: its plugin host's `Close`). Such a `Cancel` finds no operation in
   * flight and stops nothing, so it is silent: the message tells the user that work was dropped, and
   * only a `Cancel` that meets an operation still running (a request queued or on the wire, a wait on
   * the rate limit, a retry's back-off) says it, once per run.
   */
  cancel(): void {
    if (this.cancellation.signal.aborted) return;
    this.cancellation.abort();
    if (this.operationsInFlight === 0) return;
    void this.log.log(
      "info",
      "broker: the run was cancelled; requests not yet sent are dropped, those already sent finish",
    );
  }

  /**
   * Runs `work` for a unary call, answering its result or the mapped error, and tracks it while in
   * flight; an `operation` (a call that may send requests to the broker) is also counted in
   * {@link BrokerProvider.operationsInFlight} until it is answered.
   */
  private unary<Req, Res>(
    work: (request: Req) => Promise<Res> | Res,
    errorContext: (request: Req) => ErrorContext = () => ({}),
    operation = false,
  ): (call: ServerUnaryCall<Req, Res>, callback: sendUnaryData<Res>) => void {
    return (call, callback) => {
      let settled = false;
      if (operation) this.operationsInFlight += 1;
      const settle = () => {
        settled = true;
        this.pending.delete(fail);
        if (operation) this.operationsInFlight -= 1;
      };
      const fail = (error: Partial<StatusObject>) => {
        if (settled) return;
        settle();
        callback(error, null);
      };
      this.pending.add(fail);
      Promise.resolve()
        .then(() => work(call.request))
        .then(
          (response) => {
            if (settled) return;
            settle();
            callback(null, response);
          },
          (error: unknown) => {
            let context: ErrorContext = {};
            try {
              context = errorContext(call.request);
            } catch {
              // An unknown type has no context; the error itself says so.
            }
            fail(toGrpcError(error, context));
          },
        );
    };
  }

  /** {@link BrokerProvider.unary} for a call that may send requests to the broker. */
  private operation<Req, Res>(
    work: (request: Req) => Promise<Res> | Res,
    errorContext?: (request: Req) => ErrorContext,
  ): (call: ServerUnaryCall<Req, Res>, callback: sendUnaryData<Res>) => void {
    return this.unary(work, errorContext, true);
  }

  failInFlight(error: unknown): void {
    const message = `The broker provider stopped unexpectedly: ${messageOf(error)}`;
    for (const fail of [...this.pending]) fail({ code: status.UNKNOWN, details: message });
  }

  /** Closes the engine connection and this instance's API client. */
  async closeConnections(): Promise<void> {
    this.log.close();
    await this.configuration.close();
  }

  /**
   * Sends later messages to the engine at `address`: always for `Attach` (a new engine may reuse an
   * old one's address), for `Handshake` only when it names another engine than the one we log to.
   */
  private followEngine(address: string, always = false): void {
    if (address === "" || (!always && address === this.engineAddress)) return;
    this.log.close();
    this.engineAddress = address;
    this.log = engineLog(address);
  }

  private adapter(type: string, urn: string): ResourceAdapter {
    const token = resourceType(type, urn);
    const adapter = this.adapters.get(token);
    if (adapter === undefined) throw new UnknownResourceTypeError(token, [...this.adapters.keys()]);
    return adapter;
  }

  private context(urn: string): OperationContext {
    return { configuration: this.configuration, log: this.log.forResource(urn), urn };
  }

  private failedContext(type: string, urn: string): ErrorContext {
    const adapter = this.adapter(type, urn);
    return { encodeProperties: (properties) => adapter.encodeFailedProperties(properties) };
  }

  /** The service implementation for grpc-js. */
  implementation(): UntypedServiceImplementation {
    const decode = (struct: Struct | undefined): PropertyMap => decodeStruct(struct);
    return {
      getPluginInfo: this.unary<Empty, PluginInfo>(() => new PluginInfo().setVersion(this.version)),

      handshake: this.unary<ProviderHandshakeRequest, ProviderHandshakeResponse>((request) => {
        // A server started by hand (PULUMI_DEBUG_PROVIDERS) learns the engine's address here first.
        this.followEngine(request.getEngineAddress());
        // What Configure answers too (an engine that handshakes takes these and ignores Configure's).
        // The capabilities newer engines offer only here (strings that are not UTF-8, outputs in
        // Check, Invoke and Call) keep their `false` defaults: this provider takes none of them.
        return new ProviderHandshakeResponse()
          .setAcceptSecrets(true)
          .setAcceptResources(false)
          .setAcceptOutputs(false)
          .setSupportsAutonamingConfiguration(true);
      }),

      getSchema: this.unary<GetSchemaRequest, GetSchemaResponse>((request) => {
        if (request.getSubpackageName() !== "") {
          throw new Error(
            `The broker provider has no parameterized package "${request.getSubpackageName()}".`,
          );
        }
        return new GetSchemaResponse().setSchema(packageSchema(this.version));
      }),

      checkConfig: this.unary<CheckRequest, CheckResponse>(async (request) => {
        // CheckConfig names the provider with every engine and SDK; older SDKs' Configure does not.
        this.checkedOrigin = requestOrigin(request) ?? this.checkedOrigin;
        const checked = checkConfig(decode(request.getNews()), this.checkedOrigin);
        for (const warning of checked.warnings) await this.log.log("warning", warning, request.getUrn());
        const response = new CheckResponse().setInputs(encodeStruct(checked.inputs));
        for (const failure of checked.failures) {
          response.addFailures(new CheckFailure().setProperty(failure.property).setReason(failure.reason));
        }
        return response;
      }),

      diffConfig: this.unary<DiffRequest, ReturnType<typeof toDiffResponse>>((request) => {
        const olds = request.hasOldInputs() ? request.getOldInputs() : request.getOlds();
        return toDiffResponse(diffConfig(decode(olds), decode(request.getNews())));
      }),

      configure: this.unary<ConfigureRequest, ConfigureResponse>(async (request) => {
        // `args` keeps secrets as secrets; `variables` would hand us the API key as plain text.
        const args = decode(request.getArgs());
        const warning = plainApiKeyWarning(args);
        if (warning !== undefined) await this.log.log("warning", warning);
        const previous = this.configuration;
        const origin = requestOrigin(request) ?? this.checkedOrigin ?? STACK_ORIGIN;
        this.configuration = new ProviderConfiguration(
          args,
          this.options.env ?? process.env,
          rateLimitNotifier(
            (message) => void this.log.log("warning", message),
            Date.now,
            settingPlace(origin, "maxRequestsPerSecond"),
          ),
          origin,
          this.cancellation.signal,
        );
        // Its client finishes the requests in flight before it closes.
        void previous.close();
        const response = new ConfigureResponse()
          .setAcceptsecrets(true)
          .setSupportspreview(true)
          .setAcceptresources(false)
          .setAcceptoutputs(false);
        // Check honours the engine's autonaming proposal (see namingOf), so `pulumi:autonaming`
        // works; the stubs of an older @pulumi/pulumi lack the field, and the engine then sends none.
        (
          response as Partial<Pick<ConfigureResponse, "setSupportsAutonamingConfiguration">>
        ).setSupportsAutonamingConfiguration?.(true);
        return response;
      }),

      invoke: this.operation<InvokeRequest, InvokeResponse>(async (request) => {
        const result = await invokeFunction(request.getTok(), decode(request.getArgs()), this.configuration);
        return new InvokeResponse().setReturn(encodeStruct(result));
      }),

      // Not an operation: Construct sends no request to the broker. Its children's operations arrive
      // as Check, Diff, Create, … calls of their own while it waits for their registrations.
      construct: this.unary<ConstructRequest, ConstructResponse>((request) =>
        construct(request, this.engineAddress),
      ),

      cancel: this.unary<Empty, Empty>(() => {
        this.cancel();
        return new Empty();
      }),

      attach: this.unary<PluginAttach, Empty>((request) => {
        // A server started by hand (PULUMI_DEBUG_PROVIDERS) learns the engine's address here.
        this.followEngine(request.getAddress(), true);
        return new Empty();
      }),

      check: this.operation<CheckRequest, CheckResponse>(async (request) => {
        const adapter = this.adapter(request.getType(), request.getUrn());
        const result = await adapter.check(
          { olds: decode(request.getOlds()), news: decode(request.getNews()), ...namingOf(request) },
          this.context(request.getUrn()),
        );
        const response = new CheckResponse().setInputs(encodeStruct(result.inputs));
        for (const failure of result.failures) {
          response.addFailures(new CheckFailure().setProperty(failure.property).setReason(failure.reason));
        }
        return response;
      }),

      diff: this.operation<DiffRequest, ReturnType<typeof toDiffResponse>>(async (request) => {
        const adapter = this.adapter(request.getType(), request.getUrn());
        const result = await adapter.diff(
          {
            id: request.getId(),
            olds: decode(request.getOlds()),
            oldInputs: decode(request.getOldInputs()),
            news: decode(request.getNews()),
            ignoreChanges: request.getIgnorechangesList(),
          },
          this.context(request.getUrn()),
        );
        return toDiffResponse(result);
      }),

      create: this.operation<CreateRequest, CreateResponse>(
        async (request) => {
          const adapter = this.adapter(request.getType(), request.getUrn());
          const result = await adapter.create(
            { properties: decode(request.getProperties()), preview: request.getPreview() },
            this.context(request.getUrn()),
          );
          if (result.id === "" && !request.getPreview()) {
            throw new Error(
              `The broker provider created ${request.getUrn()} but returned no id; please report this to the provider's authors.`,
            );
          }
          return new CreateResponse().setId(result.id).setProperties(encodeStruct(result.properties));
        },
        (request) => this.failedContext(request.getType(), request.getUrn()),
      ),

      read: this.operation<ReadRequest, ReadResponse>(
        async (request) => {
          const adapter = this.adapter(request.getType(), request.getUrn());
          const result = await adapter.read(
            {
              id: request.getId(),
              properties: decode(request.getProperties()),
              inputs: decode(request.getInputs()),
            },
            this.context(request.getUrn()),
          );
          const response = new ReadResponse().setId(result.id);
          // An object that no longer exists is an empty id and nothing else.
          if (result.id !== "") {
            response.setProperties(encodeStruct(result.properties)).setInputs(encodeStruct(result.inputs));
          }
          return response;
        },
        (request) => this.failedContext(request.getType(), request.getUrn()),
      ),

      update: this.operation<UpdateRequest, UpdateResponse>(
        async (request) => {
          const adapter = this.adapter(request.getType(), request.getUrn());
          const result = await adapter.update(
            {
              id: request.getId(),
              olds: decode(request.getOlds()),
              oldInputs: decode(request.getOldInputs()),
              news: decode(request.getNews()),
              preview: request.getPreview(),
              ignoreChanges: request.getIgnorechangesList(),
            },
            this.context(request.getUrn()),
          );
          return new UpdateResponse().setProperties(encodeStruct(result.properties));
        },
        (request) => this.failedContext(request.getType(), request.getUrn()),
      ),

      delete: this.operation<DeleteRequest, Empty>(async (request) => {
        const adapter = this.adapter(request.getType(), request.getUrn());
        await adapter.delete(
          {
            id: request.getId(),
            properties: decode(request.getProperties()),
            oldInputs: decode(request.getOldInputs()),
          },
          this.context(request.getUrn()),
        );
        return new Empty();
      }),
    };
  }
}

/**
 * Starts the provider's gRPC server (by default on a free port of 127.0.0.1) and resolves once it
 * listens. Nothing is written to stdout: printing the port is the caller's job (`main.ts`).
 */
export async function startProviderServer(options: ServerOptions): Promise<RunningServer> {
  const provider = new BrokerProvider(options, options.version ?? packageVersion());
  const server = new Server(GRPC_OPTIONS);
  server.addService(ResourceProviderService, provider.implementation());
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(options.address ?? "127.0.0.1:0", ServerCredentials.createInsecure(), (error, bound) => {
      if (error === null) resolve(bound);
      else reject(error);
    });
  });
  return {
    port,
    failInFlight: (error) => {
      provider.failInFlight(error);
    },
    cancel: () => {
      provider.cancel();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.tryShutdown(() => {
          void provider.closeConnections().then(resolve, resolve);
        });
      }),
  };
}

/**
 * `CheckRequest.AutonamingOptions.Mode` by its protocol numbers (`provider.proto`), not the stubs'
 * enum: the stubs of an older @pulumi/pulumi (3.139, the oldest we support) have no such type.
 */
const AUTONAMING_MODES: Readonly<Record<number, AutonamingProposal["mode"]>> = {
  0: "propose",
  1: "enforce",
  2: "disable",
};

/**
 * What a resource `Check` tells of naming: the logical name (the request's `name`, which newer
 * engines send, else the URN's last part) and the engine's autonaming proposal. CLI 3.259 and 3.274
 * both send a proposal when the stack config sets `pulumi:autonaming` (and the provider answered
 * `supportsAutonamingConfiguration`); without that config they send none, and the name takes the
 * default form.
 */
function namingOf(request: CheckRequest): Pick<CheckInput, "logicalName" | "autonaming"> {
  // Older stubs have neither `name` nor `autonaming` (see AUTONAMING_MODES).
  const newer = request as Partial<Pick<CheckRequest, "getName" | "getAutonaming">>;
  const urnName = request.getUrn().split("::").at(-1);
  const name = newer.getName?.() ?? "";
  const logicalName = name !== "" ? name : urnName;
  const options = newer.getAutonaming?.();
  const mode = options === undefined ? undefined : AUTONAMING_MODES[options.getMode()];
  return {
    ...(logicalName === undefined || logicalName === "" ? {} : { logicalName }),
    ...(options === undefined || mode === undefined
      ? {}
      : { autonaming: { mode, proposedName: options.getProposedName() } }),
  };
}
