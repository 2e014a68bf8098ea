import { generateKeyPairSync, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { SecretScan } from "../../harness/secret-scan.mts";

// The scan the other reliability tests end with must be able to fail: planted credentials are found,
// and the findings name where they are without repeating them.

describe("the secret scan", () => {
  const keyValue = `bks_${randomBytes(32).toString("base64url")}`;
  const privateKey = generateKeyPairSync("x25519")
    .privateKey.export({ type: "pkcs8", format: "der" })
    .toString("base64");

  it("finds key values and private keys by their shape, and known secrets by value", () => {
    const scan = new SecretScan();
    scan.secrets("a-known-admin-credential");
    scan.text("state", `{"accessKey":"${keyValue}"}`);
    scan.text("stderr", `privateKey=${privateKey}\n`);
    scan.text("log", "Authorization failed for a-known-admin-credential");
    scan.text("clean", "nothing to see: bks_short, MCowBQYDK2VuAyEA (a public key prefix)");
    expect(scan.leaks()).toEqual([
      { source: "state", kind: "access key value" },
      { source: "stderr", kind: "private key" },
      { source: "log", kind: "a credential seen by the test" },
    ]);
  });

  it("reports findings without the secret itself", () => {
    const scan = new SecretScan();
    scan.text("state", keyValue);
    expect(JSON.stringify(scan.leaks())).not.toContain(keyValue);
  });
});
