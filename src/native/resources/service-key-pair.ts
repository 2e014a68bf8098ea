/** `broker:index:ServiceKeyPair` in the native provider, over the core's ServiceKeyPair operations. */
import { serviceKeyPairOperations } from "../../core/service-key-pair";
import { SERVICE_KEY_PAIR } from "../../core/declarations";
import type { ResourceAdapter } from "../resource-adapter";
import { coreAdapter } from "./core-adapter";

/** Outputs a rotation replaces. */
const ROTATED = ["publicKey", "privateKey", "rotatedAt"] as const;

/**
 * The ServiceKeyPair adapter: a change of `rotationTriggers` (as the core's diff reports it)
 * rotates the pair in place, so its keys are not known until the update runs. A pair cannot be
 * imported: the API never returns a private key again.
 */
export const serviceKeyPair: ResourceAdapter = coreAdapter(SERVICE_KEY_PAIR.token, serviceKeyPairOperations, {
  recomputedByUpdate: (diff) => (diff.changed.includes("rotationTriggers") ? ROTATED : []),
});
