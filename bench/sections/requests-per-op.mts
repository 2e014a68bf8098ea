/**
 * requestsPerOp: the HTTP requests the emulator sees for each lifecycle operation, driven through
 * the real provider host as the engine drives it (check before create, check and diff before
 * update), next to the least the API allows while keeping our guarantees (see BENCHMARKS.md).
 */
import type * as EmulatorModule from "../../src/emulator/index.ts";
import { startEmulatorProcess } from "../../harness/emulator-process.mts";
import { ProviderHost, urnOf } from "../../harness/provider-host.mts";
import type { BenchContext } from "../lib/context.mts";
import { dist } from "../lib/repo.mts";
import type { ResourceType } from "./provider-bytes.mts";

type Props = Record<string, unknown>;

/**
 * The least each operation can send while keeping what we promise; BENCHMARKS.md gives the reasons.
 * `(adopt)` entries assume fewer than 100 objects of the kind, i.e. one list page.
 */
export const MINIMUM_PER_OP: Readonly<Record<string, number>> = {
  "Workspace.create": 3,
  "Workspace.create(adopt)": 1,
  "Workspace.read": 1,
  "Workspace.update": 0,
  "Workspace.delete": 0,
  "AccessKey.create": 2,
  "AccessKey.create(adopt)": 1,
  "AccessKey.read": 1,
  "AccessKey.update": 2,
  "AccessKey.update(settings)": 0,
  "AccessKey.delete": 1,
  "ServiceKeyPair.create": 2,
  "ServiceKeyPair.read": 1,
  "ServiceKeyPair.update": 1,
  "ServiceKeyPair.delete": 0,
};

/** What the section measured. */
export interface RequestsPerOpResult {
  requestsPerOp: Record<string, number>;
  minimumPerOp: Record<string, number>;
  /** The routes each operation sent, in order. */
  routesPerOp: Record<string, string[]>;
}

/** Runs each operation once against a fresh emulator and counts its requests. */
export async function measureRequestsPerOp(
  ctx: BenchContext,
  providers: Record<ResourceType, string>,
): Promise<RequestsPerOpResult> {
  const { EmulatorControls } = await dist<typeof EmulatorModule>("emulator/index.js");
  const emulator = await startEmulatorProcess();
  ctx.secrets.add(emulator.adminKey);
  const controls = new EmulatorControls(emulator.controlUrl);
  const host = await ProviderHost.start(ctx.fixture, {
    BROKER_BASE_URL: undefined,
    BROKER_API_KEY: undefined,
  });
  const requestsPerOp: Record<string, number> = {};
  const routesPerOp: Record<string, string[]> = {};
  const count = async <T,>(label: string, operation: () => Promise<T>): Promise<T> => {
    await controls.clearRequests();
    const result = await operation();
    const routes = (await controls.requests()).map((r) => r.route);
    requestsPerOp[label] = routes.length;
    routesPerOp[label] = routes;
    return result;
  };
  const resource = (type: ResourceType, name: string) => {
    const urn = urnOf(type, name);
    const withProvider = (inputs: Props): Props => ({ ...inputs, __provider: providers[type] });
    return {
      async create(inputs: Props): Promise<{ id: string; outs: Props }> {
        const checked = await host.check(urn, {}, withProvider(inputs));
        if (checked.failures.length > 0)
          throw new Error(`${urn}: ${checked.failures.map((f) => `${f.property}: ${f.reason}`).join("; ")}`);
        const created = await host.create(urn, checked.inputs);
        return { id: created.id, outs: { ...created.outs, __provider: providers[type] } };
      },
      read: (id: string, outs: Props) => host.read(urn, id, outs),
      async update(id: string, olds: Props, inputs: Props): Promise<Props> {
        const checked = await host.check(urn, olds, withProvider(inputs));
        await host.diff(urn, id, olds, checked.inputs);
        return { ...(await host.update(urn, id, olds, checked.inputs)), __provider: providers[type] };
      },
      delete: (id: string, outs: Props) => host.delete(urn, id, outs),
    };
  };

  try {
    await host.configure({ "broker:baseUrl": emulator.url, "broker:apiKey": emulator.adminKey });

    const workspace = resource("Workspace", "team");
    const ws = await count("Workspace.create", () => workspace.create({ name: "team" }));
    await count("Workspace.read", () => workspace.read(ws.id, ws.outs));
    const wsUpdated = await count("Workspace.update", () =>
      workspace.update(ws.id, ws.outs, { name: "team", adopt: true }),
    );
    await count("Workspace.delete", () => workspace.delete(ws.id, wsUpdated));
    await count("Workspace.create(adopt)", () =>
      resource("Workspace", "again").create({ name: "team", adopt: true }),
    );

    const permissions = { send: ["orders/created"], receive: ["payments/*"] };
    const accessKey = resource("AccessKey", "orders");
    const key = await count("AccessKey.create", () =>
      accessKey.create({ name: "orders", type: "SERVICE", permissions }),
    );
    const keyValue = String(key.outs["accessKey"]);
    ctx.secrets.add(keyValue);
    ctx.secrets.add(String(key.outs["privateKey"]));
    await count("AccessKey.read", () => accessKey.read(key.id, key.outs));
    const inputs = { name: "orders", type: "SERVICE" };
    const changed = {
      ...inputs,
      permissions: { ...permissions, send: ["orders/created", "orders/cancelled"] },
    };
    const keyUpdated = await count("AccessKey.update", () => accessKey.update(key.id, key.outs, changed));
    const keySettled = await count("AccessKey.update(settings)", () =>
      accessKey.update(key.id, keyUpdated, { ...changed, onDelete: "revoke", allowEndpointChange: false }),
    );
    await count("AccessKey.create(adopt)", () =>
      resource("AccessKey", "adopted").create({ ...changed, adopt: true }),
    );

    const pairResource = resource("ServiceKeyPair", "orders-pair");
    const pair = await count("ServiceKeyPair.create", () =>
      pairResource.create({ accessKey: keyValue, rotationTriggers: { quarter: "1" } }),
    );
    ctx.secrets.add(String(pair.outs["privateKey"]));
    await count("ServiceKeyPair.read", () => pairResource.read(pair.id, pair.outs));
    const rotated = await count("ServiceKeyPair.update", () =>
      pairResource.update(pair.id, pair.outs, { accessKey: keyValue, rotationTriggers: { quarter: "2" } }),
    );
    ctx.secrets.add(String(rotated["privateKey"]));
    await count("ServiceKeyPair.delete", () => pairResource.delete(pair.id, rotated));
    await count("AccessKey.delete", () => accessKey.delete(key.id, keySettled));
  } finally {
    ctx.produced.push({ source: "requests-per-op: provider host stderr", text: host.stderr.join("") });
    ctx.produced.push({
      source: "requests-per-op: provider host engine log",
      text: host.engineLog.map((m) => m.message).join("\n"),
    });
    await host.stop();
    await emulator.stop();
  }
  return { requestsPerOp, minimumPerOp: { ...MINIMUM_PER_OP }, routesPerOp };
}
