/**
 * A resource adapter over a resource's implementation module (`impl/<resource>.ts`), whose
 * operations take and return plain values the way the dynamic provider does.
 *
 * This is where the native plugin meets the core: property maps are decoded to plain values
 * (`toCore`), the core decides, and its results are encoded back with their secrets (`fromCore`).
 * The detailed diff is computed here from the same recorded and new inputs the core compares, and
 * the core's own verdict decides whether anything changed and what replaces.
 */
import type { dynamic } from "@pulumi/pulumi";
import {
  fromCore,
  toCore,
  UNKNOWN_VALUE,
  type CoreValues,
  type PathSegment,
  type PropertyMap,
} from "../codec";
import { buildDiff, diffSet, type ChangeEntry } from "../diff";
import type { OperationContext, ResourceAdapter } from "../resource-adapter";
import { resourceSchema, secretNames } from "../schema";

/** The operations of an implementation module, as the dynamic provider calls them. */
export interface DynamicStyleImpl {
  configure(request: dynamic.ConfigureRequest): Promise<void>;
  check(olds: Record<string, unknown>, news: Record<string, unknown>): Promise<dynamic.CheckResult>;
  diff(id: string, olds: Record<string, unknown>, news: Record<string, unknown>): Promise<dynamic.DiffResult>;
  create(inputs: Record<string, unknown>): Promise<dynamic.CreateResult>;
  read(id: string, props?: Record<string, unknown>): Promise<dynamic.ReadResult>;
  update(
    id: string,
    olds: Record<string, unknown>,
    news: Record<string, unknown>,
  ): Promise<dynamic.UpdateResult>;
  delete(id: string, props: Record<string, unknown>): Promise<void>;
}

/** What differs between resource types beyond the schema. */
export interface DynamicAdapterSpec {
  /** The type token, such as `broker:index:AccessKey`. */
  readonly token: string;
  /** The implementation module. */
  readonly impl: DynamicStyleImpl;
  /** Lists (by path) that compare as sets: order and repeats are no change. */
  readonly setPaths?: readonly (readonly string[])[];
  /**
   * Outputs an in-place update recomputes from `news`: in a preview they are unknown, every other
   * recorded output stays as it is (so dependents preview as unchanged).
   */
  readonly recomputedByUpdate?: (
    olds: Record<string, unknown>,
    news: Record<string, unknown>,
  ) => readonly string[];
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => same(v, b[i]));
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].every((k) => same(a[k], b[k]));
  }
  return false;
}

function containsUnknown(value: unknown): boolean {
  if (value === UNKNOWN_VALUE) return true;
  if (Array.isArray(value)) return value.some(containsUnknown);
  if (isPlainObject(value)) return Object.values(value).some(containsUnknown);
  return false;
}

/** The changed paths between a recorded and a new value; set-compared lists report their entries. */
function changesOf(
  path: readonly PathSegment[],
  before: unknown,
  after: unknown,
  setPaths: readonly (readonly string[])[],
  replace: boolean,
): ChangeEntry[] {
  if (containsUnknown(after)) return [{ path, kind: "update", replace }];
  const isSet = setPaths.some(
    (p) => p.length === path.length && p.every((segment, i) => segment === path[i]),
  );
  if (
    isSet &&
    (Array.isArray(before) || before === undefined) &&
    (Array.isArray(after) || after === undefined)
  ) {
    return diffSet(path, before as unknown[] | undefined, after as unknown[] | undefined, { replace });
  }
  if (isPlainObject(before) && isPlainObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    return keys.flatMap((key) => changesOf([...path, key], before[key], after[key], setPaths, replace));
  }
  if (same(before, after)) return [];
  const kind = before === undefined ? "add" : after === undefined ? "delete" : "update";
  return [{ path, kind, replace }];
}

/** Builds the adapter for one resource type. */
export function dynamicAdapter(spec: DynamicAdapterSpec): ResourceAdapter {
  const schema = resourceSchema(spec.token);
  const secretOutputs = secretNames(schema.properties);
  const secretInputs = secretNames(schema.inputProperties);
  /** The inputs the engine compares: the schema's, plus `baseUrl`, which check records. */
  const inputNames = [...Object.keys(schema.inputProperties), "baseUrl"];
  const defaults = Object.fromEntries(
    Object.entries(schema.inputProperties)
      .filter(([, prop]) => prop.default !== undefined)
      .map(([name, prop]) => [name, prop.default]),
  );
  /** The implementation, configured with this provider instance's settings (one provider per process). */
  async function impl(context: OperationContext): Promise<DynamicStyleImpl> {
    const source = context.configuration.source;
    await spec.impl.configure({
      config: {
        get: source,
        require: (key) => {
          const value = source(key);
          if (value === undefined) throw new Error(`Missing required configuration ${key}`);
          return value;
        },
      },
    });
    return spec.impl;
  }

  const encodeOutputs = (
    values: Record<string, unknown>,
    from: CoreValues[],
    allowUnknowns = false,
  ): PropertyMap =>
    fromCore(values, {
      secrets: from.flatMap((c) => c.secrets),
      inputs: Object.assign({}, ...from.map((c) => c.values)) as Record<string, unknown>,
      alwaysSecret: [...secretOutputs, ...secretInputs],
      allowUnknowns,
    });

  const adapter: ResourceAdapter = {
    token: spec.token,

    async check({ olds, news }, context) {
      const old = toCore(olds);
      const input = toCore(news);
      const result = await (await impl(context)).check(old.values, input.values);
      const inputs = fromCore((result.inputs ?? {}) as Record<string, unknown>, {
        secrets: input.secrets,
        inputs: input.values,
        alwaysSecret: secretInputs,
        allowUnknowns: true,
      });
      return { inputs, failures: result.failures ?? [] };
    },

    async diff({ id, olds, news }, context) {
      const state = toCore(olds).values;
      const input = toCore(news).values;
      const verdict = await (await impl(context)).diff(id, state, input);
      if (verdict.changes !== true)
        return buildDiff({ changes: [], stables: Object.keys(schema.properties) });
      const replaces = new Set(verdict.replaces ?? []);
      const changes = inputNames.flatMap((name) =>
        changesOf(
          [name],
          state[name] ?? defaults[name],
          input[name] ?? defaults[name],
          spec.setPaths ?? [],
          replaces.has(name),
        ),
      );
      for (const name of replaces) {
        if (!changes.some((c) => c.path[0] === name))
          changes.push({ path: [name], kind: "update", replace: true });
      }
      const recomputed = new Set(spec.recomputedByUpdate?.(state, input) ?? []);
      const stables = Object.keys(schema.properties).filter((name) => !recomputed.has(name));
      return buildDiff({
        changes,
        stables: replaces.size > 0 ? [] : stables,
        deleteBeforeReplace: verdict.deleteBeforeReplace === true,
        // The core saw a change the inputs do not show: let the engine compare them itself.
        undecided: true,
      });
    },

    async create({ properties, preview }, context) {
      const input = toCore(properties);
      // In a preview nothing is sent: the inputs are known, every other output is not yet.
      if (preview) return { id: "", properties: encodeOutputs(input.values, [input], true) };
      const result = await (await impl(context)).create(input.values);
      return {
        id: result.id,
        properties: encodeOutputs((result.outs ?? {}) as Record<string, unknown>, [input]),
      };
    },

    async read({ id, properties, inputs }, context) {
      const state = toCore(properties);
      const recorded = toCore(inputs);
      const result = await (await impl(context)).read(id, state.values);
      if (result.id === undefined || result.id === "") return { id: "", properties: {}, inputs: {} };
      return {
        id: result.id,
        properties: encodeOutputs((result.props ?? {}) as Record<string, unknown>, [state, recorded]),
        inputs: fromCore((result.inputs ?? {}) as Record<string, unknown>, {
          secrets: recorded.secrets,
          inputs: recorded.values,
          alwaysSecret: secretInputs,
        }),
      };
    },

    async update({ id, olds, news, preview }, context) {
      const state = toCore(olds);
      const input = toCore(news);
      if (preview) {
        // The recorded outputs stay known, the new inputs apply, and what the update recomputes is unknown.
        const recomputed = spec.recomputedByUpdate?.(state.values, input.values) ?? [];
        const values = {
          ...state.values,
          ...input.values,
          ...Object.fromEntries(recomputed.map((k) => [k, UNKNOWN_VALUE])),
        };
        return { properties: encodeOutputs(values, [state, input], true) };
      }
      const result = await (await impl(context)).update(id, state.values, input.values);
      return { properties: encodeOutputs((result.outs ?? {}) as Record<string, unknown>, [state, input]) };
    },

    async delete({ id, properties }, context) {
      await (await impl(context)).delete(id, toCore(properties).values);
    },

    encodeFailedProperties(properties) {
      return fromCore(properties, { alwaysSecret: [...secretOutputs, ...secretInputs] });
    },
  };
  return adapter;
}
