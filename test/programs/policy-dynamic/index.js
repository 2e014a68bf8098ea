// The policy pack's dynamic-door program (the package's own resource classes), previewed with the
// broker policy pack by test/e2e/policy-pack.test.ts. What it declares comes from the stack config
// `spec` (JSON), as test/programs/policy-native-ts reads it.
"use strict";
const pulumi = require("@pulumi/pulumi");
const { AccessKey, Workspace } = require("pulumi-broker-config");

const spec = new pulumi.Config().requireObject("spec");

const workspaces = {};
for (const w of spec.workspaces ?? []) {
  workspaces[w.resource] = new Workspace(w.resource, { name: w.name });
}

for (const k of spec.keys ?? []) {
  new AccessKey(
    k.resource,
    { name: k.name, type: k.type, permissions: { send: k.send ?? [], receive: k.receive ?? [] } },
    k.workspace === undefined ? {} : { parent: workspaces[k.workspace] },
  );
}
