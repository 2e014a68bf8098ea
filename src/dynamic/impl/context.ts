import type { CoreContext } from "../../core/context";
import { STACK_SETTING_NAMES } from "../../settings/connection";
import { authenticatesWith, brokerClient, configuredBaseUrl } from "./configured-client";
import { warn } from "./host-log";

/**
 * The core's context in the dynamic provider host: the connection of this process (from the stack
 * configuration given to `configure`, or the environment) and warnings through the engine's log.
 */
export const dynamicContext: CoreContext = {
  client: brokerClient,
  configuredBaseUrl,
  authenticatesWith,
  settingNames: STACK_SETTING_NAMES,
  log: { warn },
};
