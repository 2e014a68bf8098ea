/**
 * What the engine stored for a stack, read from the file backend where it lies instead of through
 * `pulumi stack export` or `pulumi stack output` (each a CLI start: issue #50). The state file is
 * the checkpoint those commands print from, secrets in it as the engine encrypts them.
 */
import * as fs from "node:fs";
import type { Stack } from "@pulumi/pulumi/automation";
import { expect } from "vitest";
import { isSecretEnvelope, SECRET_SIG_KEY, SECRET_SIG_VALUE } from "../../harness/file-backend.mts";
import type { PulumiProject } from "../../harness/pulumi-project.mts";
import type { StateResource } from "./projects";

export type { StateResource };

export { SECRET_SIG_KEY, SECRET_SIG_VALUE };

/** An operation the engine began and never finished, as the checkpoint records it. */
export interface PendingOperation {
  readonly type: string;
  readonly resource: { readonly urn: string };
}

/** The `latest` deployment of a checkpoint: what `pulumi stack export` prints as `deployment`. */
export interface StoredDeployment {
  readonly resources?: StateResource[];
  readonly pending_operations?: PendingOperation[];
}

/**
 * The deployment the engine last stored for `stack`, read from its checkpoint in the file backend
 * (empty before the first update). A killed CLI's checkpoint holds what it had written when it died,
 * its pending operations included.
 */
export function latestDeployment(project: PulumiProject, stack: string): StoredDeployment {
  const state = JSON.parse(fs.readFileSync(project.stateFile(stack), "utf8")) as {
    checkpoint?: { latest?: StoredDeployment };
  };
  return state.checkpoint?.latest ?? {};
}

/** The resources in the current checkpoint of `stack` (none once it is destroyed). */
export function stateResources(project: PulumiProject, stack: string): StateResource[] {
  return latestDeployment(project, stack).resources ?? [];
}

/**
 * The stack outputs of `stack` as the state holds them: a secret one is the engine's envelope
 * (`{ [SECRET_SIG_KEY]: SECRET_SIG_VALUE, ciphertext }`), which `pulumi stack output` shows as
 * `"[secret]"`; any other its value.
 */
export function stateOutputs(project: PulumiProject, stack: string): Record<string, unknown> {
  return stateResources(project, stack).find((r) => r.type === "pulumi:pulumi:Stack")?.outputs ?? {};
}

/** Whether `value` (a value of {@link stateOutputs}) is a secret the engine encrypted. */
export const isEncryptedSecret = isSecretEnvelope;

/**
 * The outputs of the native access key of id `id` as `stack`'s export holds them. The Automation API
 * exports with `--show-secrets`, so a secret output holds its plaintext here under the engine's secret
 * signature (the backend's files hold only its ciphertext).
 */
export async function exportedKeyOutputs(
  stack: Stack,
  id: unknown,
): Promise<Record<string, unknown> | undefined> {
  const exported = (await stack.exportStack()).deployment as { resources: StateResource[] };
  return exported.resources.find((r) => r.type === "broker:index:AccessKey" && r.id === String(id))?.outputs;
}

/** Asserts that `output` (of {@link exportedKeyOutputs}) is a secret whose plaintext is `value`. */
export function expectSecretHolding(output: unknown, value: unknown): void {
  const envelope = output as Record<string, unknown> | undefined;
  expect(envelope?.[SECRET_SIG_KEY]).toBe(SECRET_SIG_VALUE);
  expect(envelope?.["plaintext"]).toBe(JSON.stringify(value));
}
