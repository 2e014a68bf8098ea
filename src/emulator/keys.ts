/** Key material: access key values and SERVICE key pairs, from node:crypto only. */
import { generateKeyPairSync, randomBytes } from "node:crypto";
import type { AccessKeyType, KeyPair } from "./types";

/**
 * Prefixes of generated key values. They are our choice: a recognisable prefix lets secret scanning
 * (and our tests) find a leaked key in logs, messages or Pulumi state.
 */
export const KEY_PREFIXES: Readonly<Record<AccessKeyType, string>> = { ACCOUNT: "bka_", SERVICE: "bks_" };

/** A new key value: the type's prefix and 256 random bits as base64url. */
export function generateKeyValue(type: AccessKeyType): string {
  return KEY_PREFIXES[type] + randomBytes(32).toString("base64url");
}

/** A new X25519 key pair as base64 DER (public: SPKI, private: PKCS#8), so any crypto library can load it. */
export function generateKeyPair(): KeyPair {
  const { publicKey, privateKey } = generateKeyPairSync("x25519");
  return {
    publicKey: publicKey.export({ type: "spki", format: "der" }).toString("base64"),
    privateKey: privateKey.export({ type: "pkcs8", format: "der" }).toString("base64"),
  };
}
