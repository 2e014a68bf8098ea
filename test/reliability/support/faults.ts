/** The fault mix of the reliability suite: every failure the client must survive, in one seeded blend. */
import type { EmulatorControls, FaultSpec } from "../../../src/emulator";

/**
 * Rate limits (with `Retry-After` 0 and 1 s), gateway errors and dropped connections, each both
 * before the server processed the request and after (a lost response: the write happened).
 */
export const FAULT_MIX: readonly FaultSpec[] = [
  { kind: "429", retryAfter: "0" },
  { kind: "429", retryAfter: "1" },
  { kind: "503", phase: "before" },
  { kind: "503", phase: "after" },
  { kind: "reset", phase: "before" },
  { kind: "reset", phase: "after" },
];

/**
 * The transient server faults of {@link FAULT_MIX} without its 429s: for tests where the rate
 * limit itself must answer every 429 (an injected 429 is indistinguishable from the limit's, and
 * the client rightly slows down for it, which can keep the real limit from ever striking).
 */
export const SERVER_FAULTS: readonly FaultSpec[] = FAULT_MIX.filter((fault) => fault.kind !== "429");

/**
 * Injects `mix` so that a request meets some fault with probability `combinedRate`. The emulator
 * consults answering faults in order and the first that fires wins, so each gets the rate `r` with
 * `1 - (1 - r)^n = combinedRate` for `n` faults.
 */
export async function injectFaultMix(
  controls: EmulatorControls,
  combinedRate: number,
  seed: number,
  mix: readonly FaultSpec[] = FAULT_MIX,
): Promise<void> {
  const each = 1 - (1 - combinedRate) ** (1 / mix.length);
  for (const [index, fault] of mix.entries()) {
    await controls.injectFault({ ...fault, rate: each, seed: seed * 100 + index });
  }
}
