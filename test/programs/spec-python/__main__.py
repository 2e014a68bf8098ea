"""The spec-driven program of test/programs/native in Python, with the generated SDK `pulumi_broker`.

What to deploy comes from the stack config `spec` (JSON: `workspaces` with `name`, `resource` and
`parent`, `keys` with `name`, `type`, `permissions` and `rotationTriggers`), so a test changes the
declared state by changing config, as a user edits their program.
"""

import pulumi
import pulumi_broker as broker

spec = pulumi.Config().require_object("spec")

workspaces = {}
for w in spec.get("workspaces", []):
    resource = w.get("resource", w["name"])
    parent = w.get("parent")
    workspaces[resource] = broker.Workspace(
        resource,
        name=w["name"],
        parent_id=workspaces[parent].workspace_id if parent else None,
    )

keys = {}
for k in spec.get("keys", []):
    permissions = k.get("permissions", {})
    keys[k["name"]] = broker.AccessKey(
        k["name"],
        name=k["name"],
        type=k["type"],
        permissions=broker.PermissionsArgs(
            send=permissions.get("send", []), receive=permissions.get("receive", [])
        ),
        rotation_triggers=k.get("rotationTriggers"),
    )

pulumi.export("keyIds", {name: key.access_key_id for name, key in keys.items()})
pulumi.export("workspacePaths", {name: w.path for name, w in workspaces.items()})
