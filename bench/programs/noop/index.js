// The engine's floor: the same N resources with the same inputs as programs/keys, served by a
// dynamic provider that does nothing (no API, no validation). What `pulumi up` costs beyond this is
// ours. The provider is one object for all resources, as ours is one module per type.
//
// It returns outputs shaped like an access key's (a key value and a key pair of the same lengths,
// an id, a date) and marks the same two secret through `additionalSecretOutputs`, so the engine pays
// here what it pays for ours: storing and encrypting the same outputs. The values are random but
// deliberately not credential-shaped (no `bks_` prefix, no PKCS#8 prefix), so the secret scan of the
// bench output stays meaningful.
"use strict";
const pulumi = require("@pulumi/pulumi");

const noop = {
  async create(inputs) {
    const { randomBytes, randomInt } = require("node:crypto");
    const outs = {
      ...inputs,
      adopt: false,
      onDelete: "revoke",
      // Same lengths as a SERVICE key value (bks_ + 43) and an X25519 SPKI / PKCS#8 pair in base64.
      accessKey: `nop_${randomBytes(32).toString("base64url")}`,
      accessKeyId: randomInt(1, 2 ** 31),
      createdAt: new Date().toISOString(),
      adopted: false,
      baseUrl: "http://127.0.0.1:40000/v1",
      publicKey: randomBytes(44).toString("base64"),
      privateKey: randomBytes(48).toString("base64"),
    };
    return { id: String(outs.accessKeyId), outs };
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
