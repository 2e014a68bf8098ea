/**
 * The broadening rule of the access review (`src/model/access.ts`) over the event path grammar's
 * containment (`eventPathCovers`, `uncoveredEventPaths` in `src/model/event-paths.ts`): each verdict
 * the issue names, and a property test against an independent reading of the grammar (concrete
 * event paths a grant set matches), for random grant sets A covered by B.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  compareKeyGrants,
  eventPathCovers,
  sameEventPathCoverage,
  uncoveredEventPaths,
  type KeyGrant,
} from "../../src/model";

const service = (send: string[], receive: string[] = []): KeyGrant => ({ type: "SERVICE", send, receive });

describe("eventPathCovers", () => {
  it.each([
    ["orders/*", "orders/created", true],
    ["orders/*", "orders/eu/*", true],
    ["orders/*", "orders/eu/x", true],
    ["orders/*", "orders/*", true],
    ["orders/created", "orders/created", true],
    // "every path under orders" (openapi.yaml): the prefix itself is not under it.
    ["orders/*", "orders", false],
    ["orders/*", "ordersx/created", false],
    ["orders/eu/*", "orders/*", false],
    ["orders/created", "orders/*", false],
    ["orders/created", "orders/created/x", false],
    ["*", "anything/at/all", true],
  ])("%s covers %s: %s", (granted, path, expected) => {
    expect(eventPathCovers(granted, path)).toBe(expected);
  });

  it("lists the paths a grant set does not cover, in their order", () => {
    expect(uncoveredEventPaths(["orders/created"], ["orders/*", "orders/created", "audit/x"])).toEqual([
      "orders/*",
      "audit/x",
    ]);
    expect(uncoveredEventPaths(["orders/*"], ["orders/created", "orders/eu/*"])).toEqual([]);
  });

  it("sees the same coverage under another spelling", () => {
    expect(sameEventPathCoverage(["orders/*", "orders/created"], ["orders/*"])).toBe(true);
    expect(sameEventPathCoverage(["orders/*"], ["orders/created"])).toBe(false);
  });
});

describe("compareKeyGrants: the verdicts", () => {
  it("adding orders/* where the key had orders/created broadens", () => {
    const result = compareKeyGrants(service(["orders/created"]), service(["orders/*"]));
    expect(result.verdict).toBe("broadens");
    expect(result.gained.send).toEqual(["orders/*"]);
    expect(result.lost.send).toEqual([]);
  });

  it("replacing orders/* by orders/created narrows", () => {
    const result = compareKeyGrants(service([], ["orders/*"]), service([], ["orders/created"]));
    expect(result.verdict).toBe("narrows");
    expect(result.lost.receive).toEqual(["orders/*"]);
  });

  it("adding orders/created beside orders/* is the same access: unchanged", () => {
    expect(compareKeyGrants(service(["orders/*"]), service(["orders/*", "orders/created"])).verdict).toBe(
      "unchanged",
    );
  });

  it("a grant moved from send to receive broadens (receive gains it) even though send loses it", () => {
    expect(compareKeyGrants(service(["a/b"]), service([], ["a/b"])).verdict).toBe("broadens");
  });

  it("SERVICE -> ACCOUNT broadens with the same paths; ACCOUNT -> SERVICE narrows", () => {
    const paths = ["orders/created"];
    expect(compareKeyGrants(service(paths), { type: "ACCOUNT", send: paths, receive: [] }).verdict).toBe(
      "broadens",
    );
    expect(compareKeyGrants({ type: "ACCOUNT", send: paths, receive: [] }, service(paths)).verdict).toBe(
      "narrows",
    );
  });

  it("a new key that grants something broadens; a new ACCOUNT key broadens with no paths", () => {
    expect(compareKeyGrants(undefined, service(["a/b"])).verdict).toBe("broadens");
    expect(compareKeyGrants(undefined, { type: "ACCOUNT", send: [], receive: [] }).verdict).toBe("broadens");
  });

  it("a new SERVICE key granting nothing is unchanged: it reaches no event path and no API", () => {
    expect(compareKeyGrants(undefined, service([], [])).verdict).toBe("unchanged");
  });

  it("a revoked key narrows (and an ACCOUNT key with no paths too)", () => {
    expect(compareKeyGrants(service(["a/*"]), undefined).verdict).toBe("narrows");
    expect(compareKeyGrants({ type: "ACCOUNT", send: [], receive: [] }, undefined).verdict).toBe("narrows");
  });

  it("the same grants (a rotation) are unchanged", () => {
    expect(compareKeyGrants(service(["a/*"], ["b/c"]), service(["a/*"], ["b/c"])).verdict).toBe("unchanged");
  });

  it("a list not known yet broadens, and is never read as a removal", () => {
    const result = compareKeyGrants(service(["a/*"]), { type: "SERVICE", send: undefined, receive: [] });
    expect(result.verdict).toBe("broadens");
    expect(result.lost.send).toEqual([]);
    expect(compareKeyGrants(service([]), { type: undefined, send: [], receive: [] }).verdict).toBe("broadens");
  });
});

// ---- The property: an independent reading of the grammar over concrete event paths. ----

/** Segments from a small alphabet, so that random paths overlap often. */
const segment = fc.constantFrom("a", "b", "c", "orders", "eu");
const exactPath = fc.array(segment, { minLength: 1, maxLength: 4 }).map((s) => s.join("/"));
const wildcard = fc.array(segment, { minLength: 1, maxLength: 3 }).map((s) => `${s.join("/")}/*`);
const grantPath = fc.oneof(exactPath, wildcard);

/** Whether grant `g` matches the concrete event path `event` (no wildcard in it), read from the API's words. */
function matches(g: string, event: string): boolean {
  return g.endsWith("/*") ? event.startsWith(g.slice(0, -1)) : g === event;
}

/** Concrete event paths that tell two grant sets apart: each exact path, and a fresh path under each wildcard. */
function witnesses(grants: readonly string[]): string[] {
  return grants.map((g) => (g.endsWith("/*") ? `${g.slice(0, -1)}fresh-segment` : g));
}

/** Whether `a` reaches every concrete path `b` reaches (checked at witnesses of `b`). */
function reachesAll(a: readonly string[], b: readonly string[]): boolean {
  return witnesses(b).every((event) => a.some((g) => matches(g, event)));
}

/** B, and A made of paths B covers: some of B's own, and paths under B's wildcards. */
const coveredPair = fc
  .array(grantPath, { minLength: 0, maxLength: 6 })
  .chain((b) =>
    fc
      .tuple(
        fc.subarray(b),
        fc.array(fc.tuple(fc.constantFrom(...(b.length > 0 ? b : ["x/y"])), fc.oneof(exactPath, wildcard)), {
          maxLength: 3,
        }),
      )
      .map(([subset, extensions]) => {
        // A path under one of B's wildcards is covered by B; anything else is dropped.
        const under = extensions
          .filter(([g]) => g.endsWith("/*") && b.includes(g))
          .map(([g, rest]) => `${g.slice(0, -1)}${rest}`);
        return { a: [...subset, ...under], b };
      }),
  );

describe("compareKeyGrants: property against the grammar", () => {
  it("for A covered by B: A -> B broadens unless both reach the same paths, B -> A never broadens", () => {
    fc.assert(
      fc.property(coveredPair, fc.constantFrom("send", "receive"), ({ a, b }, direction) => {
        expect(reachesAll(b, a)).toBe(true); // the generator's promise, by the independent reading
        const grant = (paths: string[]): KeyGrant =>
          direction === "send" ? service(paths, []) : service([], paths);
        const same = reachesAll(a, b);
        const up = compareKeyGrants(grant(a), grant(b)).verdict;
        const down = compareKeyGrants(grant(b), grant(a)).verdict;
        expect(up).toBe(same ? "unchanged" : "broadens");
        expect(down).not.toBe("broadens");
        expect(down).toBe(same ? "unchanged" : "narrows");
      }),
      { numRuns: 1000 },
    );
  });
});
