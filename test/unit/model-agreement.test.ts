/**
 * One table, four judges: the domain model (`src/model`), the published JSON Schema of a
 * configuration document (through the package's own ajv set-up), the API contract (`openapi.yaml`,
 * read with `yaml` and checked with ajv) and the emulator's input validation. Each row states the
 * verdict the package must reach and the one the API reaches; every judge must match its column.
 *
 * The columns may differ only where the package is stricter on purpose (whitespace around a name,
 * control characters in a name): what the package accepts, the API accepts, so a green
 * `pulumi preview` never turns into a 400 at `pulumi up`. Changing a rule in any one place (the
 * model, the schema, openapi.yaml, the emulator) fails a row here.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { BROKER_CONFIG_SCHEMA } from "../../src/config-as-data/schema";
import { schemaViolations } from "../../src/config-as-data/schema";
import { ApiError } from "../../src/emulator/errors";
import {
  EVENT_PATH_PATTERN as EMULATOR_EVENT_PATH_PATTERN,
  MAX_EVENT_PATH_LENGTH as EMULATOR_MAX_EVENT_PATH_LENGTH,
  MAX_NAME_LENGTH as EMULATOR_MAX_NAME_LENGTH,
  parseCreateAccessKey,
  parseCreateWorkspace,
} from "../../src/emulator/validation";
import { ACCESS_KEY_TYPES as EMULATOR_ACCESS_KEY_TYPES } from "../../src/emulator/types";
import {
  ACCESS_KEY_TYPES,
  apiNameProblems,
  codePointLength,
  DEFAULT_ADOPT,
  DEFAULT_ON_DELETE,
  EVENT_PATH_PATTERN,
  eventPathProblem,
  MAX_EVENT_PATH_LENGTH,
  MAX_NAME_LENGTH,
  nameProblems,
  ON_DELETE_VALUES,
  type NameKind,
} from "../../src/model";
import { OPENAPI_PATH, validateRequest } from "../support/openapi";

type Verdict = "valid" | "invalid";

/** A name, what it names, the package's verdict and the API's. */
interface NameRow {
  name: string;
  kind: NameKind;
  pkg: Verdict;
  api: Verdict;
}

const both = (name: string, pkg: Verdict, api: Verdict = pkg): NameRow[] => [
  { name, kind: "workspace", pkg, api },
  { name, kind: "accessKey", pkg, api },
];

const NAMES: NameRow[] = [
  ...both("orders", "valid"),
  ...both("orders team", "valid"),
  ...both("ünïcode ✓", "valid"),
  ...both("a\u200bb", "valid"), // a zero-width space is neither whitespace nor a control character
  ...both("", "invalid"),
  // '/' builds workspace paths: forbidden in workspace names only.
  { name: "a/b", kind: "workspace", pkg: "invalid", api: "invalid" },
  { name: "a/b", kind: "accessKey", pkg: "valid", api: "valid" },
  { name: "/", kind: "workspace", pkg: "invalid", api: "invalid" },
  { name: "/", kind: "accessKey", pkg: "valid", api: "valid" },
  { name: "team/", kind: "workspace", pkg: "invalid", api: "invalid" },
  // The limit, counted in code points: at it, one over, with astral characters (two UTF-16 units each).
  ...both("x".repeat(MAX_NAME_LENGTH), "valid"),
  ...both("x".repeat(MAX_NAME_LENGTH + 1), "invalid"),
  ...both("é".repeat(MAX_NAME_LENGTH), "valid"),
  ...both("😀".repeat(MAX_NAME_LENGTH), "valid"),
  ...both("😀".repeat(MAX_NAME_LENGTH + 1), "invalid"),
  { name: `${"x".repeat(MAX_NAME_LENGTH)}/`, kind: "workspace", pkg: "invalid", api: "invalid" },
  // The package's own stricter rules: the API takes these, the package does not.
  ...both(" orders", "invalid", "valid"),
  ...both("orders ", "invalid", "valid"),
  ...both("\torders", "invalid", "valid"),
  ...both("orders\n", "invalid", "valid"),
  ...both("\u00a0orders", "invalid", "valid"),
  ...both("\u3000", "invalid", "valid"),
  ...both("or\u0000ders", "invalid", "valid"),
  ...both("or\u0007ders", "invalid", "valid"),
  ...both("or\u007fders", "invalid", "valid"),
  ...both("or\u0085ders", "invalid", "valid"),
  ...both("or\nders", "invalid", "valid"),
];

/** An event path and its verdict: the package and the API agree on every one. */
const EVENT_PATHS: [string, Verdict][] = [
  ["orders", "valid"],
  ["orders/created", "valid"],
  ["orders/*", "valid"],
  ["a/b/c/*", "valid"],
  ["ünïcode/✓", "valid"],
  ["a-b_c.d:e", "valid"],
  ["😀/*", "valid"],
  ["", "invalid"],
  ["*", "invalid"],
  ["/", "invalid"],
  ["/a", "invalid"],
  ["a/", "invalid"],
  ["a//b", "invalid"],
  ["a/*/b", "invalid"],
  ["*/a", "invalid"],
  ["a*", "invalid"],
  ["a/b*", "invalid"],
  ["a/**", "invalid"],
  ["a b", "invalid"],
  [" a", "invalid"],
  ["a ", "invalid"],
  ["a\tb", "invalid"],
  ["a/\u00a0", "invalid"],
  ["a/ *", "invalid"],
  ["a\u0000b", "invalid"],
  ["a/\u0085", "invalid"],
  ["a/\u007f", "invalid"],
  ["x".repeat(MAX_EVENT_PATH_LENGTH), "valid"],
  ["x".repeat(MAX_EVENT_PATH_LENGTH + 1), "invalid"],
  [`a/${"x".repeat(MAX_EVENT_PATH_LENGTH - 4)}/*`, "valid"],
  [`a/${"x".repeat(MAX_EVENT_PATH_LENGTH - 3)}/*`, "invalid"],
  ["😀".repeat(MAX_EVENT_PATH_LENGTH), "valid"],
  ["😀".repeat(MAX_EVENT_PATH_LENGTH + 1), "invalid"],
];

const verdict = (problems: readonly unknown[]): Verdict => (problems.length === 0 ? "valid" : "invalid");

/** What the emulator says: its parsers throw a 400 `ApiError` on invalid input. */
function emulatorVerdict(parse: () => unknown): Verdict {
  try {
    parse();
    return "valid";
  } catch (error) {
    if (error instanceof ApiError) return "invalid";
    throw error;
  }
}

function nameDocument(row: NameRow): unknown {
  return row.kind === "workspace"
    ? { version: 1, workspaces: [{ name: row.name }] }
    : { version: 1, accessKeys: [{ name: row.name, type: "SERVICE" }] };
}

function nameRequest(row: NameRow): { path: string; body: Record<string, unknown> } {
  return row.kind === "workspace"
    ? { path: "/workspace", body: { name: row.name, parentId: 0 } }
    : { path: "/access-key", body: { name: row.name, type: "SERVICE", permissions: {} } };
}

const pathBody = (path: string): Record<string, unknown> => ({
  name: "k",
  type: "SERVICE",
  permissions: { send: [path] },
});

const label = (text: string): string =>
  text.length > 24
    ? `${JSON.stringify(text.slice(0, 12))}… (${codePointLength(text)} code points)`
    : JSON.stringify(text);

describe("names: the model, the JSON Schema, openapi.yaml and the emulator agree", () => {
  it("the table holds no row where the package accepts what the API rejects", () => {
    for (const row of NAMES) if (row.pkg === "valid") expect(row.api, label(row.name)).toBe("valid");
  });

  it.each(NAMES.map((row) => [label(row.name), row.kind, row.pkg, row.api, row] as const))(
    "%s as a %s name: package %s, API %s",
    (_label, _kind, pkg, api, row) => {
      const request = nameRequest(row);
      expect({
        model: verdict(nameProblems(row.name, row.kind)),
        schema: verdict(schemaViolations(nameDocument(row))),
        modelApiRules: verdict(apiNameProblems(row.name, row.kind)),
        openapi: verdict(validateRequest({ method: "POST", path: request.path, body: request.body })),
        emulator: emulatorVerdict(() =>
          row.kind === "workspace" ? parseCreateWorkspace(request.body) : parseCreateAccessKey(request.body),
        ),
      }).toEqual({ model: pkg, schema: pkg, modelApiRules: api, openapi: api, emulator: api });
    },
  );
});

describe("event paths: the model, the JSON Schema, openapi.yaml and the emulator agree", () => {
  it.each(EVENT_PATHS.map(([path, expected]) => [label(path), expected, path] as const))(
    "%s is %s",
    (_label, expected, path) => {
      const document = {
        version: 1,
        accessKeys: [{ name: "k", type: "SERVICE", permissions: { send: [path] } }],
      };
      expect({
        model: verdict(eventPathProblem(path) === undefined ? [] : [path]),
        schema: verdict(schemaViolations(document)),
        openapi: verdict(validateRequest({ method: "POST", path: "/access-key", body: pathBody(path) })),
        emulator: emulatorVerdict(() => parseCreateAccessKey(pathBody(path))),
      }).toEqual({ model: expected, schema: expected, openapi: expected, emulator: expected });
    },
  );
});

describe("the constants are stated once and repeated exactly", () => {
  // The raw documents, as published: openapi.yaml read with `yaml`, the schema as shipped.
  interface Json {
    [key: string]: Json | undefined;
  }
  const openapi = (parse(readFileSync(OPENAPI_PATH, "utf8")) as Json)["components"]?.["schemas"] as Json;
  const schemaDefs = (BROKER_CONFIG_SCHEMA as Json)["$defs"] as Json;

  it("name length: model, openapi.yaml Name, the schema's name and workspaceName, the emulator", () => {
    expect(openapi["Name"]?.["maxLength"]).toBe(MAX_NAME_LENGTH);
    expect(openapi["Name"]?.["minLength"]).toBe(1);
    expect(schemaDefs["name"]?.["maxLength"]).toBe(MAX_NAME_LENGTH);
    expect(schemaDefs["workspaceName"]?.["maxLength"]).toBe(MAX_NAME_LENGTH);
    expect(EMULATOR_MAX_NAME_LENGTH).toBe(MAX_NAME_LENGTH);
  });

  it("event path grammar and length: model, openapi.yaml EventPath, the schema, the emulator", () => {
    expect(openapi["EventPath"]?.["pattern"]).toBe(EVENT_PATH_PATTERN);
    expect(openapi["EventPath"]?.["maxLength"]).toBe(MAX_EVENT_PATH_LENGTH);
    expect(schemaDefs["eventPaths"]?.["items"]?.["pattern"]).toBe(EVENT_PATH_PATTERN);
    expect(schemaDefs["eventPaths"]?.["items"]?.["maxLength"]).toBe(MAX_EVENT_PATH_LENGTH);
    expect(EMULATOR_EVENT_PATH_PATTERN).toBe(EVENT_PATH_PATTERN);
    expect(EMULATOR_MAX_EVENT_PATH_LENGTH).toBe(MAX_EVENT_PATH_LENGTH);
  });

  it("access key types: model, openapi.yaml AccessKeyType, the schema, the emulator", () => {
    expect(openapi["AccessKeyType"]?.["enum"]).toEqual(ACCESS_KEY_TYPES);
    expect(schemaDefs["accessKey"]?.["properties"]?.["type"]?.["enum"]).toEqual(ACCESS_KEY_TYPES);
    expect(EMULATOR_ACCESS_KEY_TYPES).toEqual(ACCESS_KEY_TYPES);
  });

  it("onDelete values and defaults: model and the schema", () => {
    expect([...(schemaDefs["onDelete"]?.["enum"] as unknown as string[])].sort()).toEqual(
      [...ON_DELETE_VALUES].sort(),
    );
    // No default in the document schema: absent, the resource decides by whether it adopted the key.
    expect(schemaDefs["onDelete"]?.["default"]).toBeUndefined();
    expect(DEFAULT_ON_DELETE).toBe("revoke");
    const top = (BROKER_CONFIG_SCHEMA as Json)["properties"];
    expect(top?.["adopt"]?.["default"]).toBe(DEFAULT_ADOPT);
  });
});
