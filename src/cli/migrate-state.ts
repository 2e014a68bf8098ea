/**
 * Moves a stack from the dynamic resources (`pulumi-broker-config`) to the native ones
 * (`pulumi-broker-config/native`, served by the `broker` plugin) by rewriting the output of
 * `pulumi stack export`, to be read back with `pulumi stack import`.
 *
 * Why rewrite the state instead of importing: `pulumi import` rebuilds a resource from what the API
 * returns, and the API cannot return a ServiceKeyPair's private key. Rewriting keeps every id, input
 * and output as it is, private keys included, so nothing is created, re-keyed or lost.
 *
 * Secrets stay as they are: the export holds them as ciphertext objects of the stack's own secrets
 * provider, which move unchanged between resources of the same stack. No plaintext is needed, and
 * this module never decrypts anything.
 */
import { randomUUID } from "node:crypto";
import { DYNAMIC_URN_INPUT, dynamicTypeToken, RESOURCES } from "../core/declarations";
import { BrokerError } from "../client/errors";

/** The dynamic resource types and the native type each one becomes. */
export const NATIVE_TYPE_OF: Readonly<Record<string, string>> = Object.fromEntries(
  RESOURCES.map((resource) => [dynamicTypeToken(resource), resource.token]),
);

/** The type of the provider that serves every dynamic resource. */
export const DYNAMIC_PROVIDER_TYPE = "pulumi:providers:pulumi-nodejs";
/** The type of the native resources' provider. */
const BROKER_PROVIDER_TYPE = "pulumi:providers:broker";
/** The input (and output) where a dynamic resource keeps its provider's code. */
export const PROVIDER_CODE_KEY = "__provider";
/** Stack config of the dynamic provider that belongs to the broker package (`broker:baseUrl`, ...). */
const BROKER_CONFIG_PREFIX = "broker:";

/** A resource of an exported deployment, with the fields this module reads or rewrites. */
export interface StateResource {
  urn: string;
  type: string;
  id?: string;
  custom?: boolean;
  inputs?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
  parent?: string;
  provider?: string;
  dependencies?: string[];
  propertyDependencies?: Record<string, string[]>;
  deletedWith?: string;
  aliases?: unknown[];
  [field: string]: unknown;
}

/** The output of `pulumi stack export`: `{version, deployment: {resources, ...}}`. */
export interface ExportedStack {
  version: number;
  deployment: {
    resources?: StateResource[];
    pending_operations?: unknown[];
    [field: string]: unknown;
  };
  [field: string]: unknown;
}

/** Options of {@link migrateDeployment}. */
export interface MigrateOptions {
  /**
   * The version of the `broker` plugin the native SDK asks for: this package's version, which
   * names the default provider (`default_<version>`).
   */
  version: string;
  /** Makes the new provider's id. @default crypto.randomUUID */
  newId?: () => string;
}

/** What {@link migrateDeployment} did. */
export interface MigrateResult {
  /** The rewritten export, for `pulumi stack import`. */
  exported: ExportedStack;
  /** One line per change, for the user to read. */
  changes: string[];
  /** How many dynamic resources became native ones. */
  migrated: number;
}

/** The export cannot be migrated as it is; the message says why and what to do. */
export class MigrateStateError extends BrokerError {
  constructor(message: string) {
    super("BROKER_MIGRATE_STATE_FAILED", message);
    this.name = "MigrateStateError";
  }
}

/**
 * The name the engine gives the default provider of a package at `version`: `default_` and the
 * version's parts joined by underscores (`0.1.0-beta.2` → `default_0_1_0_beta_2`), as the engine's
 * `ProviderRequest.DefaultName` builds it.
 */
export function defaultProviderName(version: string): string {
  const match = /^v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+([0-9A-Za-z.-]+))?$/u.exec(version);
  if (match === null)
    throw new MigrateStateError(`the plugin version ${JSON.stringify(version)} is not a semantic version`);
  const [, major, minor, patch, pre, build] = match;
  const parts = [major, minor, patch, ...(pre?.split(".") ?? []), ...(build?.split(".") ?? [])];
  return `default_${parts.map(String).join("_")}`;
}

/** A URN's parts: `urn:pulumi:<stack>::<project>::<qualified type>::<name>`. */
interface UrnParts {
  stack: string;
  project: string;
  /** The type, prefixed by its parents' types with `$` (`parentType$type`). */
  qualifiedType: string;
  name: string;
}

function parseUrn(urn: string): UrnParts {
  const parts = urn.split("::");
  const [head, project, qualifiedType] = parts;
  if (
    parts.length < 4 ||
    head === undefined ||
    !head.startsWith("urn:pulumi:") ||
    project === undefined ||
    qualifiedType === undefined
  )
    throw new MigrateStateError(
      `${JSON.stringify(urn)} is not a Pulumi URN (urn:pulumi:<stack>::<project>::<type>::<name>)`,
    );
  return { stack: head.slice("urn:pulumi:".length), project, qualifiedType, name: parts.slice(3).join("::") };
}

/**
 * The URN with every dynamic broker type in its type chain replaced by the native one: the
 * resource's own type, and the type of any dynamic parent in a child's qualified type.
 */
export function nativeUrn(urn: string): string {
  const parts = parseUrn(urn);
  const chain = parts.qualifiedType.split("$").map((type) => NATIVE_TYPE_OF[type] ?? type);
  return `urn:pulumi:${parts.stack}::${parts.project}::${chain.join("$")}::${parts.name}`;
}

/** A provider reference: `<provider urn>::<provider id>`. */
function splitProviderReference(reference: string): { urn: string; id: string } {
  const at = reference.lastIndexOf("::");
  return { urn: reference.slice(0, at), id: reference.slice(at + 2) };
}

function without<T>(record: Record<string, T> | undefined, key: string): Record<string, T> | undefined {
  if (record === undefined) return undefined;
  const { [key]: _dropped, ...rest } = record;
  return rest;
}

/**
 * Rewrites an exported stack of dynamic broker resources into one of native resources:
 *
 * - each `pulumi-nodejs:dynamic/broker:<Type>` becomes `broker:index:<Type>`, in its `type` and in
 *   every URN that names it (`urn`, `parent`, `dependencies`, `propertyDependencies`,
 *   `deletedWith`, `aliases`);
 * - its provider becomes the default `broker` provider, added as the engine writes it
 *   (`pulumi:providers:broker::default_<version>` with `version` and the stack's `broker:*` config,
 *   secrets as the same ciphertext); the `pulumi-nodejs` default provider is dropped once nothing
 *   uses it any more;
 * - `__provider` (the dynamic provider's code) leaves inputs, outputs and property dependencies, and
 *   so does `__urn` (the URN a dynamic class passes for its create intents: the plugin has its own);
 * - everything else stays: ids, inputs, outputs (secret ciphertexts included), dependencies, parents.
 *
 * The input is not modified. A stack without dynamic broker resources comes back unchanged, with
 * no changes listed.
 *
 * @throws MigrateStateError when the input is not a stack export, has pending operations, or
 *   already holds native broker resources next to the dynamic ones.
 */
export function migrateDeployment(input: unknown, options: MigrateOptions): MigrateResult {
  const exported = checkExport(input);
  const resources = exported.deployment.resources ?? [];
  const pending = exported.deployment.pending_operations ?? [];
  if (pending.length > 0)
    throw new MigrateStateError(
      `the stack has ${pending.length} pending operation(s) from an interrupted update: run \`pulumi refresh\` (or \`pulumi cancel\`) and export again`,
    );
  const dynamic = resources.filter((r) => NATIVE_TYPE_OF[r.type] !== undefined);
  const [firstDynamic] = dynamic;
  if (firstDynamic === undefined) return { exported: structuredClone(exported), changes: [], migrated: 0 };

  const stackUrn = resources.find((r) => r.type === "pulumi:pulumi:Stack")?.urn ?? firstDynamic.urn;
  const { stack, project } = parseUrn(stackUrn);
  const providerName = defaultProviderName(options.version);
  const providerUrn = `urn:pulumi:${stack}::${project}::${BROKER_PROVIDER_TYPE}::${providerName}`;
  if (resources.some((r) => r.urn === providerUrn))
    throw new MigrateStateError(
      `the stack already has the provider ${providerUrn}: it holds native broker resources already; migrate a stack of dynamic resources only`,
    );
  const providerId = (options.newId ?? randomUUID)();
  const providerReference = `${providerUrn}::${providerId}`;

  const changes: string[] = [];
  const dynamicProviders = new Set<string>();
  const rewritten: StateResource[] = [];
  for (const resource of resources) {
    const native = NATIVE_TYPE_OF[resource.type];
    const copy = rewriteUrns(structuredClone(resource));
    if (native !== undefined) {
      copy.type = native;
      const inputs = without(without(copy.inputs, PROVIDER_CODE_KEY), DYNAMIC_URN_INPUT);
      const outputs = without(without(copy.outputs, PROVIDER_CODE_KEY), DYNAMIC_URN_INPUT);
      const propertyDependencies = without(
        without(copy.propertyDependencies, PROVIDER_CODE_KEY),
        DYNAMIC_URN_INPUT,
      );
      if (inputs !== undefined) copy.inputs = inputs;
      if (outputs !== undefined) copy.outputs = outputs;
      if (propertyDependencies !== undefined) copy.propertyDependencies = propertyDependencies;
      if (resource.provider !== undefined) dynamicProviders.add(resource.provider);
      copy.provider = providerReference;
      changes.push(`${resource.urn} -> ${copy.urn} (id ${resource.id ?? "none"} kept)`);
    }
    rewritten.push(copy);
  }

  // The dynamic provider's stack config `broker:*` is what the default broker provider reads.
  const firstDynamicProvider = rewritten.findIndex(
    (r) => r.type === DYNAMIC_PROVIDER_TYPE && dynamicProviders.has(`${r.urn}::${r.id ?? ""}`),
  );
  const source = firstDynamicProvider === -1 ? undefined : rewritten[firstDynamicProvider];
  const provider = defaultProvider(providerUrn, providerId, options.version, source);
  // Before its first user: the engine needs a provider earlier in the state than what it serves.
  const firstUser = rewritten.findIndex((r) => r.provider === providerReference);
  rewritten.splice(
    firstDynamicProvider === -1 ? firstUser : Math.min(firstDynamicProvider, firstUser),
    0,
    provider,
  );
  changes.push(`added the default provider ${providerUrn} (plugin broker v${options.version})`);

  // A pulumi-nodejs provider that served only broker resources would be deleted by the next update.
  const stillUsed = new Set(rewritten.map((r) => r.provider).filter((p): p is string => p !== undefined));
  const kept = rewritten.filter((r) => {
    if (r.type !== DYNAMIC_PROVIDER_TYPE) return true;
    const reference = `${r.urn}::${r.id ?? ""}`;
    if (!dynamicProviders.has(reference) || stillUsed.has(reference)) return true;
    changes.push(`removed ${r.urn}: no resource uses it any more`);
    return false;
  });

  return {
    exported: {
      ...structuredClone(exported),
      deployment: { ...structuredClone(exported.deployment), resources: kept },
    },
    changes,
    migrated: dynamic.length,
  };
}

/** The default provider resource as the engine writes it for the native SDK. */
function defaultProvider(
  urn: string,
  id: string,
  version: string,
  dynamicProvider: StateResource | undefined,
): StateResource {
  const config: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(dynamicProvider?.inputs ?? {}))
    if (key.startsWith(BROKER_CONFIG_PREFIX)) config[key.slice(BROKER_CONFIG_PREFIX.length)] = value;
  const outputs = { ...config, version };
  return {
    urn,
    custom: true,
    id,
    type: BROKER_PROVIDER_TYPE,
    inputs: { __internal: {}, ...outputs },
    outputs: structuredClone(outputs),
  };
}

/** Every URN field of a resource, with the dynamic types in it made native. */
function rewriteUrns(resource: StateResource): StateResource {
  resource.urn = nativeUrn(resource.urn);
  if (resource.parent !== undefined) resource.parent = nativeUrn(resource.parent);
  if (resource.deletedWith !== undefined) resource.deletedWith = nativeUrn(resource.deletedWith);
  if (resource.dependencies !== undefined) resource.dependencies = resource.dependencies.map(nativeUrn);
  if (resource.propertyDependencies !== undefined)
    resource.propertyDependencies = Object.fromEntries(
      Object.entries(resource.propertyDependencies).map(([key, urns]) => [key, urns.map(nativeUrn)]),
    );
  if (resource.aliases !== undefined)
    resource.aliases = resource.aliases.map((alias) =>
      typeof alias === "string" ? nativeUrn(alias) : alias,
    );
  if (resource.provider !== undefined) {
    const { urn, id } = splitProviderReference(resource.provider);
    resource.provider = `${nativeUrn(urn)}::${id}`;
  }
  return resource;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The input as a stack export, or a message naming what is wrong with it. */
function checkExport(input: unknown): ExportedStack {
  const what = "the input is not the output of `pulumi stack export`";
  if (!isRecord(input) || typeof input["version"] !== "number" || !isRecord(input["deployment"]))
    throw new MigrateStateError(`${what}: expected an object with "version" and "deployment"`);
  const resources = input["deployment"]["resources"];
  if (resources !== undefined && !Array.isArray(resources))
    throw new MigrateStateError(`${what}: deployment.resources must be a list`);
  for (const [index, resource] of (resources ?? []).entries()) {
    if (!isRecord(resource) || typeof resource["urn"] !== "string" || typeof resource["type"] !== "string")
      throw new MigrateStateError(`${what}: deployment.resources[${index}] has no "urn" and "type"`);
  }
  return input as ExportedStack;
}
