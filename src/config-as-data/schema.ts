/**
 * The published JSON Schema (draft 2020-12) of a broker configuration document, and the check of a
 * value against it with ajv. The schema file ships in the package as
 * `pulumi-broker-config/broker-config.schema.json` for editors and users' own tooling.
 */
import type { ErrorObject, ValidateFunction } from "ajv/dist/2020";
import { describeValue } from "../model";
import { loadAjv2020 } from "../on-demand";
import schemaJson from "./broker-config.schema.json";
import { pointerSegments, type PathSegment } from "./paths";

/** The JSON Schema of a broker configuration document (draft 2020-12), as published. */
export const BROKER_CONFIG_SCHEMA: Readonly<Record<string, unknown>> = schemaJson;

/**
 * Schema annotation that holds human messages per keyword (`{"pattern": "must not …"}`): ajv's own
 * message for a pattern is the regular expression, which helps nobody. Other validators ignore it.
 */
const MESSAGES_KEYWORD = "x-messages";

/** A schema violation: where (as path segments) and what. */
export interface SchemaViolation {
  segments: PathSegment[];
  message: string;
  /** Point at the property name rather than its value (a property that is not allowed). */
  atKey: boolean;
}

let compiled: ValidateFunction | undefined;

/** Compiled once per process, on first use: compiling costs a few milliseconds. */
function validator(): ValidateFunction {
  if (compiled === undefined) {
    // allErrors: report every problem at once; verbose: gives `data` and `parentSchema` for messages.
    const Ajv2020 = loadAjv2020();
    const ajv = new Ajv2020({ allErrors: true, verbose: true, strict: true });
    ajv.addKeyword(MESSAGES_KEYWORD);
    compiled = ajv.compile(BROKER_CONFIG_SCHEMA);
  }
  return compiled;
}

/** Every way `value` violates the schema, at most one per location, in ajv's order. */
export function schemaViolations(value: unknown): SchemaViolation[] {
  const validate = validator();
  if (validate(value)) return [];
  const seen = new Set<string>();
  const violations: SchemaViolation[] = [];
  for (const error of validate.errors ?? []) {
    const violation = toViolation(error);
    // An empty name breaks minLength and pattern alike: one message per place is enough.
    const key = JSON.stringify(violation.segments);
    if (seen.has(key)) continue;
    seen.add(key);
    violations.push(violation);
  }
  return violations;
}

function toViolation(error: ErrorObject): SchemaViolation {
  const segments = pointerSegments(error.instancePath);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case "required":
      return {
        segments: [...segments, String(params["missingProperty"])],
        message: "is required",
        atKey: false,
      };
    case "additionalProperties": {
      const allowed = Object.keys(
        (error.parentSchema as { properties?: object } | undefined)?.properties ?? {},
      );
      return {
        segments: [...segments, String(params["additionalProperty"])],
        message: `is not allowed here; allowed: ${allowed.filter((p) => p !== "$schema").join(", ")}`,
        atKey: true,
      };
    }
    default:
      return { segments, message: messageOf(error, params), atKey: false };
  }
}

const ARTICLE: Record<string, string> = {
  string: "a string",
  boolean: "true or false",
  array: "a list",
  object: "a mapping (object)",
  integer: "an integer",
  number: "a number",
};

function messageOf(error: ErrorObject, params: Record<string, unknown>): string {
  const custom = (error.parentSchema as Record<string, unknown> | undefined)?.[MESSAGES_KEYWORD];
  const text = (custom as Record<string, unknown> | undefined)?.[error.keyword];
  if (typeof text === "string") return text;
  switch (error.keyword) {
    case "type":
      return `must be ${ARTICLE[String(params["type"])] ?? String(params["type"])}, got ${describeValue(error.data)}`;
    case "enum":
      return `must be one of ${(params["allowedValues"] as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`;
    case "const":
      return `must be ${JSON.stringify(params["allowedValue"])}`;
    case "minLength":
      return params["limit"] === 1
        ? "must not be empty"
        : `must be at least ${String(params["limit"])} characters`;
    case "maxLength":
      return `must be at most ${String(params["limit"])} characters`;
    default:
      return error.message ?? `breaks the schema rule "${error.keyword}"`;
  }
}
