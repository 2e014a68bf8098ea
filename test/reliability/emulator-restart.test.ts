import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import type { Stack } from "@pulumi/pulumi/automation";
import { afterAll, describe, expect, it } from "vitest";
import { EmulatorControls } from "../../src/emulator";
import type { PulumiProject } from "../../harness/pulumi-project.mts";
import { NO_BROKER_ENV, PROGRAMS_DIR, testProject } from "../support/projects";
import { listKeys, listWorkspaces } from "./support/broker-api";
import { type StackView, expectDeclaredState, viewOf } from "./support/declared-state";
import { freePort, startEmulatorProcess, type EmulatorProcess } from "../../harness/emulator-process.mts";
import { waitFor } from "./support/processes";
import { CLI_TEST_SOURCES, errorText, SecretScan } from "../../harness/secret-scan.mts";
import { brokerConfig, resourceCount, specConfig, type Spec } from "./support/spec";

// The broker restarts in the middle of a stack's life: the emulator runs as its own process with a
// SQLite database (`--db`), is stopped with SIGTERM and started again on the same port and database,
// once between two commands and once in the middle of an `up`.

const spec: Spec = {
  workspaces: [{ name: "platform" }, { name: "orders", parent: "platform" }],
  keys: [
    {
      name: "orders-svc",
      type: "SERVICE",
      permissions: { send: ["orders/created"], receive: ["payments/*"] },
    },
    { name: "ops-admin", type: "ACCOUNT", permissions: { send: [], receive: ["audit/*"] } },
  ],
  pairs: [{ key: "orders-svc", rotationTriggers: { v: "1" } }],
};

const grown: Spec = structuredClone(spec);
grown.keys[1]!.permissions.send.push("audit/replay");
for (const i of [1, 2, 3, 4]) {
  grown.keys.push({
    name: `worker-${i}`,
    type: "SERVICE",
    permissions: { send: [`jobs/${i}`], receive: [] },
  });
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pbc-restart-"));
const dbFile = path.join(dir, "broker.db");
let port: number;
let emulator: EmulatorProcess;
let project: PulumiProject;
let stack: Stack;
const scan = new SecretScan();
const cleanups: (() => unknown)[] = [
  () => {
    fs.rmSync(dir, { recursive: true, force: true });
  },
];

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** Everything the broker holds, to compare before and after a restart. */
async function snapshot(): Promise<unknown> {
  const keys = await listKeys(emulator);
  const workspaces = await listWorkspaces(emulator);
  return {
    keys: keys.map((k) => ({ ...k, permissions: k.permissions })),
    workspaces: workspaces.map(({ id, name, parentId, path: p }) => ({ id, name, parentId, path: p })),
  };
}

async function restart(): Promise<void> {
  const before = emulator.adminKey;
  expect(await emulator.stop(), "the emulator exits cleanly on SIGTERM").toBe(0);
  scan.text("emulator stderr", emulator.stderr.join(""), "stderr");
  emulator = await startEmulatorProcess({ dbFile, port });
  expect(emulator.adminKey, "the admin key is stored in the database").toBe(before);
}

/**
 * Asserts the broker holds `expected`, tracked by the stack as `view` says: the outputs of the last
 * `up` (a refresh leaves a stack's outputs as they are; reading them again costs two CLI starts).
 */
async function expectSpec(expected: Spec, view: StackView): Promise<void> {
  scan.secrets(...Object.values(view.keyValues), ...Object.values(view.privateKeys));
  const controls = new EmulatorControls(emulator.controlUrl);
  await expectDeclaredState(emulator, expected, view, (id) => controls.publicKeyOf(id));
}

/**
 * Plays a broker that is down on `port`: drops every connection without an answer, until one has
 * arrived, then frees the port.
 */
async function brokerDownUntilContacted(port: number): Promise<void> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer();
  const contacted = new Promise<void>((resolve) => {
    server.on("connection", (socket) => {
      sockets.add(socket);
      socket.on("error", () => undefined);
      socket.destroy();
      resolve();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  await contacted;
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => server.close(resolve));
}

describe("the broker restarted with its database", () => {
  it("between commands: nothing is lost, and refresh and preview show no changes", async () => {
    port = await freePort();
    emulator = await startEmulatorProcess({ dbFile, port });
    // Stops the current process, whichever restart it is.
    cleanups.push(() => emulator.stop());
    scan.secrets(emulator.adminKey);
    project = await testProject("restart", path.join(PROGRAMS_DIR, "broker"), NO_BROKER_ENV);
    cleanups.push(() => {
      project.remove();
    });
    stack = await project.stack("dev", { ...specConfig(spec), ...brokerConfig(emulator) });
    const up = await stack.up();
    scan.text("up", up.stdout + up.stderr, "cli output");
    const view = viewOf(up.outputs);
    const before = await snapshot();

    await restart();
    expect(await snapshot()).toEqual(before);
    const refresh = await stack.refresh();
    scan.text("refresh", refresh.stdout + refresh.stderr, "cli output");
    expect(refresh.summary.resourceChanges).toEqual({ same: resourceCount(spec) + 1 });
    expect((await stack.preview()).changeSummary).toEqual({ same: resourceCount(spec) + 1 });
    await expectSpec(spec, view);
  }, 180_000);

  it("in the middle of an up: the up rides through the restart, without duplicates", async () => {
    await stack.setAllConfig(specConfig(grown));
    // Hold back the create responses (after committing) so the restart cuts creates in flight.
    const controls = new EmulatorControls(emulator.controlUrl);
    await controls.injectFault({
      kind: "latency",
      latencyMs: 20_000,
      phase: "after",
      routes: ["POST /access-key"],
    });
    const running = stack.up().then(
      (result) => ({ result }),
      (error: unknown) => ({ error }),
    );
    await waitFor("a create to be committed", async () =>
      (await controls.stats()).accessKeys > spec.keys.length + 1 ? true : undefined,
    );
    // The broker is down until the providers have really met it down: a stand-in on its port drops
    // every connection, and the restart waits for the first one (an event, not a time). The
    // restarted broker has no faults (they are not stored).
    await emulator.stop();
    await brokerDownUntilContacted(port);
    emulator = await startEmulatorProcess({ dbFile, port });
    const outcome = await running;
    if ("error" in outcome) scan.text("up across the restart", errorText(outcome.error), "error");
    expect(outcome, "the up succeeded across the restart").toHaveProperty("result");
    if ("result" in outcome)
      scan.text("up across the restart", outcome.result.stdout + outcome.result.stderr, "cli output");

    if ("result" in outcome) await expectSpec(grown, viewOf(outcome.result.outputs));
    const refresh = await stack.refresh();
    scan.text("refresh", refresh.stdout + refresh.stderr, "cli output");
    expect(refresh.summary.resourceChanges).toEqual({ same: resourceCount(grown) + 1 });
    expect((await stack.preview()).changeSummary).toEqual({ same: resourceCount(grown) + 1 });
  }, 180_000);

  it("leaves no credential in state, backups, CLI output, errors or the emulator's stderr", () => {
    scan.project("project", project);
    scan.text("emulator stderr", emulator.stderr.join(""), "stderr");
    expect(scan.size).toBeGreaterThan(5);
    expect(scan.unread(CLI_TEST_SOURCES), "sources the scan read nothing from").toEqual([]);
    expect(scan.leaks()).toEqual([]);
  });
});
