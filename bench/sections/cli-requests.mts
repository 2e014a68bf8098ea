/**
 * previewRequests, and the requests of whole CLI commands: `pulumi preview` of a new stack through the
 * real CLI (with credentials configured: a pull-request check must still send nothing), then `up`,
 * a preview of the existing stack, an `up` with nothing to change, and `refresh`, each counted at
 * the emulator.
 */
import * as path from "node:path";
import type * as EmulatorModule from "../../src/emulator/index.ts";
import { startEmulatorProcess } from "../../harness/emulator-process.mts";
import { PulumiProject } from "../../harness/pulumi-project.mts";
import type { BenchContext } from "../lib/context.mts";
import { dist, PROGRAMS_DIR } from "../lib/repo.mts";

/** Requests the emulator saw per CLI command, for a program with one of everything (5 resources). */
export interface CliRequestsResult {
  previewRequests: number;
  cliRequests: {
    previewNew: number;
    up: number;
    previewExisting: number;
    upNoChanges: number;
    refresh: number;
  };
}

/** Runs preview, up, preview, refresh of programs/mixed on a new stack. */
export async function measureCliRequests(ctx: BenchContext): Promise<CliRequestsResult> {
  const { EmulatorControls } = await dist<typeof EmulatorModule>("emulator/index.js");
  const emulator = await startEmulatorProcess();
  ctx.secrets.add(emulator.adminKey);
  const controls = new EmulatorControls(emulator.controlUrl);
  const project = await PulumiProject.create({
    parent: ctx.workDir,
    name: "bench-mixed",
    programDir: path.join(PROGRAMS_DIR, "mixed"),
    fixture: ctx.fixture,
    pulumiBin: ctx.pulumiBin,
  });
  const counted = async (args: string[]): Promise<number> => {
    await controls.clearRequests();
    await project.run(args);
    return (await controls.requests()).length;
  };
  try {
    await project.initStack("dev", {
      "broker:baseUrl": { value: emulator.url },
      "broker:apiKey": { value: emulator.adminKey, secret: true },
    });
    const previewNew = await counted(["preview"]);
    const up = await counted(["up", "--yes", "--skip-preview"]);
    const previewExisting = await counted(["preview"]);
    const upNoChanges = await counted(["up", "--yes", "--skip-preview"]);
    const refresh = await counted(["refresh", "--yes", "--skip-preview"]);
    for (const key of await listKeyValues(emulator.url, emulator.adminKey)) ctx.secrets.add(key);
    return {
      previewRequests: previewNew,
      cliRequests: { previewNew, up, previewExisting, upNoChanges, refresh },
    };
  } finally {
    ctx.produced.push({ source: "cli-requests: CLI output and backend files", text: project.producedText() });
    project.remove();
    await emulator.stop();
  }
}

/** Every access key value on the emulator (for the secret scan). */
export async function listKeyValues(url: string, adminKey: string): Promise<string[]> {
  const values: string[] = [];
  for (let page = 0; ; page++) {
    const response = await fetch(
      `${url}/access-key?pageIndex=${page}&limit=100&order=ASC&orderBy=createdAt`,
      {
        headers: { "x-api-key": adminKey },
      },
    );
    const body = (await response.json()) as { results: { key: string }[] };
    values.push(...body.results.map((r) => r.key));
    if (body.results.length < 100) return values;
  }
}
