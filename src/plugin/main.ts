#!/usr/bin/env node
/**
 * `pulumi-resource-broker`: the `broker` provider plugin the Pulumi engine starts.
 *
 * The engine runs it as `pulumi-resource-broker [--logtostderr] [-v=N] [--tracing URL] <engine address>`,
 * reads the port from the first line of stdout, and talks gRPC to it until it kills the process.
 * Stdout therefore carries the port and nothing else; everything else goes to the engine's log.
 */
import { startProviderServer, type RunningServer } from "./server";
import { BROKER_RESOURCES } from "./resources";

/** The plugin's command line, once the engine's logging flags are set aside. */
export interface PluginArgs {
  /** The engine's `host:port`, for its `Log` RPC; absent when started by hand. */
  readonly engineAddress: string | undefined;
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
  return { engineAddress: rest[0] };
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
  return running;
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(
      `pulumi-resource-broker could not start: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(1);
  });
}
