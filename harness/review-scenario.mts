/**
 * The change the access review is tried on (issue #47), written once and spoken in every form a user
 * writes it: the `spec` stack config the spec-driven test programs read (test/programs/broker,
 * test/programs/native, test/programs/spec-python, test/programs/spec-go), a Pulumi YAML program of
 * `broker:index:*` resources, and a pair of configuration documents (the `export` format, which an
 * `Environment` deploys and `broker-config review --from/--to` reads).
 *
 * Before → after, each kind of change the review must name once:
 * - `orders-svc` gains `send` `orders/shipped` (a grant added) and `receive` `payments/captured`
 *   becomes `payments/*` (widened): it broadens;
 * - `billing-svc` loses `send` `billing/invoiced` (a grant removed) and `receive` `orders/*` becomes
 *   `orders/created` (narrowed): it narrows;
 * - `legacy-svc` leaves the program: revoked (it narrows);
 * - `shipping-svc` is new (it broadens);
 * - `ops-admin` gets a new `rotationTriggers` value: rotated, its access the same (documents cannot
 *   rotate a key, so the documents leave it as it is);
 * - workspace `billing` is renamed `invoicing`, and `orders` moves from under `platform` to under `data`.
 *
 * Shared by scripts/gen-preview-fixtures.mts (the preview JSON fixtures) and
 * test/e2e/access-review.test.ts.
 */
import { stringify } from "yaml";

/** A workspace of a scenario spec; `parent` names an earlier workspace's resource. */
export interface ScenarioWorkspace {
  readonly name: string;
  /** The resource's name in the program when it differs from `name` (a rename keeps it). */
  readonly resource?: string;
  readonly parent?: string;
}

/** An access key of a scenario spec. */
export interface ScenarioKey {
  readonly name: string;
  readonly type: "SERVICE" | "ACCOUNT";
  readonly permissions: { readonly send?: readonly string[]; readonly receive?: readonly string[] };
  readonly rotationTriggers?: Readonly<Record<string, string>>;
}

/** What a spec-driven program deploys (its stack config `spec`, as JSON). */
export interface ScenarioSpec {
  readonly workspaces: readonly ScenarioWorkspace[];
  readonly keys: readonly ScenarioKey[];
}

/** The declared state before the change. */
export const BEFORE: ScenarioSpec = {
  workspaces: [
    { name: "platform" },
    { name: "data" },
    { name: "orders", parent: "platform" },
    { name: "billing", parent: "platform" },
  ],
  keys: [
    {
      name: "orders-svc",
      type: "SERVICE",
      permissions: { send: ["orders/created"], receive: ["payments/captured"] },
    },
    {
      name: "billing-svc",
      type: "SERVICE",
      permissions: { send: ["billing/invoiced"], receive: ["orders/*"] },
    },
    { name: "legacy-svc", type: "SERVICE", permissions: { receive: ["audit/*"] } },
    {
      name: "ops-admin",
      type: "ACCOUNT",
      permissions: { receive: ["audit/*"] },
      rotationTriggers: { generation: "1" },
    },
  ],
};

/** The declared state after the change (see the module's comment for what changed). */
export const AFTER: ScenarioSpec = {
  workspaces: [
    { name: "platform" },
    { name: "data" },
    { name: "orders", parent: "data" },
    { name: "invoicing", resource: "billing", parent: "platform" },
  ],
  keys: [
    {
      name: "orders-svc",
      type: "SERVICE",
      permissions: { send: ["orders/created", "orders/shipped"], receive: ["payments/*"] },
    },
    { name: "billing-svc", type: "SERVICE", permissions: { send: [], receive: ["orders/created"] } },
    {
      name: "ops-admin",
      type: "ACCOUNT",
      permissions: { receive: ["audit/*"] },
      rotationTriggers: { generation: "2" },
    },
    { name: "shipping-svc", type: "SERVICE", permissions: { send: ["shipping/*"] } },
  ],
};

/**
 * The drift the fixtures make behind the stack's back after `up` of {@link BEFORE}: `billing-svc`
 * gains `receive` `payments/*` on the broker (the whole lists are sent, as the API replaces them).
 */
export const DRIFT = {
  key: "billing-svc",
  permissions: { send: ["billing/invoiced"], receive: ["orders/*", "payments/*"] },
} as const;

/** The resource name of a workspace in a program. */
function resourceOf(workspace: ScenarioWorkspace): string {
  return workspace.resource ?? workspace.name;
}

/**
 * A Pulumi YAML program (`runtime: yaml`) declaring `spec` as `broker:index:*` resources: a user's
 * program before or after their edit. Workspace parents are `${<parent>.workspaceId}` references,
 * as users write them.
 */
export function yamlProgram(projectName: string, spec: ScenarioSpec): string {
  const resources: Record<string, unknown> = {};
  for (const workspace of spec.workspaces) {
    resources[resourceOf(workspace)] = {
      type: "broker:index:Workspace",
      properties: {
        name: workspace.name,
        ...(workspace.parent === undefined ? {} : { parentId: `\${${workspace.parent}.workspaceId}` }),
      },
    };
  }
  for (const key of spec.keys) {
    resources[key.name] = {
      type: "broker:index:AccessKey",
      properties: {
        name: key.name,
        type: key.type,
        permissions: key.permissions,
        ...(key.rotationTriggers === undefined ? {} : { rotationTriggers: key.rotationTriggers }),
      },
    };
  }
  return stringify({
    name: projectName,
    runtime: "yaml",
    description: "The access review's scenario (harness/review-scenario.mts) as broker:index:* resources.",
    resources,
  });
}

/** A workspace of a configuration document: a node of the tree. */
interface DocumentWorkspace {
  name: string;
  children?: DocumentWorkspace[];
}

/**
 * `spec` as a configuration document (the `export` format, version 1): the workspace tree nested
 * by parent, and the keys with their permissions. Rotation has no words in a document, so
 * `rotationTriggers` is left out.
 */
export function scenarioDocument(spec: ScenarioSpec): string {
  const nodes = new Map<string, DocumentWorkspace>();
  const roots: DocumentWorkspace[] = [];
  for (const workspace of spec.workspaces) {
    const node: DocumentWorkspace = { name: workspace.name };
    nodes.set(resourceOf(workspace), node);
    if (workspace.parent === undefined) roots.push(node);
    else {
      const parent = nodes.get(workspace.parent);
      if (parent === undefined)
        throw new Error(`workspace ${workspace.name}: parent ${workspace.parent} is declared later`);
      (parent.children ??= []).push(node);
    }
  }
  return stringify({
    version: 1,
    // The scenario turns a SERVICE key into an ACCOUNT key: a document must say it may hold one.
    ...(spec.keys.some((key) => key.type === "ACCOUNT") ? { allowAccountKeys: true } : {}),
    workspaces: roots,
    accessKeys: spec.keys.map((key) => ({
      name: key.name,
      type: key.type,
      permissions: { send: [...(key.permissions.send ?? [])], receive: [...(key.permissions.receive ?? [])] },
    })),
  });
}
