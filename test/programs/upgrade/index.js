// The program of test/e2e/upgrade.test.ts: objects of every kind with explicit names, through both
// doors (the native SDK served by the `broker` plugin, and the dynamic resources), as a stack made
// before autonaming and rotation triggers existed would declare them. It must keep running
// unchanged under the package version that wrote test/fixtures/upgrade/ (see its README.md).
"use strict";
const native = require("pulumi-broker-config/native");
const dynamic = require("pulumi-broker-config");

const platform = new native.Workspace("platform", { name: "platform" });
const orders = new native.Workspace("orders", { name: "orders", parentId: platform.workspaceId });
const ordersKey = new native.AccessKey("orders-svc", {
  name: "orders-svc",
  type: "SERVICE",
  permissions: { send: ["orders/created"], receive: ["payments/*"] },
});
new native.ServiceKeyPair("orders-svc-pair", {
  accessKey: ordersKey.accessKey,
  rotationTriggers: { quarter: "2026-Q4" },
});
new native.AccessKey("ops", { name: "ops", type: "ACCOUNT", onDelete: "retain" });

const billing = new dynamic.Workspace("billing", { name: "billing" });
new dynamic.Workspace("invoices", { name: "invoices", parentId: billing.workspaceId });
const billingKey = new dynamic.AccessKey("billing-svc", {
  name: "billing-svc",
  type: "SERVICE",
  permissions: { receive: ["orders/*"] },
});
new dynamic.ServiceKeyPair("billing-svc-pair", { accessKey: billingKey.accessKey });

exports.ordersWorkspaceId = orders.workspaceId;
exports.billingKeyId = billingKey.accessKeyId;
