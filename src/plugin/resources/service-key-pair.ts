/** `broker:index:ServiceKeyPair` in the native provider, over `impl/service-key-pair`. */
import type { ResourceAdapter } from "../resource-adapter";
import * as impl from "../../impl/service-key-pair";
import { dynamicAdapter } from "./dynamic-core";

/** Outputs a rotation replaces. */
const ROTATED = ["publicKey", "privateKey", "rotatedAt"] as const;

function sameTriggers(a: unknown, b: unknown): boolean {
  return JSON.stringify(sorted(a)) === JSON.stringify(sorted(b));
}

function sorted(value: unknown): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value ?? {};
  return Object.fromEntries(Object.entries(value).sort(([a], [b]) => a.localeCompare(b)));
}

/** The ServiceKeyPair adapter: a change of `rotationTriggers` rotates the pair in place. */
export const serviceKeyPair: ResourceAdapter = dynamicAdapter({
  token: "broker:index:ServiceKeyPair",
  impl,
  recomputedByUpdate: (olds, news) =>
    sameTriggers(olds["rotationTriggers"], news["rotationTriggers"]) ? [] : ROTATED,
});
