/**
 * The kinds of access key and what happens to a key that leaves the stack.
 */

/** The two kinds of access key. `ACCOUNT` keys call the configuration API; `SERVICE` keys connect clients to the broker. */
export type AccessKeyType = "ACCOUNT" | "SERVICE";

/** All access key types, in a stable order (the API's enum). */
export const ACCESS_KEY_TYPES: readonly AccessKeyType[] = ["ACCOUNT", "SERVICE"];

/** True when `value` is one of {@link ACCESS_KEY_TYPES}, spelled exactly (the API is case-sensitive). */
export function isAccessKeyType(value: unknown): value is AccessKeyType {
  return typeof value === "string" && (ACCESS_KEY_TYPES as readonly string[]).includes(value);
}

/**
 * What destroying an access key does: the API cannot delete keys, so `revoke` empties its
 * permissions and `retain` leaves the key as it is.
 */
export type OnDelete = "revoke" | "retain";

/** The values of {@link OnDelete}. */
export const ON_DELETE_VALUES: readonly OnDelete[] = ["revoke", "retain"];

/**
 * What destroying an access key the stack created does when `onDelete` is not given: a key that
 * leaves the stack should stop granting anything.
 * @default "revoke"
 */
export const DEFAULT_ON_DELETE: OnDelete = "revoke";

/**
 * What destroying an access key the stack adopted (`adopt: true` found it) does when `onDelete` is
 * not given: it is left as it was found, because the stack did not make it and something outside
 * the stack (often the environment it was copied into) may still rely on it. `onDelete: "revoke"`
 * is the explicit opt-in.
 * @default "retain"
 */
export const DEFAULT_ON_DELETE_ADOPTED: OnDelete = "retain";

/**
 * What a destroy (or a replacement) does to a key: `onDelete` when it was given, otherwise
 * {@link DEFAULT_ON_DELETE_ADOPTED} for a key the stack adopted and {@link DEFAULT_ON_DELETE} for one
 * it created.
 */
export function effectiveOnDelete(onDelete: OnDelete | undefined, adopted: boolean): OnDelete {
  return onDelete ?? (adopted ? DEFAULT_ON_DELETE_ADOPTED : DEFAULT_ON_DELETE);
}

/** True when `value` is one of {@link ON_DELETE_VALUES}. */
export function isOnDelete(value: unknown): value is OnDelete {
  return typeof value === "string" && (ON_DELETE_VALUES as readonly string[]).includes(value);
}

/**
 * Why an ACCOUNT key in a document is refused, and how to allow it: such a key may change the whole
 * broker configuration, and a copied document (say, from `broker-config export`) must not hand one
 * out or take over the target's own by name without the author saying so.
 */
export function accountKeyNotAllowedMessage(name: string): string {
  return (
    `access key ${JSON.stringify(name)} is an ACCOUNT key, which may change the whole broker configuration through the API: ` +
    "a document creates or adopts ACCOUNT keys only when it says `allowAccountKeys: true` at its top level (or use type SERVICE)"
  );
}
