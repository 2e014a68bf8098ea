/**
 * The results of the core's operations, free of any engine protocol: an adapter maps them to what
 * its engine expects (the dynamic provider host's `dynamic.*` results, or gRPC responses).
 */

/** Why one input property is invalid. `property` is a path such as `permissions.send[2]`. */
export interface CheckFailure {
  property: string;
  reason: string;
}

/**
 * What `check` returns: the validated inputs with defaults filled in (values not known yet stay
 * {@link "./unknown".NOT_KNOWN}), or every failure found.
 */
export type CheckResult<T> =
  | { readonly inputs: T; readonly failures: readonly [] }
  | { readonly inputs: undefined; readonly failures: readonly CheckFailure[] };

/**
 * How one property path changes, in the vocabulary of Pulumi's detailed diff: `add` (absent before),
 * `delete` (absent now) or `update`.
 */
export type ChangeKind = "add" | "delete" | "update";

/** One changed property path. */
export interface PropertyChange {
  /**
   * The path, in the form of Pulumi's detailed diff: `name`, `rotationTriggers.quarter`,
   * `permissions.send[1]` (the index is into the new list for an `add`, into the old one for a `delete`).
   */
  readonly path: string;
  readonly kind: ChangeKind;
  /** Whether this change replaces the object. */
  readonly replace: boolean;
}

/** What `diff` returns: enough for a plain changes/replaces answer and for a detailed diff. */
export interface DiffResult {
  /** Whether anything changes. */
  readonly changes: boolean;
  /** The top-level properties whose change replaces the object, in a stable order. */
  readonly replaces: readonly string[];
  /** Every top-level property that changes, replacing or not, in a stable order. */
  readonly changed: readonly string[];
  /** The changes per property path. A property whose new value is not known yet is one `update` of the whole property. */
  readonly details: readonly PropertyChange[];
  /** Whether the old object must go before the new one is created. Never, for these resources. */
  readonly deleteBeforeReplace: boolean;
}

/** What `create` returns. */
export interface CreateResult<O> {
  /** The id of the object on the server (never a secret). */
  readonly id: string;
  readonly outputs: O;
}

/** What `read` (refresh) returns. */
export type ReadResult<I, O> =
  | { readonly exists: false }
  | {
      readonly exists: true;
      readonly id: string;
      readonly outputs: O;
      /** The inputs that would produce the object as it is now, so the next diff compares against reality. */
      readonly inputs: I;
    };

/** The result of a read of an object that no longer exists. */
export const GONE: { readonly exists: false } = { exists: false };
