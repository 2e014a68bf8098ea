/** Test helpers that inject a mix of faults into an emulator and count the requests they struck. */
import type { EmulatorControls, FaultKind, FaultPhase, RequestLogEntry } from "../../src/emulator";

/** One fault of a mix: its kind, and whether it strikes before or after the server handles a request. */
export type FaultMixEntry = readonly [kind: Exclude<FaultKind, "latency">, phase: FaultPhase];

/** The share of requests each fault of a mix strikes. */
export const FAULT_MIX_RATE = 0.06;

/**
 * Injects each fault of `mix` into {@link FAULT_MIX_RATE} of the requests, with the seeds `seed`,
 * `seed + 1`, …: one seed per fault, since with a shared seed they would draw the same numbers, and
 * only the first (which wins when several fire) would ever strike. A 429 asks to retry at once.
 */
export async function injectFaultMix(
  controls: EmulatorControls,
  mix: readonly FaultMixEntry[],
  seed: number,
): Promise<void> {
  for (const [index, [kind, phase]] of mix.entries()) {
    await controls.injectFault({
      kind,
      phase,
      rate: FAULT_MIX_RATE,
      seed: seed + index,
      ...(kind === "429" ? { retryAfter: "0" } : {}),
    });
  }
}

/**
 * The requests a fault struck since the request log was last cleared, and how many times the
 * active faults say they applied (the two agree when every strike reached the log).
 */
export async function struckRequests(
  controls: EmulatorControls,
): Promise<{ struck: RequestLogEntry[]; applied: number }> {
  const struck = (await controls.requests()).filter((r) => r.fault !== undefined);
  const applied = (await controls.faults()).reduce((sum, fault) => sum + fault.applied, 0);
  return { struck, applied };
}
