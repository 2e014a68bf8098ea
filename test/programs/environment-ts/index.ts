// One Environment with the native SDK (pulumi-broker-config/native), deploying the document in the
// file the stack config `documentFile` names, through an explicit provider: the component's
// children must be managed by it, not by the default provider (which has no settings here).
import * as fs from "fs";
import * as pulumi from "@pulumi/pulumi";
import * as broker from "pulumi-broker-config/native";

const config = new pulumi.Config();
const documentFile = config.require("documentFile");
const target = new broker.Provider("target", {
  baseUrl: config.require("targetUrl"),
  apiKey: config.requireSecret("targetKey"),
});
const environment = new broker.Environment(
  "environment",
  { document: fs.readFileSync(documentFile, "utf8"), documentName: documentFile },
  { providers: [target] },
);

export const workspaces = environment.workspaces;
export const accessKeys = environment.accessKeys;
export const accessKeyValues = environment.accessKeyValues;
export const privateKeys = environment.privateKeys;
