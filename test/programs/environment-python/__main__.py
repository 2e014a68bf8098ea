"""One Environment with the generated SDK `pulumi_broker`, deploying the document in the file the
stack config `documentFile` names."""

import pulumi
import pulumi_broker as broker

config = pulumi.Config()
document_file = config.require("documentFile")
with open(document_file, encoding="utf-8") as document:
    environment = broker.Environment(
        "environment", document=document.read(), document_name=document_file
    )

pulumi.export("workspaces", environment.workspaces)
pulumi.export("accessKeys", environment.access_keys)
pulumi.export("accessKeyValues", environment.access_key_values)  # a secret
pulumi.export("privateKeys", environment.private_keys)  # a secret
