/**
 * The look-up functions of the dynamic door: `getWorkspace`, `getWorkspaces`, `getAccessKey`,
 * `getAccessKeys` and `verifyAccessKey`, each in a plain form (a `Promise`) and an `Output` form,
 * with the same arguments and results as the native SDK's functions of the same names.
 *
 * They run in the program's own process (no provider host is involved), read the same `broker:*`
 * stack settings and `BROKER_*` environment variables as the dynamic resources, and call the same
 * core (`src/core/lookups/`), through the same client: pacing, retries and redaction included.
 */
import * as pulumi from "@pulumi/pulumi";
import { getBrokerClient, type BrokerClient } from "../client";
import { GET_ACCESS_KEY_FUNCTION, secretOutputs } from "../core/declarations/functions";
import {
  getAccessKey as lookUpAccessKey,
  getAccessKeys as lookUpAccessKeys,
  getWorkspace as lookUpWorkspace,
  getWorkspaces as lookUpWorkspaces,
  verifyAccessKey as verifyKey,
  type AccessKeyInfo,
  type GetAccessKeyArgs,
  type GetAccessKeyResult,
  type GetAccessKeysArgs,
  type GetAccessKeysResult,
  type GetWorkspaceArgs,
  type GetWorkspacesArgs,
  type GetWorkspacesResult,
  type LookupContext,
  type VerifyAccessKeyArgs,
  type VerifyAccessKeyResult,
  type WorkspaceInfo,
} from "../core/lookups";
import { resolveConnection, STACK_SETTING_NAMES } from "../settings/connection";

export type {
  AccessKeyInfo,
  GetAccessKeyArgs,
  GetAccessKeyResult,
  GetAccessKeysArgs,
  GetAccessKeysResult,
  GetWorkspaceArgs,
  GetWorkspacesArgs,
  GetWorkspacesResult,
  VerifyAccessKeyArgs,
  VerifyAccessKeyResult,
  WorkspaceInfo,
};

/** What `getWorkspace` returns: one workspace. */
export type GetWorkspaceResult = WorkspaceInfo;

/**
 * Which broker API a look-up reads. By default the stack's `broker:baseUrl` / `broker:apiKey` (or
 * `BROKER_BASE_URL` / `BROKER_API_KEY`), as for the dynamic resources; give both here to read
 * another environment, the way an explicit provider does in the native SDK.
 */
export interface LookupOptions {
  /** The API base URL, ending in `/v1`. @default broker:baseUrl, then BROKER_BASE_URL */
  readonly baseUrl?: string | undefined;
  /** An ACCOUNT access key. @default broker:apiKey, then BROKER_API_KEY */
  readonly apiKey?: string | undefined;
}

/** {@link LookupOptions} for the `Output` forms: the values may come from other resources or secrets. */
export interface LookupOutputOptions {
  readonly baseUrl?: pulumi.Input<string | undefined>;
  readonly apiKey?: pulumi.Input<string | undefined>;
}

/** The arguments of an `Output` form: each argument may be an `Input`. */
export type OutputArgs<T> = { readonly [K in keyof T]?: pulumi.Input<T[K]> };

/** The context of one look-up: its client from the explicit options, the stack config, or the environment. */
function lookupContext(options: LookupOptions = {}): LookupContext {
  return {
    client: (): BrokerClient => {
      const explicit = {
        ...(options.baseUrl === undefined ? {} : { baseUrl: options.baseUrl }),
        ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
      };
      // `runtime.getConfig` reads the stack config as `pulumi.Config` does, without its warning
      // about reading a secret (`broker:apiKey`) as plain text: the key only goes into a header.
      const settings = resolveConnection(explicit, (key) => pulumi.runtime.getConfig(key), process.env);
      return getBrokerClient({ ...settings, settingNames: STACK_SETTING_NAMES });
    },
  };
}

/** An `Output` form: waits for the arguments and options, then calls the plain form. */
function outputForm<A, R>(
  plain: (args: A, options?: LookupOptions) => Promise<R>,
  args: OutputArgs<A> | undefined,
  options: LookupOutputOptions | undefined,
): pulumi.Output<R> {
  // The API key only authenticates the requests and never reaches a result, so a secret key does not
  // make the result secret (as with an explicit provider in the native SDK); secret arguments do.
  const settings = pulumi.unsecret(pulumi.output(options ?? {}));
  return pulumi
    .all([pulumi.output(args ?? {}), settings])
    .apply(([a, o]) => plain(a as A, o as LookupOptions));
}

/**
 * Looks up one workspace, made by this or any other program, by `id` or by `path`
 * (`/platform/orders`; give exactly one). Calls the API during `pulumi preview` too.
 *
 * @throws BrokerLookupError `BROKER_LOOKUP_NOT_FOUND` naming the path (or id) and the base URL when
 *   there is none; `BROKER_LOOKUP_AMBIGUOUS` listing the ids when several share the path;
 *   `BROKER_LOOKUP_INVALID` for a path that is not `/a/b`, before any request.
 * @example
 * ```ts
 * const platform = await getWorkspace({ path: "/platform" });
 * new Workspace("orders", { name: "orders", parentId: platform.id });
 * ```
 */
export function getWorkspace(args: GetWorkspaceArgs, options?: LookupOptions): Promise<GetWorkspaceResult> {
  return lookUpWorkspace(lookupContext(options), { ...args });
}

/** {@link getWorkspace} with `Input` arguments, as an `Output`. */
export function getWorkspaceOutput(
  args: OutputArgs<GetWorkspaceArgs>,
  options?: LookupOutputOptions,
): pulumi.Output<GetWorkspaceResult> {
  return outputForm(getWorkspace, args, options);
}

/**
 * Lists workspaces (every one, or those with exactly `name`), paging through the API for you. An
 * empty list when none matches. Calls the API during `pulumi preview` too.
 */
export function getWorkspaces(
  args: GetWorkspacesArgs = {},
  options?: LookupOptions,
): Promise<GetWorkspacesResult> {
  return lookUpWorkspaces(lookupContext(options), { ...args });
}

/** {@link getWorkspaces} with `Input` arguments, as an `Output`. */
export function getWorkspacesOutput(
  args?: OutputArgs<GetWorkspacesArgs>,
  options?: LookupOutputOptions,
): pulumi.Output<GetWorkspacesResult> {
  return outputForm(getWorkspaces, args, options);
}

/**
 * Looks up one access key, made by this or any other program, by `id` or by `name` (give exactly
 * one), optionally of a `type`, with its value. Calls the API during `pulumi preview` too.
 *
 * The plain form's `accessKey` is plain text, as in every Pulumi SDK's plain invoke: prefer
 * {@link getAccessKeyOutput}, whose result is a secret (encrypted in the state, `[secret]` in output).
 *
 * @throws BrokerLookupError `BROKER_LOOKUP_NOT_FOUND` naming the key and the base URL when there is
 *   none; `BROKER_LOOKUP_AMBIGUOUS` listing the ids when several keys share the name (look the one
 *   you mean up by id); `BROKER_LOOKUP_INVALID` for an empty name, before any request.
 */
export function getAccessKey(args: GetAccessKeyArgs, options?: LookupOptions): Promise<GetAccessKeyResult> {
  return lookUpAccessKey(lookupContext(options), { ...args });
}

/**
 * {@link getAccessKey} with `Input` arguments, as an `Output` that is a secret: the key value never
 * reaches the state or the CLI's output in plain text.
 * @example
 * ```ts
 * const orders = getAccessKeyOutput({ name: "orders-svc" });
 * export const ordersKey = orders.accessKey; // [secret]
 * ```
 */
export function getAccessKeyOutput(
  args: OutputArgs<GetAccessKeyArgs>,
  options?: LookupOutputOptions,
): pulumi.Output<GetAccessKeyResult> {
  // The whole result becomes secret, as the native SDK's invoke does with a secret result property.
  const result = outputForm(getAccessKey, args, options);
  return secretOutputs(GET_ACCESS_KEY_FUNCTION).length > 0 ? pulumi.secret(result) : result;
}

/**
 * Lists access keys without their values (every key, or those matching `name`, `type` and an
 * `eventPathPrefix` of a `send` or `receive` path), paging through the API for you. An empty list
 * when none matches. Calls the API during `pulumi preview` too.
 */
export function getAccessKeys(
  args: GetAccessKeysArgs = {},
  options?: LookupOptions,
): Promise<GetAccessKeysResult> {
  return lookUpAccessKeys(lookupContext(options), { ...args });
}

/** {@link getAccessKeys} with `Input` arguments, as an `Output`. */
export function getAccessKeysOutput(
  args?: OutputArgs<GetAccessKeysArgs>,
  options?: LookupOutputOptions,
): pulumi.Output<GetAccessKeysResult> {
  return outputForm(getAccessKeys, args, options);
}

/**
 * Asks the broker whether `accessKey` is valid: `true` when it accepts the key, `false` when it
 * answers that the key is not valid or does not know it (401, 403 or 404 count as "not valid").
 * Server errors fail the call. The key appears in no error or log. Calls the API during preview too.
 */
export function verifyAccessKey(
  args: VerifyAccessKeyArgs,
  options?: LookupOptions,
): Promise<VerifyAccessKeyResult> {
  return verifyKey(lookupContext(options), { ...args });
}

/** {@link verifyAccessKey} with `Input` arguments (a secret key stays secret), as an `Output`. */
export function verifyAccessKeyOutput(
  args: OutputArgs<VerifyAccessKeyArgs>,
  options?: LookupOutputOptions,
): pulumi.Output<VerifyAccessKeyResult> {
  return outputForm(verifyAccessKey, args, options);
}
