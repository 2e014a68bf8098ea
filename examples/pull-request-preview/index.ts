import { AccessKey, Workspace } from "pulumi-broker-config";

// `pulumi preview` of this program needs no broker credentials: inputs are validated (names,
// event paths, permissions) without a single request, so pull requests from forks can run it.
const team = new Workspace("analytics", { name: "analytics" });

new AccessKey("analytics-ingest", {
  name: "analytics-ingest",
  type: "SERVICE",
  permissions: { receive: ["orders/*", "payments/*"] },
});

export const teamPath = team.path;
