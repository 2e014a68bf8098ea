/**
 * The API contract (`openapi.yaml`) as a test oracle: look up which schema applies to a request or
 * response, and let ajv (JSON Schema 2020-12) decide whether it is valid.
 *
 * Used by the emulator's tests and by any test that wants to check traffic against the contract.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import Ajv2020, { type ErrorObject, type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { parse } from "yaml";

/** Absolute path of the contract. */
export const OPENAPI_PATH = path.resolve(__dirname, "../../openapi.yaml");

/** The `$id` under which the whole document is registered with ajv, so `#/components/...` refs resolve. */
const DOCUMENT_ID = "https://pulumi-broker-config.invalid/openapi.json";

/** The base path of every API path (the last segment of `{base_url}`). */
const BASE_PATH = "/v1";

const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;

// Document-level fields of OpenAPI that are not JSON Schema keywords: ajv must know them to accept
// the document as a container of schemas in strict mode (it never compiles them).
const OPENAPI_FIELDS = [
  "openapi",
  "info",
  "jsonSchemaDialect",
  "servers",
  "paths",
  "webhooks",
  "components",
  "security",
  "tags",
  "externalDocs",
  "discriminator",
  "xml",
  "example",
];

type Json = Record<string, unknown>;

/** A request to check against the contract. `path` may include the `/v1` prefix. */
export interface RequestToValidate {
  method: string;
  path: string;
  query?: Record<string, string | undefined> | URLSearchParams;
  /** The parsed JSON body, `undefined` for none. */
  body?: unknown;
}

/** A response to check. `route` is the route key such as `"POST /access-key"`, `undefined` when no route matched. */
export interface ResponseToValidate {
  route: string | undefined;
  status: number;
  body: unknown;
}

/** One operation of the contract. */
export interface ContractOperation {
  operationId: string;
  method: string;
  /** The path template, such as `/access-key/{accessKey}/permissions`. */
  template: string;
  /** `METHOD template`, such as `"GET /access-key/{accessKey}/permissions"`. */
  route: string;
}

interface Operation extends ContractOperation {
  pointer: string;
  object: Json;
  pathItem: Json;
  pattern: RegExp;
  paramNames: string[];
}

interface Parameter {
  name: string;
  in: string;
  required: boolean;
  schemaPointer: string;
  schemaType: unknown;
}

interface Contract {
  document: Json;
  ajv: Ajv2020;
  operations: Operation[];
  validators: Map<string, ValidateFunction>;
}

let cached: Contract | undefined;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function escapeToken(token: string): string {
  return token.replaceAll("~", "~0").replaceAll("/", "~1");
}

function pointerOf(...tokens: string[]): string {
  return tokens.map((token) => `/${escapeToken(token)}`).join("");
}

function extensionKeywords(value: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const item of value) extensionKeywords(item, found);
  else if (isObject(value)) {
    for (const [key, child] of Object.entries(value)) {
      if (key.startsWith("x-")) found.add(key);
      extensionKeywords(child, found);
    }
  }
  return found;
}

/** The node at a local `$ref` / JSON pointer. */
function at(document: Json, pointer: string): unknown {
  let node: unknown = document;
  for (const raw of pointer.split("/").slice(1)) {
    const token = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    node = isObject(node) ? node[token] : undefined;
  }
  return node;
}

/** Follows a local `$ref` (such as a shared parameter or response); returns the node and where it lives. */
function deref(document: Json, node: unknown, pointer: string): { node: unknown; pointer: string } {
  if (isObject(node) && typeof node.$ref === "string" && node.$ref.startsWith("#/")) {
    const target = node.$ref.slice(1);
    return deref(document, at(document, target), target);
  }
  return { node, pointer };
}

function load(): Contract {
  if (cached) return cached;
  const document = parse(readFileSync(OPENAPI_PATH, "utf8")) as Json;
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  addFormats(ajv);
  ajv.addVocabulary([...OPENAPI_FIELDS, ...extensionKeywords(document)]);
  ajv.addSchema({ ...document, $id: DOCUMENT_ID });

  const operations: Operation[] = [];
  const paths = isObject(document.paths) ? document.paths : {};
  for (const [template, pathItem] of Object.entries(paths)) {
    if (!isObject(pathItem)) continue;
    for (const method of HTTP_METHODS) {
      const object = pathItem[method];
      if (!isObject(object)) continue;
      const paramNames = [...template.matchAll(/\{([^}]+)\}/g)].map((match) => match[1] ?? "");
      const source = template
        .split(/\{[^}]+\}/)
        .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
        .join("([^/]+)");
      operations.push({
        operationId: String(object.operationId),
        method: method.toUpperCase(),
        template,
        route: `${method.toUpperCase()} ${template}`,
        pointer: pointerOf("paths", template, method),
        object,
        pathItem,
        pattern: new RegExp(`^${source}$`),
        paramNames,
      });
    }
  }
  cached = { document, ajv, operations, validators: new Map() };
  return cached;
}

function validatorAt(contract: Contract, pointer: string): ValidateFunction {
  let validate = contract.validators.get(pointer);
  if (!validate) {
    // A URI fragment must be percent-encoded (templates carry braces).
    const fragment = pointer
      .split("/")
      .map((token) => encodeURIComponent(token))
      .join("/");
    validate = contract.ajv.compile({ $ref: `${DOCUMENT_ID}#${fragment}` });
    contract.validators.set(pointer, validate);
  }
  return validate;
}

function formatErrors(where: string, errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map((error) => {
    const detail =
      error.keyword === "additionalProperties" ? ` (${String(error.params.additionalProperty)})` : "";
    return `${where}${error.instancePath} ${error.message ?? error.keyword}${detail}`;
  });
}

function check(contract: Contract, pointer: string, where: string, value: unknown): string[] {
  const validate = validatorAt(contract, pointer);
  return validate(value) ? [] : formatErrors(where, validate.errors);
}

function parametersOf(contract: Contract, operation: Operation): Parameter[] {
  const byKey = new Map<string, Parameter>();
  const collect = (list: unknown, listPointer: string): void => {
    if (!Array.isArray(list)) return;
    list.forEach((entry: unknown, index) => {
      const { node, pointer } = deref(contract.document, entry, `${listPointer}/${index}`);
      if (!isObject(node)) return;
      const schema = isObject(node.schema) ? node.schema : {};
      const parameter: Parameter = {
        name: String(node.name),
        in: String(node.in),
        required: node.required === true,
        schemaPointer: `${pointer}/schema`,
        schemaType: schema.type,
      };
      // Operation-level parameters override path-level ones with the same name and location.
      byKey.set(`${parameter.in}:${parameter.name}`, parameter);
    });
  };
  const pathPointer = operation.pointer.slice(0, operation.pointer.lastIndexOf("/"));
  collect(operation.pathItem.parameters, `${pathPointer}/parameters`);
  collect(operation.object.parameters, `${operation.pointer}/parameters`);
  return [...byKey.values()];
}

/**
 * A query or path value as the schema's type would read it (OpenAPI's default "form" style for a
 * primitive): decimal integers for integer schemas, decimals for numbers, true/false for booleans.
 * Anything else stays a string, so the schema's type check reports it.
 */
function typedValue(raw: string, type: unknown): unknown {
  if (type === "integer" && /^-?\d+$/.test(raw)) return Number(raw);
  if (type === "number" && /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(raw)) return Number(raw);
  if (type === "boolean" && (raw === "true" || raw === "false")) return raw === "true";
  return raw;
}

function stripBase(requestPath: string): string {
  const withoutQuery = requestPath.split("?")[0] ?? "";
  return withoutQuery === BASE_PATH || withoutQuery.startsWith(`${BASE_PATH}/`)
    ? withoutQuery.slice(BASE_PATH.length)
    : withoutQuery;
}

/** The parsed contract document. */
export function openApiDocument(): Json {
  return load().document;
}

/** Every operation of the contract. */
export function contractOperations(): ContractOperation[] {
  return load().operations.map(({ operationId, method, template, route }) => ({
    operationId,
    method,
    template,
    route,
  }));
}

/** The operation serving a route key such as `"POST /access-key"`. */
function operationForRoute(contract: Contract, route: string): Operation | undefined {
  return contract.operations.find((operation) => operation.route === route);
}

/**
 * Checks a request against the contract: the operation must exist, path and query parameters must
 * match their schemas (required ones present), and the body must match the request body schema.
 *
 * @returns the problems found; an empty list means valid.
 */
export function validateRequest(request: RequestToValidate): string[] {
  const contract = load();
  const method = request.method.toUpperCase();
  const relative = stripBase(request.path);
  const found = contract.operations
    .filter((candidate) => candidate.method === method)
    .map((candidate) => ({ operation: candidate, match: candidate.pattern.exec(relative) }))
    .find((candidate) => candidate.match !== null);
  if (!found?.match) return [`no operation serves ${method} ${relative}`];
  const { operation, match: pathMatch } = found;

  const errors: string[] = [];
  const query =
    request.query instanceof URLSearchParams
      ? Object.fromEntries(request.query)
      : Object.fromEntries(Object.entries(request.query ?? {}).filter(([, value]) => value !== undefined));
  const pathValues = Object.fromEntries(
    operation.paramNames.map((name, index) => [name, decodeURIComponent(pathMatch[index + 1] ?? "")]),
  );

  for (const parameter of parametersOf(contract, operation)) {
    const source: Record<string, unknown> =
      parameter.in === "path" ? pathValues : parameter.in === "query" ? query : {};
    if (parameter.in !== "path" && parameter.in !== "query") continue;
    const raw = source[parameter.name];
    const where = `${parameter.in}.${parameter.name}`;
    if (typeof raw !== "string") {
      if (parameter.required) errors.push(`${where} is required`);
      continue;
    }
    errors.push(...check(contract, parameter.schemaPointer, where, typedValue(raw, parameter.schemaType)));
  }

  const { node: requestBody, pointer: bodyPointer } = deref(
    contract.document,
    operation.object.requestBody,
    `${operation.pointer}/requestBody`,
  );
  if (!isObject(requestBody)) {
    if (request.body !== undefined) errors.push(`body is not expected by ${operation.operationId}`);
  } else if (request.body === undefined) {
    if (requestBody.required === true) errors.push("body is required");
  } else {
    errors.push(...check(contract, `${bodyPointer}/content/application~1json/schema`, "body", request.body));
  }
  return errors;
}

/**
 * Checks a response against the contract: the status must be documented for the operation (exact, then
 * `4XX`-style, then `default`) and the body must match its schema. A response to an unknown route
 * (`route: undefined`) must be an error status with the `Error` body.
 *
 * @returns the problems found; an empty list means valid.
 */
export function validateResponse(response: ResponseToValidate): string[] {
  const contract = load();
  if (response.route === undefined) {
    if (response.status < 400) return [`status ${response.status} without a route: only errors are expected`];
    return check(contract, "/components/schemas/Error", "body", response.body);
  }
  const operation = operationForRoute(contract, response.route);
  if (!operation) return [`no operation serves ${response.route}`];
  const responses = isObject(operation.object.responses) ? operation.object.responses : {};
  const status = String(response.status);
  const key = [status, `${status[0] ?? ""}XX`, "default"].find((candidate) => candidate in responses);
  if (key === undefined) return [`status ${status} is not documented for ${operation.operationId}`];
  const { node, pointer } = deref(contract.document, responses[key], `${operation.pointer}/responses/${key}`);
  const content = isObject(node) && isObject(node.content) ? node.content : undefined;
  if (!content || !isObject(content["application/json"])) {
    return response.body === undefined ? [] : [`status ${status} of ${operation.operationId} has no body`];
  }
  return check(contract, `${pointer}/content/application~1json/schema`, "body", response.body);
}

/** Checks a value against a named component schema, such as `"Error"` or `"WorkspaceRecord"`. */
export function validateSchema(name: string, value: unknown): string[] {
  return check(load(), pointerOf("components", "schemas", name), name, value);
}

/**
 * Validates the document itself against the OpenAPI 3.1 meta-schema.
 *
 * @returns the problems found; an empty list means valid.
 */
export async function validateOpenApiDocument(): Promise<string[]> {
  // The validator is ESM only; a dynamic import works from CommonJS and under vitest alike.
  const { Validator } = await import("@seriousme/openapi-schema-validator");
  const result = await new Validator().validate(structuredClone(load().document));
  if (result.valid) return [];
  return typeof result.errors === "string" ? [result.errors] : formatErrors("document", result.errors);
}
