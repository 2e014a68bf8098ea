import type * as pulumi from "@pulumi/pulumi";
import { WORKSPACE, DYNAMIC_MODULE } from "../../core/declarations";
import * as workspaceProvider from "../providers/workspace";
// The args and outputs are generated from the declaration (`npm run gen:dynamic`); this file keeps
// the behaviour.
import { WorkspaceBase } from "./generated/workspace";
import type { WorkspaceArgs } from "./generated/workspace";
import { dynamicProps } from "./outputs";

export type { WorkspaceInputs, WorkspaceOutputs } from "../impl/workspace";
export type { WorkspaceArgs } from "./generated/workspace";

/**
 * A workspace of the broker: a node in the workspace tree.
 *
 * Created with `POST /workspace` and found again by name and parent (the API returns no id).
 * A change of `name` or `parentId` replaces it. Refresh detects a rename (shown by the next preview)
 * and removal (it leaves the stack). The API has no delete endpoint: destroy only forgets the
 * workspace and prints a warning.
 *
 * `pulumi import` does not work for dynamic resources: `adopt` takes over an existing workspace
 * (one made outside Pulumi, or by an exported configuration) instead.
 *
 * @example
 * ```ts
 * const team = new Workspace("team", { name: "team" });
 * const orders = new Workspace("orders", { name: "orders", parentId: team.workspaceId });
 * ```
 */
export class Workspace extends WorkspaceBase {
  /**
   * @param name The unique name of the resource in the stack.
   * @param args The workspace's arguments.
   * @param opts Resource options.
   */
  constructor(name: string, args: WorkspaceArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      workspaceProvider,
      name,
      dynamicProps(WORKSPACE, args, name, opts ?? {}),
      opts,
      DYNAMIC_MODULE,
      WORKSPACE.name,
    );
  }
}
