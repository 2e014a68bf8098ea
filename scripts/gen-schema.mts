// Writes schema.json, the `broker` package's Pulumi schema, from the declarations of its resources
// and settings (src/core/declarations/, src/settings/declarations.ts), formatted as Prettier formats
// the rest of the repository.
//
//   npm run gen:schema              build, then write schema.json
//   npm run gen:schema -- --check   fail when schema.json differs from what the declarations give
//
// test/unit/package-schema.test.ts checks the same in every test run.
//
// Then regenerate the SDKs (`npm run gen:sdk`, `npm run gen:native`): they are made from schema.json.
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import * as prettier from "prettier";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
// From the build: Node runs this script as TypeScript, but not src/'s extensionless imports.
const { renderPackageSchema } = (await import(
  path.join(root, "dist", "core", "declarations", "package-schema.js")
)) as { renderPackageSchema: () => unknown };
const file = path.join(root, "schema.json");
const options = (await prettier.resolveConfig(file)) ?? {};
const text = await prettier.format(JSON.stringify(renderPackageSchema(), null, 2), {
  ...options,
  filepath: file,
});

if (process.argv.includes("--check")) {
  const current = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "";
  if (current !== text) {
    console.error(
      "gen-schema: schema.json differs from what the declarations give: run `npm run gen:schema`, then `npm run gen:sdk` and `npm run gen:native`",
    );
    process.exit(1);
  }
  console.log("gen-schema: schema.json matches the declarations");
} else {
  fs.writeFileSync(file, text);
  console.log("gen-schema: wrote schema.json");
}
