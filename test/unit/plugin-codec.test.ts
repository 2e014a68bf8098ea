import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import { describe, expect, it } from "vitest";
import { UNKNOWN } from "../../src/core/unknown";
import {
  CodecError,
  decodeStruct,
  encodeStruct,
  formatPath,
  fromCore,
  pv,
  toCore,
  UNKNOWN_VALUE,
  type PropertyMap,
} from "../../src/native/codec";

const SIG = "4dabf18193072939515e22adb298388d";
const SECRET = "1b47061264138c4ac30d75fd1eb44270";
const OUTPUT = "d0e6a833031e9bbcd3f4e8bde6ca49a4";
const secret = (value: unknown) => ({ [SIG]: SECRET, value });

const wire = (value: Record<string, unknown>) =>
  Struct.fromJavaScript(value as Parameters<typeof Struct.fromJavaScript>[0]);

describe("decodeStruct / encodeStruct", () => {
  // `encoded`: what encoding `decoded` gives back, when it is not `wire` itself.
  const cases: {
    name: string;
    wire: Record<string, unknown>;
    decoded: PropertyMap;
    encoded?: Record<string, unknown>;
  }[] = [
    {
      name: "plain values of every kind",
      wire: { s: "x", n: 30000, b: true, z: null, a: ["a", 1], o: { k: "v" } },
      decoded: {
        s: pv.string("x"),
        n: pv.number(30000),
        b: pv.bool(true),
        z: pv.null(),
        a: pv.array([pv.string("a"), pv.number(1)]),
        o: pv.object({ k: pv.string("v") }),
      },
    },
    {
      name: "a top-level secret",
      wire: { accessKey: secret("bka_1") },
      decoded: { accessKey: pv.secret(pv.string("bka_1")) },
    },
    {
      name: "a secret nested in a list inside an object",
      wire: { permissions: { send: ["a/b", secret("c/d")], receive: [] } },
      decoded: {
        permissions: pv.object({
          send: pv.array([pv.string("a/b"), pv.secret(pv.string("c/d"))]),
          receive: pv.array([]),
        }),
      },
    },
    {
      name: "a secret object holding a secret (one secret)",
      wire: { t: secret(secret({ q: "1" })) },
      decoded: { t: pv.secret(pv.object({ q: pv.string("1") })) },
      encoded: { t: secret({ q: "1" }) },
    },
    {
      name: "values not known yet, at the top and nested",
      wire: { name: UNKNOWN_VALUE, permissions: { send: [UNKNOWN_VALUE] } },
      decoded: {
        name: pv.computed(),
        permissions: pv.object({ send: pv.array([pv.computed()]) }),
      },
    },
    {
      name: "a secret not known yet",
      wire: { accessKey: secret(UNKNOWN_VALUE) },
      decoded: { accessKey: pv.secret(pv.computed()) },
    },
  ];

  it.each(cases)("decodes and re-encodes $name", ({ wire: value, decoded, encoded }) => {
    expect(decodeStruct(wire(value))).toEqual(decoded);
    expect(encodeStruct(decoded).toJavaScript()).toEqual(encoded ?? value);
  });

  it("decodes output values: known, unknown and secret", () => {
    const decoded = decodeStruct(
      wire({
        known: { [SIG]: OUTPUT, value: "a", dependencies: ["urn:x"] },
        unknown: { [SIG]: OUTPUT },
        hidden: { [SIG]: OUTPUT, value: "k", secret: true },
      }),
    );
    expect(decoded).toEqual({
      known: pv.string("a"),
      unknown: pv.computed(),
      hidden: pv.secret(pv.string("k")),
    });
  });

  it("rejects an asset with an error naming the property", () => {
    const asset = { [SIG]: "c44067f5952c0a294b673a41bacd8c17", path: "./x" };
    expect(() => decodeStruct(wire({ rotationTriggers: { file: asset } }))).toThrow(CodecError);
    expect(() => decodeStruct(wire({ rotationTriggers: { file: asset } }))).toThrow(
      "Property rotationTriggers.file: an asset is not supported",
    );
  });

  it("treats an absent Struct as no properties", () => {
    expect(decodeStruct(undefined)).toEqual({});
  });
});

describe("formatPath", () => {
  it.each([
    [["permissions", "send", 1], "permissions.send[1]"],
    [["rotationTriggers", "quarter.q4"], 'rotationTriggers["quarter.q4"]'],
    [["name"], "name"],
    [[], ""],
  ] as const)("formats %j as %s", (path, text) => {
    expect(formatPath(path)).toBe(text);
  });
});

describe("toCore", () => {
  it("unwraps secrets, records their paths, passes unknowns as the core's sentinel and drops __ keys", () => {
    const { values, secrets } = toCore(
      decodeStruct(
        wire({
          __provider: "serialized",
          accessKey: secret("bka_1"),
          permissions: { send: ["a/b", secret("c/d")], receive: UNKNOWN_VALUE },
        }),
      ),
    );
    expect(values).toEqual({ accessKey: "bka_1", permissions: { send: ["a/b", "c/d"], receive: UNKNOWN } });
    expect(secrets.map((s) => formatPath(s.path))).toEqual(["accessKey", "permissions.send[1]"]);
  });
});

describe("fromCore", () => {
  it("wraps a nested secret at its own path when the core returned the property unchanged", () => {
    const core = toCore({
      permissions: pv.object({ send: pv.array([pv.string("a/b"), pv.secret(pv.string("c/d"))]) }),
    });
    const encoded = fromCore(core.values, { secrets: core.secrets, inputs: core.values });
    expect(encodeStruct(encoded).toJavaScript()).toEqual({ permissions: { send: ["a/b", secret("c/d")] } });
  });

  it("makes the whole property secret when the core reordered it, so no secret lands in plain text", () => {
    const core = toCore({
      permissions: pv.object({ send: pv.array([pv.string("z/z"), pv.secret(pv.string("a/a"))]) }),
    });
    const encoded = fromCore(
      { permissions: { send: ["a/a", "z/z"] } },
      { secrets: core.secrets, inputs: core.values },
    );
    expect(encodeStruct(encoded).toJavaScript()).toEqual({ permissions: secret({ send: ["a/a", "z/z"] }) });
  });

  it("wraps the schema's secret outputs and a secret input carried to the outputs", () => {
    const core = toCore({ accessKey: pv.secret(pv.string("bka_1")) });
    const encoded = fromCore(
      { accessKey: "bka_1", privateKey: "pk", publicKey: "pub", accessKeyId: 7, createdAt: undefined },
      { secrets: core.secrets, inputs: core.values, alwaysSecret: ["privateKey", "accessKey"] },
    );
    expect(encodeStruct(encoded).toJavaScript()).toEqual({
      accessKey: secret("bka_1"),
      privateKey: secret("pk"),
      publicKey: "pub",
      accessKeyId: 7,
    });
  });

  it("keeps unknowns in a preview and refuses them otherwise", () => {
    expect(
      fromCore({ accessKey: UNKNOWN, name: "k" }, { allowUnknowns: true, alwaysSecret: ["accessKey"] }),
    ).toEqual({
      accessKey: pv.secret(pv.computed()),
      name: pv.string("k"),
    });
    expect(() => fromCore({ accessKey: UNKNOWN })).toThrow(
      "Property accessKey: the provider returned a value that is not known yet",
    );
  });

  it("keeps a key named __proto__ as an ordinary property", () => {
    const encoded = fromCore(JSON.parse('{"__proto__": "x"}') as Record<string, unknown>);
    expect(Object.keys(encoded)).toEqual(["__proto__"]);
  });
});
