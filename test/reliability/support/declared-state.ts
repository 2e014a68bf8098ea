/**
 * The assertion every reliability test ends with: the broker holds exactly what the stack declares,
 * with nothing duplicated and nothing lost, and the stack tracks exactly those objects.
 */
import type { OutputMap, Stack } from "@pulumi/pulumi/automation";
import { expect } from "vitest";
import { listKeys, listWorkspaces } from "./broker-api";
import type { Spec } from "./spec";

/** The ids and keys the program exports. */
export interface StackView {
  keyIds: Record<string, number>;
  workspaceIds: Record<string, number>;
  publicKeys: Record<string, string>;
  /** Secrets, for the secret scan. */
  keyValues: Record<string, string>;
  privateKeys: Record<string, string>;
}

/** The program's outputs (secret ones in plain text: in memory only, never printed). */
export async function stackView(stack: Stack): Promise<StackView> {
  return viewOf(await stack.outputs());
}

/**
 * The {@link StackView} of outputs a command already read: the Automation API's `up` reads them
 * (secrets in plain text, in memory only) after the update, so {@link stackView} would read them again
 * at the cost of a CLI start.
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

const sorted = (list: readonly string[]): string[] => [...new Set(list)].sort();

/**
 * Asserts that the broker at `target` holds the declared keys (one per name, with the declared
 * permissions), the declared workspaces (one per name and parent) and nothing else but the admin
 * key, that each is the object the stack tracks, and that each pair's public key is the key's current
 * one on the broker.
 */
export async function expectDeclaredState(
  target: { url: string; adminKey: string },
  spec: Spec,
  view: StackView,
  publicKeyOf: (keyId: number) => Promise<string>,
): Promise<void> {
  const keys = (await listKeys(target)).filter((k) => k.key !== target.adminKey);
  expect(sorted(keys.map((k) => k.name)), "every key on the broker is declared, each once").toEqual(
    sorted(spec.keys.map((k) => k.name)),
  );
  expect(keys, "no key name appears twice").toHaveLength(spec.keys.length);
  for (const declared of spec.keys) {
    const record = keys.find((k) => k.name === declared.name);
    expect(record?.id, `the stack tracks the broker's key ${declared.name}`).toBe(view.keyIds[declared.name]);
    expect(record?.type).toBe(declared.type);
    expect({
      send: sorted(record?.permissions.send ?? []),
      receive: sorted(record?.permissions.receive ?? []),
    }).toEqual({
      send: sorted(declared.permissions.send),
      receive: sorted(declared.permissions.receive),
    });
  }

  const workspaces = await listWorkspaces(target);
  expect(workspaces, "every workspace on the broker is declared, each once").toHaveLength(
    spec.workspaces.length,
  );
  for (const declared of spec.workspaces) {
    const parentId = declared.parent === undefined ? 0 : view.workspaceIds[declared.parent];
    const matches = workspaces.filter((w) => w.name === declared.name && w.parentId === parentId);
    expect(
      matches.map((w) => w.id),
      `workspace ${declared.name} exists once and is tracked`,
    ).toEqual([view.workspaceIds[declared.name]]);
  }

  for (const pair of spec.pairs) {
    const keyId = view.keyIds[pair.key];
    expect(keyId, `key of pair ${pair.key}`).toBeDefined();
    expect(await publicKeyOf(keyId!), `the recorded pair of ${pair.key} is its current one`).toBe(
      view.publicKeys[pair.key],
    );
  }
}

/** Asserts that the keys are revoked (empty permissions) after a destroy; the API cannot delete them. */
export async function expectRevoked(
  target: { url: string; adminKey: string },
  names: readonly string[],
): Promise<void> {
  const keys = await listKeys(target);
  for (const name of names) {
    const matching = keys.filter((k) => k.name === name);
    expect(matching, `key ${name} still exists once`).toHaveLength(1);
    expect(matching[0]?.permissions).toMatchObject({ send: [], receive: [] });
  }
}
