/**
 * Property-based tests of the event-path validator (the model's `eventPathProblem`, and the
 * provider's `checkEventPaths` over it): paths built from valid segments pass, paths with
 * whitespace, control characters, empty segments or a misplaced `*` fail with a message, the
 * validator agrees with the grammar written out as one regular expression (the model's
 * `EVENT_PATH_PATTERN`, which openapi.yaml and the JSON Schema carry), and no input makes it throw.
 * (The emulator's input handling has its own fuzz test.)
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { UNKNOWN } from "../../src/core/unknown";
import { CheckFailures, checkEventPaths } from "../../src/core/validation";
import {
  codePointLength,
  EVENT_PATH_PATTERN,
  eventPathProblem,
  MAX_EVENT_PATH_LENGTH,
} from "../../src/model";

const RUNS = { numRuns: 500 };

/**
 * The grammar: `/`-separated segments without whitespace, control characters, `/` or `*`,
 * optionally ending in `/*`, as the one regular expression the contract states.
 */
const GRAMMAR = new RegExp(EVENT_PATH_PATTERN, "u");

/** Whitespace as JavaScript's `\s` knows it, Unicode spaces included. */
const WHITESPACE = [
  " ",
  "\t",
  "\n",
  "\r",
  "\v",
  "\f",
  "\u00a0",
  "\u1680",
  "\u2003",
  "\u2028",
  "\u202f",
  "\u3000",
  "\ufeff",
];

/** One valid segment: any characters but `/`, `*`, whitespace and control characters (Unicode included). */
const segment = fc
  .string({ unit: "grapheme", minLength: 1, maxLength: 12 })
  .map((s) => s.replace(/[\s/*\p{Cc}]/gu, ""))
  .filter((s) => s.length > 0);

/** A valid path: 1..6 segments, sometimes ending in a `*` wildcard after at least one segment. */
const validPath = fc
  .tuple(fc.array(segment, { minLength: 1, maxLength: 6 }), fc.boolean())
  .map(([segments, wildcard]) => segments.join("/") + (wildcard ? "/*" : ""));

/** A valid path without a wildcard. */
const plainPath = fc.array(segment, { minLength: 1, maxLength: 6 }).map((segments) => segments.join("/"));

/** Inserts `insert` at a position chosen by `at` (0..1). */
function insertAt(path: string, insert: string, at: number): string {
  const index = Math.floor(at * (path.length + 1));
  return path.slice(0, index) + insert + path.slice(index);
}

const position = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true });

function failuresFor(paths: unknown): CheckFailures["list"] {
  const failures = new CheckFailures();
  checkEventPaths(failures, "permissions.send", paths);
  return failures.list;
}

describe("event paths (property-based)", () => {
  it("accepts every path built from valid segments, with or without a final wildcard", () => {
    fc.assert(
      fc.property(validPath, (path) => {
        expect(eventPathProblem(path)).toBeUndefined();
        expect(failuresFor([path])).toEqual([]);
      }),
      RUNS,
    );
  });

  it("rejects a path with whitespace anywhere, saying so and naming the entry", () => {
    fc.assert(
      fc.property(validPath, fc.constantFrom(...WHITESPACE), position, (path, space, at) => {
        const bad = insertAt(path, space, at);
        expect(eventPathProblem(bad)).toBe("contains whitespace");
        const [failure, ...rest] = failuresFor(["orders/created", bad]);
        expect(rest).toEqual([]);
        expect(failure?.property).toBe("permissions.send[1]");
        expect(failure?.reason).toContain(`event path ${JSON.stringify(bad)} contains whitespace`);
      }),
      RUNS,
    );
  });

  it("rejects a path with a control character anywhere (the API does: preview must not pass it)", () => {
    const control = fc
      .integer({ min: 0, max: 0x9f })
      .filter((code) => code < 0x20 || code >= 0x7f)
      .map((code) => String.fromCharCode(code))
      .filter((c) => !/\s/u.test(c));
    fc.assert(
      fc.property(validPath, control, position, (path, c, at) => {
        const bad = insertAt(path, c, at);
        expect(eventPathProblem(bad)).toBe("contains a control character");
        expect(failuresFor([bad])[0]?.reason).toContain("contains a control character; use '/'-separated");
      }),
      RUNS,
    );
  });

  it("accepts a path of exactly the maximum length, counted in code points", () => {
    const emoji = "😀".repeat(MAX_EVENT_PATH_LENGTH - 2);
    expect(eventPathProblem(`a/${emoji}`)).toBeUndefined();
    expect(eventPathProblem(`ab/${emoji}`)).toMatch(/longer than 1024/u);
  });

  it("rejects a leading, trailing or doubled '/' as an empty segment", () => {
    const withEmptySegment = fc.oneof(
      validPath.map((p) => `/${p}`),
      plainPath.map((p) => `${p}/`),
      fc.tuple(plainPath, validPath).map(([a, b]) => `${a}//${b}`),
    );
    fc.assert(
      fc.property(withEmptySegment, (bad) => {
        expect(eventPathProblem(bad)).toMatch(/empty segment/u);
        expect(failuresFor([bad])[0]?.reason).toMatch(/empty segment.*such as 'orders\/created'/u);
      }),
      RUNS,
    );
  });

  it("rejects a '*' anywhere but as the whole last segment after a prefix", () => {
    const misplaced = fc.oneof(
      // A wildcard segment followed by more segments.
      fc
        .tuple(plainPath, fc.array(segment, { minLength: 1, maxLength: 3 }))
        .map(([p, more]) => `${p}/*/${more.join("/")}`),
      // A '*' inside a segment.
      fc.tuple(segment, position, validPath).map(([s, at, rest]) => `${insertAt(s, "*", at)}x/${rest}`),
      // A bare wildcard, alone or first.
      fc.array(segment, { maxLength: 3 }).map((more) => ["*", ...more].join("/")),
    );
    fc.assert(
      fc.property(misplaced, (bad) => {
        const problem = eventPathProblem(bad);
        expect(problem).toMatch(/'\*'/u);
        expect(failuresFor([bad])).toHaveLength(1);
      }),
      RUNS,
    );
  });

  it("agrees with the grammar on any string, and never throws", () => {
    const anyPath = fc.oneof(
      fc.string({ unit: "binary", maxLength: 40 }),
      fc.string({ unit: fc.constantFrom("a", "b", "/", "*", " ", "\u00a0", "é", "😀"), maxLength: 24 }),
      validPath,
    );
    fc.assert(
      fc.property(anyPath, (path) => {
        const problem = eventPathProblem(path);
        const valid = codePointLength(path) <= MAX_EVENT_PATH_LENGTH && GRAMMAR.test(path);
        expect(problem === undefined).toBe(valid);
        if (problem !== undefined) expect(problem.length).toBeGreaterThan(0);
      }),
      { numRuns: 2000 },
    );
  });

  it("rejects paths longer than the limit, whatever their shape", () => {
    fc.assert(
      fc.property(validPath, fc.integer({ min: 1, max: 200 }), (path, extra) => {
        // The limit counts code points (as JSON Schema's maxLength does), not UTF-16 units.
        const long = `${"x".repeat(MAX_EVENT_PATH_LENGTH - codePointLength(path) + extra)}${path}`;
        expect(eventPathProblem(long)).toMatch(/longer than 1024/u);
      }),
      { numRuns: 100 },
    );
  });

  it("never throws on any value given as the list, and reports one failure per bad entry", () => {
    fc.assert(
      fc.property(fc.oneof(fc.anything(), fc.array(fc.anything(), { maxLength: 6 })), (value) => {
        const failures = failuresFor(value);
        for (const failure of failures) {
          expect(failure.property).toMatch(/^permissions\.send(\[\d+\])?$/u);
          expect(failure.reason.length).toBeGreaterThan(0);
        }
        if (Array.isArray(value)) {
          const bad = value.filter(
            (entry) =>
              entry !== UNKNOWN && (typeof entry !== "string" || eventPathProblem(entry) !== undefined),
          );
          expect(failures).toHaveLength(bad.length);
        }
      }),
      RUNS,
    );
  });

  it("lets values not known during preview pass, as the list or as an entry", () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(validPath, fc.constant(UNKNOWN)), { maxLength: 5 }), (paths) => {
        expect(failuresFor(paths)).toEqual([]);
        expect(failuresFor(UNKNOWN)).toEqual([]);
      }),
      { numRuns: 100 },
    );
  });
});
