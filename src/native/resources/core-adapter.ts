/**
 * The native door over the core: one function turns a resource's {@link ResourceOperations} table
 * into the {@link ResourceAdapter} the gRPC server dispatches to, as `impl/dynamic-provider.ts`
 * does for the dynamic provider host.
 *
 * Everything here is about the protocol, nothing about a resource: property maps are decoded once
 * (`toCore`, then the core's own decoders), the core decides, and its typed results are encoded
 * back with their secrets and unknowns. The detailed diff is the core's `DiffResult.details` as it
 * is; this module never compares values itself.
 */
import { withInterruptedName } from "../../core/autoname";
import type { CoreContext } from "../../core/context";
import {
  decodedOrUndefined,
  plannedReplacementWarning,
  type ResourceOperations,
} from "../../core/operations";
import { settleIntent } from "../../core/intents";
import { isPartiallyCreatedError } from "../../core/partial-failure";
import type { DiffResult as CoreDiff } from "../../core/results";
import { toPropertyBag } from "../../core/state";
import { NOT_KNOWN } from "../../core/unknown";
import { fromCore, pv, toCore, UNKNOWN_VALUE, type CoreValues, type PropertyMap } from "../codec";
import { buildDiff } from "../diff";
import { ResourceInitFailedError } from "../errors";
import type { OperationContext, ResourceAdapter } from "../resource-adapter";
import { resourceSchema, secretNames } from "../schema";

/** What a resource needs beyond its core table and its schema. */
export interface CoreAdapterExtras<O> {
  /**
   * The outputs an in-place update computes anew (a key pair's keys when `rotationTriggers`
   * change). A preview `Update` reports them as not known yet and `Diff` does not list them as
   * stable; every other recorded output stays known, so dependents preview as unchanged.
   * @param diff the core's diff of the recorded and the new inputs.
   * @param old the recorded outputs.
   * @default none
   */
  readonly recomputedByUpdate?: (diff: CoreDiff, old: O) => readonly string[];
}

/** The core's context for one operation: this provider instance's client and endpoint, warnings under the resource. */
export function coreContext(context: OperationContext): CoreContext {
  return {
    client: () => context.configuration.client(),
    configuredBaseUrl: () => context.configuration.baseUrl(),
    authenticatesWith: (accessKey) => context.configuration.authenticatesWith(accessKey),
    settingNames: context.configuration.settingNames,
    log: { warn: (message) => context.log.warn(message) },
  };
}

/** The recorded inputs to compare with: `old_inputs`, or the state when an older engine sends none. */
function recordedInputs(olds: PropertyMap, oldInputs: PropertyMap): PropertyMap {
  return Object.keys(oldInputs).length > 0 ? oldInputs : olds;
}

/** The endpoint the previous `Check` recorded (Check's `olds` are the previous checked inputs). */
function recordedBaseUrl(olds: PropertyMap): string | undefined {
  const baseUrl = toCore(olds).values["baseUrl"];
  return typeof baseUrl === "string" ? baseUrl : undefined;
}

/** `map` with each of `names` (top-level) wrapped as a secret. */
function withSecrets(map: PropertyMap, names: readonly string[]): PropertyMap {
  const result = new Map(Object.entries(map));
  for (const name of names) {
    const value = result.get(name);
    if (value !== undefined) result.set(name, pv.secret(value));
  }
  return Object.fromEntries(result);
}

/** How {@link encode} wraps secrets. */
interface Secrets {
  /** Where the values came from (their secrets stay secret). */
  readonly from: readonly CoreValues[];
  /** Top-level properties that are always secret. */
  readonly always: readonly string[];
}

/**
 * Encodes a typed value of the core (inputs or outputs). A property not known yet
 * ({@link NOT_KNOWN}, or the `UNKNOWN` sentinel) keeps the engine's own value from `original` when
 * it has one (so a partly known list stays partly known), else becomes unknown; that is allowed
 * only in a preview (`allowUnknowns`).
 */
function encode(
  value: object,
  secrets: Secrets,
  options: { allowUnknowns: boolean; original?: PropertyMap },
): PropertyMap {
  const known: Record<string, unknown> = toPropertyBag(value);
  const unknown = Object.entries(value)
    .filter(([, entry]) => entry === NOT_KNOWN)
    .map(([key]) => key);
  const encoded = new Map(
    Object.entries(
      fromCore(known, {
        secrets: secrets.from.flatMap((source) => source.secrets),
        inputs: Object.assign({}, ...secrets.from.map((source) => source.values)) as Record<string, unknown>,
        alwaysSecret: secrets.always,
        allowUnknowns: options.allowUnknowns,
      }),
    ),
  );
  if (unknown.length > 0 && !options.allowUnknowns) {
    throw new Error(
      `The broker provider has no value for ${unknown.join(", ")} outside a preview; please report this to the provider's authors.`,
    );
  }
  for (const key of unknown) {
    const original = options.original?.[key] ?? pv.computed();
    encoded.set(key, secrets.always.includes(key) ? pv.secret(original) : original);
  }
  return Object.fromEntries(encoded);
}

/**
 * The native adapter of one resource type over its core operations.
 * @param token the type token, such as `broker:index:AccessKey` (its schema gives the outputs and secrets).
 */
export function coreAdapter<I extends object, P extends object, O extends object>(
  token: string,
  core: ResourceOperations<I, P, O>,
  extras: CoreAdapterExtras<O> = {},
): ResourceAdapter {
  const schema = resourceSchema(token);
  const outputNames = Object.keys(schema.properties);
  const secretInputs = secretNames(schema.inputProperties);
  const secretOutputs = [...new Set([...secretNames(schema.properties), ...secretInputs])];

  /** What an in-place update from `oldInputs` to `news` recomputes (see {@link CoreAdapterExtras}). */
  const recomputed = (diff: CoreDiff, olds: PropertyMap): readonly string[] =>
    diff.changes && extras.recomputedByUpdate !== undefined
      ? extras.recomputedByUpdate(diff, core.decodeOutputs(toCore(olds).values))
      : [];

  /** The recorded outputs of `id`, or `undefined` when they cannot be decoded (see `decodedOrUndefined`). */
  const recordedOutputs = (id: string, olds: PropertyMap): O | undefined =>
    decodedOrUndefined(() => core.decodeOutputs(toCore(olds).values, id));

  const diffOf = (
    olds: PropertyMap,
    oldInputs: PropertyMap,
    news: PropertyMap,
    recorded: O | undefined,
  ): CoreDiff =>
    core.diff(
      core.decodeInputs(toCore(recordedInputs(olds, oldInputs)).values),
      core.decodeProposedInputs(toCore(news).values),
      recorded,
    );

  /** The engine holds `id` for the resource: its create's intent is settled (`settleIntent`). */
  const held = (context: Parameters<typeof coreContext>[0], id: string): Promise<void> =>
    settleIntent({ urn: context.urn }, () => coreContext(context).client(), core.typeName, id);

  return {
    token,

    async check({ olds, news, logicalName, autonaming }, context) {
      const input = toCore(news);
      const naming = await withInterruptedName(
        {
          oldInputs: toCore(olds).values,
          ...(logicalName === undefined ? {} : { logicalName }),
          ...(autonaming === undefined ? {} : { autonaming }),
        },
        input.values,
        { urn: context.urn },
        core.typeName,
      );
      const result = core.check(coreContext(context), input.values, recordedBaseUrl(olds), naming);
      // Even with failures, the engine stores what Check returns: a secret input must stay one.
      if (result.inputs === undefined) {
        return { inputs: withSecrets(news, secretInputs), failures: result.failures };
      }
      const inputs = encode(
        result.inputs,
        { from: [input], always: secretInputs },
        { allowUnknowns: true, original: news },
      );
      return { inputs, failures: [] };
    },

    async diff({ id, olds, oldInputs, news }, context) {
      await held(context, id);
      const recorded = recordedOutputs(id, olds);
      const diff = diffOf(olds, oldInputs, news, recorded);
      const changedByUpdate = new Set(recomputed(diff, olds));
      const warning = plannedReplacementWarning(
        core.deleteRefusal && ((old: O) => core.deleteRefusal?.(coreContext(context), id, old)),
        diff.replaces.length > 0,
        recorded,
      );
      if (warning !== undefined) await context.log.warn(warning);
      return buildDiff({
        changes: diff.details.map(({ path, kind, replace }) => ({ path, kind, replace })),
        // A replacement makes every output new; an update keeps all but what it recomputes.
        stables: diff.replaces.length > 0 ? [] : outputNames.filter((name) => !changedByUpdate.has(name)),
        deleteBeforeReplace: diff.deleteBeforeReplace,
      });
    },

    async create({ properties, preview }, context) {
      const input = toCore(properties);
      if (preview) {
        // Nothing is sent: the inputs are what is known; server-made outputs are left out, which
        // the engine reads as "not known yet".
        const proposed = core.decodeProposedInputs(input.values);
        return {
          id: "",
          properties: encode(
            proposed,
            { from: [input], always: secretOutputs },
            { allowUnknowns: true, original: properties },
          ),
        };
      }
      const secrets: Secrets = { from: [input], always: secretOutputs };
      try {
        const { id, outputs } = await core.create(coreContext(context), core.decodeInputs(input.values), {
          urn: context.urn,
        });
        return { id, properties: encode(outputs, secrets, { allowUnknowns: false }) };
      } catch (error) {
        if (!isPartiallyCreatedError(error)) throw error;
        const outputs = typeof error.outputs === "object" && error.outputs !== null ? error.outputs : {};
        throw new ResourceInitFailedError(
          error.message,
          error.createdId,
          encode(outputs, secrets, { allowUnknowns: false }),
          [error.reason],
        );
      }
    },

    async read({ id, properties, inputs }, context) {
      await held(context, id);
      const state = toCore(properties);
      const recorded = toCore(inputs);
      // No state at all: an import by id (`pulumi import`), which rebuilds everything from the server.
      const old = Object.keys(state.values).length === 0 ? undefined : core.decodeOutputs(state.values);
      const result = await core.read(coreContext(context), id, old);
      if (!result.exists) return { id: "", properties: {}, inputs: {} };
      return {
        id: result.id,
        // On import no additionalSecretOutputs apply: the schema's secrets are wrapped here.
        properties: encode(
          result.outputs,
          { from: [state, recorded], always: secretOutputs },
          { allowUnknowns: false },
        ),
        inputs: encode(result.inputs, { from: [recorded], always: secretInputs }, { allowUnknowns: false }),
      };
    },

    async update({ id, olds, oldInputs, news, preview }, context) {
      const state = toCore(olds);
      const input = toCore(news);
      const secrets: Secrets = { from: [state, input], always: secretOutputs };
      const old = core.decodeOutputs(state.values);
      if (preview) {
        // The recorded outputs stay, the new inputs apply, and what the update recomputes is unknown.
        const proposed = core.decodeProposedInputs(input.values);
        const unknowns = recomputed(diffOf(olds, oldInputs, news, recordedOutputs(id, olds)), olds);
        const values = {
          ...old,
          ...proposed,
          ...Object.fromEntries(unknowns.map((name) => [name, UNKNOWN_VALUE])),
        };
        return { properties: encode(values, secrets, { allowUnknowns: true, original: news }) };
      }
      await held(context, id);
      const outputs = await core.update(coreContext(context), id, old, core.decodeInputs(input.values));
      return { properties: encode(outputs, secrets, { allowUnknowns: false }) };
    },

    async delete({ id, properties }, context) {
      await held(context, id);
      await core.delete(coreContext(context), id, core.decodeOutputs(toCore(properties).values));
    },

    encodeFailedProperties(properties) {
      return fromCore(properties, { alwaysSecret: secretOutputs });
    },
  };
}
