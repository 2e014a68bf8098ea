#!/usr/bin/env node
/**
 * `pulumi-resource-broker`: the `broker` provider plugin the Pulumi engine starts.
 *
 * The engine runs it as `pulumi-resource-broker [--logtostderr] [-v=N] [--tracing URL] <engine address>`,
 * reads the port from the first line of stdout, and talks gRPC to it until it kills the process.
 * Stdout therefore carries the port and nothing else; everything else goes to the engine's log.
 * When the engine dies without stopping it (a `kill -9` of the CLI), the plugin exits on its own.
 *
 * It also answers one command of its own, for users who have the plugin but no Node.js (Python, Go
 * and YAML projects): `pulumi-resource-broker review …`, which `pulumi plugin run --kind resource
 * broker -- review preview.json` reaches, is `broker-config review …` (the access review), and
 * starts no server.
 */
import { ENGINE_GONE_EXIT_GRACE_MS, watchEngine } from "../engine/engine-watch";
import { startProviderServer, type RunningServer } from "./server";
import { BROKER_RESOURCES } from "./resources";

/** The plugin's command line, once the engine's logging flags are set aside. */
export interface PluginArgs {
  /** The engine's `host:port`, for its `Log` RPC; absent when started by hand. */
  readonly engineAddress: string | undefined;
  /**
   * The arguments after `review` when the plugin is asked for the access review instead of serving
   * (`pulumi plugin run --kind resource broker -- review preview.json`); absent otherwise.
   */
  readonly review?: readonly string[];
}

/**
 * Reads the engine's command line: drops `--logtostderr`, `-v=N` and `--tracing <url>` (flags the
 * engine passes to every plugin), and takes the first remaining argument as the engine address.
 */
export function parseArgs(argv: readonly string[]): PluginArgs {
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    if (arg === "--logtostderr" || /^--?v=\d+$/.test(arg) || arg.startsWith("--tracing=")) continue;
    if (arg === "--tracing") {
      i++; // Its value follows.
      continue;
    }
    rest.push(arg);
  }
  // An engine address is `host:port`, never a bare word: `review` can only be the command.
  if (rest[0] === "review") return { engineAddress: undefined, review: rest.slice(1) };
  return { engineAddress: rest[0] };
}

/**
 * Runs `review` with the process's streams and environment and resolves with its exit code (0, 2 or
 * 3; see `broker-config review --help`).
 */
export function runReviewCommand(argv: readonly string[]): Promise<number> {
  // Loaded only here: the review's modules (the document schema, its validator) are a third of what
  // the plugin would load at start, and the engine waits for a plugin's start before its first call.
  const { runReview } = require("../review/command") as typeof import("../review/command");
  return runReview(argv, {
    stdin: process.stdin,
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
  });
}

/** Starts the server, prints its port, and makes any crash fail the calls in flight and exit non-zero. */
export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<RunningServer> {
  const { engineAddress } = parseArgs(argv);
  // Filled once the server listens; a crash before that has no calls to fail.
  const started: { server?: RunningServer } = {};
  const crash = (error: unknown) => {
    started.server?.failInFlight(error);
    process.stderr.write(
      `pulumi-resource-broker crashed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    // Let the failed calls' answers reach the engine before the process ends.
    process.exitCode = 1;
    setImmediate(() => process.exit(1));
  };
  process.on("uncaughtException", crash);
  process.on("unhandledRejection", crash);
  const running = await startProviderServer({ engineAddress, resources: BROKER_RESOURCES });
  started.server = running;
  process.stdout.write(`${running.port}\n`);
  // Only a plugin the engine started watches it: one started by hand (PULUMI_DEBUG_PROVIDERS) serves
  // engine after engine through `Attach`, and outlives each of them on purpose.
  if (engineAddress !== undefined) {
    watchEngine({
      address: engineAddress,
      onGone: (reason) => {
        process.stderr.write(`pulumi-resource-broker: ${reason}; exiting\n`);
        // Nothing more is sent, then the calls nobody waits for any more are failed.
        running.cancel();
        running.failInFlight(new Error(reason));
        // A request already sent (a create) may finish and be answered by the broker meanwhile;
        // nobody is left to record it, but ending it half-way would help no one either.
        void Promise.race([
          running.close(),
          new Promise((resolve) => setTimeout(resolve, ENGINE_GONE_EXIT_GRACE_MS)),
        ]).then(() => process.exit(0));
      },
    });
  }
  return running;
}

if (require.main === module) {
  const { review } = parseArgs(process.argv.slice(2));
  if (review !== undefined) {
    void runReviewCommand(review).then((code) => {
      process.exitCode = code;
    });
  } else
    main().catch((error: unknown) => {
      process.stderr.write(
        `pulumi-resource-broker could not start: ${error instanceof Error ? error.message : String(error)}\n`,
      );
      process.exit(1);
    });
}
