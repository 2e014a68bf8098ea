import { spawn, type ChildProcessByStdio } from "node:child_process";
import * as path from "node:path";
import type { Readable } from "node:stream";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { afterEach, describe, expect, it } from "vitest";
import { providerClient, startFakeEngine } from "../support/plugin-server";

const MAIN = path.join(__dirname, "..", "..", "dist", "native", "main.js");

let child: ChildProcessByStdio<null, Readable, Readable> | undefined;

afterEach(() => {
  child?.kill();
  child = undefined;
});

/** Everything the plugin writes to stdout up to and including its first line. */
function firstLine(stream: Readable): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    stream.setEncoding("utf8");
    stream.on("data", (chunk: string) => {
      text += chunk;
      if (text.includes("\n")) resolve(text);
    });
    stream.on("end", () => {
      reject(new Error(`stdout ended without a line: ${JSON.stringify(text)}`));
    });
  });
}

/** Starts the built plugin with `args`; `stderr()` is what it wrote there so far, `exited` its exit code. */
function startPlugin(args: string[]): { stderr: () => string; exited: Promise<number | null> } {
  const started = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
  child = started;
  let stderr = "";
  started.stderr.setEncoding("utf8");
  started.stderr.on("data", (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => {
    started.on("exit", (code) => {
      resolve(code);
    });
  });
  return { stderr: () => stderr, exited };
}

/**
 * Starts a stand-in engine and the built plugin with `flags` before the engine's address, connects
 * a provider client to the port it printed (its first line, `line`), runs `use`, and closes both.
 */
async function withServingPlugin(
  flags: string[],
  use: (serving: {
    line: string;
    client: ReturnType<typeof providerClient>;
    plugin: ReturnType<typeof startPlugin>;
  }) => Promise<void>,
): Promise<void> {
  const engine = await startFakeEngine();
  try {
    const plugin = startPlugin([MAIN, ...flags, engine.address]);
    const line = await firstLine(child!.stdout);
    const client = providerClient(Number(line.trim()));
    try {
      await use({ line, client, plugin });
    } finally {
      client.close();
    }
  } finally {
    await engine.close();
  }
}

describe("pulumi-resource-broker (built)", () => {
  it("starts with the engine's flags, prints only its port, and serves the provider there", async () => {
    await withServingPlugin(
      ["--logtostderr", "-v=9", "--tracing", "http://t.test"],
      async ({ line, client }) => {
        expect(line).toMatch(/^\d+\n$/);
        const info = await client.getPluginInfo(new Empty());
        expect(info.getVersion()).toMatch(/^\d+\.\d+\.\d+/);
      },
    );
  });

  it("still answers a call after 10 s idle under the harness's stand-in engine, as under a real engine", async () => {
    // The plugin cancels and exits once its engine stops answering; an engine address where nothing
    // listens would end it after a few seconds, and every later call of a test with it.
    await withServingPlugin([], async ({ client, plugin }) => {
      await new Promise((resolve) => setTimeout(resolve, 10_000));
      const info = await client.getPluginInfo(new Empty());
      expect(info.getVersion()).toMatch(/^\d+\.\d+\.\d+/);
      expect(plugin.stderr()).not.toContain("stopped answering");
    });
  });

  it("exits on its own once the engine that started it stops answering", async () => {
    const engine = await startFakeEngine();
    const plugin = startPlugin([MAIN, engine.address]);
    const port = Number((await firstLine(child!.stdout)).trim());
    // Alive and serving while the engine is there.
    const client = providerClient(port);
    try {
      await client.getPluginInfo(new Empty());
    } finally {
      client.close();
    }
    await engine.close();
    expect(await plugin.exited).toBe(0);
    expect(plugin.stderr()).toContain(`the engine at ${engine.address} stopped answering`);
  });

  it("exits non-zero and says why when a rejection goes unhandled", async () => {
    const preload = path.join(__dirname, "..", "fixtures", "plugin-crash-preload.cjs");
    // A live engine: without one, the engine watch could end the plugin (exit 0) before the defect.
    const engine = await startFakeEngine();
    try {
      const plugin = startPlugin(["--require", preload, MAIN, engine.address]);
      expect(await firstLine(child!.stdout)).toMatch(/^\d+\n$/);
      expect(await plugin.exited).toBe(1);
      expect(plugin.stderr()).toContain("pulumi-resource-broker crashed: Error: simulated defect");
    } finally {
      await engine.close();
    }
  });
});
