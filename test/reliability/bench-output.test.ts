import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../harness/repo.mts";
import { SecretScan } from "../../harness/secret-scan.mts";

// `npm run bench` scans its own output for the credentials it saw. Here its output on disk is scanned
// again for credential shapes: the committed results and, when a bench ran on this machine, the last
// run's report and everything it produced (CLI output, state files, provider host stderr).

const outputs = [
  path.join(REPO_ROOT, "bench", "results.json"),
  path.join(REPO_ROOT, "bench", ".work", "last-run"),
  path.join(REPO_ROOT, "bench", ".work", "results-partial.json"),
].filter((file) => fs.existsSync(file));

describe("bench output", () => {
  it.skipIf(outputs.length === 0)("holds no access key value or private key", () => {
    const scan = new SecretScan();
    for (const output of outputs) {
      if (fs.statSync(output).isDirectory()) scan.directory(path.relative(REPO_ROOT, output), output);
      else scan.text(path.relative(REPO_ROOT, output), fs.readFileSync(output, "utf8"), "file");
    }
    expect(scan.leaks()).toEqual([]);
  });
});
