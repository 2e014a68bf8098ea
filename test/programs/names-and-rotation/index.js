// The program of test/e2e/names-and-rotation.test.ts: workspaces and access keys without names,
// through both doors (the native SDK served by the `broker` plugin, and the dynamic resources).
// Stack config: `keyType` sets the native key's type (a change replaces it); `rotation` is both keys'
// rotation trigger (a change rotates them); `keyGeneration` drives a current/previous pair of keys
// (README "Key rotation"), each rotation replacing only the older one; `extraWorkspaces` lists logical names (comma-separated)
// of more native workspaces, so a test can add resources after changing `pulumi:autonaming`.
"use strict";
const pulumi = require("@pulumi/pulumi");
const native = require("pulumi-broker-config/native");
const dynamic = require("pulumi-broker-config");

const config = new pulumi.Config();
const rotationTriggers = { generation: config.get("rotation") ?? "1" };

const orders = new native.Workspace("orders", {});
const ordersKey = new native.AccessKey("orders-svc", {
  type: config.get("keyType") ?? "SERVICE",
  permissions: { send: ["orders/created"] },
  rotationTriggers,
});
const dynWorkspace = new dynamic.Workspace("dyn-team", {});
const dynKey = new dynamic.AccessKey("dyn-key", {
  type: "SERVICE",
  permissions: { receive: ["orders/*"] },
  rotationTriggers,
});

const generation = Number(config.get("keyGeneration") ?? "1");
const slot = (name, trigger) =>
  new native.AccessKey(name, {
    type: "SERVICE",
    permissions: { receive: ["payments/*"] },
    rotationTriggers: { generation: String(trigger) },
  });
const slotA = slot("pay-a", Math.floor((generation + 1) / 2));
const slotB = slot("pay-b", Math.floor(generation / 2));
const [current, previous] = generation % 2 === 1 ? [slotA, slotB] : [slotB, slotA];

const extra = {};
for (const name of (config.get("extraWorkspaces") ?? "").split(",").filter((n) => n !== ""))
  extra[name] = new native.Workspace(name, {});

exports.names = {
  orders: orders.name,
  ordersKey: ordersKey.name,
  dynWorkspace: dynWorkspace.name,
  dynKey: dynKey.name,
};
exports.ordersKeyId = ordersKey.accessKeyId;
exports.dynKeyId = dynKey.accessKeyId;
exports.currentKeyId = current.accessKeyId;
exports.previousKeyId = previous.accessKeyId;
exports.extraNames = pulumi.all(Object.fromEntries(Object.entries(extra).map(([n, w]) => [n, w.name])));
