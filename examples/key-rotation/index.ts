import * as pulumi from "@pulumi/pulumi";
import { AccessKey, ServiceKeyPair } from "pulumi-broker-config";

// Rotation is declarative: any change to `rotationTriggers` replaces the pair in place on the next
// `pulumi up`. Here the trigger is a config value, so rotating is
//   pulumi config set rotation 2026-Q4 && pulumi up
// and a scheduled CI job can do the same each quarter.
const config = new pulumi.Config();
const rotation = config.get("rotation") ?? "initial";

const billing = new AccessKey("billing", {
  name: "billing",
  type: "SERVICE",
  permissions: { send: ["invoices/*"], receive: ["orders/created"] },
});

const pair = new ServiceKeyPair("billing-pair", {
  accessKey: billing.accessKey,
  rotationTriggers: { rotation },
});

export const rotatedAt = pair.rotatedAt;
export const publicKey = pair.publicKey;
// A secret: deliver it to the service through your secret store, e.g. in a follow-up step that
// reads `pulumi stack output privateKey --show-secrets`.
export const privateKey = pair.privateKey;
