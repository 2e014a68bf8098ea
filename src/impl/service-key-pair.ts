import type { dynamic, ID } from "@pulumi/pulumi";
import { isBrokerApiError, type BrokerClient } from "../client";
import type { AccessKeyRecord } from "../client/types";
import { brokerClient } from "./connection";
import { inputChanged } from "./diffing";
import { assertSameEndpoint, checkEndpointInputs, endpointMoved, type EndpointInputs } from "./endpoint";
import { warn } from "./engine-log";
import { containsUnknown, isUnknown } from "./unknown";
import { CheckFailures, describe, isPlainObject } from "./validation";

export { configure } from "./connection";

/** Service key pair inputs after `check`. */
export interface ServiceKeyPairInputs extends EndpointInputs {
  /** The SERVICE key value (a secret). */
  accessKey: string;
  rotationTriggers: Record<string, string>;
}

/** What the engine records for a key pair. `accessKey` and `privateKey` are secrets. */
export interface ServiceKeyPairOutputs extends ServiceKeyPairInputs {
  accessKeyId: number;
  publicKey: string;
  privateKey: string;
  /** When this stack last replaced the pair (ISO 8601 UTC). */
  rotatedAt: string;
}

/** Validates inputs. Makes no request (the key's type is verified by `create`). */
export function check(
  olds: Record<string, unknown>,
  news: Record<string, unknown>,
): Promise<dynamic.CheckResult> {
  const failures = new CheckFailures();
  const accessKey = news["accessKey"];
  if (!isUnknown(accessKey) && (typeof accessKey !== "string" || accessKey.trim() === "")) {
    // Never echo the value: it is a credential.
    failures.add(
      "accessKey",
      `must be the value of a SERVICE access key (e.g. an AccessKey's accessKey output), got ${typeof accessKey === "string" ? "an empty string" : describe(accessKey)}`,
    );
  }
  const triggers = news["rotationTriggers"] ?? {};
  if (!isUnknown(triggers)) {
    if (!isPlainObject(triggers))
      failures.add("rotationTriggers", `must be a map of strings, got ${describe(triggers)}`);
    else
      for (const [key, value] of Object.entries(triggers))
        if (!isUnknown(value) && typeof value !== "string")
          failures.add(`rotationTriggers.${key}`, `must be a string, got ${describe(value)}`);
  }
  const inputs: Record<string, unknown> = { ...news, rotationTriggers: triggers };
  checkEndpointInputs(failures, olds, news, inputs);
  return Promise.resolve({ inputs, failures: failures.list });
}

/** Another key (or endpoint) replaces the pair resource; changed `rotationTriggers` rotate it in place. */
export function diff(
  _id: ID,
  olds: Record<string, unknown>,
  news: Record<string, unknown>,
): Promise<dynamic.DiffResult> {
  const replaces: string[] = [];
  // During a preview, the key's value is unknown whenever its AccessKey is updated in the same run
  // (a dynamic provider cannot compute outputs in preview). Nearly always the value stays, so this
  // counts as a change, not as a replacement: `pulumi up` decides again with the real value and
  // replaces the pair only if the key really changed.
  const keyUnknown = isUnknown(news["accessKey"]);
  if (!keyUnknown && olds["accessKey"] !== news["accessKey"]) replaces.push("accessKey");
  if (endpointMoved(olds, news)) replaces.push("baseUrl");
  const triggersChanged =
    containsUnknown(news["rotationTriggers"]) ||
    canonical(olds["rotationTriggers"]) !== canonical(news["rotationTriggers"]);
  const settingsChanged = inputChanged(olds, news, "allowEndpointChange", false);
  return Promise.resolve({
    changes: keyUnknown || replaces.length > 0 || triggersChanged || settingsChanged,
    replaces,
    deleteBeforeReplace: false,
  });
}

function canonical(value: unknown): string {
  const map = isPlainObject(value) ? value : {};
  return JSON.stringify(
    Object.keys(map)
      .sort()
      .map((key) => [key, map[key]]),
  );
}

/** Verifies the key is a SERVICE key and replaces its pair, recording the new one. */
export async function create(raw: Record<string, unknown>): Promise<dynamic.CreateResult> {
  const inputs = raw as unknown as ServiceKeyPairInputs;
  const client = brokerClient();
  const record = await serviceKeyRecord(client, inputs.accessKey);
  const outs = await rotate(client, inputs, record.id);
  return { id: String(record.id), outs };
}

async function serviceKeyRecord(client: BrokerClient, accessKey: string): Promise<AccessKeyRecord> {
  let record: AccessKeyRecord;
  try {
    record = await client.getAccessKeyPermissions(accessKey);
  } catch (error) {
    if (isBrokerApiError(error) && error.status === 404) {
      throw new Error(
        "ServiceKeyPair: the access key given as `accessKey` does not exist on the broker. Pass the accessKey output of a SERVICE AccessKey.",
        { cause: error },
      );
    }
    throw error;
  }
  if (record.type !== "SERVICE") {
    throw new Error(
      `ServiceKeyPair: access key "${record.name}" (id ${record.id}) is an ${record.type} key; only SERVICE keys have encryption key pairs. Pass the accessKey output of an AccessKey with type "SERVICE".`,
    );
  }
  return record;
}

async function rotate(
  client: BrokerClient,
  inputs: ServiceKeyPairInputs,
  accessKeyId: number,
): Promise<Record<string, unknown>> {
  const pair = await client.rotateServiceKeyPair(inputs.accessKey);
  const outs: Record<string, unknown> = {
    accessKey: inputs.accessKey,
    rotationTriggers: inputs.rotationTriggers,
    accessKeyId,
    publicKey: pair.publicKey,
    privateKey: pair.privateKey,
    rotatedAt: new Date().toISOString(),
    baseUrl: client.baseUrl,
  };
  outs["allowEndpointChange"] = inputs.allowEndpointChange ?? false;
  return outs;
}

/**
 * Refresh: there is no way to read a pair, so this checks that its key still exists; a pair whose
 * key is gone leaves the stack.
 */
export async function read(id: ID, props: Record<string, unknown> = {}): Promise<dynamic.ReadResult> {
  assertSameEndpoint(props["baseUrl"], `Refreshing service key pair ${id}`);
  const accessKey = props["accessKey"];
  if (typeof accessKey !== "string") return { id, props };
  try {
    await brokerClient().getAccessKeyPermissions(accessKey);
  } catch (error) {
    if (isBrokerApiError(error) && error.status === 404) return { id: "" };
    throw error;
  }
  const inputs: Record<string, unknown> = { accessKey, rotationTriggers: props["rotationTriggers"] ?? {} };
  if (typeof props["baseUrl"] === "string") inputs["baseUrl"] = props["baseUrl"];
  return { id, props, inputs };
}

/** Changed `rotationTriggers` rotate the pair. */
export async function update(
  _id: ID,
  olds: Record<string, unknown>,
  news: Record<string, unknown>,
): Promise<dynamic.UpdateResult> {
  const old = olds as unknown as ServiceKeyPairOutputs;
  const inputs = news as unknown as ServiceKeyPairInputs;
  assertSameEndpoint(old.baseUrl, `Rotating service key pair ${old.accessKeyId}`);
  if (canonical(old.rotationTriggers) === canonical(inputs.rotationTriggers)) {
    return { outs: { ...olds, allowEndpointChange: inputs.allowEndpointChange ?? false } };
  }
  return { outs: await rotate(brokerClient(), inputs, old.accessKeyId) };
}

/** Key pairs cannot be deleted: the current pair stays with its key. */
export async function delete_(id: ID, _props?: Record<string, unknown>): Promise<void> {
  await warn(
    `The service key pair of access key ${id} was removed from the stack; the key keeps its current pair on the broker (the API cannot delete a pair). Rotate it by other means if the private key may have leaked.`,
  );
}
export { delete_ as delete };
