import { Metadata, status } from "@grpc/grpc-js";
import { ErrorResourceInitFailed } from "@pulumi/pulumi/proto/provider_pb";
import { Status } from "@pulumi/pulumi/proto/status_pb";
import { describe, expect, it } from "vitest";
import { BrokerApiError, BrokerSettingsError } from "../../src/client/errors";
import { NotImportableError } from "../../src/core/import";
import { CodecError, fromCore, pv } from "../../src/native/codec";
import {
  INIT_FAILED_TYPE,
  ResourceInitFailedError,
  STATUS_DETAILS_KEY,
  toGrpcError,
  UnknownResourceTypeError,
} from "../../src/native/errors";

const SIG = "4dabf18193072939515e22adb298388d";
const SECRET = "1b47061264138c4ac30d75fd1eb44270";
const secret = (value: unknown) => ({ [SIG]: SECRET, value });

class CreatedButFailed extends Error {
  constructor(
    readonly id: string,
    readonly properties: Record<string, unknown>,
    readonly reasons: string[],
  ) {
    super(
      `Access key "orders" was created (id ${id}) but a later step failed: 503. Run \`pulumi up\` again.`,
    );
  }
}

/** The ErrorResourceInitFailed detail carried in the status metadata, as plain values. */
function initFailedDetail(metadata: Metadata | undefined) {
  const bytes = metadata?.get(STATUS_DETAILS_KEY)[0];
  if (!(bytes instanceof Buffer)) return undefined;
  const statusDetails = Status.deserializeBinary(new Uint8Array(bytes));
  const any = statusDetails.getDetailsList()[0];
  const detail = any?.unpack((b) => ErrorResourceInitFailed.deserializeBinary(b), INIT_FAILED_TYPE);
  if (detail === undefined || detail === null) return undefined;
  return {
    statusCode: statusDetails.getCode(),
    id: detail.getId(),
    properties: detail.getProperties()?.toJavaScript(),
    reasons: detail.getReasonsList(),
  };
}

const apiError = new BrokerApiError({
  code: "BROKER_UNAUTHORIZED",
  message: "POST /access-key failed: 401 Unauthorized — check that broker:apiKey holds an ACCOUNT key",
  status: 401,
  method: "POST",
  pathTemplate: "/access-key",
  attempts: 1,
  outcomeUnknown: false,
});
const configError = new BrokerSettingsError(
  "BROKER_SETTINGS_MISSING",
  "No broker API key: set broker:apiKey",
);
const created = new CreatedButFailed(
  "42",
  { name: "orders", accessKey: "bka_secret", privateKey: "pk_secret", accessKeyId: 42, __provider: "x" },
  ["read-back failed: 503"],
);

describe("toGrpcError", () => {
  const table: {
    name: string;
    error: unknown;
    code: status;
    details: string;
    initFailed?: ReturnType<typeof initFailedDetail>;
  }[] = [
    {
      name: "an API error is UNKNOWN with its (redacted) message",
      error: apiError,
      code: status.UNKNOWN,
      details: apiError.message,
    },
    {
      name: "a settings error is UNKNOWN with its message",
      error: configError,
      code: status.UNKNOWN,
      details: configError.message,
    },
    {
      name: "an unknown type token is INVALID_ARGUMENT",
      error: new UnknownResourceTypeError("broker:index:Queue", ["broker:index:Workspace"]),
      code: status.INVALID_ARGUMENT,
      details:
        'The broker provider has no resource type "broker:index:Queue"; it serves broker:index:Workspace.',
    },
    {
      name: "a value the provider cannot take is INVALID_ARGUMENT",
      error: new CodecError("rotationTriggers.file", "an asset is not supported"),
      code: status.INVALID_ARGUMENT,
      details: "Property rotationTriggers.file: an asset is not supported",
    },
    {
      name: "an import the API cannot serve is FAILED_PRECONDITION",
      error: new NotImportableError(
        "ServiceKeyPair",
        "Service key pair 3 cannot be read without its recorded state.",
      ),
      code: status.FAILED_PRECONDITION,
      details: "Service key pair 3 cannot be read without its recorded state.",
    },
    {
      name: "an adapter's ResourceInitFailedError carries its properties as the adapter encoded them",
      error: new ResourceInitFailedError(
        "created (id 7) but a later step failed",
        "7",
        { name: pv.secret(pv.string("team")), workspaceId: pv.number(7) },
        ["read-back failed: 503"],
      ),
      code: status.UNKNOWN,
      details: "created (id 7) but a later step failed",
      initFailed: {
        statusCode: status.UNKNOWN,
        id: "7",
        properties: { name: secret("team"), workspaceId: 7 },
        reasons: ["read-back failed: 503"],
      },
    },
    {
      name: "a thrown string is UNKNOWN with that string",
      error: "boom",
      code: status.UNKNOWN,
      details: "boom",
    },
    {
      name: "an error with an empty id is an ordinary error",
      error: Object.assign(new Error("failed"), { id: "", properties: {}, reasons: [] }),
      code: status.UNKNOWN,
      details: "failed",
    },
    {
      name: "created-but-failed carries id, properties and reasons, every property secret without a context",
      error: created,
      code: status.UNKNOWN,
      details: created.message,
      initFailed: {
        statusCode: status.UNKNOWN,
        id: "42",
        properties: {
          name: secret("orders"),
          accessKey: secret("bka_secret"),
          privateKey: secret("pk_secret"),
          accessKeyId: secret(42),
        },
        reasons: ["read-back failed: 503"],
      },
    },
  ];

  it.each(table)("$name", ({ error, code, details, initFailed }) => {
    const result = toGrpcError(error);
    expect(result.code).toBe(code);
    expect(result.details).toBe(details);
    expect(initFailedDetail(result.metadata)).toEqual(initFailed);
  });

  it("encodes created-but-failed properties with the resource's own secrets", () => {
    const result = toGrpcError(created, {
      encodeProperties: (properties) => fromCore(properties, { alwaysSecret: ["accessKey", "privateKey"] }),
    });
    expect(initFailedDetail(result.metadata)?.properties).toEqual({
      name: "orders",
      accessKey: secret("bka_secret"),
      privateKey: secret("pk_secret"),
      accessKeyId: 42,
    });
  });
});
