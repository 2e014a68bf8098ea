/**
 * plugin: the `broker` plugin as the release's single executable (linux-amd64, no Node.js needed)
 * next to the Node-script plugin (`dist/native/main.js` run by an installed Node.js, as
 * `broker-config plugin install` sets it up): size, start time (exec to the port printed on stdout,
 * the moment the engine can talk to it), and `pulumi preview` of the README's YAML quickstart with
 * each installed in the project's Pulumi home.
 */
import { execFileSync, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { installBrokerPlugin } from "../../harness/broker-native.mts";
import { PulumiProject } from "../../harness/pulumi-project.mts";
import { PACKAGE_VERSION } from "../../harness/release.mts";
import {
  bundlePlugin,
  PLUGIN_PLATFORMS,
  pluginArchive,
  singleExecutable,
} from "../../scripts/release/plugin.mts";
import type { BenchContext } from "../lib/context.mts";
import { median, round } from "../lib/stats.mts";

/** Starts per plugin kind, alternating; the median counts. */
export const START_REPEATS = 15;
/** Previews per plugin kind, alternating; the fastest counts (a preview is under a second: more runs than elsewhere). */
export const PREVIEW_REPEATS = 5;

/** The `plugin` section of bench/results.json. */
export interface PluginFigures {
  /** The single executable's size, and its release archive's. */
  executableBytes: number;
  archiveBytes: number;
  /** The Node-script plugin: the npm package installed with its dependencies, plus the Node.js binary it needs. */
  nodeScriptPackageBytes: number;
  nodeBinaryBytes: number;
  /** Exec to port printed, median, in milliseconds. */
  startMs: { singleExecutable: number; nodeScript: number };
  /** `pulumi preview` of the YAML quickstart (new stack), fastest run, in seconds. */
  previewSeconds: { singleExecutable: number; nodeScript: number };
  /** previewSeconds.singleExecutable / previewSeconds.nodeScript. */
  previewRatio: number;
}

/** Milliseconds from spawning `command` to its first stdout line (the port); then it is killed. */
function startTime(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "ignore"], env });
    let out = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      out += chunk;
      if (/^\d+\n/u.test(out)) {
        const ms = performance.now() - started;
        child.kill();
        resolve(ms);
      }
    });
    child.on("error", reject);
    child.on("exit", (code) => {
      if (!/^\d+\n/u.test(out)) reject(new Error(`${command} exited (${code}) before printing its port`));
    });
  });
}

function bytesUnder(dir: string): number {
  return fs
    .readdirSync(dir, { recursive: true, encoding: "utf8" })
    .map((file) => fs.lstatSync(path.join(dir, file)))
    .filter((stat) => stat.isFile())
    .reduce((sum, stat) => sum + stat.size, 0);
}

async function previewOnce(
  ctx: BenchContext,
  kind: "singleExecutable" | "nodeScript",
  archive: string,
): Promise<number> {
  const project = await PulumiProject.create({
    parent: ctx.workDir,
    name: `bench-plugin-${kind}`,
    programDir: path.join(ctx.repoRoot, "test", "programs", "yaml-native"),
    fixture: ctx.fixture,
    pulumiBin: ctx.pulumiBin,
  });
  try {
    if (kind === "nodeScript") installBrokerPlugin(project);
    else await project.run(["plugin", "install", "resource", "broker", PACKAGE_VERSION, "--file", archive]);
    await project.run(["stack", "init", "bench"]);
    const preview = await project.run(["preview"]);
    return preview.seconds;
  } finally {
    ctx.produced.push({
      source: `plugin: preview with the ${kind} plugin`,
      text: project.transcript.join("\n"),
    });
    project.remove();
  }
}

/** Builds the linux-amd64 single executable (cached by input hash) and measures both plugins. */
export async function measurePlugin(ctx: BenchContext): Promise<PluginFigures> {
  execFileSync("bash", [path.join(ctx.repoRoot, "scripts", "ensure-yaml-host.sh")], {
    stdio: ["ignore", "ignore", "inherit"],
  });
  const platform = PLUGIN_PLATFORMS.find((p) => p.name === "linux-amd64");
  if (platform === undefined) throw new Error("no linux-amd64 among the release's plugin platforms");
  const bundle = path.join(ctx.workDir, "pulumi-resource-broker.cjs");
  await bundlePlugin(ctx.repoRoot, PACKAGE_VERSION, bundle);
  const executable = await singleExecutable(bundle, platform);
  const archive = pluginArchive(ctx.repoRoot, PACKAGE_VERSION, platform, executable, ctx.workDir);
  const installed = path.join(ctx.fixture, "node_modules", "pulumi-broker-config");
  const script = path.join(installed, "dist", "native", "main.js");

  // No engine address: the plugin serves until killed, as under PULUMI_DEBUG_PROVIDERS.
  const noNode = { PATH: "/nonexistent" };
  const starts = { singleExecutable: [] as number[], nodeScript: [] as number[] };
  ctx.log(`plugin: ${START_REPEATS} starts of each plugin`);
  for (let i = 0; i < START_REPEATS; i++) {
    starts.singleExecutable.push(await startTime(executable, [], noNode));
    starts.nodeScript.push(await startTime(process.execPath, [script], process.env));
  }
  const previews = { singleExecutable: [] as number[], nodeScript: [] as number[] };
  for (let r = 1; r <= PREVIEW_REPEATS; r++) {
    for (const kind of ["nodeScript", "singleExecutable"] as const) {
      ctx.log(`plugin: preview of the YAML quickstart, ${kind} plugin (run ${r} of ${PREVIEW_REPEATS})`);
      previews[kind].push(await previewOnce(ctx, kind, archive));
    }
  }
  const previewSeconds = {
    singleExecutable: round(Math.min(...previews.singleExecutable)),
    nodeScript: round(Math.min(...previews.nodeScript)),
  };
  return {
    executableBytes: fs.statSync(executable).size,
    archiveBytes: fs.statSync(archive).size,
    nodeScriptPackageBytes: bytesUnder(path.join(ctx.fixture, "node_modules")),
    nodeBinaryBytes: fs.statSync(process.execPath).size,
    startMs: {
      singleExecutable: round(median(starts.singleExecutable)),
      nodeScript: round(median(starts.nodeScript)),
    },
    previewSeconds,
    previewRatio: round(previewSeconds.singleExecutable / previewSeconds.nodeScript),
  };
}
