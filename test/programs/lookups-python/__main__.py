"""The look-up functions with the generated SDK `pulumi_broker`: test/programs/lookups-native in Python."""

import pulumi
import pulumi_broker as broker

config = pulumi.Config()
mode = config.require("mode")

if mode == "missing":
    pulumi.export("missing", broker.get_workspace_output(path="/platform/nowhere").id)
elif mode == "duplicate":
    pulumi.export("twin", broker.get_access_key_output(name="twin").id)
else:
    platform = broker.get_workspace_output(path="/platform")
    team = broker.Workspace("team", name=config.require("teamName"), parent_id=platform.id)
    key = broker.get_access_key_output(name="orders-svc")
    other = broker.Provider(
        "other", base_url=config.require("otherUrl"), api_key=config.require_secret("otherKey")
    )
    elsewhere = broker.get_workspace_output(
        path="/elsewhere", opts=pulumi.InvokeOutputOptions(provider=other)
    )
    pulumi.export("platformId", platform.id)
    pulumi.export("teamParentId", team.parent_id)
    pulumi.export("keyValue", key.access_key)
    pulumi.export("keyPermissions", key.permissions)
    pulumi.export("keyValid", broker.verify_access_key_output(access_key=key.access_key).valid)
    pulumi.export(
        "unknownValid", broker.verify_access_key_output(access_key="not-a-key-of-this-broker").valid
    )
    pulumi.export("otherPath", elsewhere.path)
    pulumi.export(
        "workspaceNames",
        broker.get_workspaces_output().workspaces.apply(lambda ws: [w.name for w in ws]),
    )
    pulumi.export(
        "serviceKeyNames",
        broker.get_access_keys_output(type="SERVICE", event_path_prefix="orders/").access_keys.apply(
            lambda keys: [k.name for k in keys]
        ),
    )
