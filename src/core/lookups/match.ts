/**
 * The match rules of the look-up functions, pure: exactly one match or a clear error, and the
 * filters the API does not offer itself (it filters workspaces by name and id only, and access keys
 * by value only), applied to what the list returns.
 */
import type { AccessKeyRecord, AccessKeyType, WorkspaceRecord } from "../../client/types";
import { BrokerLookupError } from "./errors";

/** The one object `matches` holds, or an error naming `what` was looked up at `baseUrl`. */
export function exactlyOne<T extends { readonly id: number }>(
  fn: string,
  matches: readonly T[],
  what: { readonly description: string; readonly plural: string },
  baseUrl: string,
): T {
  const [first, second] = matches;
  if (first === undefined) {
    throw new BrokerLookupError(
      "BROKER_LOOKUP_NOT_FOUND",
      fn,
      `${fn}: no ${what.description} at ${baseUrl}; check the arguments, and that the provider points at the right environment`,
    );
  }
  if (second !== undefined) {
    const ids = matches.map((match) => match.id).sort((a, b) => a - b);
    throw new BrokerLookupError(
      "BROKER_LOOKUP_AMBIGUOUS",
      fn,
      `${fn}: ${matches.length} ${what.plural} at ${baseUrl} (ids ${ids.join(", ")}); names are not unique in the broker API, so look the one you mean up by id instead, such as { id: ${ids[0]} }`,
      ids,
    );
  }
  return first;
}

/** `record` (looked up by id: at most one), or the not-found error naming `description` at `baseUrl`. */
export function found<T extends { readonly id: number }>(
  fn: string,
  record: T | undefined,
  description: string,
  baseUrl: string,
): T {
  return exactlyOne(fn, record === undefined ? [] : [record], { description, plural: description }, baseUrl);
}

/** The workspaces whose full path is exactly `path` (the API matches names only). */
export function workspacesAtPath(records: readonly WorkspaceRecord[], path: string): WorkspaceRecord[] {
  return records.filter((record) => record.path === path);
}

/** Which access keys a list or a look-up by name keeps; absent fields keep every key. */
export interface AccessKeyFilter {
  /** The key's name, exactly. */
  readonly name?: string | undefined;
  /** The key's type. */
  readonly type?: AccessKeyType | undefined;
  /** A prefix of at least one of the key's `send` or `receive` event paths, such as `orders/`. */
  readonly eventPathPrefix?: string | undefined;
}

/** Whether `record` passes every filter given. */
export function accessKeyMatches(record: AccessKeyRecord, filter: AccessKeyFilter): boolean {
  if (filter.name !== undefined && record.name !== filter.name) return false;
  if (filter.type !== undefined && record.type !== filter.type) return false;
  const prefix = filter.eventPathPrefix;
  if (prefix === undefined) return true;
  const paths = [...record.permissions.send, ...record.permissions.receive];
  return paths.some((path) => path.startsWith(prefix));
}

/** How an access key look-up by name is described in its messages: `access key named "x" of type SERVICE`. */
export function describeKeyLookup(
  name: string,
  type: AccessKeyType | undefined,
): {
  description: string;
  plural: string;
} {
  const ofType = type === undefined ? "" : ` of type ${type}`;
  return {
    description: `access key named ${JSON.stringify(name)}${ofType}`,
    plural: `access keys named ${JSON.stringify(name)}${ofType}`,
  };
}
