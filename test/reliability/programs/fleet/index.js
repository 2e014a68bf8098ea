// The reliability suite's program: what to deploy comes from the stack config `spec` (JSON), so a
// test changes the declared state by changing config, as a user edits their program.
"use strict";
const pulumi = require("@pulumi/pulumi");
const broker = require("pulumi-broker-config");

const spec = new pulumi.Config().requireObject("spec");

const workspaces = {};
for (const w of spec.workspaces ?? []) {
  workspaces[w.name] = new broker.Workspace(w.name, {
    name: w.name,
    parentId: w.parent ? workspaces[w.parent].workspaceId : undefined,
    adopt: w.adopt,
  });
}

const keys = {};
for (const k of spec.keys ?? []) {
  keys[k.name] = new broker.AccessKey(k.name, {
    name: k.name,
    type: k.type,
    permissions: k.permissions,
    adopt: k.adopt,
  });
}

const pairs = {};
for (const p of spec.pairs ?? []) {
  pairs[p.key] = new broker.ServiceKeyPair(`${p.key}-pair`, {
    accessKey: keys[p.key].accessKey,
    rotationTriggers: p.rotationTriggers,
  });
}

const collect = (resources, pick) =>
  pulumi.all(Object.fromEntries(Object.entries(resources).map(([name, r]) => [name, pick(r)])));
exports.workspaceIds = collect(workspaces, (w) => w.workspaceId);
exports.keyIds = collect(keys, (k) => k.accessKeyId);
// Secret: pulumi.all keeps the secretness of the values it combines.
exports.keyValues = collect(keys, (k) => k.accessKey);
exports.pairPublicKeys = collect(pairs, (p) => p.publicKey);
exports.pairPrivateKeys = collect(pairs, (p) => p.privateKey);
