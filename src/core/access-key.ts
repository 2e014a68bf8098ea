/**
 * Access keys: typed inputs and outputs, and check / diff / create / read / update / delete over the
 * API client, for any adapter.
 */
import { createdAccessKeyOf, isBrokerApiError, type BrokerClient } from "../client";
import {
  type AccessKeyRecord,
  type AccessKeyType,
  type CreatedAccessKey,
  type Permissions,
  type ServiceKeyPair,
} from "../client/types";
import {
  describePermissionDifference,
  effectiveOnDelete,
  emptyPermissions,
  normalizePermissions,
  ON_DELETE_VALUES,
  samePermissions,
  type OnDelete,
} from "../model";
import { nameRule } from "./validation";
import { withChosenName, type NameSource } from "./autoname";
import type { CoreContext, DeleteCheckContext } from "./context";
import { ACCESS_KEY } from "./declarations";
import { declared, type FactsOf, type InputsOf, type OutputsOf, type SettingsOf } from "./declared";
import { listChanges } from "./diff";
import { withEndpointTracking, type EndpointInputs, type EndpointInputsOf } from "./endpoint";
import { spellings } from "../settings/wording";
import { numericId } from "./import";
import { PartiallyCreatedError } from "./partial-failure";
import { findInterrupted, tookOver, underIntent, type CreateOrigin, type Intent } from "./intents";
import type { CheckResult, CreateResult, DiffResult, PropertyChange, ReadResult } from "./results";
import { GONE } from "./results";
import type { PropertyBag } from "./state";
import { NOT_KNOWN, type NotKnown } from "./unknown";

export { ON_DELETE_VALUES, type OnDelete };

/** The plain fields of an access key, from its declaration. */
const FIELDS = declared(ACCESS_KEY, "Access key");

/** An access key's own inputs (the endpoint aside); `U` is what a value not known yet becomes. */
type OwnInputsOf<U> = InputsOf<typeof ACCESS_KEY, U>;

/** An access key's own checked inputs. */
type OwnInputs = OwnInputsOf<never>;

/** Access key inputs; `U` is what a value not known yet becomes (nothing, once known). */
export type AccessKeyInputsOf<U = never> = OwnInputsOf<U> & EndpointInputsOf<U>;

/** Access key inputs after `check`: defaults filled in, permissions normalised. */
export type AccessKeyInputs = AccessKeyInputsOf;

/** Access key inputs during a preview: any of them may be not known yet. */
export type ProposedAccessKeyInputs = AccessKeyInputsOf<NotKnown>;

/**
 * What the engine records for an access key. `accessKey` and `privateKey` are secrets; `permissions`
 * and `createdAt` are absent only while the key is kept in the stack by a create whose read-back
 * failed (the next update finishes it).
 */
export type AccessKeyOutputs = OwnOutputs & EndpointInputs;

/** An access key's own outputs (the endpoint aside). */
type OwnOutputs = OutputsOf<typeof ACCESS_KEY>;

/** What the server says about a key, or what we know of it (`publicKey`/`privateKey`: the pair of its creation). */
type AccessKeyFacts = FactsOf<typeof ACCESS_KEY>;

/** The one function that builds an access key's outputs: create, read and update all use it. */
function accessKeyOutputs(settings: SettingsOf<typeof ACCESS_KEY>, facts: AccessKeyFacts): OwnOutputs {
  return FIELDS.outputs({ ...facts, ...FIELDS.settingsOf(settings) });
}

/** The facts a key's record gives. */
function factsOf(record: AccessKeyRecord, adopted: boolean): AccessKeyFacts {
  return {
    ...FIELDS.fromRecord(record),
    name: record.name,
    type: record.type,
    accessKey: record.key,
    accessKeyId: record.id,
    adopted,
    permissions: normalizePermissions(record.permissions),
  };
}

/** The pair from a key's creation, as facts. */
function keyPairFacts(pair: ServiceKeyPair | undefined): Pick<AccessKeyFacts, "publicKey" | "privateKey"> {
  return pair === undefined ? {} : { publicKey: pair.publicKey, privateKey: pair.privateKey };
}

/** The pair recorded in outputs, if both halves are. */
function keyPairOf(old: OwnOutputs): Pick<AccessKeyFacts, "publicKey" | "privateKey"> {
  if (old.publicKey === undefined || old.privateKey === undefined) return {};
  return { publicKey: old.publicKey, privateKey: old.privateKey };
}

/** How an access key's permissions change, entry by entry. */
export interface PermissionsChange {
  readonly send: { readonly added: readonly string[]; readonly removed: readonly string[] };
  readonly receive: { readonly added: readonly string[]; readonly removed: readonly string[] };
  /** Whether the `resources` object changes. */
  readonly resources: boolean;
}

/** An access key's diff, with its permission changes entry by entry when they are known. */
export interface AccessKeyDiff extends DiffResult {
  /** Absent when permissions do not change, or their new value is not known yet. */
  readonly permissions?: PermissionsChange;
}

/** The entry-by-entry change between two permissions values, `undefined` when they grant the same. */
function permissionsChange(old: Permissions, now: Permissions): PermissionsChange | undefined {
  if (samePermissions(old, now)) return undefined;
  const a = normalizePermissions(old);
  const b = normalizePermissions(now);
  const list = (field: "send" | "receive"): { added: string[]; removed: string[] } => ({
    added: b[field].filter((path) => !a[field].includes(path)),
    removed: a[field].filter((path) => !b[field].includes(path)),
  });
  return {
    send: list("send"),
    receive: list("receive"),
    resources: JSON.stringify(a.resources) !== JSON.stringify(b.resources),
  };
}

/** The changed paths of a permissions change (both values normalised, so indices are stable). */
function permissionPaths(old: Permissions, now: Permissions, change: PermissionsChange): PropertyChange[] {
  return [
    ...listChanges("permissions.send", old.send, now.send, false),
    ...listChanges("permissions.receive", old.receive, now.receive, false),
    ...(change.resources ? [{ path: "permissions.resources", kind: "update" as const, replace: false }] : []),
  ];
}

/**
 * What a create made: the key, complete (`made`), or the key that exists but whose later step failed
 * (`partial`: kept in the stack with what is known, finished by the next update). Every path of
 * `create` (a new key, a take-over, an adoption) ends in one of these, and {@link settled} alone
 * turns a partial one into the `PartiallyCreatedError` the doors report.
 */
type KeyCreated =
  | { readonly outcome: "made"; readonly id: string; readonly outputs: OwnOutputs }
  | {
      readonly outcome: "partial";
      readonly id: string;
      readonly outputs: OwnOutputs;
      readonly cause: unknown;
    };

/** The engine's form of what a create made: its result, or the partial failure that keeps the key. */
function settled(inputs: OwnInputs, created: KeyCreated, adopted = false): CreateResult<OwnOutputs> {
  if (created.outcome === "made") return { id: created.id, outputs: created.outputs };
  const what = `${adopted ? "Adopted access key" : "Access key"} "${inputs.name}"`;
  throw new PartiallyCreatedError(what, created.id, created.outputs, created.cause);
}

/**
 * Finishes a key that exists, as every path of `create` does: its permissions set to the declared
 * ones (unless the record holds them). `pair` is the key pair of its creation, when there is one.
 */
async function finished(
  client: BrokerClient,
  inputs: OwnInputs,
  record: AccessKeyRecord,
  adopted: boolean,
  pair?: ServiceKeyPair,
): Promise<KeyCreated> {
  const id = String(record.id);
  const facts: AccessKeyFacts = { ...factsOf(record, adopted), ...keyPairFacts(pair) };
  try {
    const permissions = await ensurePermissions(client, record, inputs.permissions);
    return { outcome: "made", id, outputs: accessKeyOutputs(inputs, { ...facts, permissions }) };
  } catch (cause) {
    return { outcome: "partial", id, outputs: accessKeyOutputs(inputs, facts), cause };
  }
}

/**
 * A key whose create was answered but whose read-back failed: it exists, and is kept in the stack
 * with what is known (no permissions, no `createdAt`) so the next update finishes it
 * ({@link isUnfinished}) instead of creating another one.
 */
function unread(inputs: OwnInputs, made: CreatedAccessKey, cause: unknown): KeyCreated {
  const outputs = accessKeyOutputs(inputs, {
    name: inputs.name,
    type: inputs.type,
    accessKey: made.accessKey,
    accessKeyId: made.accessKeyId,
    adopted: false,
    ...keyPairFacts(made.serviceKeyPair),
  });
  return { outcome: "partial", id: String(made.accessKeyId), outputs, cause };
}

/**
 * Whether recorded outputs are those of a key kept in the stack by a create whose read-back failed
 * ({@link unread}): it has no `createdAt` yet, and its next update reads it and finishes it.
 */
export function isUnfinished(old: Pick<OwnOutputs, "createdAt">): boolean {
  return old.createdAt === undefined;
}

async function findByNameAndType(
  client: BrokerClient,
  name: string,
  type: AccessKeyType,
): Promise<AccessKeyRecord[]> {
  const matches: AccessKeyRecord[] = [];
  for await (const key of client.accessKeys()) if (key.name === name && key.type === type) matches.push(key);
  return matches;
}

/** Sets `desired` unless the record already holds it; returns what the server holds afterwards. */
async function ensurePermissions(
  client: BrokerClient,
  record: AccessKeyRecord,
  desired: Permissions,
): Promise<Permissions> {
  if (samePermissions(record.permissions, desired)) return normalizePermissions(record.permissions);
  return applyPermissions(client, record, desired);
}

/**
 * Makes the server hold exactly `desired`: posts the full lists, reads them back, and fails with an
 * explanation when the server kept something else (the API does not say whether an update
 * replaces or merges).
 */
async function applyPermissions(
  client: BrokerClient,
  key: Pick<AccessKeyRecord, "key" | "name" | "id">,
  desired: Permissions,
): Promise<Permissions> {
  await client.updateAccessKeyPermissions(key.key, desired);
  const actual = normalizePermissions((await client.getAccessKeyPermissions(key.key)).permissions);
  const expected = normalizePermissions(desired);
  if (!samePermissions(actual, expected)) {
    throw new Error(
      `The broker kept other permissions than requested for access key "${key.name}" (id ${key.id}): ${describePermissionDifference(expected, actual)}. ` +
        "The server seems to merge permission updates instead of replacing them; remove the extra paths in the broker's dashboard, then run `pulumi up` again.",
    );
  }
  return actual;
}

/**
 * Why revoking this key is refused, or `undefined`: the provider never revokes the key it
 * authenticates with (whatever removes the resource: destroy, a replacement, a component dropping
 * it), which would lock it out of the API mid-run. A key left as it is (`onDelete: "retain"`) is
 * never refused. Compares values through the context; the message names the key, never a value.
 */
function ownKeyRefusalReason(ctx: DeleteCheckContext, id: string, old: OwnOutputs): string | undefined {
  if (onDeleteOf(old) === "retain" || !ctx.authenticatesWith(old.accessKey)) return undefined;
  return (
    `access key "${old.name}" (id ${id}) is the key this provider authenticates with (${ctx.settingNames.apiKey}), and revoking it would lock the provider out of the API. ` +
    `It stays in the stack, untouched. To let it leave the stack, set ${spellings("onDelete")} to "retain" on it (then run \`pulumi up\` before the destroy), or configure the provider with another ACCOUNT key first.`
  );
}

/** What a destroy or replacement does to the recorded key: its `onDelete`, or the model's default for a key adopted or created. */
function onDeleteOf(old: Pick<OwnOutputs, "onDelete" | "adopted">): OnDelete {
  return effectiveOnDelete(old.onDelete, old.adopted);
}

/**
 * The diff of `onDelete`: a change of what a destroy would do, not of its spelling. Earlier versions
 * wrote `"revoke"` into every state whose program left `onDelete` out; such a key is no change when
 * it was created (revoked either way) and a change when it was adopted (now left as found), so the
 * next `up` shows it and records the new default.
 */
function onDeleteChange(adopted: boolean) {
  return (old: OnDelete | undefined, now: OnDelete | undefined | NotKnown) => ({
    changed: now === NOT_KNOWN || effectiveOnDelete(old, adopted) !== effectiveOnDelete(now, adopted),
    replace: false,
  });
}

/** Import by id: the key list is the only endpoint that finds a key by id (and returns its value). */
async function importAccessKey(ctx: CoreContext, id: string): Promise<ReadResult<OwnInputs, OwnOutputs>> {
  const keyId = numericId(id, FIELDS.what);
  const client = ctx.client();
  const record = await client.findAccessKeyById(keyId);
  if (record === undefined) return GONE;
  const outputs = accessKeyOutputs(FIELDS.settingsOf(undefined), factsOf(record, false));
  return { exists: true, id: String(record.id), outputs, inputs: FIELDS.inputsOf(outputs) };
}

/**
 * The core's AccessKey operations, as one table for the doors (see
 * {@link "./operations".ResourceOperations}), endpoint tracking included.
 */
export const accessKeyOperations = withEndpointTracking<
  OwnInputs,
  OwnInputsOf<NotKnown>,
  OwnOutputs,
  AccessKeyDiff
>({
  typeName: "AccessKey",
  describe: (id, old) => (old === undefined ? `access key ${id}` : `access key "${old.name}"`),
  verbs: { delete: "Revoking" },
  decodeInputs: FIELDS.decodeInputs,
  decodeProposedInputs: FIELDS.decodeProposedInputs,
  /**
   * Decodes an access key's own recorded state, as this or any earlier version of the package wrote it.
   * @param id the resource id (the key's id), used when the state lacks `accessKeyId`.
   */
  decodeOutputs: (bag: PropertyBag, id?: string): OwnOutputs =>
    FIELDS.decodeOutputs(bag, { accessKeyId: idNumber(id) }),
  /**
   * Validates inputs, fills defaults and chooses a name when the program gives none. Makes no request.
   * @param news the inputs as the program gave them.
   * @param naming where a name the program leaves out comes from.
   */
  check: (news: PropertyBag, naming: NameSource): CheckResult<OwnInputsOf<NotKnown>> => {
    const named = withChosenName(news, naming, "accessKey");
    if (named.inputs === undefined) return named;
    return FIELDS.check(named.inputs, { name: nameRule("Access key") });
  },
  /**
   * A change of name or type replaces the key (the API cannot rename a key or change its type);
   * permissions update in place and compare as sets.
   */
  diff(old: OwnInputs, news: OwnInputsOf<NotKnown>, recorded?: OwnOutputs): AccessKeyDiff {
    const permissions =
      news.permissions === NOT_KNOWN ? undefined : permissionsChange(old.permissions, news.permissions);
    // Not known yet: one change of the whole property. Known: one change per list entry.
    const details =
      news.permissions === NOT_KNOWN || permissions === undefined
        ? []
        : permissionPaths(old.permissions, news.permissions, permissions);
    const diff = FIELDS.diff(old, news, {
      // Without decodable outputs the key counts as created: what every earlier state recorded.
      onDelete: onDeleteChange(recorded?.adopted ?? false),
      permissions: () => ({
        changed: news.permissions === NOT_KNOWN || permissions !== undefined,
        replace: false,
        details,
      }),
    });
    return permissions === undefined ? diff : { ...diff, permissions };
  },
  /**
   * Creates the key (or adopts an existing one with the same name and type) and sets its permissions.
   * With `origin`, the create is recorded as an intent before it is sent, and a key made by an
   * interrupted earlier create of the same resource is taken over instead of making another.
   */
  async create(
    ctx: CoreContext,
    inputs: OwnInputs,
    origin?: CreateOrigin,
  ): Promise<CreateResult<OwnOutputs>> {
    const client = ctx.client();
    const ours = (intent: Intent): boolean =>
      intent.kind === "AccessKey" && intent.object.name === inputs.name && intent.object.type === inputs.type;
    const what = `Creating access key "${inputs.name}"`;
    const interrupted = await findInterrupted(origin, client, "AccessKey", what, ours);
    if (interrupted?.found !== undefined) {
      const { record, created } = interrupted.found;
      if (ours(interrupted.intent)) {
        // Taken over as a create would have finished it: the listed record, a new pair for a SERVICE
        // key (the search made it: the create's answer, with its pair, died with the process), the
        // declared permissions. Its intent now waits for the engine, as a create's does.
        await tookOver(origin, client, interrupted, record.id);
        return settled(inputs, await finished(client, inputs, record, false, created.serviceKeyPair));
      }
      // The program now asks for another key: the one the interrupted create made is not this resource.
      await ctx.log.warn(
        `An earlier create of access key "${record.name}" (${record.type}) was interrupted after the broker made it (id ${record.id}); the program now asks for "${inputs.name}" (${inputs.type}), so that key is left as it is. Revoke it in the broker's dashboard if nothing uses it.`,
      );
    }
    if (inputs.adopt) {
      const existing = await findByNameAndType(client, inputs.name, inputs.type);
      if (existing.length > 1) {
        throw new Error(
          `Cannot adopt access key "${inputs.name}": ${existing.length} ${inputs.type} keys have that name (ids ${existing.map((k) => k.id).join(", ")}). Rename the one to manage, or adopt it under its own name.`,
        );
      }
      const found = existing[0];
      if (found !== undefined) {
        // The engine asks no provider before a destroy: this is the time to say what one will do.
        await ctx.log.warn(
          effectiveOnDelete(inputs.onDelete, true) === "retain"
            ? `Adopted access key "${inputs.name}" (id ${found.id}): it existed before this stack, so a destroy or replacement will leave it as it was found. Set ${spellings("onDelete")} to "revoke" on it to revoke it then.`
            : `Adopted access key "${inputs.name}" (id ${found.id}): it existed before this stack, and ${spellings("onDelete")} is "revoke", so a destroy or replacement will revoke it (empty its permissions) although this stack did not create it.`,
        );
        return settled(inputs, await finished(client, inputs, found, true), true);
      }
    }
    const request = { name: inputs.name, type: inputs.type, permissions: inputs.permissions };
    let made: KeyCreated;
    try {
      const { created, record } = await underIntent(
        origin,
        client,
        { kind: "AccessKey", object: request },
        () => client.createAccessKeyOnce(request),
        (answer) => answer.created.accessKeyId,
      );
      made = await finished(client, inputs, record, false, created.serviceKeyPair);
    } catch (error) {
      const key = createdAccessKeyOf(error);
      if (key === undefined) throw error;
      made = unread(inputs, key, error);
    }
    return settled(inputs, made);
  },
  /**
   * Refresh: reads the key's record; a key that no longer exists is gone.
   * @param old the recorded state; without it (an import by id) the key is looked up by its id in the
   *   key list, which carries the key's value, and its settings take their defaults.
   */
  async read(
    ctx: CoreContext,
    id: string,
    old: OwnOutputs | undefined,
  ): Promise<ReadResult<OwnInputs, OwnOutputs>> {
    if (old === undefined) return importAccessKey(ctx, id);
    const client = ctx.client();
    let record: AccessKeyRecord;
    try {
      record = await client.getAccessKeyPermissions(old.accessKey);
    } catch (error) {
      if (isBrokerApiError(error) && error.status === 404) return GONE;
      throw error;
    }
    const outputs = accessKeyOutputs(old, {
      ...factsOf(record, old.adopted),
      ...keyPairOf(old),
    });
    return { exists: true, id, outputs, inputs: FIELDS.inputsOf(outputs) };
  },
  /** Sets the new permissions (read back and verified); other in-place changes only touch the stack. */
  async update(ctx: CoreContext, _id: string, old: OwnOutputs, news: OwnInputs): Promise<OwnOutputs> {
    if (isUnfinished(old)) {
      // Kept in the stack by a create whose read-back failed: read it now and finish it.
      const client = ctx.client();
      const record = await client.getAccessKeyPermissions(old.accessKey);
      const permissions = await ensurePermissions(client, record, news.permissions);
      return accessKeyOutputs(news, {
        ...factsOf(record, old.adopted),
        ...keyPairOf(old),
        permissions,
      });
    }
    // The stack's settings in `recorded` give way to the new ones (accessKeyOutputs).
    const { publicKey: _public, privateKey: _private, ...recorded } = old;
    const facts: AccessKeyFacts = { ...recorded, ...keyPairOf(old) };
    if (samePermissions(old.permissions, news.permissions)) return accessKeyOutputs(news, facts);
    const key = { key: old.accessKey, name: old.name, id: old.accessKeyId };
    const permissions = await applyPermissions(ctx.client(), key, news.permissions);
    return accessKeyOutputs(news, { ...facts, permissions });
  },
  /**
   * The API cannot delete keys. With `onDelete: "revoke"` (the default for a key the stack created)
   * the key loses every permission, so it can no longer publish or subscribe; with `"retain"` (the
   * default for a key it adopted) it is left as it is.
   */
  async delete(ctx: CoreContext, id: string, old: OwnOutputs): Promise<void> {
    // Before any request: the engine keeps a resource whose delete fails in the stack.
    const refusal = ownKeyRefusalReason(ctx, id, old);
    if (refusal !== undefined) throw new Error(`Refusing to revoke: ${refusal}`);
    if (onDeleteOf(old) === "retain") {
      await ctx.log.warn(
        old.onDelete === "retain"
          ? `Access key "${old.name}" (id ${id}) was removed from the stack and left unchanged on the broker (${spellings("onDelete")} is "retain"). It still works with its permissions.`
          : `Adopted access key "${old.name}" (id ${id}) was removed from the stack and left as it was found on the broker: this stack did not create it (set ${spellings("onDelete")} to "revoke" to revoke an adopted key). It still works with its permissions.`,
      );
      return;
    }
    try {
      await ctx.client().updateAccessKeyPermissions(old.accessKey, emptyPermissions());
    } catch (error) {
      if (isBrokerApiError(error) && error.status === 404) return;
      throw error;
    }
    await ctx.log.warn(
      `Access key "${old.name}" (id ${id}) was revoked: its send and receive permissions are now empty. The key itself still exists, because the configuration API cannot delete keys.`,
    );
  },
  /** Why revoking this key would be refused: it is the key the provider authenticates with. */
  deleteRefusal: ownKeyRefusalReason,
});

/**
 * Decodes an access key's recorded state, as this or any earlier version of the package wrote it.
 * `id` (the key's id) stands in when the state lacks `accessKeyId`.
 */
export const decodeAccessKeyOutputs = accessKeyOperations.decodeOutputs;

export const {
  /** Validates inputs, records the endpoint, fills defaults and normalises permissions. Makes no request. */
  check: checkAccessKey,
  /**
   * A change of name, type or endpoint replaces the key (the API cannot rename a key or change its
   * type); permissions update in place and compare as sets.
   */
  diff: diffAccessKey,
  /** Creates the key (or adopts an existing one with the same name and type) and sets its permissions. */
  create: createAccessKey,
  /** Refresh: reads the key's record (without recorded state, an import by id); a key that no longer exists is gone. */
  read: readAccessKey,
  /** Sets the new permissions (read back and verified); other in-place changes only touch the stack. */
  update: updateAccessKey,
  /**
   * Revokes the key's permissions (`onDelete: "revoke"`, the default for a key the stack created) or
   * leaves it (`"retain"`, the default for a key it adopted): the API cannot delete keys.
   */
  delete: deleteAccessKey,
} = accessKeyOperations;

/** A resource id as a key id, when it is one. */
function idNumber(id: string | undefined): number | undefined {
  return id !== undefined && /^\d+$/u.test(id) ? Number(id) : undefined;
}
