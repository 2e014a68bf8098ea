/**
 * One stack per door, driven with as few CLI commands as the point of each test allows: every
 * `pulumi` command costs seconds (the CLI starts, then the language host and the providers), so what
 * the engine *stored* is read from the file backend's checkpoint, and a change of the declared state
 * is an edit of the stack's config file, as a user edits it. The commands whose behaviour is the
 * subject (`up`, `preview`, `broker-config recover`) still run for real.
 */
import type { PulumiProject } from "../../../harness/pulumi-project.mts";
import { listKeys } from "./broker-api";
import type { StackView } from "./declared-state";
import { specConfig } from "../../support/projects";
import { latestDeployment } from "../../support/state";
import type { Spec } from "./spec";

/**
 * Declares `spec` for the next command on stack `name`: sets its `spec` config value by writing
 * `Pulumi.<name>.yaml` as `config set` would (`PulumiProject.setConfig`), without starting the CLI.
 */
export async function declareSpec(project: PulumiProject, name: string, spec: Spec): Promise<void> {
  await project.setConfig(name, specConfig(spec));
}

/** The pending operations the engine stored for stack `name`. */
export function storedPendingOperations(project: PulumiProject, name: string): unknown[] {
  return latestDeployment(project, name).pending_operations ?? [];
}

/**
 * The ids of the access keys the stack's checkpoint records (either door), by resource name: what the
 * engine wrote, whether or not the program reached its stack outputs.
 */
export function storedKeyIds(project: PulumiProject, name: string): Record<string, number> {
  return storedIds(project, name, "AccessKey");
}

/** The ids of the workspaces the stack's checkpoint records (either door), by resource name. */
export function storedWorkspaceIds(project: PulumiProject, name: string): Record<string, number> {
  return storedIds(project, name, "Workspace");
}

/** The ids of the live resources of `kind` (the native type's or the dynamic class's name) in the checkpoint. */
function storedIds(
  project: PulumiProject,
  name: string,
  kind: "AccessKey" | "Workspace",
): Record<string, number> {
  const type = new RegExp(`(?:^broker:index|dynamic/\\w+):${kind}$`, "u");
  const live = (latestDeployment(project, name).resources ?? []).filter(
    (r) => type.test(r.type) && r.id !== undefined && r.delete !== true,
  );
  return Object.fromEntries(live.map((r) => [r.urn.split("::").pop() ?? r.urn, Number(r.id)]));
}

/**
 * The program's plain stack outputs as the checkpoint stores them, and the key values as the broker
 * lists them (the stored ones are encrypted): every field of a {@link StackView} but the private
 * keys, which only `pulumi stack output --show-secrets` can decrypt (see {@link privateKeysOf}).
 */
export async function storedView(
  project: PulumiProject,
  name: string,
  broker: { url: string; adminKey: string },
): Promise<StackView> {
  const root = (latestDeployment(project, name).resources ?? []).find(
    (r) => r.type === "pulumi:pulumi:Stack",
  );
  const outputs = root?.outputs ?? {};
  const plain = (output: string): Record<string, never> => {
    const value = outputs[output];
    return (typeof value === "object" && value !== null ? value : {}) as Record<string, never>;
  };
  const keyIds = plain("keyIds") as Record<string, number>;
  const byId = new Map((await listKeys(broker)).map((k) => [k.id, k.key]));
  const keyValues = Object.fromEntries(
    Object.entries(keyIds).map(([keyName, id]) => [keyName, byId.get(id) ?? ""]),
  );
  return {
    keyIds,
    workspaceIds: plain("workspaceIds"),
    publicKeys: plain("publicKeys"),
    keyValues,
    privateKeys: {},
  };
}

/**
 * The private keys the stack exports, decrypted through the Automation API (`stack output
 * --show-secrets`), whose output stays out of the project's transcript: the transcript is scanned for
 * exactly these secrets.
 */
export async function privateKeysOf(project: PulumiProject, name: string): Promise<string[]> {
  const outputs = await (await project.stack(name)).outputs();
  return Object.values((outputs["privateKeys"]?.value ?? {}) as Record<string, string>);
}
