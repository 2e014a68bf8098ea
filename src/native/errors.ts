/**
 * The one mapping from an error of this provider to the gRPC status the engine receives.
 *
 * | error                                                     | status             | detail                              |
 * | --------------------------------------------------------- | ------------------ | ----------------------------------- |
 * | {@link ResourceInitFailedError}, or any error with `id`, `properties`, `reasons` | `UNKNOWN` | `pulumirpc.ErrorResourceInitFailed` |
 * | {@link NotImportableError} (import of a key pair)         | `FAILED_PRECONDITION` |                                  |
 * | {@link UnknownResourceTypeError}                          | `INVALID_ARGUMENT` |                                     |
 * | {@link CodecError} (a value the provider cannot take)     | `INVALID_ARGUMENT` |                                     |
 * | anything else (API errors, missing settings, …)           | `UNKNOWN`          |                                     |
 *
 * The engine shows the message to the user as it is. Messages of the client and the settings
 * module are redacted where they are made, so none of them carries a credential.
 */
import { Metadata, status, type StatusObject } from "@grpc/grpc-js";
import { ErrorResourceInitFailed } from "@pulumi/pulumi/proto/provider_pb";
import { Status } from "@pulumi/pulumi/proto/status_pb";
import { Any } from "google-protobuf/google/protobuf/any_pb";
import { isNotImportableError } from "../core/import";
import { CodecError, encodeStruct, fromCore, pv, type PropertyMap } from "./codec";
import { BrokerError } from "../client/errors";

/** The metadata key in which gRPC carries a `google.rpc.Status` with error details. */
export const STATUS_DETAILS_KEY = "grpc-status-details-bin";

/** The protobuf type name of the "created but failed" detail, as the engine looks it up. */
export const INIT_FAILED_TYPE = "pulumirpc.ErrorResourceInitFailed";

/** A request named a resource type this provider does not serve. */
export class UnknownResourceTypeError extends BrokerError {
  /** The type token that was asked for. */
  readonly type: string;

  constructor(type: string, known: readonly string[]) {
    super(
      "BROKER_UNKNOWN_RESOURCE_TYPE",
      `The broker provider has no resource type "${type}"; it serves ${known.join(", ")}.`,
    );
    this.name = "UnknownResourceTypeError";
    this.type = type;
  }
}

/**
 * The object exists on the server although the operation failed, with its outputs already encoded
 * (secrets wrapped by the resource adapter, which knows the resource's secret outputs and which of
 * the inputs were secret). The engine keeps the object in the stack with these properties.
 */
export class ResourceInitFailedError extends BrokerError {
  /** The id of the object that exists. */
  readonly id: string;
  /** Its outputs, secrets wrapped. */
  readonly properties: PropertyMap;
  /** Why the resource is not complete. */
  readonly reasons: readonly string[];

  constructor(message: string, id: string, properties: PropertyMap, reasons: readonly string[]) {
    super("BROKER_RESOURCE_INIT_FAILED", message);
    this.name = "ResourceInitFailedError";
    this.id = id;
    this.properties = properties;
    this.reasons = reasons;
  }
}

/**
 * An error saying that an object exists on the server although the operation failed. The engine
 * keeps the object in the stack (with these properties) instead of losing track of it.
 */
export interface CreatedButFailed {
  readonly message: string;
  /** The id of the object that exists. */
  readonly id: string;
  /** The outputs recorded for it, as the core returns them (plain values). */
  readonly properties: Record<string, unknown>;
  /** Why the resource is not complete. */
  readonly reasons: readonly string[];
}

/** Whether `error` is a {@link CreatedButFailed} error: an Error with a string `id`, `properties` and `reasons`. */
export function isCreatedButFailed(error: unknown): error is CreatedButFailed & Error {
  if (!(error instanceof Error)) return false;
  const { id, properties, reasons } = error as Error &
    Partial<Record<"id" | "properties" | "reasons", unknown>>;
  return (
    typeof id === "string" &&
    id !== "" &&
    properties !== null &&
    typeof properties === "object" &&
    !Array.isArray(properties) &&
    Array.isArray(reasons) &&
    reasons.every((reason) => typeof reason === "string")
  );
}

/** What {@link toGrpcError} needs to know about the resource an error came from. */
export interface ErrorContext {
  /**
   * Encodes the properties of a created-but-failed resource with their secrets (the resource
   * adapter knows which outputs are secret). Without it, every property is sent as a secret, so
   * that no credential can reach the state in plain text.
   */
  readonly encodeProperties?: (properties: Record<string, unknown>) => PropertyMap;
}

/** Every property wrapped as a secret: the safe encoding when the resource's secrets are not known. */
function allSecret(properties: Record<string, unknown>): PropertyMap {
  return Object.fromEntries(
    Object.entries(fromCore(properties)).map(([key, value]) => [key, pv.secret(value)]),
  );
}

/** The message of any thrown value. */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return typeof error === "string" ? error : `Unexpected failure: ${String(error)}`;
}

/**
 * The gRPC status for `error`, to pass to a unary call's callback (see the table in this module's
 * description).
 */
export function toGrpcError(error: unknown, context: ErrorContext = {}): Partial<StatusObject> {
  if (error instanceof ResourceInitFailedError) {
    return initFailed(error.message, error.id, error.properties, error.reasons);
  }
  if (isCreatedButFailed(error)) {
    const properties = Object.fromEntries(
      Object.entries(error.properties).filter(([key]) => !key.startsWith("__")),
    );
    const encoded = (context.encodeProperties ?? allSecret)(properties);
    return initFailed(error.message, error.id, encoded, error.reasons);
  }
  if (error instanceof UnknownResourceTypeError || error instanceof CodecError) {
    return { code: status.INVALID_ARGUMENT, details: error.message };
  }
  if (isNotImportableError(error)) {
    return { code: status.FAILED_PRECONDITION, details: error.message };
  }
  return { code: status.UNKNOWN, details: messageOf(error) };
}

/** `UNKNOWN` with the `ErrorResourceInitFailed` detail the engine reads as "keep it, with these properties". */
function initFailed(
  message: string,
  id: string,
  properties: PropertyMap,
  reasons: readonly string[],
): Partial<StatusObject> {
  const detail = new ErrorResourceInitFailed();
  detail.setId(id);
  detail.setProperties(encodeStruct(properties));
  detail.setReasonsList([...reasons]);
  const any = new Any();
  any.pack(detail.serializeBinary(), INIT_FAILED_TYPE);
  const details = new Status();
  details.setCode(status.UNKNOWN);
  details.setMessage(message);
  details.addDetails(any);
  const metadata = new Metadata();
  metadata.add(STATUS_DETAILS_KEY, Buffer.from(details.serializeBinary()));
  return { code: status.UNKNOWN, details: message, metadata };
}
