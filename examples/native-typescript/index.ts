// The native door in TypeScript: the resources of the `broker` plugin (`npx broker-config plugin
// install`), through the SDK at `pulumi-broker-config/native`. The same program in Python, Go and
// YAML is in examples/native-python, native-go and native-yaml.
import * as broker from "pulumi-broker-config/native";

const platform = new broker.Workspace("platform", { name: "platform" });
const orders = new broker.Workspace("orders", { name: "orders", parentId: platform.workspaceId });

const ordersService = new broker.AccessKey("orders-service", {
  name: "orders-service",
  type: broker.AccessKeyType.Service,
  permissions: { send: ["orders/created"], receive: ["payments/*"] },
});
// Change the trigger's value to give the key a new pair.
const ordersPair = new broker.ServiceKeyPair("orders-pair", {
  accessKey: ordersService.accessKey,
  rotationTriggers: { generation: "1" },
});

export const ordersPath = orders.path;
export const ordersServiceId = ordersService.accessKeyId;
export const ordersKey = ordersService.accessKey; // a secret
export const ordersPublicKey = ordersPair.publicKey;
export const ordersPrivateKey = ordersPair.privateKey; // a secret
