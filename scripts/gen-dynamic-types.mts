// Writes the types of the dynamic resource classes (src/dynamic/resources/generated/) from the
// resource declarations (src/core/declarations/), as Pulumi's generators write the SDKs from
// schema.json: for each resource its `<Name>Args` interface and an abstract `<Name>Base` class that
// declares every output, and for the shared object types their `<Type>Args` interfaces, each member
// with the declaration's documentation (scripts/lib/dynamic-types.mts renders them). The
// hand-written classes (src/dynamic/resources/<resource>.ts) extend the base and keep only behaviour.
//
//   npm run gen:dynamic              build, then write src/dynamic/resources/generated/
//   npm run gen:dynamic -- --check   fail when a generated file differs from what the declarations give
//
// test/unit/dynamic-classes.test.ts checks the same in every test run.
//
// The types are spelled out (`pulumi.Output<string | undefined>`), never mapped from the declarations:
// a project without its own `typescript` compiles the package's declaration files with the
// TypeScript 3.8 that @pulumi/pulumi vendors, which reads mapped and template-literal types as `any`.
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { GENERATED_DIR, renderDynamicTypes, type Declarations } from "./lib/dynamic-types.mts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
// From the build: Node runs this script as TypeScript, but not src/'s extensionless imports.
const { RESOURCES, SHARED_TYPES } = (await import(
  path.join(root, "dist", "core", "declarations", "index.js")
)) as { RESOURCES: Declarations["resources"]; SHARED_TYPES: Declarations["sharedTypes"] };

const dir = path.join(root, GENERATED_DIR);
const files = await renderDynamicTypes({ resources: RESOURCES, sharedTypes: SHARED_TYPES }, root);
const present = fs.existsSync(dir) ? fs.readdirSync(dir) : [];
const extra = present.filter((name) => !files.has(name));

if (process.argv.includes("--check")) {
  const stale = [...files]
    .filter(([name, text]) => {
      const file = path.join(dir, name);
      return !fs.existsSync(file) || fs.readFileSync(file, "utf8") !== text;
    })
    .map(([name]) => `${name} stale`);
  const problems = [...stale, ...extra.map((name) => `${name} not generated`)];
  if (problems.length > 0) {
    console.error(
      `gen-dynamic-types: ${GENERATED_DIR} differs from what the declarations give (${problems.join(", ")}): run \`npm run gen:dynamic\``,
    );
    process.exit(1);
  }
  console.log(`gen-dynamic-types: ${GENERATED_DIR} matches the declarations`);
} else {
  fs.mkdirSync(dir, { recursive: true });
  for (const name of extra) fs.rmSync(path.join(dir, name));
  for (const [name, text] of files) fs.writeFileSync(path.join(dir, name), text);
  console.log(`gen-dynamic-types: wrote ${[...files.keys()].join(", ")} in ${GENERATED_DIR}`);
}
