// The access review's cost, in a real node process on the built package (dist/): from the text
// `pulumi preview --json` prints to the Markdown comment. Usage: node review.cjs <package dir> <keys>
// Prints one JSON line: { keys, bytes, parseAndAnalyzeMs, renderMs, totalMs, cpuMs, peakMiB, markdownChars }.
// One size per process, so the peak memory is this size's alone.
"use strict";
const { Buffer } = require("node:buffer");
const fs = require("node:fs");
const path = require("node:path");
const { performance } = require("node:perf_hooks");

const [packageDir, keysArg] = process.argv.slice(2);
const keys = Number(keysArg);
const { reviewPreview } = require(path.join(packageDir, "dist", "review", "review.js"));
const { renderReviewMarkdown } = require(path.join(packageDir, "dist", "review", "markdown.js"));

const STACK = "urn:pulumi:bench::review::pulumi:pulumi:Stack::review-bench";
const keyUrn = (i) => `urn:pulumi:bench::review::broker:index:AccessKey::key-${i}`;
const state = (i, send, receive) => ({
  urn: keyUrn(i),
  custom: true,
  type: "broker:index:AccessKey",
  inputs: { name: `key-${i}`, type: "SERVICE", permissions: { send, receive }, accessKey: "[secret]" },
  outputs: { accessKeyId: i, accessKey: "[secret]", permissions: { send, receive, resources: {} } },
});

// A changed key of every kind in turn: widened, narrowed, created, revoked, re-spelled; each with a
// few paths in its own area and one shared area, so the inverted view has both many and shared paths.
const steps = [{ op: "same", urn: STACK, detailedDiff: null }];
for (let i = 0; i < keys; i++) {
  const area = `team-${i % 500}`;
  const exact = [`${area}/created`, `${area}/updated`, "shared/heartbeat"];
  switch (i % 5) {
    case 0:
      steps.push({
        op: "update",
        urn: keyUrn(i),
        oldState: state(i, exact, []),
        newState: state(i, [`${area}/*`, "shared/heartbeat"], []),
        diffReasons: ["permissions"],
        detailedDiff: null,
      });
      break;
    case 1:
      steps.push({
        op: "update",
        urn: keyUrn(i),
        oldState: state(i, [], [`${area}/*`]),
        newState: state(i, [], [`${area}/created`]),
        diffReasons: ["permissions"],
        detailedDiff: null,
      });
      break;
    case 2:
      steps.push({
        op: "create",
        urn: keyUrn(i),
        newState: state(i, exact, [`${area}/*`]),
        detailedDiff: null,
      });
      break;
    case 3:
      steps.push({ op: "delete", urn: keyUrn(i), oldState: state(i, exact, []), detailedDiff: null });
      break;
    default:
      steps.push({
        op: "update",
        urn: keyUrn(i),
        oldState: state(i, [`${area}/*`], []),
        newState: state(i, [`${area}/*`, `${area}/created`], []),
        diffReasons: ["permissions"],
        detailedDiff: null,
      });
  }
}
const text = JSON.stringify({ steps, duration: 1, changeSummary: { update: keys } }, null, 4);

const cpuStarted = process.cpuUsage();
const started = performance.now();
const review = reviewPreview(text);
const analyzed = performance.now();
const markdown = renderReviewMarkdown(review);
const done = performance.now();
const cpu = process.cpuUsage(cpuStarted);
const hwm = /^VmHWM:\s+(\d+) kB/mu.exec(fs.readFileSync("/proc/self/status", "utf8"));
process.stdout.write(
  `${JSON.stringify({
    keys,
    bytes: Buffer.byteLength(text),
    parseAndAnalyzeMs: Math.round(analyzed - started),
    renderMs: Math.round(done - analyzed),
    totalMs: Math.round(done - started),
    // CPU time (user + system) of the same span: what a loaded machine's wall time hides.
    cpuMs: Math.round((cpu.user + cpu.system) / 1000),
    peakMiB: hwm ? Math.round(Number(hwm[1]) / 1024) : null,
    markdownChars: markdown.length,
    reviewedKeys: review.planned.keys.length,
  })}\n`,
);
