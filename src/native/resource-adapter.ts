/**
 * What the gRPC server needs from each resource type: the six lifecycle operations over decoded
 * property maps. One adapter per type lives in `resources/`; it turns property maps into the core's
 * plain values and back (see `codec.ts`), so the server knows nothing of any resource.
 */
import type { AutonamingProposal } from "../core/autoname";
import type { PropertyMap } from "./codec";
import type { ProviderConfiguration } from "./config";
import type { DiffResult } from "./diff";
import type { ResourceLog } from "./engine-log";

/** What every operation receives besides its request. */
export interface OperationContext {
  /** The provider instance's configuration, as `Configure` received it. */
  readonly configuration: ProviderConfiguration;
  /** Messages for the user, shown under the resource. */
  readonly log: ResourceLog;
  /** The resource's URN. */
  readonly urn: string;
}

/** A property that failed validation, and why. */
export interface CheckFailure {
  /** The property path, such as `permissions.send[1]`. */
  readonly property: string;
  readonly reason: string;
}

/** `Check`: old inputs (absent on create) and the program's new inputs. */
export interface CheckInput {
  readonly olds: PropertyMap;
  readonly news: PropertyMap;
  /** The resource's logical name, from which a name the program leaves out is made. */
  readonly logicalName?: string;
  /** The engine's autonaming proposal (`pulumi:autonaming`), when it sends one. */
  readonly autonaming?: AutonamingProposal;
}

/** The validated inputs, with defaults, to record (secrets kept), or the failures. */
export interface CheckOutput {
  readonly inputs: PropertyMap;
  readonly failures: readonly CheckFailure[];
}

/** `Diff`: the recorded state, the inputs it came from and the new checked inputs. */
export interface DiffInput {
  readonly id: string;
  readonly olds: PropertyMap;
  readonly oldInputs: PropertyMap;
  readonly news: PropertyMap;
  /** Properties the program asked to ignore changes of. */
  readonly ignoreChanges: readonly string[];
}

/** `Create`: the checked inputs; with `preview`, no request may be sent. */
export interface CreateInput {
  readonly properties: PropertyMap;
  readonly preview: boolean;
}

/** The new object's id (empty in a preview) and outputs. */
export interface CreateOutput {
  readonly id: string;
  readonly properties: PropertyMap;
}

/** `Read`: refresh (with state) or import (id only). */
export interface ReadInput {
  readonly id: string;
  readonly properties: PropertyMap;
  readonly inputs: PropertyMap;
}

/** The object as the server has it; an empty id when it no longer exists. */
export interface ReadOutput {
  readonly id: string;
  readonly properties: PropertyMap;
  /** The inputs as `Check` would return them, so that import and refresh diff cleanly. */
  readonly inputs: PropertyMap;
}

/** `Update`: the recorded state and inputs, and the new checked inputs. */
export interface UpdateInput {
  readonly id: string;
  readonly olds: PropertyMap;
  readonly oldInputs: PropertyMap;
  readonly news: PropertyMap;
  readonly preview: boolean;
  readonly ignoreChanges: readonly string[];
}

/** The outputs after the update. */
export interface UpdateOutput {
  readonly properties: PropertyMap;
}

/** `Delete`: the recorded state and inputs. */
export interface DeleteInput {
  readonly id: string;
  readonly properties: PropertyMap;
  readonly oldInputs: PropertyMap;
}

/** The lifecycle of one resource type. */
export interface ResourceAdapter {
  /** The type token, such as `broker:index:AccessKey`. */
  readonly token: string;
  check(input: CheckInput, context: OperationContext): Promise<CheckOutput>;
  diff(input: DiffInput, context: OperationContext): Promise<DiffResult>;
  create(input: CreateInput, context: OperationContext): Promise<CreateOutput>;
  read(input: ReadInput, context: OperationContext): Promise<ReadOutput>;
  update(input: UpdateInput, context: OperationContext): Promise<UpdateOutput>;
  delete(input: DeleteInput, context: OperationContext): Promise<void>;
  /**
   * Encodes the outputs of an object that was created although the operation failed, with this
   * type's secrets, for the engine's "created but failed" detail.
   */
  encodeFailedProperties(properties: Record<string, unknown>): PropertyMap;
}
