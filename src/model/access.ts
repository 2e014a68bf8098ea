/**
 * The broadening rule: whether a change of one access key's grants lets it reach more, less or the
 * same, judged by the event path grammar's containment (`eventPathCovers`), never by spelling.
 *
 * - Paths: a change broadens when the key, after it, is granted a path that no path it held before
 *   covers (`orders/*` where it had `orders/created`); it narrows when nothing new is reachable and
 *   something reachable before no longer is; adding `orders/created` beside `orders/*` is neither.
 * - Types: `SERVICE` -> `ACCOUNT` broadens (an ACCOUNT key calls the configuration API, which can
 *   make any key with any grant); `ACCOUNT` -> `SERVICE` narrows.
 * - A new key broadens when it grants anything or is an ACCOUNT key. A new SERVICE key with no
 *   `send` and no `receive` is "unchanged": it reaches no event path and no API.
 * - A key that stops granting (revoked) narrows, by the same reading.
 * - What is not known yet (a list or type computed from another resource during a preview) counts
 *   as broadening: nothing proves it does not, and a check that waves an unknown through is the
 *   check an attacker would write the change for.
 */
import type { AccessKeyType } from "./access-keys";
import { uncoveredEventPaths } from "./event-paths";

/** How a change moves access: see the module's rule. */
export type AccessVerdict = "broadens" | "narrows" | "unchanged";

/** The two permission directions the rule reads, in the order reports list them. */
export const ACCESS_DIRECTIONS = ["send", "receive"] as const;

/** A permission direction of an access key. */
export type AccessDirection = (typeof ACCESS_DIRECTIONS)[number];

/** What one key grants at one moment; `undefined` where it is not known yet. */
export interface KeyGrant {
  /** The key's type, or `undefined` when not known yet. */
  readonly type: AccessKeyType | undefined;
  /** The event paths it may send to, or `undefined` when not known yet. */
  readonly send: readonly string[] | undefined;
  /** The event paths it may receive from, or `undefined` when not known yet. */
  readonly receive: readonly string[] | undefined;
}

/** The verdict of one key's change, and the paths each direction gained by the grammar. */
export interface KeyGrantComparison {
  readonly verdict: AccessVerdict;
  /** Per direction, the paths after the change that nothing before it covers (unknown lists: none). */
  readonly gained: Record<AccessDirection, string[]>;
  /** Per direction, the paths before the change that nothing after it covers (unknown lists: none). */
  readonly lost: Record<AccessDirection, string[]>;
}

/** A key that grants nothing: what "no key" is compared as. */
const NOTHING: KeyGrant = { type: "SERVICE", send: [], receive: [] };

/**
 * Compares what a key grants before and after a change by the module's rule. `undefined` stands for
 * no key at all: before a create, after a revocation.
 *
 * @example
 * ```ts
 * compareKeyGrants(
 *   { type: "SERVICE", send: ["orders/created"], receive: [] },
 *   { type: "SERVICE", send: ["orders/*"], receive: [] },
 * ).verdict; // "broadens"
 * ```
 */
export function compareKeyGrants(
  before: KeyGrant | undefined,
  after: KeyGrant | undefined,
): KeyGrantComparison {
  const from = before ?? NOTHING;
  const to = after ?? NOTHING;
  const gained = { send: [] as string[], receive: [] as string[] };
  const lost = { send: [] as string[], receive: [] as string[] };
  let unknown = to.type === undefined;
  for (const direction of ACCESS_DIRECTIONS) {
    const was = from[direction];
    const is = to[direction];
    if (is === undefined) {
      unknown = true;
      continue;
    }
    // What the key held before is unknown only in drift a refresh could not read: compare nothing.
    if (was === undefined) continue;
    gained[direction] = uncoveredEventPaths(was, is);
    lost[direction] = uncoveredEventPaths(is, was);
  }
  const typeMove = typeVerdict(from.type, to.type);
  const broadens =
    unknown || typeMove === "broadens" || gained.send.length > 0 || gained.receive.length > 0;
  const narrows = typeMove === "narrows" || lost.send.length > 0 || lost.receive.length > 0;
  // A key that comes or goes compares with a SERVICE key granting nothing: an ACCOUNT key among
  // them broadens (or narrows) by its type alone, an empty SERVICE key by nothing.
  const verdict: AccessVerdict = broadens ? "broadens" : narrows ? "narrows" : "unchanged";
  return { verdict, gained, lost };
}

/** SERVICE -> ACCOUNT broadens, ACCOUNT -> SERVICE narrows; an unknown type before compares as nothing. */
function typeVerdict(before: AccessKeyType | undefined, after: AccessKeyType | undefined): AccessVerdict {
  if (after === undefined) return "broadens";
  if (before === undefined || before === after) return "unchanged";
  return after === "ACCOUNT" ? "broadens" : "narrows";
}

/**
 * The verdict of many keys' changes together: `broadens` when any broadens, else `narrows` when
 * any narrows, else `unchanged`.
 */
export function combineVerdicts(verdicts: Iterable<AccessVerdict>): AccessVerdict {
  let result: AccessVerdict = "unchanged";
  for (const verdict of verdicts) {
    if (verdict === "broadens") return "broadens";
    if (verdict === "narrows") result = "narrows";
  }
  return result;
}
