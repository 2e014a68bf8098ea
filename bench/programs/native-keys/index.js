// N SERVICE access keys, as programs/keys, with the native SDK (`pulumi-broker-config/native`,
// served by the `broker` plugin): the program timed by the bench's `native` section.
"use strict";
const pulumi = require("@pulumi/pulumi");
const broker = require("pulumi-broker-config/native");

const count = new pulumi.Config().requireNumber("count");
for (let i = 0; i < count; i++) {
  new broker.AccessKey(`key-${i}`, {
    name: `bench-key-${i}`,
    type: "SERVICE",
    permissions: { send: [`orders/${i}`], receive: ["payments/*"] },
  });
}
