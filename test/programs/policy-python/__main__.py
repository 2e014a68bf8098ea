"""The policy pack's Python program, with the generated SDK `pulumi_broker`.

Previewed with the broker policy pack by test/e2e/policy-pack.test.ts. What it declares comes from
the stack config `spec` (JSON), as test/programs/policy-native-ts reads it.
"""

import pulumi
import pulumi_broker as broker

spec = pulumi.Config().require_object("spec")

workspaces = {}
for w in spec.get("workspaces", []):
    workspaces[w["resource"]] = broker.Workspace(w["resource"], name=w["name"])

for k in spec.get("keys", []):
    parent = workspaces[k["workspace"]] if "workspace" in k else None
    broker.AccessKey(
        k["resource"],
        name=k["name"],
        type=k["type"],
        permissions=broker.PermissionsArgs(send=k.get("send", []), receive=k.get("receive", [])),
        opts=pulumi.ResourceOptions(parent=parent),
    )
