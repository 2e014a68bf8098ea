import { describe, expect, it } from "vitest";
import {
  accessKeyResourceName,
  declarePlan,
  planBrokerConfig,
  workspaceResourceName,
  type BrokerConfigDocument,
} from "../../src/config-as-data";

// The tree → resources mapping, without Pulumi: what BrokerConfig declares for a document.

const doc: BrokerConfigDocument = {
  version: 1,
  workspaces: [
    {
      name: "platform",
      adopt: true,
      children: [
        { name: "orders", children: [{ name: "eu" }] },
        { name: "payments", adopt: false },
      ],
    },
    { name: "data" },
  ],
  accessKeys: [
    { name: "orders-svc", type: "SERVICE", permissions: { send: ["orders/created"] } },
    { name: "ops", type: "ACCOUNT", adopt: true, onDelete: "retain" },
  ],
};

describe("planBrokerConfig", () => {
  it("declares one workspace per tree node, parents first, named by path", () => {
    const plan = planBrokerConfig(doc, "prod");
    expect(plan.workspaces).toEqual([
      { resourceName: "prod:workspace:/platform", path: "/platform", name: "platform", adopt: true },
      {
        resourceName: "prod:workspace:/platform/orders",
        path: "/platform/orders",
        name: "orders",
        parentPath: "/platform",
        adopt: true,
      },
      {
        resourceName: "prod:workspace:/platform/orders/eu",
        path: "/platform/orders/eu",
        name: "eu",
        parentPath: "/platform/orders",
        adopt: true,
      },
      {
        resourceName: "prod:workspace:/platform/payments",
        path: "/platform/payments",
        name: "payments",
        parentPath: "/platform",
        adopt: false,
      },
      { resourceName: "prod:workspace:/data", path: "/data", name: "data", adopt: false },
    ]);
  });

  it("declares one access key per entry with every default filled in, onDelete only where the document gives it", () => {
    const plan = planBrokerConfig(doc, "prod");
    expect(plan.accessKeys).toEqual([
      {
        resourceName: "prod:access-key:orders-svc",
        name: "orders-svc",
        type: "SERVICE",
        permissions: { send: ["orders/created"], receive: [], resources: {} },
        adopt: false,
      },
      {
        resourceName: "prod:access-key:ops",
        name: "ops",
        type: "ACCOUNT",
        permissions: { send: [], receive: [], resources: {} },
        adopt: true,
        onDelete: "retain",
      },
    ]);
  });

  it("takes adopt and onDelete defaults from the document; entries override them", () => {
    const plan = planBrokerConfig(
      {
        version: 1,
        adopt: true,
        onDelete: "retain",
        workspaces: [{ name: "a", children: [{ name: "b", adopt: false, children: [{ name: "c" }] }] }],
        accessKeys: [
          { name: "k1", type: "SERVICE" },
          { name: "k2", type: "SERVICE", adopt: false, onDelete: "revoke" },
        ],
      },
      "env",
    );
    expect(plan.workspaces.map((w) => [w.path, w.adopt])).toEqual([
      ["/a", true],
      ["/a/b", false],
      ["/a/b/c", false], // inherited from its parent, not the document
    ]);
    expect(plan.accessKeys.map((k) => [k.name, k.adopt, k.onDelete])).toEqual([
      ["k1", true, "retain"],
      ["k2", false, "revoke"],
    ]);
  });

  it("keeps resource names stable when entries are reordered, and changes them on rename or move", () => {
    const names = (d: BrokerConfigDocument): string[] =>
      [
        ...planBrokerConfig(d, "prod").workspaces.map((w) => w.resourceName),
        ...planBrokerConfig(d, "prod").accessKeys.map((k) => k.resourceName),
      ].sort();
    const reordered: BrokerConfigDocument = {
      version: 1,
      accessKeys: [...doc.accessKeys!].reverse(),
      workspaces: [...doc.workspaces!].reverse(),
    };
    expect(names(reordered)).toEqual(names(doc));
    const moved: BrokerConfigDocument = {
      version: 1,
      workspaces: [{ name: "platform" }, { name: "data", children: [{ name: "orders" }] }],
    };
    expect(names(moved)).toContain("prod:workspace:/data/orders");
    expect(names(moved)).not.toContain("prod:workspace:/platform/orders");
  });

  it("prefixes every name with the component's name, so two components never collide", () => {
    expect(workspaceResourceName("a", "/x")).not.toBe(workspaceResourceName("b", "/x"));
    expect(accessKeyResourceName("a", "k")).toBe("a:access-key:k");
    // A key named like a workspace path does not collide with the workspace.
    expect(accessKeyResourceName("a", "/x")).not.toBe(workspaceResourceName("a", "/x"));
  });

  it("plans nothing for an empty document", () => {
    expect(planBrokerConfig({ version: 1 }, "prod")).toEqual({ workspaces: [], accessKeys: [] });
  });

  it("copies permission lists, so changing the plan never changes the document", () => {
    const plan = planBrokerConfig(doc, "prod");
    plan.accessKeys[0]!.permissions.send.push("x/y");
    expect(doc.accessKeys![0]!.permissions!.send).toEqual(["orders/created"]);
  });
});

describe("declarePlan: the one walk of a plan both doors use", () => {
  // A door's "resources" are recorded calls here: what BrokerConfig and Environment would declare.
  function declared(document: BrokerConfigDocument) {
    const calls: string[] = [];
    const result = declarePlan(planBrokerConfig(document, "prod"), {
      workspace: (planned, inputs) => {
        calls.push(`workspace ${planned.resourceName} ${JSON.stringify(inputs)}`);
        return { id: `id(${planned.path})` };
      },
      accessKey: (planned, inputs) => {
        calls.push(`access key ${planned.resourceName} ${JSON.stringify(inputs)}`);
        return { key: planned.name };
      },
      workspaceId: (workspace) => workspace.id,
    });
    return { calls, result };
  }

  it("declares parents before children, each child given its parent's id, then the keys", () => {
    const { calls } = declared(doc);
    expect(calls).toEqual([
      'workspace prod:workspace:/platform {"name":"platform","adopt":true}',
      'workspace prod:workspace:/platform/orders {"name":"orders","parentId":"id(/platform)","adopt":true}',
      'workspace prod:workspace:/platform/orders/eu {"name":"eu","parentId":"id(/platform/orders)","adopt":true}',
      'workspace prod:workspace:/platform/payments {"name":"payments","parentId":"id(/platform)","adopt":false}',
      'workspace prod:workspace:/data {"name":"data","adopt":false}',
      'access key prod:access-key:orders-svc {"name":"orders-svc","type":"SERVICE","permissions":{"send":["orders/created"],"receive":[],"resources":{}},"adopt":false}',
      'access key prod:access-key:ops {"name":"ops","type":"ACCOUNT","permissions":{"send":[],"receive":[],"resources":{}},"adopt":true,"onDelete":"retain"}',
    ]);
  });

  it("returns the declared resources by workspace path and by key name", () => {
    const { result } = declared(doc);
    expect(Object.keys(result.workspaces)).toEqual([
      "/platform",
      "/platform/orders",
      "/platform/orders/eu",
      "/platform/payments",
      "/data",
    ]);
    expect(result.accessKeys).toEqual({ "orders-svc": { key: "orders-svc" }, ops: { key: "ops" } });
  });

  it("returns the accessor of a workspace's id it was given, for the outputs to read the same ids", () => {
    const { result } = declared(doc);
    expect(result.workspaceId(result.workspaces["/platform/orders"]!)).toBe("id(/platform/orders)");
  });
});
