import type { dynamic, ID } from "@pulumi/pulumi";
import { createdAccessKeyOf, isBrokerApiError, type BrokerClient } from "../client";
import type { AccessKeyRecord, AccessKeyType, CreatedAccessKey, Permissions } from "../client/types";
import { ON_DELETE_VALUES, type OnDelete } from "../model";
import { brokerClient } from "./connection";
import { inputChanged } from "./diffing";
import { assertSameEndpoint, checkEndpointInputs, endpointMoved, type EndpointInputs } from "./endpoint";
import { warn } from "./engine-log";
import { CreatedButFailedError } from "./partial-failure";
import {
  describePermissionDifference,
  emptyPermissions,
  normalizePermissions,
  samePermissions,
} from "./permissions";
import { containsUnknown } from "./unknown";
import {
  CheckFailures,
  checkAccessKeyType,
  checkName,
  checkOptionalBoolean,
  checkOptionalEnum,
  checkPermissions,
} from "./validation";

export { configure } from "./connection";

export { ON_DELETE_VALUES, type OnDelete };

/** Access key inputs after `check`: defaults filled in, permissions normalised. */
export interface AccessKeyInputs extends EndpointInputs {
  name: string;
  type: AccessKeyType;
  permissions: Permissions;
  adopt: boolean;
  onDelete: OnDelete;
}

/** What the engine records for an access key. `accessKey` and `privateKey` are secrets. */
export interface AccessKeyOutputs extends AccessKeyInputs {
  accessKey: string;
  accessKeyId: number;
  /** Absent only for a key kept in the stack by a create whose read-back failed. */
  createdAt?: string;
  adopted: boolean;
  publicKey?: string;
  privateKey?: string;
}

/** Validates inputs and fills defaults. Makes no request. */
export function check(
  olds: Record<string, unknown>,
  news: Record<string, unknown>,
): Promise<dynamic.CheckResult> {
  const failures = new CheckFailures();
  checkName(failures, "name", news["name"], "Access key");
  checkAccessKeyType(failures, "type", news["type"]);
  checkPermissions(failures, "permissions", news["permissions"]);
  checkOptionalBoolean(failures, "adopt", news["adopt"]);
  checkOptionalEnum(failures, "onDelete", news["onDelete"], ON_DELETE_VALUES);
  const inputs: Record<string, unknown> = {
    ...news,
    adopt: news["adopt"] ?? false,
    onDelete: news["onDelete"] ?? "revoke",
  };
  const permissions = news["permissions"];
  if (failures.list.length === 0 && !containsUnknown(permissions)) {
    inputs["permissions"] = normalizePermissions(permissions as Partial<Permissions> | undefined);
  }
  checkEndpointInputs(failures, olds, news, inputs);
  return Promise.resolve({ inputs, failures: failures.list });
}

/**
 * A change of name, type or endpoint replaces the key (the API cannot rename a key or change its
 * type); permissions update in place and compare as sets.
 */
export function diff(
  _id: ID,
  olds: Record<string, unknown>,
  news: Record<string, unknown>,
): Promise<dynamic.DiffResult> {
  const replaces = ["name", "type"].filter((key) => inputChanged(olds, news, key));
  if (endpointMoved(olds, news)) replaces.push("baseUrl");
  const permissionsChanged =
    containsUnknown(news["permissions"]) ||
    !samePermissions(
      olds["permissions"] as Partial<Permissions>,
      news["permissions"] as Partial<Permissions>,
    );
  const settingsChanged =
    inputChanged(olds, news, "adopt", false) ||
    inputChanged(olds, news, "onDelete", "revoke") ||
    inputChanged(olds, news, "allowEndpointChange", false);
  return Promise.resolve({
    changes: replaces.length > 0 || permissionsChanged || settingsChanged,
    replaces,
    deleteBeforeReplace: false,
  });
}

/** Creates the key (or adopts an existing one with the same name and type) and sets its permissions. */
export async function create(raw: Record<string, unknown>): Promise<dynamic.CreateResult> {
  const inputs = raw as unknown as AccessKeyInputs;
  const client = brokerClient();
  if (inputs.adopt) {
    const existing = await findByNameAndType(client, inputs.name, inputs.type);
    if (existing.length > 1) {
      throw new Error(
        `Cannot adopt access key "${inputs.name}": ${existing.length} ${inputs.type} keys have that name (ids ${existing.map((k) => k.id).join(", ")}). Rename the one to manage, or adopt it under its own name.`,
      );
    }
    if (existing[0] !== undefined) return adopt(client, inputs, existing[0], raw["__provider"]);
  }
  let created: CreatedAccessKey;
  let record: AccessKeyRecord;
  try {
    ({ created, record } = await client.createAccessKeyOnce({
      name: inputs.name,
      type: inputs.type,
      permissions: inputs.permissions,
    }));
  } catch (error) {
    const made = createdAccessKeyOf(error);
    if (made === undefined) throw error;
    // The key exists but could not be read back: keep it in the stack with what we know, so the
    // next `pulumi up` finishes it (see `update`) instead of creating another one.
    const known = outputsOf(
      inputs,
      {
        id: made.accessKeyId,
        name: inputs.name,
        key: made.accessKey,
        type: inputs.type,
        permissions: inputs.permissions,
        createdAt: "",
      },
      false,
      client.baseUrl,
    );
    delete known["createdAt"];
    delete known["permissions"];
    addKeyPair(known, made);
    throw new CreatedButFailedError(
      `Access key "${inputs.name}"`,
      String(made.accessKeyId),
      known,
      raw["__provider"],
      error,
    );
  }
  const outs = outputsOf(inputs, record, false, client.baseUrl);
  addKeyPair(outs, created);
  const id = String(created.accessKeyId);
  try {
    await ensurePermissions(client, record, inputs.permissions);
  } catch (error) {
    throw new CreatedButFailedError(`Access key "${inputs.name}"`, id, outs, raw["__provider"], error);
  }
  return { id, outs };
}

function addKeyPair(outs: Record<string, unknown>, created: CreatedAccessKey): void {
  if (created.serviceKeyPair === undefined) return;
  outs["publicKey"] = created.serviceKeyPair.publicKey;
  outs["privateKey"] = created.serviceKeyPair.privateKey;
}

async function adopt(
  client: BrokerClient,
  inputs: AccessKeyInputs,
  record: AccessKeyRecord,
  provider: unknown,
): Promise<dynamic.CreateResult> {
  const id = String(record.id);
  const outs = outputsOf(inputs, record, true, client.baseUrl);
  try {
    const current = await ensurePermissions(client, record, inputs.permissions);
    outs["permissions"] = current;
  } catch (error) {
    throw new CreatedButFailedError(`Adopted access key "${inputs.name}"`, id, outs, provider, error);
  }
  return { id, outs };
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

function outputsOf(
  inputs: AccessKeyInputs,
  record: AccessKeyRecord,
  adopted: boolean,
  baseUrl: string,
): Record<string, unknown> {
  const outs: Record<string, unknown> = {
    name: record.name,
    type: record.type,
    permissions: normalizePermissions(record.permissions),
    adopt: inputs.adopt,
    onDelete: inputs.onDelete,
    accessKey: record.key,
    accessKeyId: record.id,
    createdAt: record.createdAt,
    adopted,
    baseUrl,
  };
  outs["allowEndpointChange"] = inputs.allowEndpointChange ?? false;
  return outs;
}

/** Refresh: reads the key's record; a key that no longer exists leaves the stack. */
export async function read(id: ID, props: Record<string, unknown> = {}): Promise<dynamic.ReadResult> {
  assertSameEndpoint(props["baseUrl"], `Refreshing access key ${id}`);
  const old = props as Partial<AccessKeyOutputs>;
  if (typeof old.accessKey !== "string") {
    throw new Error(
      `Access key ${id} has no recorded key value in the stack, so it cannot be read; remove it from the stack with \`pulumi state delete\` and adopt it again.`,
    );
  }
  const client = brokerClient();
  let record: AccessKeyRecord;
  try {
    record = await client.getAccessKeyPermissions(old.accessKey);
  } catch (error) {
    if (isBrokerApiError(error) && error.status === 404) return { id: "" };
    throw error;
  }
  const inputs: AccessKeyInputs = {
    name: record.name,
    type: record.type,
    permissions: normalizePermissions(record.permissions),
    adopt: old.adopt ?? false,
    onDelete: old.onDelete ?? "revoke",
    baseUrl: client.baseUrl,
  };
  inputs.allowEndpointChange = old.allowEndpointChange ?? false;
  const outs = outputsOf(inputs, record, old.adopted ?? false, client.baseUrl);
  if (old.publicKey !== undefined) outs["publicKey"] = old.publicKey;
  if (old.privateKey !== undefined) outs["privateKey"] = old.privateKey;
  return { id, props: outs, inputs: { ...inputs } };
}

/** Sets the new permissions (read back and verified); other in-place changes only touch the stack. */
export async function update(
  _id: ID,
  olds: Record<string, unknown>,
  news: Record<string, unknown>,
): Promise<dynamic.UpdateResult> {
  const old = olds as unknown as AccessKeyOutputs;
  const inputs = news as unknown as AccessKeyInputs;
  assertSameEndpoint(old.baseUrl, `Updating access key "${old.name}"`);
  const outs: Record<string, unknown> = { ...olds, adopt: inputs.adopt, onDelete: inputs.onDelete };
  outs["allowEndpointChange"] = inputs.allowEndpointChange ?? false;
  const client = brokerClient();
  if (old.createdAt === undefined) {
    // Kept in the stack by a create whose read-back failed: read it now and finish it.
    const record = await client.getAccessKeyPermissions(old.accessKey);
    Object.assign(outs, outputsOf(inputs, record, old.adopted, client.baseUrl));
    outs["permissions"] = await ensurePermissions(client, record, inputs.permissions);
  } else if (!samePermissions(old.permissions, inputs.permissions)) {
    const key = { key: old.accessKey, name: old.name, id: old.accessKeyId };
    outs["permissions"] = await applyPermissions(client, key, inputs.permissions);
  }
  return { outs };
}

/**
 * The API cannot delete keys. With `onDelete: "revoke"` (the default) the key loses every
 * permission, so it can no longer publish or subscribe; with `"retain"` it is left as it is.
 */
export async function delete_(id: ID, props: Record<string, unknown>): Promise<void> {
  const old = props as unknown as AccessKeyOutputs;
  if (old.onDelete === "retain") {
    await warn(
      `Access key "${old.name}" (id ${id}) was removed from the stack and left unchanged on the broker (onDelete: "retain"). It still works with its permissions.`,
    );
    return;
  }
  assertSameEndpoint(old.baseUrl, `Revoking access key "${old.name}"`);
  try {
    await brokerClient().updateAccessKeyPermissions(old.accessKey, emptyPermissions());
  } catch (error) {
    if (isBrokerApiError(error) && error.status === 404) return;
    throw error;
  }
  await warn(
    `Access key "${old.name}" (id ${id}) was revoked: its send and receive permissions are now empty. The key itself still exists, because the configuration API cannot delete keys.`,
  );
}
export { delete_ as delete };
