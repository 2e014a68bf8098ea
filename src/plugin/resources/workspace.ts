/** `broker:index:Workspace` in the native provider, over `impl/workspace`. */
import type { ResourceAdapter } from "../resource-adapter";
import * as impl from "../../impl/workspace";
import { dynamicAdapter } from "./dynamic-core";

/** The Workspace adapter: an in-place update changes only settings kept in the stack. */
export const workspace: ResourceAdapter = dynamicAdapter({
  token: "broker:index:Workspace",
  impl,
});
