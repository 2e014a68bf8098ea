/**
 * Autonaming: the name a Workspace or AccessKey gets when the program gives none, chosen by the
 * core's `check` for both doors (src/core/autoname.ts), in the form the model states
 * (src/model/names.ts).
 */
import { describe, expect, it } from "vitest";
import { accessKeyOperations, checkAccessKey } from "../../src/core/access-key";
import { withChosenName, type NameSource } from "../../src/core/autoname";
import type { CheckContext } from "../../src/core/context";
import type { PropertyBag } from "../../src/core/state";
import { UNKNOWN } from "../../src/core/unknown";
import { checkWorkspace, workspaceOperations } from "../../src/core/workspace";
import { DEFAULT_SETTING_NAMES } from "../../src/client/setting-names";
import { autoname, MAX_NAME_LENGTH, nameProblems } from "../../src/model";

const ctx: CheckContext = {
  configuredBaseUrl: () => "http://broker.test/v1",
  settingNames: DEFAULT_SETTING_NAMES,
};

/** The name `check` records for `news`, or its failures. */
function nameOf(
  check: typeof checkWorkspace | typeof checkAccessKey,
  news: PropertyBag,
  naming: NameSource,
): unknown {
  const result = check(ctx, news, undefined, naming);
  if (result.inputs === undefined) return { failures: result.failures };
  return result.inputs.name;
}

const KEY = { type: "SERVICE" };

describe("the name form (model)", () => {
  it("is the logical name, a dash and the random part", () => {
    expect(autoname("orders", "workspace", "1a2b3c4")).toBe("orders-1a2b3c4");
    expect(autoname("orders-key", "accessKey", "1a2b3c4")).toBe("orders-key-1a2b3c4");
  });

  it("makes any logical name valid: a workspace's '/', whitespace, control characters, length", () => {
    const cases: [string, "workspace" | "accessKey"][] = [
      ["team/orders", "workspace"],
      ["  padded\t", "workspace"],
      ["bell\u0007", "accessKey"],
      ["x".repeat(500), "workspace"],
      ["😀".repeat(300), "accessKey"],
      ["", "accessKey"],
    ];
    for (const [logical, kind] of cases) {
      const name = autoname(logical, kind, "abcdef0");
      expect(nameProblems(name, kind), `${JSON.stringify(logical)} -> ${JSON.stringify(name)}`).toEqual([]);
      expect(name.endsWith("abcdef0")).toBe(true);
    }
    expect(autoname("team/orders", "workspace", "abcdef0")).toBe("team-orders-abcdef0");
    expect(autoname("team/orders", "accessKey", "abcdef0")).toBe("team/orders-abcdef0");
    expect(Array.from(autoname("x".repeat(500), "workspace", "abcdef0"))).toHaveLength(MAX_NAME_LENGTH);
  });
});

describe("check chooses a name when the program gives none", () => {
  it("names a new workspace and key <logical name>-<7 lowercase hex characters>", () => {
    expect(nameOf(checkWorkspace, {}, { logicalName: "orders" })).toMatch(/^orders-[0-9a-f]{7}$/u);
    expect(nameOf(checkAccessKey, KEY, { logicalName: "orders-key" })).toMatch(/^orders-key-[0-9a-f]{7}$/u);
  });

  it("chooses a different random part each time (a replacement gets a new name)", () => {
    const names = new Set(Array.from({ length: 20 }, () => nameOf(checkWorkspace, {}, { logicalName: "w" })));
    expect(names.size).toBeGreaterThan(1);
  });

  it("keeps the name the previous check recorded, so an update never renames", () => {
    const oldInputs = { name: "orders-5e6f7a8", parentId: 0 };
    expect(nameOf(checkWorkspace, {}, { logicalName: "orders", oldInputs })).toBe("orders-5e6f7a8");
    expect(
      nameOf(checkAccessKey, KEY, {
        logicalName: "k",
        oldInputs: { name: "k-0000000" },
        autonaming: { mode: "enforce", proposedName: "k" },
      }),
    ).toBe("k-0000000");
  });

  it("keeps an explicit name exactly, and one not known yet as not known", () => {
    const naming: NameSource = {
      logicalName: "orders",
      oldInputs: { name: "old" },
      autonaming: { mode: "enforce", proposedName: "orders" },
    };
    expect(nameOf(checkWorkspace, { name: "team" }, naming)).toBe("team");
    const unknown = checkWorkspace(ctx, { name: UNKNOWN }, undefined, naming);
    expect(unknown.failures).toEqual([]);
    expect(withChosenName({ name: UNKNOWN }, naming, "workspace").inputs).toEqual({ name: UNKNOWN });
  });

  it("takes the engine's proposal (a pattern, or verbatim) over the default form", () => {
    expect(
      nameOf(
        checkWorkspace,
        {},
        { logicalName: "orders", autonaming: { mode: "propose", proposedName: "dev-orders-x1" } },
      ),
    ).toBe("dev-orders-x1");
    expect(
      nameOf(checkAccessKey, KEY, {
        logicalName: "orders",
        autonaming: { mode: "enforce", proposedName: "orders" },
      }),
    ).toBe("orders");
  });

  it("refuses a proposal the API would refuse, with the name rules' words", () => {
    const result = checkWorkspace(ctx, {}, undefined, {
      logicalName: "a/b",
      autonaming: { mode: "enforce", proposedName: "a/b" },
    });
    expect(result.failures).toEqual([
      { property: "name", reason: expect.stringContaining("must not contain '/'") as string },
    ]);
  });

  it("requires a name when the stack's autonaming configuration turns autonaming off", () => {
    const result = checkAccessKey(ctx, KEY, undefined, {
      logicalName: "k",
      autonaming: { mode: "disable", proposedName: "" },
    });
    expect(result.failures).toEqual([
      { property: "name", reason: expect.stringContaining("pulumi:autonaming") as string },
    ]);
  });

  it("takes the name an interrupted create chose over the engine's proposal and a new random one", () => {
    const interrupted = { logicalName: "orders", interruptedName: "orders-7c0ffee" };
    expect(nameOf(checkWorkspace, {}, interrupted)).toBe("orders-7c0ffee");
    expect(
      nameOf(checkAccessKey, KEY, {
        ...interrupted,
        autonaming: { mode: "propose", proposedName: "orders-1234abcd" },
      }),
    ).toBe("orders-7c0ffee");
    // The program's name, the recorded one and an enforced proposal come first.
    expect(nameOf(checkWorkspace, { name: "given" }, interrupted)).toBe("given");
    expect(nameOf(checkWorkspace, {}, { ...interrupted, oldInputs: { name: "recorded" } })).toBe("recorded");
    expect(
      nameOf(
        checkWorkspace,
        {},
        { ...interrupted, autonaming: { mode: "enforce", proposedName: "dev-orders" } },
      ),
    ).toBe("dev-orders");
    expect(
      nameOf(checkWorkspace, {}, { ...interrupted, autonaming: { mode: "disable", proposedName: "" } }),
    ).toEqual({ failures: [expect.objectContaining({ property: "name" })] });
  });

  it("requires a name when nothing tells the logical name (an old class that passes none)", () => {
    expect(checkWorkspace(ctx, {}, undefined, {}).failures).toEqual([
      { property: "name", reason: "is required" },
    ]);
  });
});

describe("stacks written before autonaming and rotationTriggers", () => {
  // Checked inputs exactly as the previous version recorded them: explicit names, no rotationTriggers.
  const baseUrl = "http://broker.test/v1";
  const oldKey = {
    name: "orders-svc",
    type: "SERVICE",
    permissions: { send: ["orders/created"], receive: [], resources: {} },
    adopt: false,
    onDelete: "revoke",
    allowEndpointChange: false,
    baseUrl,
  };
  const oldWorkspace = { name: "orders", parentId: 0, adopt: false, allowEndpointChange: false, baseUrl };

  it("see no change when the program still gives the same explicit names", () => {
    const key = accessKeyOperations.check(
      ctx,
      { name: "orders-svc", type: "SERVICE", permissions: { send: ["orders/created"] } },
      baseUrl,
      { logicalName: "orders-svc", oldInputs: oldKey },
    );
    if (key.inputs === undefined) throw new Error(JSON.stringify(key.failures));
    expect(accessKeyOperations.diff(accessKeyOperations.decodeInputs(oldKey), key.inputs).changes).toBe(
      false,
    );

    const workspace = workspaceOperations.check(ctx, { name: "orders" }, baseUrl, {
      logicalName: "orders",
      oldInputs: oldWorkspace,
    });
    if (workspace.inputs === undefined) throw new Error(JSON.stringify(workspace.failures));
    expect(
      workspaceOperations.diff(workspaceOperations.decodeInputs(oldWorkspace), workspace.inputs).changes,
    ).toBe(false);
  });

  it("keep the recorded name when the program drops it, so nothing is replaced", () => {
    const key = accessKeyOperations.check(
      ctx,
      { type: "SERVICE", permissions: { send: ["orders/created"] } },
      baseUrl,
      {
        logicalName: "orders-svc",
        oldInputs: oldKey,
      },
    );
    if (key.inputs === undefined) throw new Error(JSON.stringify(key.failures));
    expect(key.inputs.name).toBe("orders-svc");
    expect(accessKeyOperations.diff(accessKeyOperations.decodeInputs(oldKey), key.inputs).changes).toBe(
      false,
    );
  });

  it("replace the key when rotationTriggers change, creating the new key first", () => {
    const news = accessKeyOperations.check(
      ctx,
      { ...oldKey, rotationTriggers: { generation: "2" } },
      baseUrl,
      {
        oldInputs: oldKey,
      },
    );
    if (news.inputs === undefined) throw new Error(JSON.stringify(news.failures));
    const diff = accessKeyOperations.diff(accessKeyOperations.decodeInputs(oldKey), news.inputs);
    expect(diff.replaces).toEqual(["rotationTriggers"]);
    expect(diff.deleteBeforeReplace).toBe(false);
  });
});
