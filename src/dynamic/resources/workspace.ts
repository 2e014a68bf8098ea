import * as pulumi from "@pulumi/pulumi";
import { WORKSPACE, DYNAMIC_MODULE } from "../../core/declarations";
import * as workspaceProvider from "../providers/workspace";
import { dynamicProps } from "./outputs";

export type { WorkspaceInputs, WorkspaceOutputs } from "../impl/workspace";

/** The arguments of a {@link Workspace}. */
export interface WorkspaceArgs {
  /**
   * The workspace's name: non-empty, no leading or trailing whitespace, at most 200 characters.
   * Changing it replaces the workspace (the API cannot rename one).
   *
   * When absent, the workspace is named `<logical name>-<7 random characters>` (a `/` of the logical
   * name becomes `-`), chosen once and kept across updates; a replacement chooses a new one, so the
   * new workspace is created before the old one is forgotten.
   */
  name?: pulumi.Input<string>;
  /**
   * The id of the parent workspace, e.g. another Workspace's `workspaceId`. Absent or 0 makes a
   * top-level workspace. Changing it replaces the workspace.
   * @default 0
   */
  parentId?: pulumi.Input<number>;
  /**
   * Take over an existing workspace with the same name and parent instead of failing because it
   * exists. Use it to bring objects made outside Pulumi (or by an exported configuration) under
   * this stack; `pulumi import` does not work for dynamic resources.
   * @default false
   */
  adopt?: pulumi.Input<boolean>;
  /**
   * Allow this resource to move to a different `broker:baseUrl` than the one it was created at.
   * Without it, a changed endpoint fails the preview, so that a stack pointed at the wrong
   * environment changes nothing.
   * @default false
   */
  allowEndpointChange?: pulumi.Input<boolean>;
}

/**
 * A workspace of the broker: a node in the workspace tree.
 *
 * Created with `POST /workspace` and found again by name and parent (the API returns no id).
 * A change of `name` or `parentId` replaces it. Refresh detects a rename (shown by the next preview)
 * and removal (it leaves the stack). The API has no delete endpoint: destroy only forgets the
 * workspace and prints a warning.
 *
 * @example
 * ```ts
 * const team = new Workspace("team", { name: "team" });
 * const orders = new Workspace("orders", { name: "orders", parentId: team.workspaceId });
 * ```
 */
export class Workspace extends pulumi.dynamic.Resource {
  /** The workspace's numeric id; pass it as another workspace's `parentId`. */
  declare readonly workspaceId: pulumi.Output<number>;
  /** The workspace's name. */
  declare readonly name: pulumi.Output<string>;
  /** The parent's id, 0 for a top-level workspace. */
  declare readonly parentId: pulumi.Output<number>;
  /** The full path, such as `/team/orders`. */
  declare readonly path: pulumi.Output<string>;
  /** When the broker created the workspace (ISO 8601 UTC). */
  declare readonly createdAt: pulumi.Output<string>;
  /** True when this stack adopted an existing workspace instead of creating it. */
  declare readonly adopted: pulumi.Output<boolean>;
  /** The API endpoint the workspace lives at. */
  declare readonly baseUrl: pulumi.Output<string>;

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
