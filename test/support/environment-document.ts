/**
 * What the end-to-end tests of the `broker:index:Environment` component (issue #36) check of a
 * deployed copy of an exported document, shared by its YAML file (test/e2e/environment.test.ts) and
 * its TypeScript, Python and Go file (test/e2e/environment-languages.test.ts).
 */
import { createPrivateKey } from "node:crypto";
import { expect } from "vitest";
import { allKeys } from "../../harness/broker-native.mts";
import type { SecretScan } from "../../harness/secret-scan.mts";
import type { EmulatorHandle } from "../../src/emulator";

/**
 * The resources of a stack deploying createExportSource's document: the stack, the component, 6
 * workspaces and 4 SERVICE keys. The export leaves out its ACCOUNT key and the admin key it
 * authenticates with (issue #49).
 */
export const ENVIRONMENT_RESOURCES = 1 + 1 + 6 + 4;

/** The keys a copy holds of an export: every key but the ACCOUNT keys (the target's admin key). */
export function copiedKeys(keys: Record<string, unknown>[]): Record<string, unknown>[] {
  return keys.filter((k) => k["type"] === "SERVICE");
}

/** Every key value `env` holds: the secrets no output of the runs may show. */
export async function keyValues(env: EmulatorHandle): Promise<string[]> {
  return (await allKeys(env)).map((k) => String(k["key"]));
}

/**
 * Checks a stack's `privateKeys` output: a secret holding, for exactly the SERVICE keys among `keys`
 * (as the API lists them), a private key (PKCS #8, base64) that Node's crypto reads; each is added
 * to `scan`'s secrets, which no output of the runs may show.
 */
export function expectPrivateKeys(
  scan: SecretScan,
  output: { value: unknown; secret: boolean } | undefined,
  keys: Record<string, unknown>[],
): void {
  expect(output?.secret).toBe(true);
  const privateKeys = output?.value as Record<string, string>;
  const service = keys.filter((k) => k["type"] === "SERVICE").map((k) => String(k["name"]));
  expect(service.length).toBeGreaterThan(0);
  expect(Object.keys(privateKeys).sort()).toEqual(service.sort());
  for (const value of Object.values(privateKeys)) {
    scan.secrets(value);
    expect(createPrivateKey({ key: Buffer.from(value, "base64"), format: "der", type: "pkcs8" }).type).toBe(
      "private",
    );
  }
}
