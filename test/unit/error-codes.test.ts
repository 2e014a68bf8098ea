/**
 * Every error class a user or a caller can meet carries a stable `code` to match on (as undici's
 * errors and our `BrokerError` family do), beside its name and message.
 */
import { describe, expect, it } from "vitest";
import { PulumiCommandError } from "../../src/cli/recover-pulumi";
import { MigrateStateError } from "../../src/cli/migrate-state";
import { ShapeError } from "../../src/client/decode";
import { NotImportableError } from "../../src/core/import";
import { AmbiguousIntentError } from "../../src/core/intents";
import { PartiallyCreatedError } from "../../src/core/partial-failure";
import { StateDecodeError } from "../../src/core/state";
import { CreatedButFailedError } from "../../src/dynamic/impl/partial-failure";
import { CodecError } from "../../src/native/codec";
import { UnknownComponentInputError } from "../../src/native/construct";
import { ResourceInitFailedError, UnknownResourceTypeError } from "../../src/native/errors";
import { UnknownFunctionError } from "../../src/native/functions";

const cause = new Error("read-back failed");

const CASES: readonly [Error & { code: string }, string][] = [
  [new PulumiCommandError(["stack", "export"], "no stack"), "BROKER_PULUMI_COMMAND_FAILED"],
  [new MigrateStateError("not a state file"), "BROKER_MIGRATE_STATE_FAILED"],
  [new ShapeError("body.id is a string, expected an integer"), "BROKER_BAD_RESPONSE"],
  [new NotImportableError("ServiceKeyPair", "cannot import"), "BROKER_NOT_IMPORTABLE"],
  [new PartiallyCreatedError("Access key", "7", {}, cause), "BROKER_PARTIALLY_CREATED"],
  [new StateDecodeError("Access key", "name", "must be a string"), "BROKER_STATE_INVALID"],
  [new CreatedButFailedError("Access key", "7", {}, undefined, cause), "BROKER_CREATED_BUT_FAILED"],
  [new CodecError("permissions.send", "not a list"), "BROKER_PROPERTY_INVALID"],
  [
    new ResourceInitFailedError("created but failed", "7", {}, ["read-back failed"]),
    "BROKER_RESOURCE_INIT_FAILED",
  ],
  [
    new UnknownResourceTypeError("broker:index:Nope", ["broker:index:Workspace"]),
    "BROKER_UNKNOWN_RESOURCE_TYPE",
  ],
  [new UnknownFunctionError("broker:index:nope"), "BROKER_UNKNOWN_FUNCTION"],
  [new UnknownComponentInputError("broker:index:Environment", "document"), "BROKER_COMPONENT_INPUT_UNKNOWN"],
  [
    new AmbiguousIntentError("Creating access key", [3, 4], "2026-11-28T10:00:00.000Z"),
    "BROKER_INTENT_AMBIGUOUS",
  ],
];

describe("error codes", () => {
  it.each(CASES)("%s has the stable code %s", (error, code) => {
    expect(error.code).toBe(code);
    expect(error.name).toBe(error.constructor.name);
    expect(error.message.length).toBeGreaterThan(0);
  });

  it("gives each class a code of its own (one registry, BrokerErrorCode)", () => {
    const codes = CASES.map(([, code]) => code);
    expect(new Set(codes).size).toBe(codes.length);
  });
});
