"""Exports a secret taken from stack config, and which Python and pulumi SDK ran the program."""

import importlib.metadata
import platform

import pulumi

config = pulumi.Config()

pulumi.export("greeting", f"hello from {config.require('who')}")
# require_secret keeps the value wrapped: the engine must store it encrypted.
pulumi.export("token", config.require_secret("token"))
pulumi.export("pythonVersion", platform.python_version())
pulumi.export("pulumiSdkVersion", importlib.metadata.version("pulumi"))
