/**
 * `npm run bench`: measures what issues #6, #11, #38, #47 and #50 ask for, prints a table and writes bench/results.json.
 * BENCHMARKS.md explains every figure. Needs a build (`npm run bench` builds first) and the Pulumi CLI
 * (scripts/ensure-pulumi-cli.sh builds it offline on a machine's first run).
 *
 *   node bench/run.mts                      every section; writes bench/results.json
 *   node bench/run.mts --only client,host   some sections; writes bench/.work/results-partial.json
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { createPackageFixture } from "../harness/package-fixture.mts";
import { pulumiBinDir, REPO_ROOT } from "../harness/repo.mts";
import { findLeaks } from "../harness/secret-scan.mts";
import { evaluateGoals } from "./goals.mts";
import type { BenchContext } from "./lib/context.mts";
import { formatReport } from "./lib/report.mts";
import { WORK_DIR } from "./lib/repo.mts";
import { measureClient } from "./sections/client.mts";
import { measureCoalescedReads } from "./sections/coalesced-reads.mts";
import { measureCliRequests } from "./sections/cli-requests.mts";
import { measureHost } from "./sections/host.mts";
import { measureImportCost } from "./sections/import-cost.mts";
import { measureNative } from "./sections/native.mts";
import { measurePlugin } from "./sections/plugin.mts";
import { measureProviderBytes } from "./sections/provider-bytes.mts";
import { LIMIT_SECTIONS } from "./sections/rate-limit.mts";
import { measureRequestsPerOp } from "./sections/requests-per-op.mts";
import { measureReview } from "./sections/review.mts";
import { measurePreviewRefresh, measureSharedQuota, measureStaleReads } from "./sections/shared-quota.mts";
import { measureUp } from "./sections/up.mts";

const LIMITS = ["rateLimited", "rateLimitedParallel", "rateLimitedFaults", "latency"] as const;
const SECTIONS = [
  "providerBytes",
  "requestsPerOp",
  "cliRequests",
  "client",
  "host",
  "up",
  "native",
  "plugin",
  ...LIMITS,
  "coalescedReads",
  "staleReads",
  "previewRefresh",
  "sharedQuota",
  "review",
  "importCost",
] as const;
type Section = (typeof SECTIONS)[number];

const { values } = parseArgs({
  options: {
    only: { type: "string" },
    keep: { type: "boolean", default: false },
    // For trying the bench out quickly; a run with other sizes never writes bench/results.json.
    "up-sizes": { type: "string" },
  },
});
const upSizes = values["up-sizes"]?.split(",").map(Number);
const only = values.only?.split(",").map((s) => s.trim()) ?? [...SECTIONS];
for (const name of only) {
  if (!(SECTIONS as readonly string[]).includes(name))
    throw new Error(`unknown section ${name}; one of ${SECTIONS.join(", ")}`);
}
const wanted = (section: Section): boolean => only.includes(section);

const started = performance.now();
const log = (message: string): void => {
  process.stderr.write(
    `bench [${((performance.now() - started) / 1000).toFixed(0).padStart(4)}s] ${message}\n`,
  );
};
// Scratch projects live outside the repository: copies of programs under it would be linted, and a
// project there would find the repository's node_modules instead of the fixture's.
const workDir = fs.mkdtempSync(path.join(os.tmpdir(), "pbc-bench-"));
log(`packing and installing the package into a fixture under ${workDir}`);
const ctx: BenchContext = {
  repoRoot: REPO_ROOT,
  workDir,
  fixture: createPackageFixture(workDir),
  pulumiBin: pulumiBinDir(),
  log,
  secrets: new Set(),
  produced: [],
};

const results: Record<string, unknown> = { generatedAt: new Date().toISOString(), machine: machine() };
try {
  // Every section needs the serialized providers (the host-driven ones pass them to the host).
  log("providerBytes: serializing providers in a real node process");
  const bytes = measureProviderBytes(ctx);
  if (wanted("providerBytes")) {
    results["providerBytes"] = bytes.bytes;
    results["naiveProvider"] = bytes.naive;
  }
  if (wanted("requestsPerOp")) {
    log("requestsPerOp: every lifecycle operation through the provider host");
    Object.assign(results, await measureRequestsPerOp(ctx, bytes.texts));
  }
  if (wanted("cliRequests")) {
    log("cliRequests: preview, up, preview, refresh of a new stack through the CLI");
    Object.assign(results, await measureCliRequests(ctx));
  }
  if (wanted("client")) {
    log("client: GET throughput, ours against raw undici");
    results["client"] = await measureClient(ctx);
  }
  if (wanted("host")) {
    log("host: creates through the provider host against raw creates");
    results["host"] = await measureHost(ctx, {
      accessKey: bytes.texts.AccessKey,
      noop: bytes.noopText,
    });
  }
  if (wanted("up")) {
    results["up"] = await measureUp(ctx, upSizes);
  }
  if (wanted("native")) {
    results["native"] = await measureNative(ctx);
  }
  if (wanted("plugin")) {
    results["plugin"] = await measurePlugin(ctx);
  }
  for (const name of LIMITS.filter(wanted)) {
    results[name] = await LIMIT_SECTIONS[name](ctx);
  }
  if (wanted("coalescedReads")) {
    results["coalescedReads"] = await measureCoalescedReads(ctx);
  }
  if (wanted("staleReads")) {
    results["staleReads"] = await measureStaleReads(ctx);
  }
  if (wanted("previewRefresh")) {
    results["previewRefresh"] = await measurePreviewRefresh(ctx);
  }
  if (wanted("sharedQuota")) {
    results["sharedQuota"] = await measureSharedQuota(ctx);
  }
  if (wanted("review")) {
    results["review"] = measureReview(ctx);
  }
  if (wanted("importCost")) {
    log("importCost: CPU time of requiring the package in a fresh process, as every program run does");
    results["importCost"] = measureImportCost(ctx);
  }
} catch (error) {
  // Failures of the CLI carry its output: it goes through the secret scan like everything else.
  const failure = error as { message?: string; stdout?: string; stderr?: string };
  ctx.produced.push({
    source: "bench failure",
    text: [failure.message, failure.stdout, failure.stderr].join("\n"),
  });
  results["error"] = (failure.message ?? String(error)).slice(0, 2000);
}

const goals = evaluateGoals(results);
results["goals"] = goals;
results["durationSeconds"] = Math.round((performance.now() - started) / 1000);
const report = formatReport(results, goals);
const resultsText = `${JSON.stringify(results, null, 2)}\n`;
const leaks = findLeaks(
  [...ctx.produced, { source: "report", text: report }, { source: "results.json", text: resultsText }],
  ctx.secrets,
);
results["secretScan"] = { sources: ctx.produced.length + 2, credentialsKnown: ctx.secrets.size, leaks };

// Only a complete, successful run replaces the committed figures.
const complete = only.length === SECTIONS.length && upSizes === undefined && results["error"] === undefined;
fs.mkdirSync(WORK_DIR, { recursive: true });
const resultsFile = complete
  ? path.join(REPO_ROOT, "bench", "results.json")
  : path.join(WORK_DIR, "results-partial.json");
fs.writeFileSync(resultsFile, `${JSON.stringify(results, null, 2)}\n`);
// The last run's output, kept for inspection and for the reliability suite's secret scan.
const lastRun = path.join(WORK_DIR, "last-run");
fs.rmSync(lastRun, { recursive: true, force: true });
fs.mkdirSync(lastRun, { recursive: true });
fs.writeFileSync(path.join(lastRun, "report.txt"), report);
fs.writeFileSync(
  path.join(lastRun, "produced.txt"),
  ctx.produced.map((p) => `=== ${p.source}\n${p.text}`).join("\n"),
);
if (!values.keep) fs.rmSync(workDir, { recursive: true, force: true });

process.stdout.write(`\n${report}\n`);
process.stdout.write(
  `secret scan: ${leaks.length === 0 ? "no credential found" : `${leaks.length} LEAK(S): ${JSON.stringify(leaks)}`} in ${ctx.produced.length + 2} outputs\n`,
);
process.stdout.write(
  `wrote ${path.relative(REPO_ROOT, resultsFile)} in ${String(results["durationSeconds"])}s\n`,
);
if (typeof results["error"] === "string") {
  process.stderr.write(`bench failed: ${results["error"]}\n`);
  process.exitCode = 1;
} else if (leaks.length > 0) process.exitCode = 1;

function machine(): Record<string, unknown> {
  let pulumi = "unknown";
  try {
    pulumi = execFileSync(path.join(pulumiBinDir(), "pulumi"), ["version"], { encoding: "utf8" }).trim();
  } catch {
    // Reported as unknown; the sections that need the CLI fail on their own.
  }
  return {
    cores: os.cpus().length,
    cpu: os.cpus()[0]?.model ?? "unknown",
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    os: `${os.type()} ${os.release()}`,
    node: process.version,
    pulumiCli: pulumi,
    loadAverageAtStart: os.loadavg().map((l) => Math.round(l * 100) / 100),
  };
}
