// The errors a user meets, for test/e2e/user-errors.test.ts, through either door: stack config
// `door` is "native" (the native SDK `pulumi-broker-config/native` and the `broker` plugin) or
// "dynamic" (`pulumi-broker-config`). Stack config `mode` picks the failure:
// - "lookup": a workspace path that does not exist, in the Output form (with no settings at all, the
//   look-up fails for want of them instead); "lookup-plain": the same with the plain form, awaited;
// - "create": a workspace under a parent that does not exist (the API refuses the create; with a
//   wrong API key, it answers 401 first);
// - "invalid": a workspace name with a `/`, which `check` rejects before any request.
"use strict";
const pulumi = require("@pulumi/pulumi");

const config = new pulumi.Config();
const broker = require(
  config.require("door") === "native" ? "pulumi-broker-config/native" : "pulumi-broker-config",
);
const mode = config.require("mode");

if (mode === "lookup") {
  exports.missing = broker.getWorkspaceOutput({ path: "/nowhere/at-all" }).id;
} else if (mode === "lookup-plain") {
  module.exports = async () => {
    const workspace = await broker.getWorkspace({ path: "/nowhere/at-all" });
    return { missing: workspace.id };
  };
} else if (mode === "create") {
  exports.orphanId = new broker.Workspace("orphan", { name: "orphan", parentId: 987654 }).workspaceId;
} else if (mode === "invalid") {
  exports.badId = new broker.Workspace("bad", { name: "a/b" }).workspaceId;
}
