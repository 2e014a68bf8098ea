/**
 * What `pulumi stack output --json` and `pulumi stack history --json` print, read from the file
 * backend where the engine stored it, without starting the CLI (issue #50).
 *
 * Each of those commands is a CLI start (0.3 s of CPU) that also derives the passphrase key (0.35 s
 * more, harness/passphrase-crypter.mts), and the Automation API runs three of them after every `up`
 * (masked outputs, outputs with secrets, the last update) and one after every `refresh` and
 * `destroy`. Here the checkpoint and the operation's history record are read as the CLI reads them:
 * the checkpoint for the stack's outputs, the newest history record for the last operation. The format is the file backend's
 * (`.pulumi/stacks/<project>/<stack>.json`, `.pulumi/history/<project>/<stack>/<stack>-<ns>.history.json`);
 * `test/e2e/backend-reads.test.ts` compares every read with the CLI's own output.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { ConfigMap, OutputMap, UpdateSummary } from "@pulumi/pulumi/automation/index.js";
import { decrypt, passphraseKey } from "./passphrase-crypter.mts";

/** The signature key the engine marks a secret value with in the state, beside a `ciphertext`. */
export const SECRET_SIG_KEY = "4dabf18193072939515e22adb298388d";
/** The signature value that means "secret". */
export const SECRET_SIG_VALUE = "1b47061264138c4ac30d75fd1eb44270";
/** Whether `value` (a value in a checkpoint) is a secret the engine encrypted: `{ [SECRET_SIG_KEY], ciphertext }`. */
export function isSecretEnvelope(value: unknown): value is { ciphertext: string } {
  return (
    value !== null &&
    typeof value === "object" &&
    (value as Record<string, unknown>)[SECRET_SIG_KEY] === SECRET_SIG_VALUE &&
    typeof (value as Record<string, unknown>)["ciphertext"] === "string"
  );
}

/** `value` with every secret envelope in it replaced by its plain value, as `--show-secrets` prints it. */
function reveal(key: Buffer, value: unknown): unknown {
  return revealEach(value, (item) =>
    isSecretEnvelope(item) ? { plain: reveal(key, JSON.parse(decrypt(key, item.ciphertext))) } : undefined,
  );
}

/**
 * `value` with each secret in it, at any depth, replaced by what `open` gives for it; `open` answers
 * `undefined` for a value that is not a secret, which is then walked into. The checkpoint and the
 * history's config mark secrets in two ways ({@link reveal}, {@link revealConfig}); the walk is one.
 */
function revealEach(value: unknown, open: (value: unknown) => { plain: unknown } | undefined): unknown {
  const secret = open(value);
  if (secret !== undefined) return secret.plain;
  if (Array.isArray(value)) return value.map((item) => revealEach(item, open));
  if (value !== null && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, revealEach(item, open)]));
  return value;
}

/** The part of a checkpoint's `latest` deployment read here. */
interface Latest {
  secrets_providers?: { type?: string; state?: { salt?: string } };
  resources?: { type: string; outputs?: Record<string, unknown> }[];
}

interface Checkpoint {
  checkpoint?: { latest?: Latest };
}

/**
 * The stack outputs in the checkpoint `stateFile`, as the Automation API's `outputs()` returns them
 * from `pulumi stack output --json` (masked, then with `--show-secrets`): each value in plain text,
 * `secret` when the output itself is a secret. Empty before the first update.
 */
export async function readStackOutputs(stateFile: string, passphrase: string): Promise<OutputMap> {
  const latest = readLatest(stateFile);
  const outputs =
    latest?.resources?.find((resource) => resource.type === "pulumi:pulumi:Stack")?.outputs ?? {};
  const entries = Object.entries(outputs);
  if (entries.length === 0) return {};
  const hasSecrets = entries.some(([, value]) => JSON.stringify(value).includes(SECRET_SIG_KEY));
  const key = hasSecrets ? await checkpointKey(latest, stateFile, passphrase) : Buffer.alloc(0);
  return Object.fromEntries(
    entries.map(([name, value]) => [name, { value: reveal(key, value), secret: isSecretEnvelope(value) }]),
  );
}

/** A config value as a history record stores it: a string, `{ secure }`, or a structured value. */
type StoredConfigValue = string | Record<string, unknown>;

interface HistoryRecord {
  kind: UpdateSummary["kind"];
  startTime: number;
  message: string;
  environment: Record<string, string>;
  config?: Record<string, StoredConfigValue>;
  version?: number;
  result: UpdateSummary["result"];
  endTime: number;
  resourceChanges?: UpdateSummary["resourceChanges"];
}

/** A config value the crypter encrypted: `{ secure: "v1:..." }`. */
function isSecure(value: unknown): value is { secure: string } {
  return (
    value !== null &&
    typeof value === "object" &&
    Object.keys(value).length === 1 &&
    typeof (value as Record<string, unknown>)["secure"] === "string"
  );
}

/** Whether a stored config value is, or holds (`config set --secret --path`), a secret. */
function containsSecure(value: unknown): boolean {
  if (isSecure(value)) return true;
  if (value !== null && typeof value === "object") return Object.values(value).some(containsSecure);
  return false;
}

/** A stored config value with each secret in it decrypted. */
function revealConfig(key: Buffer, value: unknown): unknown {
  return revealEach(value, (item) => (isSecure(item) ? { plain: decrypt(key, item.secure) } : undefined));
}

/** The `latest` deployment of the checkpoint `stateFile`. */
function readLatest(stateFile: string): Latest | undefined {
  return (JSON.parse(fs.readFileSync(stateFile, "utf8")) as Checkpoint).checkpoint?.latest;
}

/** The key of the passphrase secrets provider the checkpoint `latest` names. */
function checkpointKey(latest: Latest | undefined, stateFile: string, passphrase: string): Promise<Buffer> {
  const provider = latest?.secrets_providers;
  if (provider?.type !== "passphrase" || provider.state?.salt === undefined)
    throw new Error(`the checkpoint ${stateFile} has secrets but no passphrase secrets provider`);
  return passphraseKey(passphrase, provider.state.salt);
}

/**
 * The stack's last operation (`update`, `refresh`, `destroy`, ...) from its newest history record
 * beside the checkpoint `stateFile`, as the Automation API's `info(showSecrets)` returns it from
 * `pulumi stack history --json --page-size 1`; `undefined` when the stack has none. A secret config
 * value is in plain text with `showSecrets` (the SDK's default) and has no value without it. The
 * record's secrets are encrypted with the stack's key, whose salt the checkpoint names.
 */
export async function readLastUpdate(
  stateFile: string,
  passphrase: string,
  showSecrets = true,
): Promise<UpdateSummary | undefined> {
  const stackName = path.basename(stateFile, ".json");
  const projectDir = path.dirname(stateFile);
  const historyDir = path.join(projectDir, "..", "..", "history", path.basename(projectDir), stackName);
  if (!fs.existsSync(historyDir)) return undefined;
  // `<stack>-<unix ns>.history.json`: the newest is the last operation.
  let newest: { file: string; ns: bigint } | undefined;
  for (const file of fs.readdirSync(historyDir)) {
    if (!file.startsWith(`${stackName}-`) || !file.endsWith(".history.json")) continue;
    const ns = BigInt(file.slice(stackName.length + 1, -".history.json".length));
    if (newest === undefined || ns > newest.ns) newest = { file, ns };
  }
  if (newest === undefined) return undefined;
  const record = JSON.parse(fs.readFileSync(path.join(historyDir, newest.file), "utf8")) as HistoryRecord;
  const config: ConfigMap = {};
  let key: Promise<Buffer> | undefined;
  for (const [name, stored] of Object.entries(record.config ?? {})) {
    if (typeof stored === "string") {
      config[name] = { value: stored, secret: false };
      continue;
    }
    const secret = containsSecure(stored);
    // The CLI prints no value for a masked secret, structured or not; the SDK's type says there is one.
    if (secret && !showSecrets) {
      config[name] = { secret: true } as ConfigMap[string];
      continue;
    }
    if (secret) key ??= checkpointKey(readLatest(stateFile), stateFile, passphrase);
    const plain = key === undefined ? stored : revealConfig(await key, stored);
    if (typeof plain === "string") config[name] = { value: plain, secret: true };
    else config[name] = { value: JSON.stringify(plain), objectValue: plain, secret } as ConfigMap[string];
  }
  return {
    version: record.version ?? 0,
    kind: record.kind,
    startTime: new Date(record.startTime * 1000),
    message: record.message,
    environment: record.environment,
    config,
    result: record.result,
    endTime: new Date(record.endTime * 1000),
    ...(record.resourceChanges === undefined ? {} : { resourceChanges: record.resourceChanges }),
  };
}
