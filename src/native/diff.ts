/**
 * The answer to the engine's `Diff`, built from one list of per-path changes.
 *
 * The engine reads several fields of a `DiffResponse` (`diffs`, `replaces`, `detailedDiff`,
 * `stables`, `changes`) and the protocol requires them to agree with one another. Here the detailed
 * diff is the one source: every other field is derived from it, so they always agree. The engine's
 * `replaceOnChanges` option and the per-path preview display act only on `diffs`/`detailedDiff`.
 */
import { DiffResponse, PropertyDiff } from "@pulumi/pulumi/proto/provider_pb";
import { formatPath, type PathSegment } from "./codec";

/** What happened at one property path: added, removed, or changed. */
export type ChangeKind = "add" | "delete" | "update";

/** One changed property path, as the core reports it. */
export interface ChangeEntry {
  /** The path, such as `permissions.send[1]` or `["permissions", "send", 1]`. */
  readonly path: string | readonly PathSegment[];
  /** For `add`, the path is into the new value; for `delete`, into the old one. */
  readonly kind: ChangeKind;
  /** Whether this change replaces the resource. */
  readonly replace: boolean;
  /**
   * Whether the change is between the old and new inputs (true) or between the recorded state and
   * the new inputs (false, e.g. drift found by refresh).
   * @default true
   */
  readonly inputDiff?: boolean;
}

/** What a resource's diff found. */
export interface DiffPlan {
  /** Every changed path. */
  readonly changes: readonly ChangeEntry[];
  /**
   * Top-level outputs that an update leaves as they are, so that dependents can use them during
   * preview. Any that also appear in the changes are dropped.
   */
  readonly stables?: readonly string[];
  /** Whether a replacement must delete the old object before creating the new one. @default false */
  readonly deleteBeforeReplace?: boolean;
  /**
   * Set when the provider cannot tell whether anything changed; with no changes listed the engine
   * then compares the inputs itself.
   * @default false
   */
  readonly undecided?: boolean;
}

/** The engine's verdict: nothing changed, something changed, or "diff it yourself". */
export type DiffVerdict = "DIFF_NONE" | "DIFF_SOME" | "DIFF_UNKNOWN";

/** The kinds of a detailed-diff entry, as the protocol names them. */
export type PropertyDiffKind = keyof typeof PropertyDiff.Kind;

/** A complete, consistent answer to `Diff`. */
export interface DiffResult {
  readonly changes: DiffVerdict;
  /** The top-level keys that change. */
  readonly diffs: readonly string[];
  /** The top-level keys whose change replaces the resource. */
  readonly replaces: readonly string[];
  /** The top-level outputs that stay as they are. */
  readonly stables: readonly string[];
  /** Per path: the kind of change and whether it is an input diff. */
  readonly detailedDiff: Readonly<Record<string, { kind: PropertyDiffKind; inputDiff: boolean }>>;
  /** Always true: the detailed diff is authoritative. */
  readonly hasDetailedDiff: true;
  readonly deleteBeforeReplace: boolean;
}

/** The top-level key of a formatted path: `permissions` for `permissions.send[1]`. */
export function topLevelKey(path: string): string {
  if (path.startsWith("[")) {
    // A quoted key such as `["a.b"].c`: the JSON string up to the closing `"]`.
    const match = /^\[("(?:[^"\\]|\\.)*")\]/.exec(path);
    if (match?.[1] !== undefined) return JSON.parse(match[1]) as string;
    return path;
  }
  const end = path.search(/[.[]/);
  return end === -1 ? path : path.slice(0, end);
}

function kindOf(kind: ChangeKind, replace: boolean): PropertyDiffKind {
  const base = kind === "add" ? "ADD" : kind === "delete" ? "DELETE" : "UPDATE";
  return replace ? `${base}_REPLACE` : base;
}

/**
 * Builds a consistent {@link DiffResult}: `diffs` and `replaces` are the top-level keys of the
 * changed paths (those that replace, for `replaces`), `changes` is `DIFF_SOME` exactly when a path
 * changed, and a path listed twice is one entry (replacing if either did; `update` if the kinds
 * differ).
 */
export function buildDiff(plan: DiffPlan): DiffResult {
  const merged = new Map<string, { kind: ChangeKind; replace: boolean; inputDiff: boolean }>();
  for (const entry of plan.changes) {
    const path = typeof entry.path === "string" ? entry.path : formatPath(entry.path);
    if (path === "") throw new Error("A diff entry needs a property path");
    const inputDiff = entry.inputDiff ?? true;
    const seen = merged.get(path);
    merged.set(
      path,
      seen === undefined
        ? { kind: entry.kind, replace: entry.replace, inputDiff }
        : {
            kind: seen.kind === entry.kind ? seen.kind : "update",
            replace: seen.replace || entry.replace,
            inputDiff: seen.inputDiff || inputDiff,
          },
    );
  }
  const paths = [...merged.keys()].sort();
  const details: [string, { kind: PropertyDiffKind; inputDiff: boolean }][] = [];
  const diffs = new Set<string>();
  const replaces = new Set<string>();
  for (const path of paths) {
    const entry = merged.get(path);
    if (entry === undefined) continue;
    details.push([path, { kind: kindOf(entry.kind, entry.replace), inputDiff: entry.inputDiff }]);
    diffs.add(topLevelKey(path));
    if (entry.replace) replaces.add(topLevelKey(path));
  }
  // fromEntries keeps a path such as `__proto__` an ordinary key.
  const detailedDiff = Object.fromEntries(details);
  const stables = [...new Set(plan.stables ?? [])].filter((key) => !diffs.has(key)).sort();
  const changes: DiffVerdict =
    diffs.size > 0 ? "DIFF_SOME" : plan.undecided === true ? "DIFF_UNKNOWN" : "DIFF_NONE";
  return {
    changes,
    diffs: [...diffs].sort(),
    replaces: [...replaces].sort(),
    stables,
    detailedDiff,
    hasDetailedDiff: true,
    deleteBeforeReplace: replaces.size > 0 && plan.deleteBeforeReplace === true,
  };
}

/** The protocol message for a {@link DiffResult}. */
export function toDiffResponse(result: DiffResult): DiffResponse {
  const response = new DiffResponse();
  response.setChanges(DiffResponse.DiffChanges[result.changes]);
  response.setDiffsList([...result.diffs]);
  response.setReplacesList([...result.replaces]);
  response.setStablesList([...result.stables]);
  response.setDeletebeforereplace(result.deleteBeforeReplace);
  response.setHasdetaileddiff(result.hasDetailedDiff);
  const map = response.getDetaileddiffMap();
  for (const [path, entry] of Object.entries(result.detailedDiff)) {
    const diff = new PropertyDiff();
    diff.setKind(PropertyDiff.Kind[entry.kind]);
    diff.setInputdiff(entry.inputDiff);
    map.set(path, diff);
  }
  return response;
}
