"""The README's Python quickstart, with the generated SDK `pulumi_broker` (sdk/python).

The `send` permissions of the SERVICE key come from the stack config `ordersSend` (a JSON list),
so the end-to-end test changes the declared permissions by changing config.
"""

import pulumi
import pulumi_broker as broker

config = pulumi.Config()
orders_send = config.get_object("ordersSend") or ["orders/created"]

platform = broker.Workspace("platform", name="platform")
orders = broker.Workspace("orders", name="orders", parent_id=platform.workspace_id)

orders_service = broker.AccessKey(
    "orders-service",
    name="orders-service",
    type=broker.AccessKeyType.SERVICE,
    permissions=broker.PermissionsArgs(send=orders_send, receive=["payments/*"]),
)
ops_admin = broker.AccessKey(
    "ops-admin",
    name="ops-admin",
    type="ACCOUNT",
    permissions={"receive": ["audit/*"]},
)

orders_pair = broker.ServiceKeyPair(
    "orders-pair",
    access_key=orders_service.access_key,
    rotation_triggers={"generation": "1"},
)

pulumi.export("platformId", platform.workspace_id)
pulumi.export("ordersId", orders.workspace_id)
pulumi.export("ordersPath", orders.path)
pulumi.export("ordersServiceId", orders_service.access_key_id)
pulumi.export("opsAdminId", ops_admin.access_key_id)
pulumi.export("ordersKey", orders_service.access_key)  # a secret
pulumi.export("opsAdminKey", ops_admin.access_key)  # a secret
pulumi.export("ordersPublicKey", orders_pair.public_key)
pulumi.export("ordersPrivateKey", orders_pair.private_key)  # a secret
