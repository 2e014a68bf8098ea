// Prints, as JSON, the `__provider` text that `dynamic.Resource` serializes for each resource type.
// Runs in a real `node` process whose working directory is a package fixture (see harness/package-fixture.mts):
// the serializer behaves differently under other module loaders, and only emits a short require()
// for a package it finds in a real node_modules.
//
//   node serialize.cjs ours         our three resource types
//   node serialize.cjs naive        an object-literal provider closing over a client-like object
//   node serialize.cjs naive-real   the same, closing over a real BrokerClient of the package
//   node serialize.cjs noop         a provider that does nothing: the provider host's own floor
//
// Output: {"<name>": {"bytes": n, "text": "..."}} or {"<name>": {"error": "..."}}.
"use strict";
const fromProject = require("node:module").createRequire(
  require("node:path").join(process.cwd(), "package.json"),
);
const pulumi = fromProject("@pulumi/pulumi");
const { Buffer } = require("node:buffer");

/** A made-up credential: if it shows up in the serialized text, the provider leaks it into state. */
const NAIVE_API_KEY = "bka_naive_bench_credential_0123456789";

const results = {};

function naiveProvider(client) {
  // The seven methods, written the way a first attempt at a dynamic provider usually is: methods of
  // an object literal, each calling a client captured from the enclosing scope.
  return {
    async configure() {},
    async check(_olds, news) {
      return { inputs: news };
    },
    async diff(_id, olds, news) {
      return { changes: JSON.stringify(olds.permissions) !== JSON.stringify(news.permissions) };
    },
    async create(inputs) {
      const created = await client.call("POST", "/access-key", {
        name: inputs.name,
        type: inputs.type,
        permissions: inputs.permissions,
      });
      const record = await client.call("GET", `/access-key/${created.accessKey}/permissions`);
      return { id: String(record.id), outs: { ...inputs, accessKey: record.key } };
    },
    async read(id, props) {
      const record = await client.call("GET", `/access-key/${props.accessKey}/permissions`);
      return { id, props: { ...props, permissions: record.permissions } };
    },
    async update(_id, olds, news) {
      await client.call("POST", `/access-key/${olds.accessKey}/permissions`, news.permissions);
      return { outs: { ...olds, permissions: news.permissions } };
    },
    async delete(_id, props) {
      await client.call("POST", `/access-key/${props.accessKey}/permissions`, { send: [], receive: [] });
    },
  };
}

function clientLike() {
  const { request } = fromProject("undici");
  return {
    baseUrl: "http://127.0.0.1:4010/v1",
    apiKey: NAIVE_API_KEY,
    async call(method, path, body) {
      const response = await request(this.baseUrl + path, {
        method,
        headers: { "x-api-key": this.apiKey, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return response.body.json();
    },
  };
}

function realClient() {
  const { BrokerClient } = fromProject("pulumi-broker-config/client");
  const client = new BrokerClient({ baseUrl: "http://127.0.0.1:4010/v1", apiKey: NAIVE_API_KEY });
  return {
    client,
    call: (method, path, body) =>
      client[method === "GET" ? "getAccessKeyPermissions" : "updateAccessKeyPermissions"](path, body),
  };
}

function resourcesFor(which) {
  if (which === "ours") {
    const broker = fromProject("pulumi-broker-config");
    return [
      new broker.Workspace("Workspace", { name: "w" }),
      new broker.AccessKey("AccessKey", { name: "k", type: "SERVICE" }),
      new broker.ServiceKeyPair("ServiceKeyPair", { accessKey: pulumi.secret("bks_x") }),
    ];
  }
  if (which === "noop") {
    const noop = {
      async create(inputs) {
        return { id: inputs.name, outs: inputs };
      },
    };
    return [
      new pulumi.dynamic.Resource(noop, "noop", { name: "k", type: "SERVICE" }, undefined, "bench", "Noop"),
    ];
  }
  const client = which === "naive" ? clientLike() : realClient();
  return [
    new pulumi.dynamic.Resource(
      naiveProvider(client),
      which,
      { name: "k", type: "SERVICE" },
      undefined,
      "bench",
      "Naive",
    ),
  ];
}

function report() {
  for (const entry of Object.values(results)) {
    if (entry.text !== undefined) {
      entry.bytes = Buffer.byteLength(entry.text);
      entry.containsApiKey = entry.text.includes(NAIVE_API_KEY);
    }
  }
  process.stdout.write(JSON.stringify(results));
}

const which = process.argv[2] ?? "ours";
// A provider that cannot be serialized fails its resource's registration asynchronously.
process.on("unhandledRejection", (error) => {
  results[which] = {
    error: String(error?.message ?? error)
      .split("\n")
      .slice(0, 6)
      .join("\n"),
  };
  report();
  process.exit(0);
});

pulumi.runtime
  .setMocks(
    {
      newResource(args) {
        if (args.inputs.__provider !== undefined) results[args.name] = { text: args.inputs.__provider };
        return { id: `${args.name}-id`, state: args.inputs };
      },
      call: (args) => args.inputs,
    },
    "project",
    "stack",
    false,
  )
  .then(() => {
    const resources = resourcesFor(which);
    pulumi.all(resources.map((r) => r.id)).apply(() => {
      report();
      // A captured real client holds an open connection pool.
      process.exit(0);
    });
  });
