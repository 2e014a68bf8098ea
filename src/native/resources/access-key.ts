/** `broker:index:AccessKey` in the native provider, over the core's AccessKey operations. */
import { accessKeyOperations, isUnfinished } from "../../core/access-key";
import { ACCESS_KEY } from "../../core/declarations";
import type { ResourceAdapter } from "../resource-adapter";
import { coreAdapter } from "./core-adapter";

/**
 * The AccessKey adapter. Permission lists compare as sets, so the detailed diff names the entries
 * added and removed (`permissions.send[1]`). An update changes only `permissions` (as the server
 * stores them, which the preview already knows from the normalised inputs): the key's value, id
 * and key pair stay known, so dependents such as a ServiceKeyPair preview as unchanged. A key kept
 * by a create whose read-back failed gets its `createdAt` from that update.
 */
export const accessKey: ResourceAdapter = coreAdapter(ACCESS_KEY.token, accessKeyOperations, {
  recomputedByUpdate: (_diff, old) => (isUnfinished(old) ? ["createdAt"] : []),
});
