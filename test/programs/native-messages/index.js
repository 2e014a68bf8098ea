// One access key through the default provider or an explicit one, for the messages test: with the
// stack config `explicit` true, a `broker.Provider("prod")` gets the base URL and API key from the
// config `providerUrl` and `providerKey` (secret), each only when set; otherwise the default
// provider reads `broker:baseUrl` and `broker:apiKey`.
"use strict";
const pulumi = require("@pulumi/pulumi");
const broker = require("pulumi-broker-config/native");

const config = new pulumi.Config();
let opts = {};
if (config.getBoolean("explicit")) {
  const args = {};
  const url = config.get("providerUrl");
  if (url !== undefined) args.baseUrl = url;
  const key = config.getSecret("providerKey");
  if (key !== undefined) args.apiKey = key;
  opts = { provider: new broker.Provider("prod", args) };
}
const key = new broker.AccessKey("messages-key", { name: "messages-key", type: "ACCOUNT" }, opts);
exports.keyId = key.accessKeyId;
