import * as pulumi from "@pulumi/pulumi";
import { AccessKey, ServiceKeyPair, Workspace } from "pulumi-broker-config";

// A small workspace tree: /platform/orders. The API cannot delete workspaces, so after a destroy they
// are still there; `adopt: true` lets the next deployment take them over instead of failing.
const platform = new Workspace("platform", { name: "platform", adopt: true });
const orders = new Workspace("orders", { name: "orders", parentId: platform.workspaceId, adopt: true });

// The orders service publishes order events and listens to payments.
const ordersService = new AccessKey("orders-service", {
  name: "orders-service",
  type: "SERVICE",
  permissions: {
    send: ["orders/created", "orders/cancelled"],
    receive: ["payments/*"],
  },
});

// A key pair for end-to-end encryption of the service's events; bump `generation` to rotate it.
const ordersKeyPair = new ServiceKeyPair("orders-service-pair", {
  accessKey: ordersService.accessKey,
  rotationTriggers: { generation: "1" },
});

// An ACCOUNT key for a CI job that manages configuration, revoked when the stack is destroyed.
const automation = new AccessKey("ci-automation", {
  name: "ci-automation",
  type: "ACCOUNT",
  permissions: { receive: ["audit/*"] },
});

export const ordersPath = orders.path;
export const ordersServiceKeyId = ordersService.accessKeyId;
// Secrets: shown as [secret]; read them with `pulumi stack output --show-secrets`.
export const ordersServiceKey = ordersService.accessKey;
export const ordersPublicKey = ordersKeyPair.publicKey;
export const ordersPrivateKey = ordersKeyPair.privateKey;
export const automationKey: pulumi.Output<string> = automation.accessKey;
