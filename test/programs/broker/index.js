// The program of the end-to-end and reliability tests: what to deploy comes from the stack config
// `spec` (JSON), so a test changes the declared state by changing config, as a user edits their program.
// A key's `options` are its resource options (protect, retainOnDelete, ignoreChanges, ...).
"use strict";
const pulumi = require("@pulumi/pulumi");
const broker = require("pulumi-broker-config");

const config = new pulumi.Config();
const spec = config.requireObject("spec");

const workspaces = {};
for (const w of spec.workspaces ?? []) {
  workspaces[w.resource ?? w.name] = new broker.Workspace(w.resource ?? w.name, {
    name: w.name,
    parentId: w.parent ? workspaces[w.parent].workspaceId : undefined,
    adopt: w.adopt,
  });
}

const keys = {};
for (const k of spec.keys ?? []) {
  keys[k.resource ?? k.name] = new broker.AccessKey(
    k.resource ?? k.name,
    {
      name: k.name,
      type: k.type,
      permissions: k.permissions,
      adopt: k.adopt,
      onDelete: k.onDelete,
      rotationTriggers: k.rotationTriggers,
    },
    k.options,
  );
}

const pairs = {};
for (const p of spec.pairs ?? []) {
  pairs[p.key] = new broker.ServiceKeyPair(`${p.key}-pair`, {
    // `plainAccessKey` passes the key value as a plain (unsecret) input, as a value read from plain
    // config or unwrapped by the user would be: the resource must still keep it out of the state.
    accessKey: p.plainAccessKey ? pulumi.unsecret(keys[p.key].accessKey) : keys[p.key].accessKey,
    rotationTriggers: p.rotationTriggers,
  });
}

// pulumi.all keeps the secretness of the values it combines: maps holding secrets are secret.
const collect = (resources, pick) =>
  pulumi.all(Object.fromEntries(Object.entries(resources).map(([name, r]) => [name, pick(r)])));
exports.workspacePaths = collect(workspaces, (w) => w.path);
exports.workspaceIds = collect(workspaces, (w) => w.workspaceId);
exports.keyIds = collect(keys, (k) => k.accessKeyId);
exports.keyValues = collect(keys, (k) => k.accessKey);
exports.privateKeys = collect(pairs, (p) => p.privateKey);
exports.publicKeys = collect(pairs, (p) => p.publicKey);
