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
 * Injects {@link FAULT_MIX} so that a request meets some fault with probability `combinedRate`. The
 * emulator consults answering faults in order and the first that fires wins, so each gets the rate
 * `r` with `1 - (1 - r)^6 = combinedRate`.
 */
export async function injectFaultMix(
  controls: EmulatorControls,
  combinedRate: number,
  seed: number,
): Promise<void> {
  const each = 1 - (1 - combinedRate) ** (1 / FAULT_MIX.length);
  for (const [index, fault] of FAULT_MIX.entries()) {
    await controls.injectFault({ ...fault, rate: each, seed: seed * 100 + index });
  }
}
