// Stack outputs of every shape the harness reads back from the file backend
// (harness/file-backend.mts): plain values, a secret, a secret nested in an object and in an
// array, a secret from config, and nothing at all once `exportNothing` is set.
"use strict";
const pulumi = require("@pulumi/pulumi");

const config = new pulumi.Config();
if (!config.getBoolean("exportNothing")) {
  module.exports = {
    count: 3,
    name: "plain",
    nothing: null,
    secret: pulumi.secret("top-level secret"),
    nested: { plain: [1, "two"], hidden: pulumi.secret({ deep: "nested secret" }) },
    list: ["a", pulumi.secret("listed secret")],
    fromConfig: config.requireSecret("token"),
  };
}
