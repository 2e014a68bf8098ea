/**
 * The package schema (`schema.json` at the package root): the one source of the resources' shapes
 * that the plugin needs at run time (which properties are inputs, which are secret, their defaults).
 */
import { readFileSync } from "node:fs";
import * as path from "node:path";

/** The package root: `schema.json` and `package.json` sit two levels above both `src/native` and `dist/native`. */
const PACKAGE_ROOT = path.join(__dirname, "..", "..");

/**
 * What the release's single executable carries instead of files beside it: `scripts/release/bundle.mts`
 * has esbuild replace this identifier with `schema.json`'s text and the package's version (a
 * single executable has no package root to read them from). Left undeclared everywhere else, so the
 * `typeof` test below is how the unbundled plugin (`dist/native/main.js`) knows to read the files.
 */
declare const __BROKER_PLUGIN_EMBEDDED__: { readonly schema: string; readonly version: string };

/** The embedded schema and version in the single executable; `undefined` when run from the package. */
const EMBEDDED = typeof __BROKER_PLUGIN_EMBEDDED__ === "undefined" ? undefined : __BROKER_PLUGIN_EMBEDDED__;

/** The parts of a property's schema the plugin reads. */
export interface PropertySchema {
  readonly secret?: boolean;
  readonly replaceOnChanges?: boolean;
  readonly default?: unknown;
}

/** The parts of a resource's schema the plugin reads. */
export interface ResourceSchema {
  readonly inputProperties: Readonly<Record<string, PropertySchema>>;
  readonly properties: Readonly<Record<string, PropertySchema>>;
}

interface PackageSchema {
  readonly resources: Readonly<Record<string, ResourceSchema>>;
}

let cached: { text: string; parsed: PackageSchema } | undefined;

function load(): { text: string; parsed: PackageSchema } {
  if (cached === undefined) {
    const text = EMBEDDED?.schema ?? readFileSync(path.join(PACKAGE_ROOT, "schema.json"), "utf8");
    cached = { text, parsed: JSON.parse(text) as PackageSchema };
  }
  return cached;
}

/**
 * The package's version, from its `package.json` (a leading `v` removed): the plugin's version and
 * the schema's, so that the engine and generated SDKs agree with what npm installed.
 */
export function packageVersion(): string {
  if (EMBEDDED !== undefined) return EMBEDDED.version;
  const file = path.join(PACKAGE_ROOT, "package.json");
  const manifest = JSON.parse(readFileSync(file, "utf8")) as { version?: unknown };
  if (typeof manifest.version !== "string" || manifest.version === "")
    throw new Error(`${file} has no version`);
  return manifest.version.replace(/^v/, "");
}

/**
 * The package schema as `GetSchema` returns it: `schema.json` with `version` filled in.
 * (`schema.json` carries no version, so it can never disagree with `package.json`.)
 */
export function packageSchema(version: string = packageVersion()): string {
  const schema = JSON.parse(load().text) as Record<string, unknown>;
  return JSON.stringify({ ...schema, version });
}

/** The schema of resource `token`; throws for a token the schema does not have. */
export function resourceSchema(token: string): ResourceSchema {
  const spec = load().parsed.resources[token];
  if (spec === undefined) throw new Error(`schema.json has no resource ${token}`);
  return spec;
}

/** The names of the properties of `props` marked `secret: true`. */
export function secretNames(props: Readonly<Record<string, PropertySchema>>): string[] {
  return Object.entries(props)
    .filter(([, prop]) => prop.secret === true)
    .map(([name]) => name);
}
