import { generateKeyPairSync, randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { CLI_TEST_SOURCES, SecretScan } from "../../harness/secret-scan.mts";

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
    scan.text("state", `{"accessKey":"${keyValue}"}`, "state file");
    scan.text("stderr", `privateKey=${privateKey}\n`, "stderr");
    scan.text("log", "Authorization failed for a-known-admin-credential", "cli output");
    scan.text("clean", "nothing to see: bks_short, MCowBQYDK2VuAyEA (a public key prefix)", "error");
    expect(scan.leaks()).toEqual([
      { source: "state", kind: "access key value" },
      { source: "stderr", kind: "private key" },
      { source: "log", kind: "a credential seen by the test" },
    ]);
  });

  it("reports findings without the secret itself", () => {
    const scan = new SecretScan();
    scan.text("state", keyValue, "state file");
    expect(JSON.stringify(scan.leaks())).not.toContain(keyValue);
  });

  it("names the kinds of source it read nothing from, so CLI output alone never passes for a state scan", () => {
    const scan = new SecretScan();
    scan.text("up", "Resources: 3 created", "cli output");
    scan.text("empty stderr", "", "stderr");
    expect(scan.unread([...CLI_TEST_SOURCES, "stderr"])).toEqual([
      "state file",
      "state backup",
      "history",
      "pulumi home",
      "stderr",
    ]);
  });

  it("tells a project's state file, backups, history and Pulumi home apart", () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "pbc-scan-"));
    try {
      const files: Record<string, string> = {
        "backend/.pulumi/meta.yaml": "version: 1",
        "backend/.pulumi/stacks/p/dev.json": "{}",
        "backend/.pulumi/stacks/p/dev.json.bak": "{}",
        "backend/.pulumi/backups/p/dev/dev.1.json": "{}",
        "backend/.pulumi/history/p/dev/dev-1.history.json": "{}",
        "pulumi-home/workspaces/p-workspace.json": "{}",
        "project/Pulumi.dev.yaml": "config: {}",
      };
      for (const [file, text] of Object.entries(files)) {
        fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
        fs.writeFileSync(path.join(root, file), text);
      }
      const scanned = (): SecretScan => {
        const scan = new SecretScan();
        scan.project("p", {
          dir: path.join(root, "project"),
          backendDir: path.join(root, "backend"),
          homeDir: path.join(root, "pulumi-home"),
        });
        scan.text("up", "done", "cli output");
        return scan;
      };
      expect(scanned().unread([...CLI_TEST_SOURCES, "project", "backend metadata"])).toEqual([]);
      fs.rmSync(path.join(root, "backend/.pulumi/stacks/p/dev.json"));
      expect(scanned().unread(CLI_TEST_SOURCES)).toEqual(["state file"]);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
