// The broker policy pack that pulumi-broker-config ships (docs/policy-pack.md):
//   pulumi preview --policy-pack node_modules/pulumi-broker-config/policy-pack
// The Pulumi CLI runs this file in this directory; its version is this directory's package.json's,
// kept equal to the package's (a unit test fails otherwise). The policies live in the package's
// `policy` subpath, required by relative path: a package cannot require itself by name from inside.
// `@pulumi/policy` comes from the project that runs the pack (npm install --save-dev @pulumi/policy).
"use strict";
const { PolicyPack } = require("@pulumi/policy");
const { BROKER_POLICY_PACK_NAME, brokerPolicies } = require("../dist/policy");

new PolicyPack(BROKER_POLICY_PACK_NAME, { policies: brokerPolicies() });
