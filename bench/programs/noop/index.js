// The engine's floor: the same N resources with the same inputs as programs/keys, served by a
// dynamic provider that does nothing (no API, no validation). What `pulumi up` costs beyond this is
// ours. The provider is one object for all resources, as ours is one module per type.
"use strict";
const pulumi = require("@pulumi/pulumi");

const noop = {
  async create(inputs) {
    return { id: inputs.name, outs: inputs };
  },
  async read(id, props) {
    return { id, props };
  },
};

class Noop extends pulumi.dynamic.Resource {
  constructor(name, args) {
    super(noop, name, args, undefined, "bench", "Noop");
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
