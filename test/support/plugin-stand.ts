/**
 * The native plugin's provider server in process, as the plugin's integration tests drive it: an
 * emulator, a stand-in engine, the server with the broker's resources, a gRPC client of it and a
 * client of the API outside Pulumi.
 */
import { BrokerClient } from "../../src/client";
import { startEmulator, type EmulatorHandle } from "../../src/emulator";
import { BROKER_RESOURCES } from "../../src/native/resources";
import { startProviderServer, type RunningServer } from "../../src/native/server";
import { providerClient, startFakeEngine } from "./plugin-server";

/** What {@link startPluginStand} started. */
export interface PluginStand {
  /** The broker the tests configure the plugin for (controls on). */
  emulator: EmulatorHandle;
  /** The stand-in engine the server logs to. */
  engine: Awaited<ReturnType<typeof startFakeEngine>>;
  server: RunningServer;
  /** The engine's side of the gRPC connection to the server. */
  client: ReturnType<typeof providerClient>;
  /** A client of `emulator`'s API outside Pulumi: to make objects and to look at the server. */
  api: BrokerClient;
  /** Closes everything, the clients first. */
  close(): Promise<void>;
}

/** Starts an emulator with controls and a provider server of the broker's resources for it. */
export async function startPluginStand(): Promise<PluginStand> {
  const emulator = await startEmulator({ controls: true });
  const engine = await startFakeEngine();
  const server = await startProviderServer({
    engineAddress: engine.address,
    resources: BROKER_RESOURCES,
    env: {},
  });
  const client = providerClient(server.port);
  const api = new BrokerClient({ baseUrl: emulator.url, apiKey: emulator.adminKey });
  return {
    emulator,
    engine,
    server,
    client,
    api,
    close: async () => {
      client.close();
      await api.close();
      await server.close();
      await engine.close();
      await emulator.close();
    },
  };
}
