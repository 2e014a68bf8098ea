import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { EVENT_PATH_PATTERN } from "../../src/emulator/validation";
import {
  contractOperations,
  OPENAPI_PATH,
  openApiDocument,
  validateOpenApiDocument,
  validateRequest,
  validateResponse,
  validateSchema,
} from "../support/openapi";

const record = {
  id: 2,
  name: "svc",
  key: "bks_x",
  type: "SERVICE",
  permissions: { send: ["orders/*"], receive: [], resources: {} },
  createdAt: "2025-01-01T00:00:00.000Z",
};

describe("openapi.yaml", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    expect(openApiDocument().openapi).toBe("3.1.0");
    expect(await validateOpenApiDocument()).toEqual([]);
  });

  it("describes exactly the eight operations of the API, by operationId", () => {
    expect(
      contractOperations()
        .map((operation) => `${operation.operationId} ${operation.route}`)
        .sort(),
    ).toEqual(
      [
        "createAccessKey POST /access-key",
        "createWorkspace POST /workspace",
        "getAccessKeyPermissions GET /access-key/{accessKey}/permissions",
        "listAccessKeys GET /access-key",
        "listWorkspaces GET /workspace",
        "updateAccessKeyPermissions POST /access-key/{accessKey}/permissions",
        "updateServiceKeyPair PUT /access/service-key-pair",
        "verifyAccessKey GET /access/verify/{accessKey}",
      ].sort(),
    );
  });

  it("applies the X-API-KEY api key scheme globally and serves under a base_url ending in /v1", () => {
    const document = openApiDocument() as {
      security: unknown;
      components: { securitySchemes: Record<string, unknown> };
      servers: { url: string; variables: { base_url: { default: string } } }[];
    };
    expect(document.security).toEqual([{ apiKey: [] }]);
    expect(document.components.securitySchemes.apiKey).toMatchObject({
      type: "apiKey",
      in: "header",
      name: "X-API-KEY",
    });
    expect(document.servers[0]?.url).toBe("{base_url}");
    expect(document.servers[0]?.variables.base_url.default).toMatch(/\/v1$/);
  });

  it("marks every error response as our choice", () => {
    const responses = (
      openApiDocument() as { components: { responses: Record<string, Record<string, unknown>> } }
    ).components.responses;
    for (const [name, response] of Object.entries(responses)) {
      expect(response["x-our-choice"], name).toBe(true);
      expect(String(response.description), name).toMatch(/^Our choice:/);
    }
  });

  it("carries the same event path grammar as the emulator", () => {
    const raw = parse(readFileSync(OPENAPI_PATH, "utf8")) as {
      components: { schemas: { EventPath: { pattern: string } } };
    };
    expect(raw.components.schemas.EventPath.pattern).toBe(EVENT_PATH_PATTERN);
  });
});

describe("validateRequest", () => {
  it("accepts a valid list request and reads integer query parameters from their text", () => {
    expect(
      validateRequest({
        method: "GET",
        path: "/v1/access-key",
        query: { pageIndex: "0", limit: "100", order: "desc", orderBy: "name" },
      }),
    ).toEqual([]);
  });

  it.each([
    [{ pageIndex: "0", limit: "101", order: "ASC", orderBy: "name" }, "query.limit"],
    [{ pageIndex: "-1", limit: "1", order: "ASC", orderBy: "name" }, "query.pageIndex"],
    [{ pageIndex: "1.0", limit: "1", order: "ASC", orderBy: "name" }, "query.pageIndex"],
    [{ pageIndex: "0", limit: "1", order: "up", orderBy: "name" }, "query.order"],
    [{ pageIndex: "0", limit: "1", order: "ASC", orderBy: "id" }, "query.orderBy"],
    [{ limit: "1", order: "ASC", orderBy: "name" }, "query.pageIndex is required"],
  ])("rejects the list query %j naming %s", (query, expected) => {
    const errors = validateRequest({ method: "GET", path: "/access-key", query });
    expect(errors.join("\n")).toContain(expected);
  });

  it("rejects a workspace id filter that is not digits", () => {
    expect(
      validateRequest({
        method: "GET",
        path: "/workspace",
        query: { pageIndex: "0", limit: "1", order: "ASC", orderBy: "name", id: "x" },
      }),
    ).not.toEqual([]);
  });

  it("checks bodies: required fields, unknown fields, event paths, names", () => {
    const valid = { name: "k", type: "SERVICE", permissions: { send: ["orders/*"] } };
    expect(validateRequest({ method: "POST", path: "/access-key", body: valid })).toEqual([]);
    expect(validateRequest({ method: "POST", path: "/access-key" })).toEqual(["body is required"]);
    expect(
      validateRequest({ method: "POST", path: "/access-key", body: { ...valid, extra: 1 } }),
    ).not.toEqual([]);
    expect(
      validateRequest({
        method: "POST",
        path: "/access-key",
        body: { ...valid, permissions: { send: ["*"] } },
      }),
    ).not.toEqual([]);
    expect(
      validateRequest({ method: "POST", path: "/access-key", body: { ...valid, name: "x".repeat(201) } }),
    ).not.toEqual([]);
    expect(validateRequest({ method: "POST", path: "/workspace", body: { name: "a/b" } })).not.toEqual([]);
    expect(validateRequest({ method: "POST", path: "/workspace", body: { name: "a", parentId: 3 } })).toEqual(
      [],
    );
  });

  it("matches templated paths and rejects unknown operations", () => {
    expect(validateRequest({ method: "GET", path: "/v1/access-key/bka_abc/permissions" })).toEqual([]);
    expect(validateRequest({ method: "DELETE", path: "/v1/workspace" })).toEqual([
      "no operation serves DELETE /workspace",
    ]);
  });
});

describe("validateResponse", () => {
  it("accepts documented statuses with matching bodies", () => {
    expect(
      validateResponse({ route: "GET /access-key/{accessKey}/permissions", status: 200, body: record }),
    ).toEqual([]);
    expect(
      validateResponse({
        route: "POST /access-key",
        status: 201,
        body: { accessKey: "bka_x", accessKeyId: "7" },
      }),
    ).toEqual([]);
    expect(
      validateResponse({
        route: "GET /workspace",
        status: 429,
        body: { code: "rate_limited", message: "slow down" },
      }),
    ).toEqual([]);
  });

  it("rejects a numeric accessKeyId, an undocumented status, extra fields and a bad error code", () => {
    expect(
      validateResponse({ route: "POST /access-key", status: 201, body: { accessKey: "k", accessKeyId: 7 } }),
    ).not.toEqual([]);
    expect(
      validateResponse({
        route: "POST /access-key",
        status: 200,
        body: { accessKey: "k", accessKeyId: "7" },
      }),
    ).toEqual(["status 200 is not documented for createAccessKey"]);
    expect(
      validateResponse({
        route: "GET /access-key/{accessKey}/permissions",
        status: 200,
        body: { ...record, keyPair: {} },
      }),
    ).not.toEqual([]);
    expect(
      validateResponse({ route: "GET /workspace", status: 400, body: { code: "oops", message: "m" } }),
    ).not.toEqual([]);
  });

  it("validates the children of workspace records recursively", () => {
    const child = { id: 2, name: "b", path: "/a/b", parentId: 1, createdAt: record.createdAt, children: [] };
    const parent = {
      id: 1,
      name: "a",
      path: "/a",
      parentId: 0,
      createdAt: record.createdAt,
      children: [child],
    };
    expect(validateSchema("WorkspaceRecord", parent)).toEqual([]);
    expect(
      validateSchema("WorkspaceRecord", { ...parent, children: [{ ...child, path: "a/b" }] }),
    ).not.toEqual([]);
  });

  it("accepts only error responses for unknown routes", () => {
    expect(
      validateResponse({ route: undefined, status: 404, body: { code: "not_found", message: "no" } }),
    ).toEqual([]);
    expect(validateResponse({ route: undefined, status: 200, body: {} })).not.toEqual([]);
  });
});
