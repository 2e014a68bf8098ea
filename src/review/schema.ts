/**
 * The published JSON Schema (draft 2020-12) of the access review, the document
 * `broker-config review --format json` prints, and the check of a value against it with ajv. The
 * schema file ships in the package as `pulumi-broker-config/access-review.schema.json` for users'
 * own tooling (a policy over the review, a dashboard); `docs/access-review-format.md` describes it.
 */
import type { ValidateFunction } from "ajv/dist/2020";
import { loadAjv2020 } from "../on-demand";
import schemaJson from "./access-review.schema.json";

/** The JSON Schema of the access review (draft 2020-12), as published. */
export const ACCESS_REVIEW_SCHEMA: Readonly<Record<string, unknown>> = schemaJson;

let compiled: ValidateFunction | undefined;

/** Compiled once per process, on first use. */
function validator(): ValidateFunction {
  compiled ??= new (loadAjv2020())({ allErrors: true, strict: true }).compile(ACCESS_REVIEW_SCHEMA);
  return compiled;
}

/**
 * Every way `value` breaks the access review's schema, each as `<JSON pointer> <problem>` (such as
 * `/planned/keys/0/kind must be equal to one of the allowed values`); empty when it is a valid review.
 */
export function accessReviewSchemaProblems(value: unknown): string[] {
  const validate = validator();
  if (validate(value)) return [];
  return (validate.errors ?? []).map(
    (error) => `${error.instancePath || "/"} ${error.message ?? "is invalid"}`,
  );
}
