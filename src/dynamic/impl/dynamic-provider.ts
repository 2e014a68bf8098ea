/**
 * The dynamic door: one function turns a resource's core operations into the functions the
 * dynamic provider host calls, so each `impl/<resource>.ts` only names its table.
 */
import type { dynamic, ID } from "@pulumi/pulumi";
import { withInterruptedName, type NameSource } from "../../core/autoname";
import { DYNAMIC_LOGICAL_NAME_INPUT, DYNAMIC_URN_INPUT } from "../../core/declarations";
import { settleDeleted, settleIntent, type CreateOrigin } from "../../core/intents";
import {
  decodedOrUndefined,
  plannedReplacementWarning,
  type ResourceOperations,
} from "../../core/operations";
import { isEmptyState, toPropertyBag, type PropertyBag } from "../../core/state";
import { dynamicContext } from "./context";
import { warn } from "./host-log";
import {
  recordedBaseUrl,
  settle,
  toDynamicCheck,
  toDynamicCreate,
  toDynamicDiff,
  toDynamicRead,
} from "./results";

/** The functions a dynamic provider shim forwards to (all but `configure`, which is shared). */
export interface DynamicOperations {
  /** Validates the program's inputs and fills defaults; makes no request. */
  readonly check: (olds: PropertyBag, news: PropertyBag) => Promise<dynamic.CheckResult>;
  /** Compares the recorded state with the new inputs: what changes, and what replaces; makes no request. */
  readonly diff: (id: ID, olds: PropertyBag, news: PropertyBag) => Promise<dynamic.DiffResult>;
  /** Creates (or adopts) the object. */
  readonly create: (inputs: PropertyBag) => Promise<dynamic.CreateResult>;
  /** Refresh: reads the object as it is on the server; one that no longer exists leaves the stack. */
  readonly read: (id: ID, props?: PropertyBag) => Promise<dynamic.ReadResult>;
  /** Applies a change that needs no replacement. */
  readonly update: (id: ID, olds: PropertyBag, news: PropertyBag) => Promise<dynamic.UpdateResult>;
  /** Removes the object from the stack (the API has no delete endpoints: see each resource). */
  readonly delete: (id: ID, props: PropertyBag) => Promise<void>;
}

/**
 * Where a name the program leaves out comes from: the logical name the resource class passed along
 * (the host gives `check` no URN), and the name the previous `check` recorded. The dynamic host
 * carries no autonaming configuration.
 */
function namingOf(olds: PropertyBag, news: PropertyBag): NameSource {
  const logicalName = news[DYNAMIC_LOGICAL_NAME_INPUT];
  return {
    oldInputs: olds,
    ...(typeof logicalName === "string" ? { logicalName } : {}),
  };
}

/** The resource a create is for: the URN its class passed (classes of older versions pass none). */
function originOf(inputs: PropertyBag): CreateOrigin | undefined {
  const urn = inputs[DYNAMIC_URN_INPUT];
  return typeof urn === "string" ? { urn } : undefined;
}

/**
 * Serves one resource type's core operations to the dynamic provider host: decodes the engine's
 * property bags, calls the core with the process's context, and maps typed results to `dynamic.*`
 * results (unknowns, `__provider` and partial failures are this door's business, not the core's).
 */
export function dynamicOperations<I extends object, P extends object, O extends object>(
  core: ResourceOperations<I, P, O>,
): DynamicOperations {
  /**
   * The engine holds `id` for the resource whose inputs (its class passes its URN) are `inputs`: its
   * create's intent is settled (`settleIntent`). The host gives `read` and `delete` outputs, which
   * carry no URN; `diff`, which the engine sends for every resource the program still declares
   * (before any replacement), and `update` carry it. `delete` settles by id (`settleDeleted`).
   */
  const held = (id: string, inputs: PropertyBag): Promise<void> =>
    settleIntent(originOf(inputs), () => dynamicContext.client(), core.typeName, id);

  return {
    check: async (olds, news) => {
      const naming = await withInterruptedName(namingOf(olds, news), news, originOf(news), core.typeName);
      return settle(() =>
        toDynamicCheck(news, core.check(dynamicContext, news, recordedBaseUrl(olds), naming)),
      );
    },
    diff: async (id, olds, news) => {
      await held(id, news);
      // The dynamic host's olds are the recorded outputs: the old object, as delete would get it.
      const recorded = decodedOrUndefined(() => core.decodeOutputs(olds, id));
      const result = await settle(() =>
        toDynamicDiff(core.diff(core.decodeInputs(olds), core.decodeProposedInputs(news), recorded)),
      );
      const warning = plannedReplacementWarning(
        core.deleteRefusal && ((old: O) => core.deleteRefusal?.(dynamicContext, id, old)),
        (result.replaces ?? []).length > 0,
        recorded,
      );
      if (warning !== undefined) await warn(warning);
      return result;
    },
    create: (raw) =>
      toDynamicCreate(raw, () => core.create(dynamicContext, core.decodeInputs(raw), originOf(raw))),
    read: async (id, props = {}) => {
      const old = isEmptyState(props) ? undefined : core.decodeOutputs(props, id);
      return toDynamicRead(await core.read(dynamicContext, id, old));
    },
    update: async (id, olds, news) => {
      await held(id, news);
      const outputs = await core.update(
        dynamicContext,
        id,
        core.decodeOutputs(olds, id),
        core.decodeInputs(news),
      );
      return { outs: toPropertyBag(outputs) };
    },
    delete: async (id, props) => {
      await core.delete(dynamicContext, id, core.decodeOutputs(props, id));
      // The host gives `delete` no URN: the record naming the object is found by its id.
      await settleDeleted(() => dynamicContext.client(), core.typeName, id);
    },
  };
}
