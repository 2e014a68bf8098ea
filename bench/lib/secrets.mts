/**
 * The secret scan: no credential may appear in plain text in anything the bench produced. Exact
 * values the run saw are searched for, and so are credential shapes (the emulator's `bka_`/`bks_`
 * key values and X25519 private keys), which catches values the run never learned.
 */

/** Shapes of credentials, by kind. Public keys are not secrets and are not searched for. */
export const CREDENTIAL_PATTERNS: Readonly<Record<string, RegExp>> = {
  "access key value": /\bbk[as]_[A-Za-z0-9_-]{43}/u,
  // PKCS#8 DER of an X25519 private key, base64: the fixed prefix of the encoding.
  "private key": /MC4CAQAwBQYDK2VuBCIEI[A-Za-z0-9+/]{20,}/u,
};

/** One finding; it names where and what, never the value itself. */
export interface Leak {
  source: string;
  kind: string;
}

/** Finds credentials in `produced`: exact `secrets` values and credential shapes. */
export function findLeaks(
  produced: readonly { source: string; text: string }[],
  secrets: Iterable<string>,
): Leak[] {
  const leaks: Leak[] = [];
  const values = [...secrets].filter((s) => s.length >= 8);
  for (const { source, text } of produced) {
    if (values.some((value) => text.includes(value)))
      leaks.push({ source, kind: "a credential seen in this run" });
    for (const [kind, pattern] of Object.entries(CREDENTIAL_PATTERNS))
      if (pattern.test(text)) leaks.push({ source, kind });
  }
  return leaks;
}
