// The program of the native-provider end-to-end tests: the broker tree of test/programs/broker, built
// with the native SDK (`pulumi-broker-config/native`, served by the `broker` plugin). What to deploy
// comes from the stack config `spec` (JSON), so a test changes the declared state by changing config.
//
// Explicit providers: `providerUrls` (plain, provider name -> baseUrl) and `providerKeys` (secret,
// provider name -> API key). A workspace or key with `provider: "<name>"` uses that provider; without,
// the default provider (stack config `broker:baseUrl` / `broker:apiKey`).
"use strict";
const pulumi = require("@pulumi/pulumi");
const broker = require("pulumi-broker-config/native");

const config = new pulumi.Config();
const spec = config.requireObject("spec");

const providers = {};
const providerKeys = config.getSecretObject("providerKeys");
for (const [name, baseUrl] of Object.entries(config.getObject("providerUrls") ?? {})) {
  providers[name] = new broker.Provider(name, { baseUrl, apiKey: providerKeys.apply((keys) => keys[name]) });
}

/** The resource options a spec entry asks for. */
function options(entry) {
  const opts = {};
  if (entry.provider !== undefined) opts.provider = providers[entry.provider];
  if (entry.replaceOnChanges !== undefined) opts.replaceOnChanges = entry.replaceOnChanges;
  if (entry.ignoreChanges !== undefined) opts.ignoreChanges = entry.ignoreChanges;
  if (entry.deleteBeforeReplace !== undefined) opts.deleteBeforeReplace = entry.deleteBeforeReplace;
  return opts;
}

const workspaces = {};
for (const w of spec.workspaces ?? []) {
  workspaces[w.resource ?? w.name] = new broker.Workspace(
    w.resource ?? w.name,
    { name: w.name, parentId: w.parent ? workspaces[w.parent].workspaceId : w.parentId, adopt: w.adopt },
    options(w),
  );
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
    options(k),
  );
}

const pairs = {};
for (const p of spec.pairs ?? []) {
  pairs[p.key] = new broker.ServiceKeyPair(
    `${p.key}-pair`,
    { accessKey: keys[p.key].accessKey, rotationTriggers: p.rotationTriggers },
    options(p),
  );
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
