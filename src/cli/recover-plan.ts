/**
 * The rules of `broker-config recover`, pure: which pending creates of an interrupted `pulumi up`
 * belong to this package, which object on the broker each one made, and how the stack's exported
 * state is rewritten so that every object the run created is in it, once.
 *
 * Why the state is rewritten rather than handed to `pulumi refresh --import-pending-creates`: with
 * CLI 3.259 that flag drops the pending creates it is given without
 * recording a resource (checked through the CLI: the stack ends with neither), and the dynamic
 * provider host cannot import by id at all. A rewrite works for both doors and any backend.
 *
 * Why matching by name is safe here: a pending create is the engine's record that it asked for one
 * object with exactly these inputs. The object it made, if any, has the create's name and type and
 * permissions (keys), or name and parent (workspaces), and is owned by no resource of the stack. A
 * key of that name with other permissions (one revoked by an earlier destroy, or made by hand) is
 * not it. When two objects fit, the rules refuse to guess and name both.
 */
import { dynamicTypeToken, RESOURCES } from "../core/declarations";
import { isCreatedBy, type CreatedCandidate, type CreateRequested } from "../model/created-by";
import type { PermissionsInput } from "../model/permissions";
// An exported deployment marks secrets as the engine's wire format does.
import { SECRET_SIGNATURE, SIGNATURE_KEY } from "../native/codec";
import { PROVIDER_CODE_KEY, type ExportedStack, type StateResource } from "./migrate-state";

/** The resource types of this package and what to recover them as. */
export type RecoverableKind = "Workspace" | "AccessKey" | "ServiceKeyPair";

/** Which door recorded a resource: the native plugin or the dynamic provider host. */
export type Door = "native" | "dynamic";

interface TypeInfo {
  readonly kind: RecoverableKind;
  readonly door: Door;
  /** Outputs the engine keeps secret (the declaration's `secret: true` fields). */
  readonly secretOutputs: readonly string[];
}

const TYPES: ReadonlyMap<string, TypeInfo> = new Map<string, TypeInfo>(
  RESOURCES.flatMap((resource): [string, TypeInfo][] => {
    const kind = resource.name as RecoverableKind;
    const secretOutputs = Object.entries(resource.fields)
      .filter(([, field]) => "secret" in field && field.secret)
      .map(([name]) => name);
    return [
      [resource.token, { kind, door: "native", secretOutputs }],
      [dynamicTypeToken(resource), { kind, door: "dynamic", secretOutputs }],
    ];
  }),
);

/** A pending operation of an exported deployment. */
export interface PendingOperation {
  readonly type: string;
  readonly resource: StateResource;
}

/** A pending create of one of this package's resources: the engine asked for it and never heard back. */
export interface PendingCreate {
  readonly urn: string;
  /** The resource's name in the program (the last part of its URN). */
  readonly resourceName: string;
  readonly kind: RecoverableKind;
  readonly door: Door;
  /** The checked inputs the create was given, secrets as the export holds them. */
  readonly inputs: Readonly<Record<string, unknown>>;
  /** The endpoint the resource was checked against (recorded by endpoint tracking), if any. */
  readonly baseUrl: string | undefined;
  /** The provider reference `<provider urn>::<provider id>`. */
  readonly provider: string | undefined;
  /** The whole pending resource, as the export holds it. */
  readonly resource: StateResource;
}

/** The pending operations of `exported`, split into this package's creates and everything else. */
export function pendingCreates(exported: ExportedStack): {
  ours: PendingCreate[];
  others: PendingOperation[];
} {
  const ours: PendingCreate[] = [];
  const others: PendingOperation[] = [];
  for (const operation of (exported.deployment.pending_operations ?? []) as PendingOperation[]) {
    const info = TYPES.get(operation.resource.type);
    if (operation.type !== "creating" || info === undefined) {
      others.push(operation);
      continue;
    }
    const inputs = operation.resource.inputs ?? {};
    ours.push({
      urn: operation.resource.urn,
      resourceName: operation.resource.urn.slice(operation.resource.urn.lastIndexOf("::") + 2),
      kind: info.kind,
      door: info.door,
      inputs,
      baseUrl: typeof inputs.baseUrl === "string" ? inputs.baseUrl : undefined,
      provider: operation.resource.provider,
      resource: operation.resource,
    });
  }
  return { ours, others };
}

/**
 * The ids of the objects of `kind` the stack's resources already own at `baseUrl` (either door):
 * a pending create never takes one of these.
 */
export function ownedIds(
  exported: ExportedStack,
  kind: RecoverableKind,
  baseUrl: string | undefined,
): Set<number> {
  const owned = new Set<number>();
  for (const resource of exported.deployment.resources ?? []) {
    if (TYPES.get(resource.type)?.kind !== kind || resource.id === undefined) continue;
    const recordedAt = resource.outputs?.baseUrl;
    if (baseUrl !== undefined && typeof recordedAt === "string" && recordedAt !== baseUrl) continue;
    owned.add(Number(resource.id));
  }
  return owned;
}

/** An object on the broker that a pending create may have made. */
export type Candidate = CreatedCandidate;

/** What became of one pending create. */
export type Match =
  | { readonly outcome: "found"; readonly id: number }
  | { readonly outcome: "absent" }
  | { readonly outcome: "ambiguous"; readonly ids: readonly number[] }
  /** The create's inputs name no object (an input is missing or still encrypted): nothing to match on. */
  | { readonly outcome: "unreadable"; readonly input: string };

/**
 * What the pending create of `kind` with `inputs` asked the broker to make, as the model's rule
 * (`isCreatedBy`) reads it; `unreadable` when an input it needs is missing or still encrypted
 * (matching on a value the export does not show would drop a create the broker holds).
 */
export function requestedOf(
  kind: "Workspace" | "AccessKey",
  inputs: Readonly<Record<string, unknown>>,
): CreateRequested | { readonly unreadable: string } {
  if (typeof inputs.name !== "string") return { unreadable: "name" };
  if (kind === "AccessKey") {
    if (typeof inputs.type !== "string") return { unreadable: "type" };
    const permissions = (inputs.permissions ?? {}) as PermissionsInput;
    return { kind, name: inputs.name, type: inputs.type, permissions };
  }
  if (inputs.parentId !== undefined && typeof inputs.parentId !== "number") return { unreadable: "parentId" };
  return { kind, name: inputs.name, parentId: typeof inputs.parentId === "number" ? inputs.parentId : 0 };
}

/**
 * The object the pending create of `kind` with `inputs` made, among `candidates`: the one that the
 * model's rule (`isCreatedBy`) says it made and no resource owns; `absent` when there is none (the
 * request never reached the broker), `ambiguous` when there are several. `broker-config recover`
 * asks the client's search (`BrokerClient.findCreated`) the same question over the broker's lists.
 *
 * @param notBefore when the provider recorded the create's intent before sending it
 *   (`src/core/intents.ts`), the earliest creation time (ms) the object it made can carry: an older
 *   namesake is not it.
 */
export function matchCandidate(
  kind: "Workspace" | "AccessKey",
  inputs: Readonly<Record<string, unknown>>,
  candidates: readonly Candidate[],
  owned: ReadonlySet<number>,
  notBefore?: number,
): Match {
  const requested = requestedOf(kind, inputs);
  if ("unreadable" in requested) return { outcome: "unreadable", input: requested.unreadable };
  const matches = candidates.filter((candidate) =>
    isCreatedBy(requested, candidate, { notBefore, claimed: owned }),
  );
  const [only, second] = matches;
  if (only === undefined) return { outcome: "absent" };
  if (second !== undefined)
    return { outcome: "ambiguous", ids: matches.map((m) => m.id).sort((a, b) => a - b) };
  return { outcome: "found", id: only.id };
}

/** A pending create turned into a resource: the id found, and the state it is recorded with. */
export interface Recovered {
  readonly pending: PendingCreate;
  readonly id: number;
  /** The inputs to record (as a refresh would: what the broker holds, with the program's settings). */
  readonly inputs: Readonly<Record<string, unknown>>;
  /** The outputs to record, in plain text: {@link recoveredState} marks the secret ones. */
  readonly outputs: Readonly<Record<string, unknown>>;
}

/** `value` as a secret of an exported deployment (`pulumi stack import` encrypts it). */
function secret(value: unknown): Record<string, unknown> {
  return { [SIGNATURE_KEY]: SECRET_SIGNATURE, plaintext: JSON.stringify(value) };
}

/** Whether `value` is a secret of an exported deployment. */
function isSecret(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as Record<string, unknown>)[SIGNATURE_KEY] === SECRET_SIGNATURE
  );
}

/**
 * A secret's plain value from an export made with `--show-secrets`, or `value` itself when it is no
 * secret. A secret still encrypted (an export without `--show-secrets`) gives `undefined`.
 */
export function revealed(value: unknown): unknown {
  if (!isSecret(value)) return value;
  return typeof value.plaintext === "string" ? (JSON.parse(value.plaintext) as unknown) : undefined;
}

/** The state resource that records `recovered` as the completed create would have. */
export function recoveredResource(recovered: Recovered): StateResource {
  const { pending } = recovered;
  const info = TYPES.get(pending.resource.type);
  const secretNames = new Set([...(info?.secretOutputs ?? []), ...additionalSecretOutputs(pending.resource)]);
  const outputs: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(recovered.outputs)) {
    outputs[name] = secretNames.has(name) && !isSecret(value) ? secret(value) : value;
  }
  const inputs: Record<string, unknown> = { ...recovered.inputs };
  if (pending.door === "dynamic") {
    // The dynamic provider host finds the provider's code in both (see DESIGN: serialization).
    inputs[PROVIDER_CODE_KEY] = pending.inputs[PROVIDER_CODE_KEY];
    outputs[PROVIDER_CODE_KEY] = pending.inputs[PROVIDER_CODE_KEY];
  }
  return { ...pending.resource, id: String(recovered.id), inputs, outputs };
}

function additionalSecretOutputs(resource: StateResource): string[] {
  const names = resource.additionalSecretOutputs;
  return Array.isArray(names) ? names.filter((name): name is string => typeof name === "string") : [];
}

/**
 * `exported` with each recovered create recorded as a resource and the pending creates in `resolved`
 * (recovered or dropped) removed; every other pending operation is kept as it was.
 */
export function recoveredState(
  exported: ExportedStack,
  recovered: readonly Recovered[],
  resolved: ReadonlySet<string>,
): ExportedStack {
  const pending = (exported.deployment.pending_operations ?? []) as PendingOperation[];
  const kept = pending.filter(
    (operation) => operation.type !== "creating" || !resolved.has(operation.resource.urn),
  );
  // A create of a URN the state already holds was a replacement's (create before delete): the old
  // object is marked for deletion, as the engine marks it once the new one exists, and the next
  // `pulumi up` finishes the replacement by deleting it.
  const replaced = new Set(recovered.map((r) => r.pending.urn));
  const resources = (exported.deployment.resources ?? []).map((resource) =>
    replaced.has(resource.urn) && resource.delete !== true ? { ...resource, delete: true } : resource,
  );
  return {
    ...exported,
    deployment: {
      ...exported.deployment,
      // A recovered resource depends only on resources already recorded (its provider, its parent,
      // the workspace it sits in), which the state lists before it: appending keeps the order valid.
      resources: [...resources, ...recovered.map(recoveredResource)],
      pending_operations: kept,
    },
  };
}
