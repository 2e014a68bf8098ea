/** The `functions` of the package schema and their result types, rendered from `functions.ts`. */
import { registryDescription } from "./examples";
import { propertyTypeSchema } from "./fields";
import { FUNCTIONS, RESULT_TYPES, type FunctionProperty } from "./functions";

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

function objectSpec(properties: Readonly<Record<string, FunctionProperty>>): JsonObject {
  const entries = Object.entries(properties);
  return {
    properties: Object.fromEntries(
      entries.map(([name, p]) => [
        name,
        { ...propertyTypeSchema(p.type), description: p.doc, ...(p.secret === true ? { secret: true } : {}) },
      ]),
    ),
    required: entries.filter(([, p]) => p.required === true).map(([name]) => name),
  };
}

/** The schema's `functions` section. */
export function renderFunctions(): JsonObject {
  return Object.fromEntries(
    FUNCTIONS.map((fn) => [
      fn.token,
      {
        description: registryDescription(fn.token, fn.doc),
        inputs: objectSpec(fn.inputs),
        outputs: objectSpec(fn.outputs),
      },
    ]),
  );
}

/** The object types of the functions' results, for the schema's `types` section. */
export function renderResultTypes(): JsonObject {
  return Object.fromEntries(
    RESULT_TYPES.map((t) => [t.token, { type: "object", description: t.doc, ...objectSpec(t.members) }]),
  );
}
