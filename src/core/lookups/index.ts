/**
 * The look-up functions, once for both doors: each reads its arguments (rejecting bad ones before
 * any request), asks the API through the caller's client, and returns plain JSON values. The native
 * door serves them as `Invoke`s, the dynamic door as `getX`/`getXOutput` functions; which outputs
 * are secret is declared in `src/core/declarations/functions.ts`.
 * @packageDocumentation
 */
import type { RawArgs } from "./args";
import type { LookupContext } from "./context";
import {
  GET_ACCESS_KEY,
  GET_ACCESS_KEYS,
  getAccessKey,
  getAccessKeys,
  VERIFY_ACCESS_KEY,
  verifyAccessKey,
} from "./access-keys";
import { GET_WORKSPACE, GET_WORKSPACES, getWorkspace, getWorkspaces } from "./workspaces";

export * from "./access-keys";
export * from "./workspaces";
export type { RawArgs } from "./args";
export type { LookupContext } from "./context";
export type { AccessKeyFilter } from "./match";
export { BrokerLookupError, isBrokerLookupError, LookupArgumentError, type LookupErrorCode } from "./errors";

/** A look-up function: raw arguments in, a plain JSON result out. */
export type LookupFunction = (context: LookupContext, args: RawArgs) => Promise<object>;

/** Every look-up function by its token, such as `broker:index:getWorkspace`. */
export const LOOKUP_FUNCTIONS: ReadonlyMap<string, LookupFunction> = new Map<string, LookupFunction>([
  [GET_WORKSPACE, getWorkspace],
  [GET_WORKSPACES, getWorkspaces],
  [GET_ACCESS_KEY, getAccessKey],
  [GET_ACCESS_KEYS, getAccessKeys],
  [VERIFY_ACCESS_KEY, verifyAccessKey],
]);
