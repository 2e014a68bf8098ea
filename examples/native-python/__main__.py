"""The native door in Python: the resources of the `broker` plugin, through the SDK `pulumi_broker`.

The same program in TypeScript, Go and YAML is in examples/native-typescript, native-go and native-yaml.
"""

import pulumi
import pulumi_broker as broker

platform = broker.Workspace("platform", name="platform")
orders = broker.Workspace("orders", name="orders", parent_id=platform.workspace_id)

orders_service = broker.AccessKey(
    "orders-service",
    name="orders-service",
    type=broker.AccessKeyType.SERVICE,
    permissions=broker.PermissionsArgs(send=["orders/created"], receive=["payments/*"]),
)
# Change the trigger's value to give the key a new pair.
orders_pair = broker.ServiceKeyPair(
    "orders-pair",
    access_key=orders_service.access_key,
    rotation_triggers={"generation": "1"},
)

pulumi.export("ordersPath", orders.path)
pulumi.export("ordersServiceId", orders_service.access_key_id)
pulumi.export("ordersKey", orders_service.access_key)  # a secret
pulumi.export("ordersPublicKey", orders_pair.public_key)
pulumi.export("ordersPrivateKey", orders_pair.private_key)  # a secret
