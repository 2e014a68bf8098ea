/** Fault injection: which faults are active, and which of them strike a given request. */
import type { ActiveFault, FaultKind, FaultPhase, FaultSpec } from "./control-types";
import { invalid } from "./errors";
import type { Reply } from "./http";
import { expectEnum, expectInteger, expectNumber, expectObject } from "./validation";

const KINDS: readonly FaultKind[] = ["latency", "429", "503", "reset"];
const PHASES: readonly FaultPhase[] = ["before", "after"];

/** Longest accepted latency fault (10 minutes): longer ones are surely a mistake. */
export const MAX_LATENCY_MS = 600_000;

/** What the faults decided for one request. */
export interface FaultPlan {
  /** Delay before handling the request. */
  delayBeforeMs: number;
  /** Delay between handling the request and answering. */
  delayAfterMs: number;
  /** The answering fault, if one struck: it replaces the response or the connection. */
  action?: { kind: Exclude<FaultKind, "latency">; phase: FaultPhase; retryAfter: string };
  /** The kind to record in the request log. */
  label?: FaultKind;
}

/** The plan of a request that no fault strikes. */
export const NO_FAULTS: FaultPlan = { delayBeforeMs: 0, delayAfterMs: 0 };

/** mulberry32: tiny and good enough to make a seeded `rate` reproducible. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function expectRetryAfter(value: unknown): number | string {
  if (typeof value === "number" && Number.isInteger(value) && value >= 0) return value;
  // It becomes a header value: visible ASCII only, or writing the response would throw.
  if (typeof value === "string" && /^[\x20-\x7e]+$/.test(value)) return value;
  throw invalid("body.retryAfter", "must be a non-negative integer or a non-empty header value");
}

/** Validates a fault spec; `routes` must name known route keys, so a typo fails loudly instead of never matching. */
export function parseFaultSpec(body: unknown, knownRoutes: readonly string[]): FaultSpec {
  const object = expectObject(body, "body", [
    "kind",
    "rate",
    "count",
    "latencyMs",
    "retryAfter",
    "routes",
    "phase",
    "seed",
    "skip",
  ]);
  const spec: FaultSpec = { kind: expectEnum(object.kind, "body.kind", KINDS) };
  if (object.rate !== undefined) spec.rate = expectNumber(object.rate, "body.rate", 0, 1);
  if (object.count !== undefined) spec.count = expectInteger(object.count, "body.count", 1);
  if (object.skip !== undefined) spec.skip = expectInteger(object.skip, "body.skip", 0);
  if (spec.kind === "latency") {
    spec.latencyMs = expectInteger(object.latencyMs, "body.latencyMs", 0, MAX_LATENCY_MS);
  } else if (object.latencyMs !== undefined) {
    throw invalid("body.latencyMs", "applies only to latency faults");
  }
  if (object.retryAfter !== undefined) {
    if (spec.kind !== "429") throw invalid("body.retryAfter", "applies only to 429 faults");
    spec.retryAfter = expectRetryAfter(object.retryAfter);
  }
  if (object.routes !== undefined) {
    const routes = object.routes;
    if (!Array.isArray(routes) || routes.length === 0)
      throw invalid("body.routes", "must be a non-empty array of route keys");
    spec.routes = routes.map((route: unknown, index) =>
      expectEnum(route, `body.routes[${index}]`, knownRoutes),
    );
  }
  if (object.phase !== undefined) spec.phase = expectEnum(object.phase, "body.phase", PHASES);
  if (object.seed !== undefined) spec.seed = expectInteger(object.seed, "body.seed", Number.MIN_SAFE_INTEGER);
  return spec;
}

interface Fault {
  id: string;
  spec: FaultSpec;
  remaining: number | undefined;
  /** Matching requests still to let through before the fault strikes. */
  skipping: number;
  applied: number;
  random: () => number;
}

/** The active faults. */
export class FaultRegistry {
  private faults: Fault[] = [];
  private nextId = 1;

  /** Activates a fault and returns its id. */
  add(spec: FaultSpec): string {
    const id = `fault-${this.nextId++}`;
    this.faults.push({
      id,
      spec,
      remaining: spec.count,
      skipping: spec.skip ?? 0,
      applied: 0,
      random: spec.seed === undefined ? Math.random : seededRandom(spec.seed),
    });
    return id;
  }

  list(): ActiveFault[] {
    return this.faults.map((fault) => {
      const active: ActiveFault = { ...fault.spec, id: fault.id, applied: fault.applied };
      if (fault.remaining !== undefined) active.remaining = fault.remaining;
      return active;
    });
  }

  clear(): void {
    this.faults = [];
  }

  /**
   * Decides, once per request, which faults strike it: every latency fault that fires adds its delay,
   * and the first answering fault (429, 503, reset) that fires wins; later answering faults are not
   * consulted, so they keep their count and random sequence.
   */
  plan(route: string): FaultPlan {
    const plan: FaultPlan = { delayBeforeMs: 0, delayAfterMs: 0 };
    for (const fault of this.faults) {
      const { spec } = fault;
      if (spec.routes && !spec.routes.includes(route)) continue;
      if (spec.kind !== "latency" && plan.action) continue;
      if (fault.skipping > 0) {
        fault.skipping--;
        continue;
      }
      if (spec.rate !== undefined && fault.random() >= spec.rate) continue;
      fault.applied++;
      if (fault.remaining !== undefined) fault.remaining--;
      const phase = spec.phase ?? "before";
      if (spec.kind === "latency") {
        if (phase === "before") plan.delayBeforeMs += spec.latencyMs ?? 0;
        else plan.delayAfterMs += spec.latencyMs ?? 0;
        plan.label ??= "latency";
      } else {
        plan.action = { kind: spec.kind, phase, retryAfter: String(spec.retryAfter ?? "1") };
        plan.label = spec.kind;
      }
    }
    this.faults = this.faults.filter((fault) => fault.remaining !== 0);
    return plan;
  }
}

/** The response of an answering fault (not used for `reset`, which sends nothing). */
export function faultReply(action: NonNullable<FaultPlan["action"]>): Reply {
  if (action.kind === "429") {
    return {
      status: 429,
      body: {
        code: "rate_limited",
        message: "Too many requests (emulated): retry after the Retry-After delay",
      },
      headers: { "retry-after": action.retryAfter },
    };
  }
  return {
    status: 503,
    body: { code: "service_unavailable", message: "The service is unavailable (emulated): retry later" },
  };
}
