import type { Dispatcher } from "undici";
import { describe, expect, it } from "vitest";

import { header, networkCode, transport, type WireRequest } from "../../src/client/transport";

const wire: WireRequest = {
  method: "POST",
  path: "/v1/access-key",
  headers: { "x-api-key": "bka_secret" },
  payload: '{"name":"k"}',
};

/** A dispatcher that records the options it was asked to send, and answers with `answer`. */
function dispatcherOf(answer: () => Promise<unknown>): { dispatcher: Dispatcher; asked: unknown[] } {
  const asked: unknown[] = [];
  const request = (options: unknown): Promise<unknown> => {
    asked.push(options);
    return answer();
  };
  return { dispatcher: { request } as unknown as Dispatcher, asked };
}

describe("the transport", () => {
  it("sends the request as built, once per attempt, and reads the whole body", async () => {
    const { dispatcher, asked } = dispatcherOf(() =>
      Promise.resolve({
        statusCode: 201,
        headers: { "x-request-id": "r1" },
        body: { text: () => Promise.resolve("{}") },
      }),
    );
    const send = transport(dispatcher, wire);
    expect(await send()).toEqual({ ok: true, status: 201, headers: { "x-request-id": "r1" }, text: "{}" });
    await send();
    expect(asked).toEqual([
      { method: "POST", path: "/v1/access-key", headers: wire.headers, body: wire.payload },
      { method: "POST", path: "/v1/access-key", headers: wire.headers, body: wire.payload },
    ]);
  });

  it("sends no body when there is none", async () => {
    const { dispatcher, asked } = dispatcherOf(() =>
      Promise.resolve({ statusCode: 200, headers: {}, body: { text: () => Promise.resolve("") } }),
    );
    await transport(dispatcher, { ...wire, method: "GET", payload: undefined })();
    expect(asked).toMatchObject([{ method: "GET", body: null }]);
  });

  it("turns a network failure into a value instead of throwing", async () => {
    const error = Object.assign(new Error("socket hang up"), { code: "ECONNRESET" });
    const { dispatcher } = dispatcherOf(() => Promise.reject(error));
    expect(await transport(dispatcher, wire)()).toEqual({ ok: false, error });
  });
});

describe("networkCode", () => {
  it("reads the code of a system error, or of the first member of an AggregateError that has one", () => {
    expect(networkCode(Object.assign(new Error("x"), { code: "ECONNREFUSED" }))).toBe("ECONNREFUSED");
    const both = new AggregateError([
      new Error("no code"),
      Object.assign(new Error("v6"), { code: "ENETUNREACH" }),
    ]);
    expect(networkCode(both)).toBe("ENETUNREACH");
    expect(networkCode(new Error("nothing"))).toBe("UNKNOWN");
    expect(networkCode(null)).toBe("UNKNOWN");
  });
});

describe("header", () => {
  it("takes the first value of a repeated header, and undefined for a missing one", () => {
    expect(header({ "retry-after": ["3", "5"] }, "retry-after")).toBe("3");
    expect(header({ "retry-after": "7" }, "retry-after")).toBe("7");
    expect(header({}, "retry-after")).toBeUndefined();
  });
});
