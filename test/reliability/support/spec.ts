/** The declared state the reliability program deploys (passed as the stack config `spec`). */

// The stack config that deploys a spec is the one every test program reads.
export { specConfig } from "../../support/projects";

/** A workspace: `parent` names another declared workspace. */
export interface WorkspaceSpec {
  name: string;
  parent?: string;
  adopt?: boolean;
}

/** An access key and its permissions. */
export interface KeySpec {
  name: string;
  type: "SERVICE" | "ACCOUNT";
  permissions: { send: string[]; receive: string[] };
  adopt?: boolean;
  /** The resource's name in the stack when it differs from `name` (to rename a key in place of its resource). */
  resource?: string;
  /** Resource options, passed to the AccessKey as they are. */
  options?: {
    protect?: boolean;
    retainOnDelete?: boolean;
    ignoreChanges?: string[];
    deleteBeforeReplace?: boolean;
    replaceOnChanges?: string[];
  };
}

/** A service key pair of the declared key `key`. */
export interface PairSpec {
  key: string;
  rotationTriggers?: Record<string, string>;
  /** Pass the key value as a plain (not secret) input, as `pulumi.unsecret(key.accessKey)` does. */
  plainAccessKey?: boolean;
}

/** Everything the program deploys. */
export interface Spec {
  workspaces: WorkspaceSpec[];
  keys: KeySpec[];
  pairs: PairSpec[];
}

/** The stack config that points the providers at an emulator, with generous retries. */
export function brokerConfig(
  target: { url: string; adminKey: string },
  maxRetries = 8,
): Record<string, { value: string; secret?: boolean }> {
  return {
    "broker:baseUrl": { value: target.url },
    "broker:apiKey": { value: target.adminKey, secret: true },
    "broker:maxRetries": { value: String(maxRetries) },
  };
}

/** How many resources the program registers for `spec` (the stack itself not counted). */
export function resourceCount(spec: Spec): number {
  return spec.workspaces.length + spec.keys.length + spec.pairs.length;
}

/**
 * The stack the interrupted-run suites deploy: two nested workspaces, `keys` keys named `svc-00`, …
 * (every fifth an ACCOUNT key, each with a path of its own, every other one also receiving
 * `payments/*`), and a pair on `svc-00`.
 */
export function numberedKeysSpec(keys: number): Spec {
  return {
    workspaces: [{ name: "platform" }, { name: "orders", parent: "platform" }],
    keys: Array.from({ length: keys }, (_, i) => ({
      name: `svc-${String(i).padStart(2, "0")}`,
      type: i % 5 === 4 ? ("ACCOUNT" as const) : ("SERVICE" as const),
      permissions: { send: [`orders/${i}`], receive: i % 2 === 0 ? ["payments/*"] : [] },
    })),
    pairs: [{ key: "svc-00", rotationTriggers: { quarter: "2026-Q4" } }],
  };
}

/**
 * Cycle `cycle`'s additions to a stack that grows by one cycle per test (one stack per door, see
 * `one-stack.ts`): a workspace nested under `platform`, `keys` keys named `c<cycle>-00`, … (every
 * fifth an ACCOUNT key, each with a path of its own, every other one also receiving `payments/*`) and
 * a pair on `c<cycle>-00`. Cycle 0 also declares the top-level `platform` workspace.
 */
export function cycleAdditions(cycle: number, keys: number): Spec {
  const prefix = `c${cycle}`;
  return {
    workspaces: [
      ...(cycle === 0 ? [{ name: "platform" }] : []),
      { name: `${prefix}-orders`, parent: "platform" },
    ],
    keys: Array.from({ length: keys }, (_, i) => ({
      name: `${prefix}-${String(i).padStart(2, "0")}`,
      type: i % 5 === 4 ? ("ACCOUNT" as const) : ("SERVICE" as const),
      permissions: { send: [`${prefix}/orders/${i}`], receive: i % 2 === 0 ? ["payments/*"] : [] },
    })),
    pairs: [{ key: `${prefix}-00`, rotationTriggers: { quarter: "2026-Q4" } }],
  };
}

/** Everything cycles `0` to `last` declare together: what the stack declares after cycle `last`. */
export function cyclesSpec(last: number, keys: number): Spec {
  const spec: Spec = { workspaces: [], keys: [], pairs: [] };
  for (let cycle = 0; cycle <= last; cycle++) {
    const added = cycleAdditions(cycle, keys);
    spec.workspaces.push(...added.workspaces);
    spec.keys.push(...added.keys);
    spec.pairs.push(...added.pairs);
  }
  return spec;
}

/** A cycle's pair and the key it belongs to: what stays declared after the cycle was checked. */
function keptOf(cycle: number, keys: number): Spec {
  const added = cycleAdditions(cycle, keys);
  const pairKey = added.keys[0];
  return {
    workspaces: cycle === 0 ? [{ name: "platform" }] : [],
    keys: pairKey === undefined ? [] : [pairKey],
    pairs: added.pairs,
  };
}

/**
 * What the stack declares in cycle `cycle` of a file whose cases are cycles of one stack: while the
 * cycle's run is interrupted (`"interrupted"`), the cycle's new names ({@link cycleAdditions}) beside
 * the whole of the cycle before, converged and checked; from the converging `up` on (`"converged"`),
 * the cycle before keeps only its pair and the pair's key. The rest of a cycle is dropped once it was
 * checked, so each command walks two cycles and the pairs rather than every cycle so far (issue #50);
 * every pair stays, so one `stack output` at the end still decrypts every private key the stack made.
 */
export function cycleSpec(cycle: number, keys: number, phase: "interrupted" | "converged"): Spec {
  const spec: Spec = { workspaces: [], keys: [], pairs: [] };
  for (let c = 0; c <= cycle; c++) {
    const whole = c === cycle || (phase === "interrupted" && c === cycle - 1);
    const part = whole ? cycleAdditions(c, keys) : keptOf(c, keys);
    spec.workspaces.push(...part.workspaces);
    spec.keys.push(...part.keys);
    spec.pairs.push(...part.pairs);
  }
  return spec;
}

/** The key and workspace names cycle `cycle`'s converging `up` drops: the cycle before, but its pair's key. */
export function droppedAt(cycle: number, keys: number): { keys: string[]; workspaces: string[] } {
  const names = (spec: Spec): { keys: string[]; workspaces: string[] } => ({
    keys: spec.keys.map((k) => k.name),
    workspaces: spec.workspaces.map((w) => w.name),
  });
  const before = names(cycleSpec(cycle, keys, "interrupted"));
  const after = names(cycleSpec(cycle, keys, "converged"));
  return {
    keys: before.keys.filter((k) => !after.keys.includes(k)),
    workspaces: before.workspaces.filter((w) => !after.workspaces.includes(w)),
  };
}
