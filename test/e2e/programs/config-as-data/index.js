// The configuration-as-data test program: deploys the document whose path is the stack config `file`
// with the BrokerConfig component, as a user's program would.
"use strict";
const pulumi = require("@pulumi/pulumi");
const broker = require("pulumi-broker-config");

const config = new pulumi.Config();
const environment = new broker.BrokerConfig("env", { file: config.require("file") });

exports.workspaces = environment.workspaces;
exports.accessKeys = environment.accessKeys;
exports.accessKeyValues = environment.accessKeyValues;
exports.privateKeys = environment.privateKeys;
