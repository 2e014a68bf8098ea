// N SERVICE access keys, each with its own send path: the program timed by `pulumi up` in the bench.
"use strict";
const pulumi = require("@pulumi/pulumi");
const broker = require("pulumi-broker-config");

const count = new pulumi.Config().requireNumber("count");
for (let i = 0; i < count; i++) {
  new broker.AccessKey(`key-${i}`, {
    name: `bench-key-${i}`,
    type: "SERVICE",
    permissions: { send: [`orders/${i}`], receive: ["payments/*"] },
  });
}
