import * as pulumi from "@pulumi/pulumi";
import { AccessKey, ServiceKeyPair } from "pulumi-broker-config";

// Rotation is declarative: a change of `rotationTriggers` rotates on the next `pulumi up`. Here the
// triggers come from config, so rotating is
//   pulumi config set keyGeneration 2 && pulumi up
// and a scheduled CI job can do the same each quarter.
const config = new pulumi.Config();

// 1. The key itself, for consumers that can reload it at once. A change of `rotationTriggers`
//    replaces the key: the new key is created first, everything that uses it is updated, and only
//    then is the old key revoked. Without `name`, each key gets a fresh name (`billing-<7 hex>`).
const rotation = config.get("rotation") ?? "initial";
const billing = new AccessKey("billing", {
  type: "SERVICE",
  permissions: { send: ["invoices/*"], receive: ["orders/created"] },
  rotationTriggers: { rotation },
});

// 2. Two keys, current and previous, for consumers that cannot reload at once (many replicas, a
//    cache): each rotation replaces only the older slot, so the key a consumer still holds stays
//    valid for one more rotation. Slot a rotates on odd generations, slot b on even ones.
const generation = config.getNumber("keyGeneration") ?? 1;
const permissions = { send: ["payments/*"] };
const slotA = new AccessKey("payments-a", {
  type: "SERVICE",
  permissions,
  rotationTriggers: { generation: String(Math.floor((generation + 1) / 2)) },
});
const slotB = new AccessKey("payments-b", {
  type: "SERVICE",
  permissions,
  rotationTriggers: { generation: String(Math.floor(generation / 2)) },
});
const [current, previous] = generation % 2 === 1 ? [slotA, slotB] : [slotB, slotA];

// 3. The encryption pair of a SERVICE key rotates in place, with its own triggers.
const pair = new ServiceKeyPair("billing-pair", {
  accessKey: billing.accessKey,
  rotationTriggers: { rotation },
});

// Secrets: deliver them to the services through your secret store, e.g. in a follow-up step that
// reads `pulumi stack output paymentsCurrentKey --show-secrets`.
export const billingKey = billing.accessKey;
export const paymentsCurrentKey = current.accessKey;
export const paymentsPreviousKey = previous.accessKey;
export const rotatedAt = pair.rotatedAt;
export const publicKey = pair.publicKey;
export const privateKey = pair.privateKey;
