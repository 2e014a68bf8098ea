import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import Ajv2020 from "ajv/dist/2020";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  BROKER_CONFIG_SCHEMA,
  BrokerConfigDocumentError,
  formatProblem,
  isBrokerConfigDocumentError,
  loadBrokerConfig,
  validateBrokerConfig,
  type BrokerConfigDocument,
} from "../../src/config-as-data";
import { isBrokerError } from "../../src/client/errors";
import { documentInput } from "../../src/config-as-data/load";
import { parseBrokerConfig } from "../../src/config-as-data/load";

let dir: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "pbc-config-as-data-"));
});

afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Writes `text` to `name` in the temporary directory and returns the problem lines of loading it. */
function problemsOfFile(name: string, text: string): string[] {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  try {
    loadBrokerConfig(file);
  } catch (error) {
    if (!isBrokerConfigDocumentError(error)) throw error;
    return error.problems.map((p) => formatProblem({ ...p, file: name }));
  }
  return [];
}

function problemsOfObject(value: unknown): string[] {
  return validateBrokerConfig(value).map(formatProblem);
}

describe("problems in YAML files name file:line:column and the path", () => {
  it.each([
    {
      what: "an unknown access key type",
      text: "version: 1\naccessKeys:\n  - name: a\n    type: SERVICE\n  - name: b\n    type: ADMIN\n",
      expected: ['broker.yaml:6:11 accessKeys[1].type: must be one of "ACCOUNT", "SERVICE"'],
    },
    {
      what: "an invalid event path, deep in a list",
      text: [
        "version: 1",
        "accessKeys:",
        "  - name: orders",
        "    type: SERVICE",
        "    permissions:",
        "      send:",
        "        - orders/created",
        "        - bad path",
        "",
      ].join("\n"),
      expected: [
        "broker.yaml:8:11 accessKeys[0].permissions.send[1]: event path \"bad path\" contains whitespace; use '/'-separated segments such as 'orders/created', with '*' only as the last segment ('orders/*')",
      ],
    },
    {
      what: "a property that is not allowed (pointing at its name)",
      text: "version: 1\naccessKeys:\n  - name: a\n    type: SERVICE\n    colour: red\n",
      expected: [
        "broker.yaml:5:5 accessKeys[0].colour: is not allowed here; allowed: name, type, permissions, adopt, onDelete",
      ],
    },
    {
      what: "a missing required property (pointing at the object that lacks it)",
      text: "version: 1\nworkspaces:\n  - name: platform\naccessKeys:\n  - name: a\n",
      expected: ["broker.yaml:5:5 accessKeys[0].type: is required"],
    },
    {
      what: "a wrong type nested in the workspace tree",
      text: "version: 1\nworkspaces:\n  - name: platform\n    children:\n      - name: orders\n        adopt: yes\n",
      expected: ['broker.yaml:6:16 workspaces[0].children[0].adopt: must be true or false, got "yes"'],
    },
    {
      what: "a workspace name with a slash",
      text: "version: 1\nworkspaces:\n  - name: platform/orders\n",
      expected: [
        "broker.yaml:3:11 workspaces[0].name: must not contain '/' (nest workspaces with `children` instead), start or end with whitespace, or contain control characters",
      ],
    },
    {
      what: "a wrong version and a missing one",
      text: "version: 2\n",
      expected: ["broker.yaml:1:10 version: must be 1"],
    },
    {
      what: "a document that is not a mapping",
      text: "- version: 1\n",
      expected: ["broker.yaml:1:1 (document): must be a mapping (object), got a list"],
    },
    {
      what: "a syntax error",
      text: "version: 1\naccessKeys:\n  - name: a\n   type: SERVICE\n",
      expected: ["broker.yaml:4:1 (document): is not valid YAML: Sequence item without - indicator"],
    },
    {
      what: "a key given twice in one mapping",
      text: "version: 1\nadopt: true\nadopt: false\n",
      expected: ["broker.yaml:3:1 (document): is not valid YAML: Map keys must be unique"],
    },
  ])("$what", ({ text, expected }) => {
    expect(problemsOfFile("broker.yaml", text)).toEqual(expected);
  });

  it("lists every problem of a document at once, in file order", () => {
    const text = [
      "version: 1", // 1
      "workspaces:", // 2
      "  - name: platform", // 3
      "    children:", // 4
      "      - name: orders", // 5
      "      - name: orders", // 6
      "accessKeys:", // 7
      "  - name: a", // 8
      "    type: ADMIN", // 9
      "  - name: a", // 10
      "    type: SERVICE", // 11
      "    onDelete: forget", // 12
      "",
    ].join("\n");
    expect(problemsOfFile("all.yaml", text)).toEqual([
      'all.yaml:6:15 workspaces[0].children[1].name: duplicate workspace name "orders" under /platform (first at workspaces[0].children[0]); sibling names must be unique',
      'all.yaml:9:11 accessKeys[0].type: must be one of "ACCOUNT", "SERVICE"',
      'all.yaml:10:11 accessKeys[1].name: duplicate access key name "a" (first at accessKeys[0]); names must be unique',
      'all.yaml:12:15 accessKeys[1].onDelete: must be one of "retain", "revoke"',
    ]);
  });

  it("throws one BrokerConfigDocumentError (a BrokerError) whose message lists every problem", () => {
    const file = path.join(dir, "two.yaml");
    fs.writeFileSync(file, "version: 1\naccessKeys:\n  - name: a\n    type: X\n  - name: b\n    type: Y\n");
    let caught: unknown;
    try {
      loadBrokerConfig(file);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(BrokerConfigDocumentError);
    expect(isBrokerError(caught)).toBe(true);
    const error = caught as BrokerConfigDocumentError;
    expect(error.code).toBe("BROKER_CONFIG_INVALID");
    expect(error.message).toBe(
      [
        `Invalid broker configuration ${file} (2 problems):`,
        `  ${file}:4:11 accessKeys[0].type: must be one of "ACCOUNT", "SERVICE"`,
        `  ${file}:6:11 accessKeys[1].type: must be one of "ACCOUNT", "SERVICE"`,
      ].join("\n"),
    );
  });

  it("says when the file does not exist", () => {
    expect(() => loadBrokerConfig(path.join(dir, "nope.yaml"))).toThrow(
      /nope\.yaml \(document\): cannot be read: no such file/u,
    );
  });
});

describe("problems in JSON files name file:line:column and the path", () => {
  it.each([
    {
      what: "an unknown access key type",
      text: '{\n  "version": 1,\n  "accessKeys": [\n    { "name": "a", "type": "ADMIN" }\n  ]\n}\n',
      expected: ['broker.json:4:28 accessKeys[0].type: must be one of "ACCOUNT", "SERVICE"'],
    },
    {
      what: "an invalid event path",
      text: '{\n  "version": 1,\n  "accessKeys": [\n    {\n      "name": "a",\n      "type": "SERVICE",\n      "permissions": { "receive": ["*"] }\n    }\n  ]\n}\n',
      expected: [
        "broker.json:7:36 accessKeys[0].permissions.receive[0]: event path \"*\" is a bare '*' wildcard; wildcards need a prefix such as 'orders/*'; use '/'-separated segments such as 'orders/created', with '*' only as the last segment ('orders/*')",
      ],
    },
    {
      what: "an unquoted value deep in the file (V8 names no position: found by bisection)",
      text: '{\n  "version": 1,\n  "accessKeys": [\n    { "name": "a", "type": SERVICE }\n  ]\n}\n',
      expected: ["broker.json:4:28 (document): is not valid JSON: Unexpected token 'S'"],
    },
    {
      what: "a JSON syntax error (a trailing comma)",
      text: '{\n  "version": 1,\n}\n',
      expected: ["broker.json:3:1 (document): is not valid JSON: Expected double-quoted property name"],
    },
    {
      what: "YAML syntax in a .json file",
      text: "version: 1\n",
      expected: ["broker.json:1:1 (document): is not valid JSON: Unexpected token 'v'"],
    },
  ])("$what", ({ text, expected }) => {
    expect(problemsOfFile("broker.json", text)).toEqual(expected);
  });

  it("accepts a valid JSON file and returns the document", () => {
    const file = path.join(dir, "ok.json");
    const doc: BrokerConfigDocument = {
      version: 1,
      workspaces: [{ name: "platform", children: [{ name: "orders" }] }],
      accessKeys: [{ name: "a", type: "SERVICE", permissions: { send: ["orders/*"] } }],
    };
    fs.writeFileSync(file, JSON.stringify(doc));
    expect(loadBrokerConfig(file)).toEqual(doc);
  });
});

describe("problems in objects name the path", () => {
  it.each([
    {
      what: "an unknown type",
      value: {
        version: 1,
        accessKeys: [
          { name: "a", type: "SERVICE" },
          { name: "b", type: "ADMIN" },
        ],
      },
      expected: ['accessKeys[1].type: must be one of "ACCOUNT", "SERVICE"'],
    },
    {
      what: "an event path of the wrong type and one of the wrong form",
      value: {
        version: 1,
        accessKeys: [{ name: "a", type: "SERVICE", permissions: { send: ["ok", "x/*/y", 3] } }],
      },
      expected: [
        "accessKeys[0].permissions.send[1]: event path \"x/*/y\" has a '*' wildcard before the last segment; use '/'-separated segments such as 'orders/created', with '*' only as the last segment ('orders/*')",
        "accessKeys[0].permissions.send[2]: must be a string, got number 3",
      ],
    },
    {
      what: "names with whitespace around them, empty or too long",
      value: {
        version: 1,
        accessKeys: [
          { name: " a", type: "SERVICE" },
          { name: "", type: "SERVICE" },
          { name: "x".repeat(201), type: "SERVICE" },
        ],
      },
      expected: [
        "accessKeys[0].name: must not start or end with whitespace, nor contain control characters",
        "accessKeys[1].name: must not be empty",
        "accessKeys[2].name: must be at most 200 characters",
      ],
    },
    {
      what: "a missing version",
      value: { accessKeys: [] },
      expected: ["version: is required"],
    },
    {
      what: "unknown permission fields and a resources list",
      value: {
        version: 1,
        allowAccountKeys: true,
        accessKeys: [{ name: "a", type: "ACCOUNT", permissions: { publish: [], resources: [] } }],
      },
      expected: [
        "accessKeys[0].permissions.publish: is not allowed here; allowed: send, receive, resources",
        "accessKeys[0].permissions.resources: must be a mapping (object), got a list",
      ],
    },
    {
      what: "a document that is not an object",
      value: "version: 1",
      expected: ['(document): must be a mapping (object), got "version: 1"'],
    },
  ])("$what", ({ value, expected }) => {
    expect(problemsOfObject(value)).toEqual(expected);
  });

  it("locates problems in the text given as the source", () => {
    const text = "version: 1\naccessKeys:\n  - name: a\n    type: ADMIN\n";
    const value = { version: 1, accessKeys: [{ name: "a", type: "ADMIN" }] };
    expect(validateBrokerConfig(value, { file: "mine.yaml", text })).toEqual([
      {
        path: "accessKeys[0].type",
        message: 'must be one of "ACCOUNT", "SERVICE"',
        file: "mine.yaml",
        line: 4,
        column: 11,
      },
    ]);
  });

  it("loadBrokerConfig throws for an invalid object, naming paths only", () => {
    expect(() => loadBrokerConfig({ version: 1, accessKeys: [{ name: "a" }] } as never)).toThrow(
      "Invalid broker configuration (1 problem):\n  accessKeys[0].type: is required",
    );
  });
});

describe("documentInput: a component's document comes from exactly one of two inputs", () => {
  /** The two inputs of BrokerConfig, with the values given. */
  const choose = (file: string | undefined, config: BrokerConfigDocument | undefined) =>
    documentInput(
      "BrokerConfig",
      { name: "file", description: "a YAML or JSON file", value: file },
      { name: "config", description: "an object", value: config },
    );

  /** The error `choose` throws; fails the test when it returns or throws anything else. */
  function errorOf(file: string | undefined, config: BrokerConfigDocument | undefined): Error {
    try {
      choose(file, config);
    } catch (error) {
      if (isBrokerConfigDocumentError(error)) return error;
      throw error;
    }
    throw new Error("an input was accepted");
  }

  it("returns the one given, tagged with its name", () => {
    expect(choose("broker.yaml", undefined)).toEqual({ name: "file", value: "broker.yaml" });
    expect(choose(undefined, { version: 1 })).toEqual({ name: "config", value: { version: 1 } });
  });

  it("counts an empty value as given: only a left-out input is absent", () => {
    expect(choose("", undefined)).toEqual({ name: "file", value: "" });
  });

  it("refuses neither, naming both inputs with their descriptions", () => {
    expect(errorOf(undefined, undefined).message).toBe(
      "Invalid broker configuration (1 problem):\n  (document): BrokerConfig needs exactly one of `file` (a YAML or JSON file) and `config` (an object), got neither",
    );
  });

  it("refuses both", () => {
    const error = errorOf("broker.yaml", { version: 1 });
    expect(error.message).toContain("BrokerConfig needs exactly one of `file`");
    expect(error.message).toMatch(/got both$/u);
    expect(isBrokerError(error)).toBe(true);
  });
});

describe("ACCOUNT keys need allowAccountKeys: true", () => {
  const text =
    "version: 1\nadopt: true\naccessKeys:\n  - name: svc\n    type: SERVICE\n  - name: admin\n    type: ACCOUNT\n";

  it("refuses an ACCOUNT key in a document that does not allow them, naming the key, its line and how to allow it", () => {
    expect(() => parseBrokerConfig({ file: "broker.yaml", text })).toThrow(
      'broker.yaml:7:11 accessKeys[1].type: access key "admin" is an ACCOUNT key, which may change the whole broker configuration through the API: a document creates or adopts ACCOUNT keys only when it says `allowAccountKeys: true` at its top level (or use type SERVICE)',
    );
    // The same for a document given as an object (BrokerConfig's `config`, Environment's `config`).
    expect(
      problemsOfObject({
        version: 1,
        allowAccountKeys: false,
        accessKeys: [{ name: "admin", type: "ACCOUNT" }],
      }),
    ).toEqual([
      'accessKeys[0].type: access key "admin" is an ACCOUNT key, which may change the whole broker configuration through the API: a document creates or adopts ACCOUNT keys only when it says `allowAccountKeys: true` at its top level (or use type SERVICE)',
    ]);
  });

  it("accepts ACCOUNT keys when the document says allowAccountKeys: true, and only a boolean there", () => {
    expect(
      parseBrokerConfig({ file: "broker.yaml", text: `allowAccountKeys: true\n${text}` }).accessKeys,
    ).toHaveLength(2);
    expect(problemsOfObject({ version: 1, allowAccountKeys: "yes" })).toEqual([
      'allowAccountKeys: must be true or false, got "yes"',
    ]);
  });
});

describe("duplicates", () => {
  it("rejects two access keys with one name, even of different types", () => {
    expect(
      problemsOfObject({
        version: 1,
        allowAccountKeys: true,
        accessKeys: [
          { name: "a", type: "SERVICE" },
          { name: "b", type: "SERVICE" },
          { name: "a", type: "ACCOUNT" },
        ],
      }),
    ).toEqual([
      'accessKeys[2].name: duplicate access key name "a" (first at accessKeys[0]); names must be unique',
    ]);
  });

  it("rejects duplicate sibling workspaces at the top and deep in the tree", () => {
    expect(
      problemsOfObject({
        version: 1,
        workspaces: [
          { name: "a", children: [{ name: "x" }, { name: "y", children: [{ name: "z" }, { name: "z" }] }] },
          { name: "a" },
        ],
      }),
    ).toEqual([
      'workspaces[0].children[1].children[1].name: duplicate workspace name "z" under /a/y (first at workspaces[0].children[1].children[0]); sibling names must be unique',
      'workspaces[1].name: duplicate workspace name "a" under / (first at workspaces[0]); sibling names must be unique',
    ]);
  });

  it("allows one name under different parents", () => {
    expect(
      problemsOfObject({
        version: 1,
        workspaces: [
          { name: "a", children: [{ name: "orders" }] },
          { name: "b", children: [{ name: "orders" }] },
        ],
      }),
    ).toEqual([]);
  });
});

describe("the published schema", () => {
  it("is a valid draft 2020-12 schema", () => {
    const ajv = new Ajv2020({ strict: false });
    expect(ajv.validateSchema(BROKER_CONFIG_SCHEMA)).toBe(true);
    expect(BROKER_CONFIG_SCHEMA["$schema"]).toBe("https://json-schema.org/draft/2020-12/schema");
  });

  it("accepts a full document with every optional field", () => {
    expect(
      validateBrokerConfig({
        $schema: "./node_modules/pulumi-broker-config/dist/config-as-data/broker-config.schema.json",
        version: 1,
        adopt: true,
        onDelete: "retain",
        workspaces: [{ name: "platform", adopt: false, children: [{ name: "orders", children: [] }] }],
        accessKeys: [
          {
            name: "orders-svc",
            type: "SERVICE",
            permissions: { send: ["orders/created"], receive: ["payments/*"], resources: { topics: ["a"] } },
            adopt: false,
            onDelete: "revoke",
          },
        ],
      }),
    ).toEqual([]);
  });
});
