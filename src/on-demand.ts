/**
 * The third-party libraries that the package loads on first use rather than when it is imported.
 *
 * Every `pulumi preview` and `pulumi up` runs the user's program, which imports the package only to
 * declare resources: it never makes a request (the providers do, in their own processes), parses
 * YAML or checks a document against a JSON Schema. Loading undici, yaml and ajv at import cost each
 * program run about 0.25 s of CPU (BENCHMARKS.md, "Importing the package"), on every command of
 * every stack. The modules that use them ask here instead of importing them; `import type` keeps
 * their types. A test requires the built package and checks that none of them was loaded.
 */

/** undici, the HTTP client of `client/` (its `Pool`), loaded by the first client made. */
export function loadUndici(): typeof import("undici") {
  return require("undici") as typeof import("undici");
}

/** yaml, for reading and writing broker configuration documents, loaded by the first document. */
export function loadYaml(): typeof import("yaml") {
  return require("yaml") as typeof import("yaml");
}

/** ajv's draft 2020-12 validator class, loaded by the first schema check. */
export function loadAjv2020(): (typeof import("ajv/dist/2020"))["default"] {
  return (require("ajv/dist/2020") as typeof import("ajv/dist/2020")).default;
}

/** The module names of the libraries above, as `require.cache` keys contain them (for the test). */
export const ON_DEMAND_LIBRARIES: readonly string[] = ["undici", "yaml", "ajv"];
