/**
 * Every resource records the API endpoint (`baseUrl`, never a secret) it lives at. A stack whose
 * `broker:baseUrl` later points elsewhere (say, a dev stack edited to the prod URL) must not silently
 * read, change or forget objects in the wrong environment.
 *
 * This is done once for every resource, by {@link withEndpointTracking}: each resource module writes
 * its operations without the endpoint, and the wrapper records it, checks it before every request to
 * an existing object, and lets `allowEndpointChange` move a resource on purpose.
 */
import type { BrokerClient } from "../client";
import type { NameSource } from "./autoname";
import type { CreateOrigin } from "./intents";
import type { CheckContext, CoreContext, DeleteCheckContext } from "./context";
import { DiffBuilder, changeKind, valueChanged } from "./diff";
import type { ResourceOperations } from "./operations";
import { PartiallyCreatedError, isPartiallyCreatedError } from "./partial-failure";
import type { CheckResult, CreateResult, DiffResult, ReadResult } from "./results";
import { inputsDecoders, knownReader, type PropertyBag, type PropertyReader } from "./state";
import { spellings } from "../settings/wording";
import { CheckFailures, checkOptionalBoolean } from "./validation";
import { NOT_KNOWN, type NotKnown } from "./unknown";

/** Inputs every resource shares for endpoint tracking. `U` is what a value not known yet becomes. */
export interface EndpointInputsOf<U = never> {
  /** The endpoint the resource lives at, recorded by `check`; absent when none is configured (a preview without settings). */
  baseUrl?: string | U;
  /** Set to move the resource deliberately to the newly configured endpoint (it is replaced there). */
  allowEndpointChange: boolean | U;
}

/** The endpoint inputs once checked: every value known. */
export type EndpointInputs = EndpointInputsOf;

/** Decodes the endpoint inputs every resource records (`allowEndpointChange`, and `baseUrl` when recorded). */
function decodeEndpointInputs<U>(r: PropertyReader<U>): EndpointInputsOf<U> {
  const baseUrl = r.optionalString("baseUrl");
  return {
    allowEndpointChange: r.boolean("allowEndpointChange", false),
    ...(baseUrl === undefined ? {} : { baseUrl }),
  };
}

/**
 * The part of `check` every resource type shares: validates `allowEndpointChange`, and decides which
 * endpoint the resource lives at, reporting a failure on `baseUrl` when the configured endpoint
 * differs from the recorded one without `allowEndpointChange: true`.
 *
 * @param recorded the endpoint recorded by the previous `check`, if any.
 * @returns the endpoint to record, `undefined` when neither is known.
 */
function checkEndpoint(
  ctx: CheckContext,
  failures: CheckFailures,
  recorded: string | undefined,
  allowEndpointChange: unknown,
): string | undefined {
  checkOptionalBoolean(failures, "allowEndpointChange", allowEndpointChange);
  // Recorded URLs are the client's normalised form, comparable as they are.
  const configured = ctx.configuredBaseUrl();
  if (configured === undefined) return recorded;
  if (recorded !== undefined && recorded !== configured && allowEndpointChange !== true) {
    // On the resource, not on `baseUrl`: that is no input of the program's, and the engine would
    // show its (absent) value as `{<nil>}`.
    failures.add("", endpointMismatchMessage(ctx, recorded, configured));
    return recorded;
  }
  return configured;
}

/**
 * Whether a diff moves the resource to another endpoint. A preview without `broker:baseUrl`
 * configured carries no endpoint: that is not a move.
 */
function endpointMoved(old: string | undefined, now: string | NotKnown | undefined): boolean {
  if (now === NOT_KNOWN) return true;
  return old !== undefined && now !== undefined && old !== now;
}

/** Throws when an operation on an existing resource would run against another endpoint than its own. */
function assertSameEndpoint(ctx: CheckContext, recorded: string | undefined, what: string): void {
  const configured = ctx.configuredBaseUrl();
  if (recorded === undefined || configured === undefined) return;
  if (recorded !== configured) {
    throw new Error(`${what}: ${endpointMismatchMessage(ctx, recorded, configured)}`);
  }
}

function endpointMismatchMessage(ctx: CheckContext, recorded: string, configured: string): string {
  return (
    `this resource lives at ${recorded}, but ${ctx.settingNames.baseUrl} now points to ${configured}. ` +
    "If that points at the wrong environment, fix it. " +
    `To move the resource on purpose, set ${spellings("allowEndpointChange")} to true on it: it is then created anew at the new endpoint.`
  );
}

/**
 * The `baseUrl` part of a resource's state: the endpoint when one is recorded, nothing otherwise
 * (state hand-written or from before endpoints were recorded; the next refresh or update records it).
 */
function recordedEndpoint(baseUrl: string | undefined): { baseUrl?: string } {
  return baseUrl === undefined ? {} : { baseUrl };
}

/**
 * A resource's operations as its module writes them: without `baseUrl` and `allowEndpointChange`,
 * which {@link withEndpointTracking} adds. `check` needs no context: it makes no request, and the
 * configured endpoint is the wrapper's business.
 *
 * @typeParam I - the resource's own checked inputs.
 * @typeParam P - its own inputs as proposed in a preview.
 * @typeParam O - its own outputs.
 * @typeParam D - what its diff returns (a {@link DiffResult}, perhaps with more detail).
 */
export interface ResourceDefinition<I, P, O, D extends DiffResult = DiffResult> {
  /** The resource's type name, such as `AccessKey`. */
  readonly typeName: string;
  /**
   * How messages name one object, such as `access key "orders"` or `workspace 12`.
   * @param old the recorded state; absent when importing by id.
   */
  readonly describe: (id: string, old: O | undefined) => string;
  /** What messages call `update` and `delete` when they make a request, such as `Revoking`. */
  readonly verbs?: { readonly update?: string; readonly delete?: string };
  readonly decodeInputs: (bag: PropertyBag) => I;
  readonly decodeProposedInputs: (bag: PropertyBag) => P;
  readonly decodeOutputs: (bag: PropertyBag, id?: string) => O;
  /** @param naming where a name the program leaves out comes from (see `./autoname.ts`). */
  readonly check: (news: PropertyBag, naming: NameSource) => CheckResult<P>;
  /** @param recorded the recorded outputs, when the door could decode them. */
  readonly diff: (old: I, news: P, recorded?: O) => D;
  /** @param origin the resource the create is for, when the door knows it (see `./intents.ts`). */
  readonly create: (ctx: CoreContext, inputs: I, origin?: CreateOrigin) => Promise<CreateResult<O>>;
  readonly read: (ctx: CoreContext, id: string, old: O | undefined) => Promise<ReadResult<I, O>>;
  readonly update: (ctx: CoreContext, id: string, old: O, news: I) => Promise<O>;
  readonly delete: (ctx: CoreContext, id: string, old: O) => Promise<void>;
  /** See {@link ResourceOperations.deleteRefusal}. */
  readonly deleteRefusal?: (ctx: DeleteCheckContext, id: string, old: O) => string | undefined;
}

/** The operations of a resource that records its endpoint, with its own diff type. */
export interface TrackedOperations<I, P, O, D extends DiffResult = DiffResult> extends ResourceOperations<
  I & EndpointInputs,
  P & EndpointInputsOf<NotKnown>,
  O & EndpointInputs
> {
  readonly diff: (
    old: I & EndpointInputs,
    news: P & EndpointInputsOf<NotKnown>,
    recorded?: O & EndpointInputs,
  ) => D;
}

/**
 * The operations the doors serve for a resource: `definition`'s, plus its endpoint. `check` records
 * the configured endpoint (or refuses a changed one without `allowEndpointChange: true`), `diff`
 * replaces a resource that moves, every operation on an existing object refuses to send a request
 * to another endpoint than the recorded one, and outputs (also those of a partial failure) record
 * the endpoint the object was created, read or updated at.
 */
export function withEndpointTracking<I, P, O, D extends DiffResult>(
  definition: ResourceDefinition<I, P, O, D>,
): TrackedOperations<I, P, O, D> {
  const { typeName, describe, verbs = {} } = definition;
  const endpointDecoders = inputsDecoders(
    typeName,
    decodeEndpointInputs<never>,
    decodeEndpointInputs<NotKnown>,
  );
  const settings = (allowEndpointChange: boolean, baseUrl: string | undefined): EndpointInputs => ({
    allowEndpointChange,
    ...recordedEndpoint(baseUrl),
  });
  return {
    typeName,
    decodeInputs: (bag) => ({ ...definition.decodeInputs(bag), ...endpointDecoders.known(bag) }),
    decodeProposedInputs: (bag) => ({
      ...definition.decodeProposedInputs(bag),
      ...endpointDecoders.proposed(bag),
    }),
    decodeOutputs: (bag, id) => ({
      ...definition.decodeOutputs(bag, id),
      ...decodeEndpointInputs(knownReader(bag, typeName)),
    }),
    check: (ctx, news, recordedBaseUrl, naming = {}) => {
      const own = definition.check(news, naming);
      const failures = new CheckFailures();
      const baseUrl = checkEndpoint(ctx, failures, recordedBaseUrl, news["allowEndpointChange"]);
      if (own.inputs === undefined || failures.list.length > 0) {
        return { inputs: undefined, failures: [...own.failures, ...failures.list] };
      }
      const { allowEndpointChange } = endpointDecoders.proposed(news);
      return {
        inputs: { ...own.inputs, allowEndpointChange, ...(baseUrl === undefined ? {} : { baseUrl }) },
        failures: [],
      };
    },
    diff: (old, news, recorded) => {
      const own = definition.diff(old, news, recorded);
      const endpoint = DiffBuilder.extending(own)
        .property("baseUrl", endpointMoved(old.baseUrl, news.baseUrl), {
          replace: true,
          kind: changeKind(old.baseUrl, news.baseUrl),
        })
        .property("allowEndpointChange", valueChanged(old.allowEndpointChange, news.allowEndpointChange), {
          replace: false,
        })
        .build();
      return { ...own, ...endpoint };
    },
    create: async (ctx, inputs, origin) => {
      const guarded = guard(ctx, undefined, "");
      try {
        const { id, outputs } = await definition.create(guarded.ctx, inputs, origin);
        return {
          id,
          outputs: { ...outputs, ...settings(inputs.allowEndpointChange, guarded.usedBaseUrl()) },
        };
      } catch (error) {
        if (!isPartiallyCreatedError(error)) throw error;
        // Kept in the stack: it must record where it lives like any other state.
        const outputs = {
          ...(error.outputs as O),
          ...settings(inputs.allowEndpointChange, guarded.usedBaseUrl()),
        };
        throw new PartiallyCreatedError(error.what, error.createdId, outputs, error.cause);
      }
    },
    read: async (ctx, id, old) => {
      const guarded = guard(ctx, old?.baseUrl, `Refreshing ${describe(id, old)}`);
      const result = await definition.read(guarded.ctx, id, old);
      if (!result.exists) return result;
      const endpoint = settings(old?.allowEndpointChange ?? false, guarded.usedBaseUrl() ?? old?.baseUrl);
      return {
        ...result,
        outputs: { ...result.outputs, ...endpoint },
        inputs: { ...result.inputs, ...endpoint },
      };
    },
    update: async (ctx, id, old, news) => {
      const guarded = guard(ctx, old.baseUrl, `${verbs.update ?? "Updating"} ${describe(id, old)}`);
      const outputs = await definition.update(guarded.ctx, id, old, news);
      return { ...outputs, ...settings(news.allowEndpointChange, guarded.usedBaseUrl() ?? old.baseUrl) };
    },
    delete: (ctx, id, old) =>
      definition.delete(
        guard(ctx, old.baseUrl, `${verbs.delete ?? "Deleting"} ${describe(id, old)}`).ctx,
        id,
        old,
      ),
    ...(definition.deleteRefusal === undefined ? {} : { deleteRefusal: definition.deleteRefusal }),
  };
}

/**
 * `ctx` for one operation on an object recorded at `recorded`: its client refuses another endpoint,
 * naming the operation (`what`), and remembers the endpoint it was used for.
 */
function guard(
  ctx: CoreContext,
  recorded: string | undefined,
  what: string,
): { ctx: CoreContext; usedBaseUrl: () => string | undefined } {
  let used: BrokerClient | undefined;
  return {
    ctx: {
      client: () => {
        assertSameEndpoint(ctx, recorded, what);
        used = ctx.client();
        return used;
      },
      configuredBaseUrl: () => ctx.configuredBaseUrl(),
      authenticatesWith: (accessKey) => ctx.authenticatesWith(accessKey),
      settingNames: ctx.settingNames,
      log: ctx.log,
    },
    usedBaseUrl: () => used?.baseUrl,
  };
}
