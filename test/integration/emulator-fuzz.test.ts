/**
 * Property-based tests: random bodies, query strings and path values never crash the emulator, every
 * rejection is a JSON error, and the emulator accepts exactly the requests openapi.yaml calls valid.
 */
import fc from "fast-check";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ApiCaller, startCheckedEmulator, type ApiResponse, type CheckedEmulator } from "../support/emulator";
import { validateRequest } from "../support/openapi";

const ERROR_CODES = new Set([
  "malformed_json",
  "validation_failed",
  "unauthorized",
  "forbidden",
  "not_found",
  "method_not_allowed",
  "payload_too_large",
  "unsupported_media_type",
  "rate_limited",
  "service_unavailable",
  "internal",
]);

const RUNS = { numRuns: 150 };

let checked: CheckedEmulator;
let api: ApiCaller;

function expectWellFormed(response: ApiResponse): void {
  expect(response.status).not.toBe(500);
  expect(response.headers.get("content-type")).toMatch(/^application\/json/);
  if (response.status >= 400) {
    const body = response.body as { code?: unknown; message?: unknown };
    expect(typeof body.message).toBe("string");
    expect(ERROR_CODES.has(String(body.code))).toBe(true);
  }
}

/**
 * Sends one generated request and checks that the emulator agrees with openapi.yaml: a well-formed
 * answer, `accepted` exactly when the contract calls the request valid, 400 otherwise.
 */
async function expectContractAgreement(
  method: "GET" | "POST" | "PUT",
  path: string,
  request: { json?: unknown; query?: Record<string, string> },
  accepted: number,
): Promise<void> {
  const response = await api.call(method, path, request);
  expectWellFormed(response);
  const valid =
    validateRequest({ method, path, body: request.json, query: request.query ?? {} }).length === 0;
  expect(response.status, JSON.stringify(response.body)).toBe(valid ? accepted : 400);
}

/** The JSON a body really becomes on the wire (undefined members vanish, -0 becomes 0, ...). */
function wire(value: unknown): unknown {
  const text = JSON.stringify(value) as string | undefined;
  return text === undefined ? undefined : JSON.parse(text);
}

const eventPath = fc.oneof(
  fc.constantFrom(
    "orders",
    "orders/*",
    "a/b/c",
    "a/b/*",
    "ünï/✓",
    "*",
    "a//b",
    "a b",
    "",
    "x/*/y",
    "/a",
    "a/",
  ),
  fc.string({ unit: "binary", maxLength: 12 }),
);
const eventPaths = fc.oneof(fc.array(eventPath, { maxLength: 4 }), fc.constantFrom("orders", null, 3, {}));
const resources = fc.oneof(
  fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 3 }),
  fc.constantFrom(null, [], "r", 1),
);
const permissions = fc.oneof(
  fc.record(
    { send: eventPaths, receive: eventPaths, resources, extra: fc.jsonValue() },
    { requiredKeys: [] },
  ),
  fc.constantFrom(null, [], "all", 0),
);
const name = fc.oneof(
  fc.string({ unit: "binary", maxLength: 8 }),
  fc.string({ unit: "binary", minLength: 195, maxLength: 205 }),
  fc.constantFrom("", "a/b", "ok"),
  fc.integer(),
  fc.constant(null),
);

beforeAll(async () => {
  checked = await startCheckedEmulator();
  api = checked.api;
});

afterAll(async () => {
  await checked.close();
});

afterEach(async () => {
  // Taken out before asserting, so one test's problems are never blamed on the next.
  const problems = checked.contractProblems.splice(0);
  expect(problems).toEqual([]);
  // Whatever the inputs did, the server still answers.
  expect((await api.get("/access-key?pageIndex=0&limit=1&order=ASC&orderBy=name")).status).toBe(200);
});

describe("robustness", () => {
  const routes = [
    ["POST", "/access-key"],
    ["GET", "/access-key"],
    ["GET", "/access-key/{k}/permissions"],
    ["POST", "/access-key/{k}/permissions"],
    ["GET", "/access/verify/{k}"],
    ["PUT", "/access/service-key-pair"],
    ["GET", "/workspace"],
    ["POST", "/workspace"],
    ["PATCH", "/workspace"],
    ["GET", "/{k}"],
  ] as const;

  it("answers random JSON bodies, queries and path values on every route with a well-formed reply", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...routes),
        fc.jsonValue(),
        fc.dictionary(
          fc.oneof(
            fc.constantFrom("pageIndex", "limit", "order", "orderBy", "accessKey", "name", "id"),
            fc.string(),
          ),
          fc.string({ unit: "binary" }),
          { maxKeys: 6 },
        ),
        fc.string({ unit: "binary", minLength: 1, maxLength: 30 }),
        async ([method, template], body, query, pathValue) => {
          const path = template.replace("{k}", encodeURIComponent(pathValue));
          const options = method === "GET" ? { query } : { query, json: body };
          expectWellFormed(await api.call(method, path, options));
        },
      ),
      RUNS,
    );
  });

  it("answers arbitrary bytes sent as JSON with a well-formed reply", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("/access-key", "/workspace", "/access/service-key-pair"),
        fc.uint8Array({ maxLength: 200 }),
        async (path, bytes) => {
          const method = path === "/access/service-key-pair" ? "PUT" : "POST";
          expectWellFormed(await api.call(method, path, { raw: bytes, contentType: "application/json" }));
        },
      ),
      RUNS,
    );
  });
});

describe("agreement with openapi.yaml", () => {
  it("creates an access key exactly when the contract calls the body valid, else answers 400", async () => {
    const body = fc.record(
      {
        name,
        type: fc.constantFrom("ACCOUNT", "SERVICE", "account", "", 1),
        permissions,
        extra: fc.jsonValue(),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(body, (generated) =>
        expectContractAgreement("POST", "/access-key", { json: wire(generated) }, 201),
      ),
      RUNS,
    );
  });

  it("updates permissions exactly when the contract calls the body valid", async () => {
    const body = fc.oneof(
      fc.record(
        { send: eventPaths, receive: eventPaths, resources, other: fc.jsonValue() },
        { requiredKeys: [] },
      ),
      fc.jsonValue(),
    );
    await fc.assert(
      fc.asyncProperty(body, (generated) =>
        expectContractAgreement(
          "POST",
          `/access-key/${checked.emulator.adminKey}/permissions`,
          { json: wire(generated) },
          200,
        ),
      ),
      RUNS,
    );
  });

  it("creates a top-level workspace exactly when the contract calls the body valid", async () => {
    // Positive parent ids are left out: whether such a parent exists is state, not contract.
    const body = fc.record(
      {
        name,
        parentId: fc.oneof(
          fc.integer({ min: -3, max: 0 }),
          fc.double().filter((value) => !(Number.isInteger(value) && value > 0)),
          fc.constantFrom("0", null, true),
        ),
        extra: fc.jsonValue(),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(body, (generated) =>
        expectContractAgreement("POST", "/workspace", { json: wire(generated) }, 201),
      ),
      RUNS,
    );
  });

  it("rotates or rejects key pairs consistently: 400 exactly for bodies the contract rejects", async () => {
    const body = fc.oneof(
      fc.record(
        { access_key: fc.oneof(fc.string(), fc.integer(), fc.constant(null)), other: fc.jsonValue() },
        { requiredKeys: [] },
      ),
      fc.jsonValue(),
    );
    await fc.assert(
      // A valid body names no existing SERVICE key here, so the accepted answer is 404.
      fc.asyncProperty(body, (generated) =>
        expectContractAgreement("PUT", "/access/service-key-pair", { json: wire(generated) }, 404),
      ),
      RUNS,
    );
  });

  it("lists exactly when the contract calls the query valid, else answers 400", async () => {
    const value = (valid: readonly string[]): fc.Arbitrary<string | undefined> =>
      fc.oneof(
        fc.constantFrom(...valid),
        fc.constant(undefined),
        fc.string({ maxLength: 6 }),
        fc.integer({ min: -5, max: 200 }).map(String),
      );
    const query = fc.record({
      pageIndex: value(["0", "1", "007", "99999999999999999999"]),
      limit: value(["1", "100", "101", "0"]),
      order: value(["ASC", "DESC", "asc", "desc", "Asc"]),
      orderBy: value(["name", "createdAt", "id"]),
      id: value(["1", "42", "x1"]),
    });
    await fc.assert(
      fc.asyncProperty(fc.constantFrom("/access-key", "/workspace"), query, async (path, generated) => {
        const params = Object.fromEntries(
          Object.entries(generated).filter((entry): entry is [string, string] => entry[1] !== undefined),
        );
        await expectContractAgreement("GET", path, { query: params }, 200);
      }),
      RUNS,
    );
  });
});
