"""One access key through the default provider or an explicit one, for the messages test.

With the stack config `explicit` true, a `broker.Provider("prod")` gets the base URL and API key from
the config `providerUrl` and `providerKey` (secret), each only when set; otherwise the default provider
reads `broker:baseUrl` and `broker:apiKey`.
"""

import pulumi
import pulumi_broker as broker

config = pulumi.Config()
opts = None
if config.get_bool("explicit"):
    args = {}
    if config.get("providerUrl") is not None:
        args["base_url"] = config.get("providerUrl")
    if config.get_secret("providerKey") is not None:
        args["api_key"] = config.get_secret("providerKey")
    opts = pulumi.ResourceOptions(provider=broker.Provider("prod", **args))

key = broker.AccessKey("messages-key", name="messages-key", type="ACCOUNT", opts=opts)
pulumi.export("keyId", key.access_key_id)
