import * as pulumi from "@pulumi/pulumi";
import { AccessKey, Workspace } from "pulumi-broker-config";

interface ServicePermissions {
  send?: string[];
  receive?: string[];
}

// Everything that differs between environments lives in Pulumi.<stack>.yaml: the endpoint, the
// environment's name and each service's permissions. The program itself is the same everywhere.
const config = new pulumi.Config();
const environment = config.require("environment");
const services = config.requireObject<Record<string, ServicePermissions>>("services");

const root = new Workspace("environment", { name: environment });

const keys: Record<string, pulumi.Output<number>> = {};
for (const [service, permissions] of Object.entries(services)) {
  new Workspace(`${service}-workspace`, { name: service, parentId: root.workspaceId });
  const key = new AccessKey(`${service}-key`, {
    name: `${environment}-${service}`,
    type: "SERVICE",
    permissions,
  });
  keys[service] = key.accessKeyId;
}

export const environmentPath = root.path;
export const keyIds = keys;
