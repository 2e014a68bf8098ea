/**
 * The analysis of the access review: from what each access key granted before and after a change
 * (read from a preview, from two documents, or from the broker and a document), the report's
 * section (`AccessChange`): each key's kind of change, its paths added and removed, its verdict by
 * the model's broadening rule, the summary counts, and the inverted view of who gains which path.
 *
 * It knows nothing of where the accesses came from: `preview.ts` and `documents.ts` read them.
 */
import {
  ACCESS_DIRECTIONS,
  combineVerdicts,
  compareKeyGrants,
  type AccessDirection,
  type KeyGrant,
  type OnDelete,
} from "../model";
import type {
  AccessChange,
  KeyAccess,
  KeyChange,
  KeyChangeKind,
  PathGain,
  ReviewSummary,
  UnknownValue,
  WorkspaceMove,
} from "./report";

/** What happened to a key's resource, as the source tells it (before the review reads access). */
export type KeyOperation = "create" | "delete" | "replace" | "update";

/** One access key's resource in a change, as a reader (`preview.ts`, `documents.ts`) found it. */
export interface KeyTransition {
  /** The key's name on the broker (`[secret]` for a secret name). */
  name: string;
  /** Where it is declared: a URN, or `accessKeys[3]` of a document. */
  source: string;
  /** Which door declared it, when known. */
  door?: KeyChange["door"];
  operation: KeyOperation;
  /** The access before (absent for a create). */
  before?: KeyAccess;
  /** The access after (absent for a delete). */
  after?: KeyAccess;
  /** For a delete: what it does to the key on the broker (`retain` keeps its access). */
  onDelete?: OnDelete;
  /** For a replace: whether `rotationTriggers` asked for it (a rotation when access is the same). */
  rotation?: boolean;
}

/** The workspaces a reader found renamed or moved. */
export type WorkspaceTransition = WorkspaceMove;

/** `true` for a value the preview cannot know yet (or a secret it does not show). */
export function isUnknownValue(value: unknown): value is UnknownValue {
  return typeof value === "object" && value !== null && (value as UnknownValue).unknown === true;
}

/** The model's view of a key's access: unknown values as `undefined`. */
function grantOf(access: KeyAccess): KeyGrant {
  return {
    type: isUnknownValue(access.type) ? undefined : access.type,
    send: isUnknownValue(access.send) ? undefined : access.send,
    receive: isUnknownValue(access.receive) ? undefined : access.receive,
  };
}

/** The paths of `a` that `b` does not spell (known lists only). */
function spelledDifference(a: string[] | UnknownValue | undefined, b: string[] | UnknownValue | undefined): string[] {
  if (a === undefined || isUnknownValue(a)) return [];
  if (b === undefined) return [...a];
  if (isUnknownValue(b)) return [];
  const other = new Set(b);
  return a.filter((path) => !other.has(path));
}

/** Whether two accesses are the same, spelled the same (an update that touches no access). */
function sameSpelling(a: KeyAccess, b: KeyAccess): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** What one transition is in the review, or `undefined` when it touches neither access nor value. */
function keyChange(transition: KeyTransition): { change: KeyChange; gained: Record<AccessDirection, string[]> } | undefined {
  const { before, after } = transition;
  // A key removed from the stack with onDelete "retain" keeps its access on the broker.
  const retained = transition.operation === "delete" && transition.onDelete === "retain";
  const effectiveAfter = retained ? before : after;
  if (transition.operation === "update" && before !== undefined && after !== undefined && sameSpelling(before, after))
    return undefined;
  const comparison = compareKeyGrants(
    before === undefined ? undefined : grantOf(before),
    effectiveAfter === undefined ? undefined : grantOf(effectiveAfter),
  );
  const unknown =
    effectiveAfter !== undefined &&
    (isUnknownValue(effectiveAfter.type) || isUnknownValue(effectiveAfter.send) || isUnknownValue(effectiveAfter.receive));
  let kind: KeyChangeKind;
  switch (transition.operation) {
    case "create":
      kind = "created";
      break;
    case "delete":
      kind = retained ? "retained" : "revoked";
      break;
    case "replace":
      kind = transition.rotation === true && comparison.verdict === "unchanged" && !unknown ? "rotated" : "replaced";
      break;
    default:
      kind = "updated";
  }
  const change: KeyChange = {
    name: transition.name,
    source: transition.source,
    kind,
    added: {
      send: spelledDifference(effectiveAfter?.send, before?.send),
      receive: spelledDifference(effectiveAfter?.receive, before?.receive),
    },
    removed: {
      send: effectiveAfter === undefined ? spelledDifference(before?.send, undefined) : spelledDifference(before?.send, effectiveAfter.send),
      receive:
        effectiveAfter === undefined
          ? spelledDifference(before?.receive, undefined)
          : spelledDifference(before?.receive, effectiveAfter.receive),
    },
    unknown,
    verdict: comparison.verdict,
  };
  if (transition.door !== undefined) change.door = transition.door;
  if (before !== undefined) change.before = before;
  if (effectiveAfter !== undefined) change.after = effectiveAfter;
  return { change, gained: comparison.gained };
}

/** The order keys are listed in: broadening first, then by name and source (stable across runs). */
const VERDICT_ORDER = { broadens: 0, narrows: 1, unchanged: 2 } as const;

/**
 * The review's section for a set of key transitions and workspace moves: keys that touch neither
 * access nor value (an update of `adopt`, say) are left out; keys are listed broadening first.
 */
export function analyzeChange(
  transitions: readonly KeyTransition[],
  workspaces: readonly WorkspaceTransition[],
): AccessChange {
  const keys: KeyChange[] = [];
  const gainsByPath = new Map<string, PathGain>();
  for (const transition of transitions) {
    const result = keyChange(transition);
    if (result === undefined) continue;
    keys.push(result.change);
    for (const direction of ACCESS_DIRECTIONS) {
      for (const path of result.gained[direction]) {
        const id = `${direction}\u0000${path}`;
        let gain = gainsByPath.get(id);
        if (gain === undefined) {
          gain = { path, direction, keys: [] };
          gainsByPath.set(id, gain);
        }
        gain.keys.push(result.change.name);
      }
    }
  }
  keys.sort(
    (a, b) =>
      VERDICT_ORDER[a.verdict] - VERDICT_ORDER[b.verdict] ||
      compareText(a.name, b.name) ||
      compareText(a.source, b.source),
  );
  const gains = [...gainsByPath.values()]
    .map((gain) => ({ ...gain, keys: [...new Set(gain.keys)].sort(compareText) }))
    .sort((a, b) => compareText(a.path, b.path) || compareText(a.direction, b.direction));
  return {
    summary: summarize(keys),
    verdict: combineVerdicts(keys.map((key) => key.verdict)),
    keys,
    gains,
    workspaces: [...workspaces].sort((a, b) => compareText(a.from, b.from) || compareText(a.to, b.to)),
  };
}

/** Code-unit order, the same on every machine (no locale). */
function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function summarize(keys: readonly KeyChange[]): ReviewSummary {
  const count = (kind: KeyChangeKind): number => keys.filter((key) => key.kind === kind).length;
  let grantsAdded = 0;
  let grantsRemoved = 0;
  for (const key of keys) {
    for (const direction of ACCESS_DIRECTIONS) {
      grantsAdded += key.added[direction].length;
      grantsRemoved += key.removed[direction].length;
    }
  }
  return {
    keysCreated: count("created"),
    keysRevoked: count("revoked"),
    keysReplaced: count("replaced"),
    keysRotated: count("rotated"),
    keysUpdated: count("updated"),
    keysRetained: count("retained"),
    grantsAdded,
    grantsRemoved,
  };
}
