import { NATIVE_DOOR } from "./support/cycle-stack";
import { CANCELLED_RUNS, describeInterruptedAnywhere } from "./support/interrupted-anywhere";

// Issue #20's acceptance for the native door, the runs the CLI cancels: SIGTERM, Ctrl-C
// (test/reliability/support/interrupted-anywhere.ts; SIGKILL in interrupted-anywhere-killed-native).
describeInterruptedAnywhere(NATIVE_DOOR, CANCELLED_RUNS);
