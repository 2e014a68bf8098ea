import type { CheckContext, CoreContext, DeleteCheckContext } from "./context";
import type { CheckResult, CreateResult, DiffResult, ReadResult } from "./results";
import type { NameSource } from "./autoname";
import type { CreateOrigin } from "./intents";
import { StateDecodeError, type PropertyBag } from "./state";

/**
 * The warning a door shows during a preview when a change replaces an object whose delete would be
 * refused (see {@link ResourceOperations.deleteRefusal}): the replacement will stop there.
 */
export function replacementRefusedMessage(reason: string): string {
  return `This change replaces the object, and the replacement will fail when it revokes the old one: ${reason}`;
}

/**
 * The warning a diff gives when the replacement it plans would have to delete an object the
 * provider refuses to delete (its own API key), or `undefined`. `old` is the recorded outputs as
 * {@link decodedOrUndefined} read them: a diff must never fail because old outputs are incomplete (a
 * preview without config, an old state), so an old object that could not be decoded gives no
 * warning: the delete itself still refuses.
 */
export function plannedReplacementWarning<O>(
  refusal: ((old: O) => string | undefined) | undefined,
  replaces: boolean,
  old: O | undefined,
): string | undefined {
  if (!replaces || refusal === undefined || old === undefined) return undefined;
  const reason = refusal(old);
  return reason === undefined ? undefined : replacementRefusedMessage(reason);
}

/**
 * The old outputs `decode` reads, or `undefined` when they cannot be decoded (a preview without
 * config, an old or incomplete state): what a diff reads from them is a refinement, and a diff must
 * never fail for it.
 */
export function decodedOrUndefined<O>(decode: () => O): O | undefined {
  try {
    return decode();
  } catch (error) {
    if (error instanceof StateDecodeError) return undefined;
    throw error;
  }
}

/**
 * Everything the core offers for one resource type, as one table: how to decode its property bags,
 * and its check, diff, create, read, update and delete. Each door (the dynamic providers, the native
 * plugin) serves a resource by translating the engine's requests into calls of this table, so the
 * doors hold no resource-specific logic of their own.
 *
 * @typeParam I - the checked inputs (every value known).
 * @typeParam P - the inputs as proposed during a preview (values may not be known yet).
 * @typeParam O - the outputs the engine records.
 */
export interface ResourceOperations<I, P, O> {
  /** The resource's type name, such as `AccessKey`. */
  readonly typeName: string;
  /** Decodes checked inputs recorded by this or an earlier version of the package. */
  readonly decodeInputs: (bag: PropertyBag) => I;
  /** Decodes inputs that may still hold values not known yet (preview). */
  readonly decodeProposedInputs: (bag: PropertyBag) => P;
  /**
   * Decodes recorded outputs, including those written by earlier versions of the package.
   * @param id the resource's id, which stands in for an id output the state lacks.
   */
  readonly decodeOutputs: (bag: PropertyBag, id?: string) => O;
  /**
   * Validates the program's inputs and fills defaults; makes no request.
   * @param naming where a name the program leaves out comes from (resources with an autonamed `name`).
   */
  readonly check: (
    ctx: CheckContext,
    news: PropertyBag,
    recordedBaseUrl: string | undefined,
    naming?: NameSource,
  ) => CheckResult<P>;
  /**
   * Compares the recorded inputs with the proposed ones; makes no request.
   * @param recorded the recorded outputs, when the door could decode them (see
   *   {@link decodedOrUndefined}): facts the inputs lack, such as whether the object was adopted.
   */
  readonly diff: (old: I, news: P, recorded?: O) => DiffResult;
  /**
   * Creates (or adopts) the object.
   * @param origin the resource the create is for, as the door knows it (its URN): with it, the create
   *   is recorded as an intent before it is sent, and an interrupted earlier create of the same
   *   resource is taken over (`src/core/intents.ts`).
   */
  readonly create: (ctx: CoreContext, inputs: I, origin?: CreateOrigin) => Promise<CreateResult<O>>;
  /** Reads the object as it is on the server; `old` is absent when importing by id. */
  readonly read: (ctx: CoreContext, id: string, old: O | undefined) => Promise<ReadResult<I, O>>;
  /** Applies a change that needs no replacement. */
  readonly update: (ctx: CoreContext, id: string, old: O, news: I) => Promise<O>;
  /** Removes the object from the stack (the API has no delete endpoints: see each resource). */
  readonly delete: (ctx: CoreContext, id: string, old: O) => Promise<void>;
  /**
   * Why `delete` would refuse this object, or `undefined` when it would not; makes no request. A
   * door's `diff` asks it when a change replaces the object, to warn during the preview (the
   * engine never asks a provider anything before a destroy, so that one is refused at delete).
   * Absent: deleting is never refused.
   */
  readonly deleteRefusal?: (ctx: DeleteCheckContext, id: string, old: O) => string | undefined;
}
