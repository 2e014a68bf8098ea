// The engine's floor: the same N resources with the same inputs as programs/keys, served by a
// dynamic provider that does nothing (no API, no validation). What `pulumi up` costs beyond this is
// ours. The provider is one object for all resources, as ours is one module per type.
//
// It returns outputs shaped like an access key's (a key value and a key pair of the same lengths,
// an id, a date, the base URL) and marks the same two secret through `additionalSecretOutputs`, so the engine pays
// here what it pays for ours: storing and encrypting the same outputs. The values are random but
// deliberately not credential-shaped (no `bks_` prefix, no PKCS#8 prefix), so the secret scan of the
// bench output stays meaningful.
"use strict";
const pulumi = require("@pulumi/pulumi");

// Kept short: the serializer stores this code as every resource's `__provider`, twice, and a longer
// text than our 281-byte `require()` would make the floor cost more than the real thing.
const noop = {
  async create(inputs) {
    const r = (n) => require("crypto").randomBytes(n).toString("base64");
    const key = { accessKey: `nop_${r(32).slice(0, 43)}`, accessKeyId: 1, adopted: false };
    const pair = { publicKey: r(44), privateKey: r(48) };
    const when = { createdAt: new Date().toISOString(), baseUrl: "http://127.0.0.1:4010/v1" };
    return { id: r(6), outs: { ...inputs, adopt: false, onDelete: "revoke", ...key, ...pair, ...when } };
  },
  async read(id, props) {
    return { id, props };
  },
};

class Noop extends pulumi.dynamic.Resource {
  constructor(name, args) {
    super(noop, name, args, { additionalSecretOutputs: ["accessKey", "privateKey"] }, "bench", "Noop");
  }
}

const count = new pulumi.Config().requireNumber("count");
for (let i = 0; i < count; i++) {
  new Noop(`key-${i}`, {
    name: `bench-key-${i}`,
    type: "SERVICE",
    permissions: { send: [`orders/${i}`], receive: ["payments/*"] },
  });
}
