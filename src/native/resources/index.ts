/** The resource types the `broker` provider serves. */
import type { ResourceAdapter } from "../resource-adapter";
import { accessKey } from "./access-key";
import { serviceKeyPair } from "./service-key-pair";
import { workspace } from "./workspace";

/** Every resource adapter, by type token. */
export const BROKER_RESOURCES: readonly ResourceAdapter[] = [workspace, accessKey, serviceKeyPair];
