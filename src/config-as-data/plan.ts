/**
 * From a document to the resources that deploy it: one Workspace per node of the tree and one
 * AccessKey per key, with stable resource names and every default applied. Pure: no Pulumi, no I/O,
 * so the mapping is tested on its own.
 *
 * Resource names (inside a `BrokerConfig` named `<component>`):
 * - workspace: `<component>:workspace:<path>`, e.g. `prod:workspace:/platform/orders`;
 * - access key: `<component>:access-key:<name>`, e.g. `prod:access-key:orders-svc`.
 *
 * A resource's identity in the stack is its name, so renaming a workspace or a key in the file, or
 * moving a workspace under another parent, replaces it: the old one leaves the stack (a workspace is
 * only forgotten, a key the stack created revoked unless `onDelete: retain`, one it adopted left as found
 * unless `onDelete: revoke`) and a new one is created or adopted.
 */
import { DEFAULT_ADOPT, workspacePath, type AccessKeyType, type OnDelete, type Permissions } from "../model";
import type { BrokerConfigDocument, WorkspaceSpec } from "./types";

/** A workspace to declare. Parents come before their children in {@link BrokerConfigPlan.workspaces}. */
export interface PlannedWorkspace {
  /** The Pulumi resource name. */
  resourceName: string;
  /** The full path, such as `/platform/orders`: the key of the component's `workspaces` output. */
  path: string;
  name: string;
  /** The parent's path; absent for a top-level workspace. */
  parentPath?: string;
  adopt: boolean;
}

/** An access key to declare. */
export interface PlannedAccessKey {
  /** The Pulumi resource name. */
  resourceName: string;
  name: string;
  type: AccessKeyType;
  /** Every field present (empty when the document leaves it out). */
  permissions: Permissions;
  adopt: boolean;
  /** Absent when neither the key nor the document says: the resource's default applies (see `effectiveOnDelete`). */
  onDelete?: OnDelete;
}

/** The resources a document declares. */
export interface BrokerConfigPlan {
  /** Depth-first, parents before children, in document order. */
  workspaces: PlannedWorkspace[];
  /** In document order. */
  accessKeys: PlannedAccessKey[];
}

/**
 * The inputs of a planned workspace's `Workspace` resource, the same in both doors (`Id` is the
 * door's type of the parent's `workspaceId`, an output of the parent resource).
 */
export interface PlannedWorkspaceInputs<Id> {
  name: string;
  /** Absent for a top-level workspace. */
  parentId?: Id;
  adopt: boolean;
}

/** The inputs of a planned access key's `AccessKey` resource, the same in both doors. */
export interface PlannedAccessKeyInputs {
  name: string;
  type: AccessKeyType;
  permissions: Permissions;
  adopt: boolean;
  /** Absent when neither the key nor the document says: the resource's default applies (see `effectiveOnDelete`). */
  onDelete?: OnDelete;
}

/** How one door declares the resources of a plan: its resource classes, and a workspace's id. */
export interface PlanDeclarations<W, K, Id> {
  /** Declares the door's `Workspace` resource of a planned workspace, with these inputs. */
  workspace(planned: PlannedWorkspace, inputs: PlannedWorkspaceInputs<Id>): W;
  /** Declares the door's `AccessKey` resource of a planned key, with these inputs. */
  accessKey(planned: PlannedAccessKey, inputs: PlannedAccessKeyInputs): K;
  /** A declared workspace's id: its children's `parentId`, and its entry in the `workspaces` output. */
  workspaceId(workspace: W): Id;
}

/**
 * What {@link declarePlan} declared, with the accessor of a workspace's id it was given, so that
 * what reads the resources afterwards (`brokerConfigOutputs`) asks the same one.
 */
export interface DeclaredPlan<W, K, Id> {
  /** The workspaces by path, such as `/platform/orders`. */
  workspaces: Record<string, W>;
  /** The access keys by key name. */
  accessKeys: Record<string, K>;
  /** A declared workspace's id: {@link PlanDeclarations.workspaceId} as given. */
  workspaceId(workspace: W): Id;
}

/**
 * Declares the resources of `plan` through `declare` (one door's resource classes), parents before
 * children, each workspace given its parent's id: the one walk of a plan that `BrokerConfig` and
 * the native `Environment` both use.
 *
 * @returns The declared resources (workspaces by path, access keys by key name) and `declare`'s
 *   accessor of a workspace's id.
 */
export function declarePlan<W, K, Id>(
  plan: BrokerConfigPlan,
  declare: PlanDeclarations<W, K, Id>,
): DeclaredPlan<W, K, Id> {
  const workspaces: Record<string, W> = {};
  for (const planned of plan.workspaces) {
    // Parents come first in the plan, so a child's parent is always declared already.
    const parent = planned.parentPath === undefined ? undefined : workspaces[planned.parentPath];
    workspaces[planned.path] = declare.workspace(planned, {
      name: planned.name,
      ...(parent === undefined ? {} : { parentId: declare.workspaceId(parent) }),
      adopt: planned.adopt,
    });
  }
  const accessKeys: Record<string, K> = {};
  for (const planned of plan.accessKeys) {
    accessKeys[planned.name] = declare.accessKey(planned, {
      name: planned.name,
      type: planned.type,
      permissions: planned.permissions,
      adopt: planned.adopt,
      ...(planned.onDelete === undefined ? {} : { onDelete: planned.onDelete }),
    });
  }
  // Called through `declare`, so that an accessor written as a method keeps its `this`.
  return { workspaces, accessKeys, workspaceId: (workspace) => declare.workspaceId(workspace) };
}

/** `onDelete` as a planned key holds it: only when the document gives it. */
function onDeleteOf(onDelete: OnDelete | undefined): { onDelete?: OnDelete } {
  return onDelete === undefined ? {} : { onDelete };
}

/** The resource name of the workspace at `path` (such as `/platform/orders`) in component `component`. */
export function workspaceResourceName(component: string, path: string): string {
  return `${component}:workspace:${path}`;
}

/** The resource name of the access key named `keyName` in component `component`. */
export function accessKeyResourceName(component: string, keyName: string): string {
  return `${component}:access-key:${keyName}`;
}

/**
 * Plans the resources of a *valid* document (see {@link loadBrokerConfig}): `adopt` defaults to the
 * parent workspace's, then the document's, then `false`; `onDelete` to the document's, then absent: the resource then revokes a key it created and leaves one
 * it adopted as it was found.
 *
 * @param doc A validated document.
 * @param component The name of the `BrokerConfig` component: the prefix of every resource name.
 */
export function planBrokerConfig(doc: BrokerConfigDocument, component: string): BrokerConfigPlan {
  const workspaces: PlannedWorkspace[] = [];
  const visit = (
    nodes: readonly WorkspaceSpec[],
    parentPath: string | undefined,
    adoptDefault: boolean,
  ): void => {
    for (const node of nodes) {
      const path = workspacePath(parentPath ?? "/", node.name);
      const adopt = node.adopt ?? adoptDefault;
      workspaces.push({
        resourceName: workspaceResourceName(component, path),
        path,
        name: node.name,
        ...(parentPath === undefined ? {} : { parentPath }),
        adopt,
      });
      visit(node.children ?? [], path, adopt);
    }
  };
  visit(doc.workspaces ?? [], undefined, doc.adopt ?? DEFAULT_ADOPT);
  const accessKeys = (doc.accessKeys ?? []).map((key): PlannedAccessKey => ({
    resourceName: accessKeyResourceName(component, key.name),
    name: key.name,
    type: key.type,
    permissions: {
      send: [...(key.permissions?.send ?? [])],
      receive: [...(key.permissions?.receive ?? [])],
      resources: { ...key.permissions?.resources },
    },
    adopt: key.adopt ?? doc.adopt ?? DEFAULT_ADOPT,
    ...onDeleteOf(key.onDelete ?? doc.onDelete),
  }));
  return { workspaces, accessKeys };
}
