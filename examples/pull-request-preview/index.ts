import { AccessKey, Workspace } from "pulumi-broker-config";

// `pulumi preview` of this program needs no broker credentials: inputs are validated (names,
// event paths, permissions) without a single request. It still needs the stack's state backend and
// secrets passphrase, which is why .github/workflows/preview.yml previews only pull requests from
// branches of the repository, not from forks. The workflow previews it with the broker policy pack
// and policy-config.json: this program's top-level wildcards are allowed there, an ACCOUNT key would
// fail the check (docs/policy-pack.md).
const team = new Workspace("analytics", { name: "analytics" });

new AccessKey("analytics-ingest", {
  name: "analytics-ingest",
  type: "SERVICE",
  permissions: { receive: ["orders/*", "payments/*"] },
});

export const teamPath = team.path;
