// The look-up functions through the dynamic door (`pulumi-broker-config`): the same program as
// test/programs/lookups-native, with the dynamic Workspace and explicit settings instead of an
// explicit provider.
"use strict";
const pulumi = require("@pulumi/pulumi");
const broker = require("pulumi-broker-config");

const config = new pulumi.Config();
const mode = config.require("mode");

if (mode === "missing") {
  exports.missing = broker.getWorkspaceOutput({ path: "/platform/nowhere" }).id;
} else if (mode === "duplicate") {
  exports.twin = broker.getAccessKeyOutput({ name: "twin" }).id;
} else {
  const platform = broker.getWorkspaceOutput({ path: "/platform" });
  const team = new broker.Workspace("team", { name: config.require("teamName"), parentId: platform.id });
  const key = broker.getAccessKeyOutput({ name: "orders-svc" });
  const other = { baseUrl: config.require("otherUrl"), apiKey: config.requireSecret("otherKey") };
  exports.platformId = platform.id;
  exports.teamParentId = team.parentId;
  exports.keyValue = key.accessKey;
  exports.keyPermissions = key.permissions;
  exports.keyValid = broker.verifyAccessKeyOutput({ accessKey: key.accessKey }).valid;
  exports.unknownValid = broker.verifyAccessKeyOutput({ accessKey: "not-a-key-of-this-broker" }).valid;
  exports.otherPath = broker.getWorkspaceOutput({ path: "/elsewhere" }, other).path;
  exports.workspaceNames = broker.getWorkspacesOutput({}).workspaces.apply((ws) => ws.map((w) => w.name));
  exports.serviceKeyNames = broker
    .getAccessKeysOutput({ type: "SERVICE", eventPathPrefix: "orders/" })
    .accessKeys.apply((keys) => keys.map((k) => k.name));
}
