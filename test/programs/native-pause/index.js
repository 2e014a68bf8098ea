// The program of test/e2e/plugin-lifetime.test.ts: two access keys of the native `broker` provider,
// the second declared only `pauseMs` after the first exists. Meanwhile the engine has nothing to do
// and the broker plugin sits idle: the test shows the plugin stays while the engine lives, and
// exits on its own once the engine is killed.
"use strict";
const pulumi = require("@pulumi/pulumi");
const broker = require("pulumi-broker-config/native");

const config = new pulumi.Config();
const pauseMs = config.requireNumber("pauseMs");

module.exports = async () => {
  const first = new broker.AccessKey("first", { name: "first", type: "ACCOUNT" });
  if (!pulumi.runtime.isDryRun()) {
    // The id is known once the engine has created the key; a preview never knows it.
    await new Promise((resolve) => first.accessKeyId.apply(resolve));
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
  const second = new broker.AccessKey("second", { name: "second", type: "ACCOUNT" });
  return { firstId: first.accessKeyId, secondId: second.accessKeyId };
};
