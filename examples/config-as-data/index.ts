import { BrokerConfig, ServiceKeyPair } from "pulumi-broker-config";

// Everything in broker.yaml: the workspace tree and the access keys with their permissions. The
// file is validated before anything is declared; a mistake fails `pulumi preview` with its line.
const broker = new BrokerConfig("broker", { file: "broker.yaml" });

// Resources declared in code can build on the ones from the file.
const ordersService = broker.accessKeyResources["orders-service"];
if (ordersService === undefined) throw new Error("broker.yaml must declare the access key orders-service");
const ordersPair = new ServiceKeyPair("orders-service-pair", { accessKey: ordersService.accessKey });

export const workspaceIds = broker.workspaces;
export const accessKeyIds = broker.accessKeys;
export const accessKeyValues = broker.accessKeyValues; // a secret
export const ordersPublicKey = ordersPair.publicKey;
