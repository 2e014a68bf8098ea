// The look-up functions in JavaScript, through either door: stack config `door` is "native" (the
// native SDK `pulumi-broker-config/native`, served by the `broker` plugin, with an explicit provider
// for the second emulator) or "dynamic" (`pulumi-broker-config`, with explicit settings instead of a
// provider). Stack config `mode` picks what to look up:
// - "deploy": the platform workspace made outside Pulumi becomes the parent of a new workspace; a key
//   made through the API is read (its value a secret) and verified; the second emulator (`otherUrl`,
//   secret `otherKey`) is read; the lists are exported.
// - "missing": a path that does not exist; "duplicate": a name two keys share.
"use strict";
const pulumi = require("@pulumi/pulumi");

const config = new pulumi.Config();
const native = config.require("door") === "native";
const broker = require(native ? "pulumi-broker-config/native" : "pulumi-broker-config");
const mode = config.require("mode");

if (mode === "missing") {
  exports.missing = broker.getWorkspaceOutput({ path: "/platform/nowhere" }).id;
} else if (mode === "duplicate") {
  exports.twin = broker.getAccessKeyOutput({ name: "twin" }).id;
} else {
  const platform = broker.getWorkspaceOutput({ path: "/platform" });
  const team = new broker.Workspace("team", { name: config.require("teamName"), parentId: platform.id });
  const key = broker.getAccessKeyOutput({ name: "orders-svc" });
  const otherSettings = { baseUrl: config.require("otherUrl"), apiKey: config.requireSecret("otherKey") };
  const other = native ? { provider: new broker.Provider("other", otherSettings) } : otherSettings;
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
