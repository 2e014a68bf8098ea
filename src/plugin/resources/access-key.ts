/** `broker:index:AccessKey` in the native provider, over `impl/access-key`. */
import type { ResourceAdapter } from "../resource-adapter";
import * as impl from "../../impl/access-key";
import { dynamicAdapter } from "./dynamic-core";

/**
 * The AccessKey adapter. Permission lists compare as sets, so the detailed diff names the entries
 * added and removed (`permissions.send[1]`). An update changes only `permissions` (as the server
 * stores them, which the preview already knows from the normalised inputs): the key's value, id
 * and key pair stay known, so dependents such as a ServiceKeyPair preview as unchanged.
 */
export const accessKey: ResourceAdapter = dynamicAdapter({
  token: "broker:index:AccessKey",
  impl,
  setPaths: [
    ["permissions", "send"],
    ["permissions", "receive"],
  ],
});
