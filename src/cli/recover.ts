/**
 * `broker-config recover`: after a `pulumi up` that was killed (SIGKILL, a dead runner), records in
 * the stack every object the run created on the broker, so that the next `pulumi up` neither makes a
 * second key of the same name nor leaves an orphan, and no `adopt: true` is needed.
 *
 * It reads the state with `pulumi stack export --show-secrets` (the providers' credentials are in
 * it), asks the broker which object each pending create made (see `recover-plan.ts` for the rules),
 * reads each one the way `pulumi import` would, and writes the state back with `pulumi stack import`
 * through a pipe: plain-text secrets never touch the disk, and the CLI encrypts them again.
 */
import { getBrokerClient, isBrokerApiError, isBrokerSettingsError, type BrokerClient } from "../client";
import {
  accessKeyOperations,
  toPropertyBag,
  workspaceOperations,
  type CoreContext,
  type PropertyBag,
} from "../core";
import { intentNotBefore, IntentStore, intentRoot } from "../core/intents";
import type { ResourceOperations } from "../core/operations";
import { resolveConnection, STACK_SETTING_NAMES, type ConnectionSettings } from "../settings/connection";
import { DYNAMIC_PROVIDER_TYPE, type ExportedStack, type StateResource } from "./migrate-state";
import {
  ownedIds,
  pendingCreates,
  recoveredState,
  requestedOf,
  revealed,
  type Match,
  type PendingCreate,
  type Recovered,
} from "./recover-plan";
import {
  cancelUpdate,
  exportStack,
  importStack,
  repairCheckpointMetadata,
  selectedStack,
} from "./recover-pulumi";

/** Options of {@link recover}. */
export interface RecoverOptions {
  /** The stack (`--stack`); the selected stack when absent. */
  readonly stack?: string | undefined;
  /** Report what would change without writing the state. */
  readonly dryRun: boolean;
  /**
   * End the interrupted update's hold on the stack first (`pulumi cancel --yes`): the user says that
   * no `pulumi` command runs on the stack any more.
   */
  readonly cancel: boolean;
  /** The environment: `BROKER_API_KEY` and the other settings' variables fill what the state lacks. */
  readonly env: NodeJS.ProcessEnv;
  /** Where the report goes, one line at a time. */
  readonly report: (line: string) => void;
}

/** One line of the report per pending create, and whether anything is left for the user. */
interface Outcome {
  readonly recovered: Recovered[];
  readonly resolved: Set<string>;
  readonly lines: string[];
  left: number;
}

/**
 * Recovers the stack after an interrupted `pulumi up`; resolves to the exit code: 0 when every
 * pending create of a broker resource was recorded or dropped, 1 when one was left for the user
 * (the report says which and why) or a command failed.
 */
export async function recover(options: RecoverOptions): Promise<number> {
  const stack = options.stack ?? (await selectedStack(options.env));
  const stackArgs = ["--stack", stack];
  const repaired = await repairCheckpointMetadata(stack, options.env);
  if (repaired !== undefined) {
    options.report(
      `broker-config recover: removed ${repaired}, the empty metadata file the killed CLI left beside the stack's checkpoint (the file backend cannot read the checkpoint while it is there)`,
    );
  }
  if (options.cancel && !options.dryRun) {
    await cancelUpdate(stackArgs, options.env);
    options.report(
      `broker-config recover: ended the interrupted update's hold on stack "${stack}" (pulumi cancel)`,
    );
  }
  const exported = await exportStack(stackArgs, options.env);
  const { ours, others } = pendingCreates(exported);
  const outcome: Outcome = { recovered: [], resolved: new Set(), lines: [], left: 0 };
  for (const operation of others) {
    outcome.lines.push(
      `  left      ${operation.resource.urn}: a pending ${operation.type} of no broker resource; \`pulumi refresh\` handles it`,
    );
  }
  const clients = new Map<string, BrokerClient>();
  try {
    for (const pending of ours) await settle(pending, exported, clients, options, outcome);
  } finally {
    await Promise.all([...clients.values()].map((client) => client.close()));
  }

  options.report(
    ours.length === 0
      ? "broker-config recover: the stack has no pending create of a broker resource; nothing to recover"
      : `broker-config recover: ${ours.length} pending create(s) of broker resources`,
  );
  for (const line of outcome.lines) options.report(line);
  if (outcome.resolved.size === 0) return outcome.left > 0 ? 1 : 0;
  if (options.dryRun) {
    options.report("broker-config recover: --dry-run, the state was not written");
    return outcome.left > 0 ? 1 : 0;
  }
  const written = await importStack(
    stackArgs,
    recoveredState(exported, outcome.recovered, outcome.resolved),
    options.env,
  );
  if (!written.ok) {
    options.report(`broker-config recover: ${written.message}`);
    return 1;
  }
  // The creates it recorded or dropped are resolved: their intents must not make a later create of
  // the same resource (a replacement) take over the object now in the state.
  const intents = new IntentStore(intentRoot(options.env));
  for (const urn of outcome.resolved) await intents.remove(urn);
  options.report(
    `broker-config recover: wrote the state (${outcome.recovered.length} recorded, ${outcome.resolved.size - outcome.recovered.length} dropped). Next: \`pulumi up\``,
  );
  return outcome.left > 0 ? 1 : 0;
}

/** Decides one pending create: records the object it made, drops it, or leaves it for the user. */
async function settle(
  pending: PendingCreate,
  exported: ExportedStack,
  clients: Map<string, BrokerClient>,
  options: RecoverOptions,
  outcome: Outcome,
): Promise<void> {
  const label = `${pending.kind} ${pending.resourceName}`;
  if (pending.kind === "ServiceKeyPair") {
    // The private key existed only in the killed process: a new pair is the only way to have one.
    outcome.resolved.add(pending.urn);
    outcome.lines.push(
      `  dropped   ${label}: its private key was lost with the interrupted run; \`pulumi up\` makes a new pair, which replaces the one the broker holds`,
    );
    return;
  }
  let settings: ConnectionSettings;
  try {
    settings = providerSettings(exported, pending, options.env);
  } catch (error) {
    if (!isBrokerSettingsError(error)) throw error;
    outcome.left++;
    outcome.lines.push(`  left      ${label}: ${error.message}`);
    return;
  }
  const key = `${settings.baseUrl}\n${settings.apiKey}`;
  let client = clients.get(key);
  if (client === undefined) {
    client = getBrokerClient({ ...settings, settingNames: STACK_SETTING_NAMES });
    clients.set(key, client);
  }
  try {
    const owned = ownedIds(exported, pending.kind, settings.baseUrl);
    for (const done of outcome.recovered) if (done.pending.kind === pending.kind) owned.add(done.id);
    // The intent the provider recorded before sending this create, when it did: only objects made
    // since can be its.
    const intent = await new IntentStore(intentRoot(options.env)).read(pending.urn);
    const notBefore =
      intent?.kind === pending.kind && intent.baseUrl === client.baseUrl
        ? intentNotBefore(intent)
        : undefined;
    const requested = requestedOf(pending.kind, plainInputs(pending));
    const search = { notBefore, exclude: owned, several: "refuse", rekey: false } as const;
    const found =
      "unreadable" in requested
        ? undefined
        : requested.kind === "AccessKey"
          ? await client.findCreated(requested, search)
          : await client.findCreated(requested, search);
    const match: Match =
      found === undefined
        ? { outcome: "unreadable", input: (requested as { unreadable: string }).unreadable }
        : found.outcome === "found"
          ? { outcome: "found", id: "record" in found.record ? found.record.record.id : found.record.id }
          : found;
    if (match.outcome === "absent") {
      outcome.resolved.add(pending.urn);
      outcome.lines.push(`  dropped   ${label}: it never reached the broker; \`pulumi up\` creates it`);
      return;
    }
    if (match.outcome === "unreadable") {
      outcome.left++;
      outcome.lines.push(
        `  left      ${label}: the export does not show its ${match.input}, so the object it made cannot be told; check the broker, then \`pulumi refresh --clear-pending-creates\` if it never reached it`,
      );
      return;
    }
    if (match.outcome === "ambiguous") {
      outcome.left++;
      outcome.lines.push(
        `  left      ${label}: ${pending.kind === "AccessKey" ? "keys" : "workspaces"} ${match.ids.join(" and ")} at ${settings.baseUrl} all match it and no resource owns them; remove the ones that are not wanted (the API cannot delete keys: revoke them), then run \`broker-config recover\` again`,
      );
      return;
    }
    const ctx = recoverContext(client, settings, options);
    const recovered =
      pending.kind === "AccessKey"
        ? await readAsCreated(accessKeyOperations, ctx, pending, match.id)
        : await readAsCreated(workspaceOperations, ctx, pending, match.id);
    if (recovered === undefined) {
      outcome.resolved.add(pending.urn);
      outcome.lines.push(`  dropped   ${label}: the object it made is gone; \`pulumi up\` creates it again`);
      return;
    }
    outcome.recovered.push(recovered);
    outcome.resolved.add(pending.urn);
    outcome.lines.push(`  recorded  ${label}: the interrupted run created it as id ${match.id}`);
  } catch (error) {
    if (!isBrokerApiError(error)) throw error;
    outcome.left++;
    outcome.lines.push(`  left      ${label}: ${error.message}`);
  }
}

/**
 * The connection settings the resource's provider had: its recorded arguments (an explicit provider)
 * or stack config (the default provider, and every dynamic resource), then the environment; the
 * endpoint is the one the resource was checked against.
 */
function providerSettings(
  exported: ExportedStack,
  pending: PendingCreate,
  env: NodeJS.ProcessEnv,
): ConnectionSettings {
  const reference = pending.provider ?? "";
  const separator = reference.lastIndexOf("::");
  const provider: StateResource | undefined = (exported.deployment.resources ?? []).find(
    (resource) =>
      resource.urn === reference.slice(0, separator) && resource.id === reference.slice(separator + 2),
  );
  const inputs = provider?.inputs ?? {};
  // The dynamic resources' provider holds the stack's `broker:*` config as its inputs.
  const dynamic = provider?.type === DYNAMIC_PROVIDER_TYPE;
  const read = (configKey: string): string | undefined => {
    const value = revealed(dynamic ? inputs[configKey] : inputs[configKey.slice("broker:".length)]);
    return typeof value === "string" || typeof value === "number" || typeof value === "boolean"
      ? String(value)
      : undefined;
  };
  return resolveConnection(pending.baseUrl === undefined ? {} : { baseUrl: pending.baseUrl }, read, env);
}

/** The pending create's inputs in plain text, without the dynamic provider's code. */
function plainInputs(pending: PendingCreate): PropertyBag {
  const inputs: PropertyBag = {};
  for (const [name, value] of Object.entries(pending.inputs))
    if (name !== "__provider") inputs[name] = revealed(value);
  return inputs;
}

/**
 * The state the completed create would have recorded for object `id`: read as `pulumi import`
 * reads it, then read again with the program's settings (`onDelete`, `adopt`, ...), as a refresh
 * would; `undefined` when the object is gone.
 */
async function readAsCreated<I, P, O>(
  operations: ResourceOperations<I, P, O>,
  ctx: CoreContext,
  pending: PendingCreate,
  id: number,
): Promise<Recovered | undefined> {
  const imported = await operations.read(ctx, String(id), undefined);
  if (!imported.exists) return undefined;
  const seeded = operations.decodeOutputs(
    { ...toPropertyBag(imported.outputs as object), ...plainInputs(pending) },
    String(id),
  );
  const read = await operations.read(ctx, String(id), seeded);
  if (!read.exists) return undefined;
  return {
    pending,
    id,
    inputs: toPropertyBag(read.inputs as object),
    outputs: toPropertyBag(read.outputs as object),
  };
}

/** A core context for `recover`: the client of the resource's provider; warnings go to the report. */
function recoverContext(
  client: BrokerClient,
  settings: { baseUrl: string; apiKey: string },
  options: RecoverOptions,
): CoreContext {
  return {
    client: () => client,
    configuredBaseUrl: () => settings.baseUrl,
    authenticatesWith: (accessKey) => accessKey === settings.apiKey,
    settingNames: STACK_SETTING_NAMES,
    log: {
      warn: (message) => {
        options.report(`  note: ${message}`);
        return Promise.resolve();
      },
    },
  };
}
