/** Test helpers around the API client. */
import {
  BrokerClient,
  isBrokerApiError,
  type BrokerApiError,
  type BrokerClientOptions,
} from "../../src/client";
import type { BrokerClientInternals } from "../../src/client/client";
import type { RetryPolicy } from "../../src/client/retry";

/**
 * The {@link BrokerApiError} a call rejects with. Fails the test when the call resolves or rejects
 * with anything else, so an assertion on the error never passes on a value that is not one.
 */
export async function apiRejection(promise: Promise<unknown>): Promise<BrokerApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isBrokerApiError(error)) throw new Error(`expected a BrokerApiError, got ${String(error)}`);
  return error;
}

/** The paths of {@link createWorkspaceTree}'s workspaces, sorted: what an export of it declares. */
export const EXPORT_SOURCE_WORKSPACE_PATHS: readonly string[] = [
  "/data",
  "/platform",
  "/platform/billing",
  "/platform/orders",
  "/platform/orders/eu",
  "/platform/orders/us",
];

/**
 * Makes the workspace tree the export tests start from, in this order: `/platform`,
 * `/platform/orders`, `/platform/orders/eu`, `/platform/orders/us`, `/platform/billing` and a second
 * root `/data` (created out of name order, so that a sorted export is visible).
 */
export async function createWorkspaceTree(client: BrokerClient): Promise<void> {
  const platform = await client.createWorkspaceAndFind({ name: "platform" });
  const orders = await client.createWorkspaceAndFind({ name: "orders", parentId: platform.id });
  await client.createWorkspaceAndFind({ name: "eu", parentId: orders.id });
  await client.createWorkspaceAndFind({ name: "us", parentId: orders.id });
  await client.createWorkspaceAndFind({ name: "billing", parentId: platform.id });
  await client.createWorkspaceAndFind({ name: "data" });
}

/**
 * Makes the environment the configuration-as-data suites export and copy: the tree of
 * {@link createWorkspaceTree} and five keys (SERVICE and ACCOUNT, with and without permissions,
 * one with resource permissions), through `client` (an ACCOUNT key's client).
 */
export async function createExportSource(client: BrokerClient): Promise<void> {
  await createWorkspaceTree(client);
  await client.createAccessKey({
    name: "orders-svc",
    type: "SERVICE",
    permissions: { send: ["orders/created", "orders/cancelled"], receive: ["payments/*"] },
  });
  await client.createAccessKey({
    name: "billing-svc",
    type: "SERVICE",
    permissions: { receive: ["orders/*"] },
  });
  await client.createAccessKey({
    name: "reporting",
    type: "SERVICE",
    permissions: { receive: ["orders/*", "payments/*"], resources: { tier: "gold" } },
  });
  await client.createAccessKey({ name: "ops-admin", type: "ACCOUNT", permissions: { receive: ["audit/*"] } });
  await client.createAccessKey({ name: "idle", type: "SERVICE", permissions: {} });
}

/** What {@link testClients} returns. */
export interface TestClients {
  /**
   * A new client of the target, with the defaults and then `options`; `internals` are added to the
   * default ones.
   */
  clientOf: (options?: Partial<BrokerClientOptions>, internals?: BrokerClientInternals) => BrokerClient;
  /** Closes every client made so far (call it after each test). */
  closeAll: () => Promise<void>;
}

/**
 * Makes the clients of a test: each gets the URL and admin key of `target()` (read when the client is
 * made, so a fresh emulator per test is fine), `defaults`, and `internals` (the client's test seam:
 * backoff, timing), and is kept so that {@link TestClients.closeAll} closes it.
 */
export function testClients(
  target: () => { url: string; adminKey: string },
  defaults: Partial<BrokerClientOptions> = {},
  internals: BrokerClientInternals = {},
): TestClients {
  const made: BrokerClient[] = [];
  return {
    clientOf: (options = {}, extra = {}) => {
      const { url, adminKey } = target();
      const client = new BrokerClient(
        { baseUrl: url, apiKey: adminKey, ...defaults, ...options },
        { ...internals, ...extra },
      );
      made.push(client);
      return client;
    },
    closeAll: async () => {
      await Promise.all(made.splice(0).map((c) => c.close()));
    },
  };
}

/**
 * The retry policy the retry decisions are tested with: four retries within a minute, backoff from
 * 200 ms up to 5 s, and a fixed jitter draw so that every delay is exact.
 */
export const TEST_RETRY_POLICY: Readonly<RetryPolicy> = {
  maxRetries: 4,
  maxRetryTimeMs: 60_000,
  baseDelayMs: 200,
  maxDelayMs: 5000,
  random: () => 0.5,
};
