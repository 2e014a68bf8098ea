/**
 * Service key pairs: typed inputs and outputs, and check / diff / create / read / update / delete
 * over the API client, for any adapter.
 */
import { isBrokerApiError, type BrokerClient } from "../client";
import type { AccessKeyRecord } from "../client/types";
import { CheckFailures, describe } from "./validation";
import type { CoreContext } from "./context";
import { SERVICE_KEY_PAIR } from "./declarations";
import { declared, type InputsOf, type OutputsOf } from "./declared";
import { mapChanges } from "./diff";
import { withEndpointTracking, type EndpointInputs, type EndpointInputsOf } from "./endpoint";
import { spellings } from "../settings/wording";
import { NotImportableError } from "./import";
import type { CheckResult, CreateResult, DiffResult, ReadResult } from "./results";
import { GONE } from "./results";
import type { PropertyBag } from "./state";
import { NOT_KNOWN, isUnknown, type NotKnown } from "./unknown";

/** The plain fields of a key pair, from its declaration. */
const FIELDS = declared(SERVICE_KEY_PAIR, "Service key pair");

/** A key pair's own inputs (the endpoint aside); `U` is what a value not known yet becomes. */
type OwnInputsOf<U> = InputsOf<typeof SERVICE_KEY_PAIR, U>;

/** A key pair's own checked inputs. */
type OwnInputs = OwnInputsOf<never>;

/** Service key pair inputs; `U` is what a value not known yet becomes (nothing, once known). */
export type ServiceKeyPairInputsOf<U = never> = OwnInputsOf<U> & EndpointInputsOf<U>;

/** Service key pair inputs after `check`. */
export type ServiceKeyPairInputs = ServiceKeyPairInputsOf;

/** Service key pair inputs during a preview: any of them may be not known yet. */
export type ProposedServiceKeyPairInputs = ServiceKeyPairInputsOf<NotKnown>;

/** What the engine records for a key pair. `accessKey` and `privateKey` are secrets. */
export type ServiceKeyPairOutputs = OwnOutputs & EndpointInputs;

/** A key pair's own outputs (the endpoint aside). */
type OwnOutputs = OutputsOf<typeof SERVICE_KEY_PAIR>;

/** A pair as the server returned it at its last rotation (`rotatedAt`: when this stack replaced it). */
type RotatedPair = Omit<OwnOutputs, keyof OwnInputs>;

/** The one function that builds a key pair's outputs: create, read and update all use it. */
function serviceKeyPairOutputs(inputs: OwnInputs, pair: RotatedPair): OwnOutputs {
  return FIELDS.outputs({ ...pair, ...inputs });
}

/** The key must be a non-empty string; its value is never echoed (it is a credential). */
function checkAccessKeyValue(failures: CheckFailures, property: string, value: unknown): void {
  if (isUnknown(value) || (typeof value === "string" && value.trim() !== "")) return;
  failures.add(
    property,
    `must be the value of a SERVICE access key (e.g. an AccessKey's accessKey output), got ${typeof value === "string" ? "an empty string" : describe(value)}`,
  );
}

async function serviceKeyRecord(client: BrokerClient, accessKey: string): Promise<AccessKeyRecord> {
  let record: AccessKeyRecord;
  try {
    record = await client.getAccessKeyPermissions(accessKey);
  } catch (error) {
    if (isBrokerApiError(error) && error.status === 404) {
      throw new Error(
        `ServiceKeyPair: the access key given as ${spellings("accessKey")} does not exist on the broker. Pass the key value output of a SERVICE AccessKey.`,
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

async function rotate(client: BrokerClient, accessKey: string, accessKeyId: number): Promise<RotatedPair> {
  const pair = await client.rotateServiceKeyPair(accessKey);
  return { accessKeyId, ...pair, rotatedAt: new Date().toISOString() };
}

/**
 * The core's ServiceKeyPair operations, as one table for the doors (see
 * {@link "./operations".ResourceOperations}), endpoint tracking included.
 */
export const serviceKeyPairOperations = withEndpointTracking<
  OwnInputs,
  OwnInputsOf<NotKnown>,
  OwnOutputs,
  DiffResult
>({
  typeName: "ServiceKeyPair",
  describe: (id) => `service key pair ${id}`,
  verbs: { update: "Rotating" },
  decodeInputs: FIELDS.decodeInputs,
  decodeProposedInputs: FIELDS.decodeProposedInputs,
  /** Decodes a key pair's own recorded state, as this or any earlier version of the package wrote it. */
  decodeOutputs: (bag: PropertyBag): OwnOutputs => FIELDS.decodeOutputs(bag),
  /**
   * Validates inputs. Makes no request (the key's type is verified by `create`).
   * @param news the inputs as the program gave them.
   */
  check: (news: PropertyBag): CheckResult<OwnInputsOf<NotKnown>> =>
    FIELDS.check(news, { accessKey: checkAccessKeyValue }),
  /** Another key replaces the pair resource; changed `rotationTriggers` rotate it in place. */
  diff: (old: OwnInputs, news: OwnInputsOf<NotKnown>): DiffResult =>
    FIELDS.diff(old, news, {
      // During a preview, the key's value is unknown whenever its AccessKey is updated in the same
      // run (a dynamic provider cannot compute outputs in preview). Nearly always the value stays, so
      // this counts as a change, not as a replacement: `pulumi up` decides again with the real value
      // and replaces the pair only if the key really changed.
      accessKey: (before, now) => ({
        changed: now === NOT_KNOWN || before !== now,
        replace: now !== NOT_KNOWN,
      }),
    }),
  /** Verifies the key is a SERVICE key and replaces its pair, recording the new one. */
  async create(ctx: CoreContext, inputs: OwnInputs): Promise<CreateResult<OwnOutputs>> {
    const client = ctx.client();
    const record = await serviceKeyRecord(client, inputs.accessKey);
    const pair = await rotate(client, inputs.accessKey, record.id);
    return { id: String(record.id), outputs: serviceKeyPairOutputs(inputs, pair) };
  },
  /**
   * Refresh: there is no way to read a pair, so this checks that its key still exists; a pair whose
   * key is gone is gone. Without recorded state (an import by id) there is nothing to read: the API
   * never returns a private key again.
   */
  async read(
    ctx: CoreContext,
    id: string,
    old: OwnOutputs | undefined,
  ): Promise<ReadResult<OwnInputs, OwnOutputs>> {
    if (old === undefined) {
      throw new NotImportableError(
        "ServiceKeyPair",
        `Service key pair ${id} cannot be read without its recorded state: the API never returns a private key after it was created. ` +
          "Declare a ServiceKeyPair for the key instead, which creates a new pair with a known private key.",
      );
    }
    try {
      await ctx.client().getAccessKeyPermissions(old.accessKey);
    } catch (error) {
      if (isBrokerApiError(error) && error.status === 404) return GONE;
      throw error;
    }
    const outputs = serviceKeyPairOutputs(old, old);
    return { exists: true, id, outputs, inputs: FIELDS.inputsOf(outputs) };
  },
  /** Changed `rotationTriggers` rotate the pair. */
  async update(ctx: CoreContext, _id: string, old: OwnOutputs, news: OwnInputs): Promise<OwnOutputs> {
    if (mapChanges("", old.rotationTriggers, news.rotationTriggers, false).length === 0)
      return serviceKeyPairOutputs(old, old);
    return serviceKeyPairOutputs(news, await rotate(ctx.client(), news.accessKey, old.accessKeyId));
  },
  /** Key pairs cannot be deleted: the current pair stays with its key. */
  async delete(ctx: CoreContext, id: string): Promise<void> {
    await ctx.log.warn(
      `The service key pair of access key ${id} was removed from the stack; the key keeps its current pair on the broker (the API cannot delete a pair). Rotate it by other means if the private key may have leaked.`,
    );
  },
});

/** Decodes a key pair's recorded state, as this or any earlier version of the package wrote it. */
export const decodeServiceKeyPairOutputs = serviceKeyPairOperations.decodeOutputs;

export const {
  /** Validates inputs and records the endpoint. Makes no request (the key's type is verified by `create`). */
  check: checkServiceKeyPair,
  /** Another key (or endpoint) replaces the pair resource; changed `rotationTriggers` rotate it in place. */
  diff: diffServiceKeyPair,
  /** Verifies the key is a SERVICE key and replaces its pair, recording the new one. */
  create: createServiceKeyPair,
  /** Refresh: checks that the pair's key still exists (a pair cannot be read); cannot import. */
  read: readServiceKeyPair,
  /** Changed `rotationTriggers` rotate the pair. */
  update: updateServiceKeyPair,
  /** Key pairs cannot be deleted: the current pair stays with its key. */
  delete: deleteServiceKeyPair,
} = serviceKeyPairOperations;
