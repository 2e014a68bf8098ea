// One of everything, nested as users write it: previewed on a new stack to count the requests a
// `pulumi preview` sends (the goal is none: a pull-request check must not need the API).
"use strict";
const broker = require("pulumi-broker-config");

const team = new broker.Workspace("team", { name: "team" });
new broker.Workspace("orders", { name: "orders", parentId: team.workspaceId });
const service = new broker.AccessKey("orders-svc", {
  name: "orders-svc",
  type: "SERVICE",
  permissions: { send: ["orders/created"], receive: ["payments/*"] },
});
new broker.AccessKey("ops", { name: "ops", type: "ACCOUNT", permissions: { receive: ["audit/*"] } });
new broker.ServiceKeyPair("orders-pair", {
  accessKey: service.accessKey,
  rotationTriggers: { quarter: "2026-Q4" },
});
