/**
 * One family: every error class of the package (the emulator, which imports nothing of it, aside)
 * extends `BrokerError` and carries a stable `code` of the one registry, `BrokerErrorCode`, beside its
 * name and message (as undici's errors do).
 */
import * as fs from "node:fs";
import * as path from "node:path";
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
import {
  BrokerApiError,
  BrokerCancelledError,
  BrokerError,
  BrokerResultError,
  BrokerSettingsError,
  isBrokerError,
} from "../../src/client/errors";
import { BrokerConfigDocumentError } from "../../src/config-as-data/errors";
import { BrokerLookupError, LookupArgumentError } from "../../src/core/lookups/errors";
import { ReviewInputError } from "../../src/review/errors";

const cause = new Error("read-back failed");

const CASES: readonly [BrokerError, string][] = [
  [
    new BrokerApiError({
      code: "BROKER_UNAUTHORIZED",
      message: "GET /access-key failed: 401",
      status: 401,
      method: "GET",
      pathTemplate: "/access-key",
      attempts: 1,
      outcomeUnknown: false,
    }),
    "BROKER_UNAUTHORIZED",
  ],
  [new BrokerSettingsError("BROKER_SETTINGS_MISSING", "no baseUrl"), "BROKER_SETTINGS_MISSING"],
  [new BrokerResultError("kept something else", 7), "BROKER_UNEXPECTED_RESULT"],
  [new BrokerCancelledError("cancelled"), "BROKER_CANCELLED"],
  [new BrokerConfigDocumentError([{ path: "keys[0].name", message: "is empty" }]), "BROKER_CONFIG_INVALID"],
  [new BrokerLookupError("BROKER_LOOKUP_NOT_FOUND", "getAccessKey", "none"), "BROKER_LOOKUP_NOT_FOUND"],
  [new LookupArgumentError("getAccessKey", "name is empty"), "BROKER_LOOKUP_INVALID"],
  [new ReviewInputError("not a preview"), "BROKER_REVIEW_INPUT"],
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

/** The exported classes of `src/` whose names end in `Error` (the emulator's aside), by file. */
function exportedErrorClasses(dir: string): string[] {
  const found: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "emulator") found.push(...exportedErrorClasses(file));
    } else if (entry.name.endsWith(".ts")) {
      for (const match of fs.readFileSync(file, "utf8").matchAll(/^export class (\w+Error)\b/gmu))
        found.push(match[1] as string);
    }
  }
  return found;
}

describe("error codes", () => {
  it.each(CASES)("%s has the stable code %s and belongs to the family", (error, code) => {
    expect(error.code).toBe(code);
    expect(error.name).toBe(error.constructor.name);
    expect(error.message.length).toBeGreaterThan(0);
    expect(error).toBeInstanceOf(BrokerError);
    expect(isBrokerError(error)).toBe(true);
  });

  it("covers every error class of the package", () => {
    const covered = new Set(CASES.map(([error]) => error.constructor.name));
    // BrokerError is the family's base: only its subclasses are thrown.
    const missing = exportedErrorClasses(path.join(__dirname, "../../src")).filter(
      (name) => name !== "BrokerError" && !covered.has(name),
    );
    expect(missing).toEqual([]);
  });

  // Regression: a class inheriting its base's brand check counted every error of the family (or of
  // BrokerLookupError) as its own.
  it("answers instanceof of a class only for its own errors and its subclasses, not for the whole family", () => {
    for (const [a] of CASES)
      for (const [b] of CASES) {
        const subclass = Object.prototype.isPrototypeOf.call(a.constructor.prototype, b);
        expect(b instanceof (a.constructor as new () => unknown), `${b.name} instanceof ${a.name}`).toBe(
          subclass,
        );
      }
  });

  it("gives each class a code of its own (one registry, BrokerErrorCode)", () => {
    const codes = CASES.map(([, code]) => code);
    expect(new Set(codes).size).toBe(codes.length);
  });
});
