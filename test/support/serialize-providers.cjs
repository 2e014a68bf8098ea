// Runs in a real `node` process inside a package fixture (see harness/package-fixture.mts): registers one
// resource of each type under Pulumi's mocks and prints, as JSON, the `__provider` text that
// `dynamic.Resource` serialized and the additionalSecretOutputs the resource registered with.
// It must not run inside vitest, whose module loader makes the serializer inline functions.
"use strict";
// Everything is required from the fixture (the working directory), never from this file's place in
// the repository: a second copy of @pulumi/pulumi would serialize differently from the one the
// package uses.
const fromProject = require("node:module").createRequire(
  require("node:path").join(process.cwd(), "package.json"),
);
const pulumi = fromProject("@pulumi/pulumi");
const { MockMonitor } = fromProject("@pulumi/pulumi/runtime/mocks");

const registered = {};
const original = MockMonitor.prototype.registerResource;
MockMonitor.prototype.registerResource = function (req, callback) {
  registered[req.getName()] = { additionalSecretOutputs: req.getAdditionalsecretoutputsList() };
  return original.call(this, req, callback);
};

pulumi.runtime
  .setMocks(
    {
      newResource(args) {
        if (args.inputs.__provider !== undefined) registered[args.name].provider = args.inputs.__provider;
        return { id: `${args.name}-id`, state: args.inputs };
      },
      call: (args) => args.inputs,
    },
    "project",
    "stack",
    false,
  )
  .then(() => {
    const broker = fromProject("pulumi-broker-config");
    const userSecret = process.argv[2] === "--user-secret-outputs" ? ["name"] : [];
    const resources = [
      new broker.Workspace("Workspace", { name: "w" }),
      new broker.AccessKey(
        "AccessKey",
        { name: "k", type: "SERVICE" },
        { additionalSecretOutputs: userSecret },
      ),
      new broker.ServiceKeyPair(
        "ServiceKeyPair",
        { accessKey: pulumi.secret("bks_x") },
        { additionalSecretOutputs: userSecret },
      ),
    ];
    pulumi.all(resources.map((r) => r.id)).apply(() => {
      process.stdout.write(JSON.stringify(registered));
    });
  });
