/**
 * What the reliability tests read of a stack without starting the CLI again: the outputs an `up`
 * already returned, and the checkpoint the file backend holds. Each CLI start costs seconds under
 * load (issue #50), and these reads give the same values the extra commands would.
 */
import * as fs from "node:fs";
import type { OutputMap } from "@pulumi/pulumi/automation";
import type { PulumiProject } from "../../../harness/pulumi-project.mts";
import type { StackView } from "./declared-state";

/**
 * The {@link StackView} of outputs a command already read: the Automation API's `up` reads them
 * (secrets in plain text, in memory only) after the update, so `stackView` would read them again.
 */
export function viewOf(outputs: OutputMap): StackView {
  const value = (name: string): Record<string, never> =>
    (outputs[name]?.value ?? {}) as Record<string, never>;
  return {
    keyIds: value("keyIds"),
    workspaceIds: value("workspaceIds"),
    publicKeys: value("publicKeys"),
    keyValues: value("keyValues"),
    privateKeys: value("privateKeys"),
  };
}

/** An operation the engine began and never finished, as the checkpoint records it. */
export interface PendingOperation {
  type: string;
  resource: { urn: string };
}

/** The parts of a checkpoint's latest deployment the tests read (what `pulumi stack export` prints). */
export interface Deployment {
  resources?: unknown[];
  pending_operations?: PendingOperation[];
}

/**
 * The stack's latest deployment, read from its checkpoint in the file backend: the file
 * `pulumi stack export` reads, without a CLI start. A killed CLI's checkpoint holds what it had
 * written when it died (its pending operations).
 */
export function deploymentOf(project: PulumiProject, stack: string): Deployment {
  const file = JSON.parse(fs.readFileSync(project.stateFile(stack), "utf8")) as {
    checkpoint?: { latest?: Deployment };
  };
  return file.checkpoint?.latest ?? {};
}
