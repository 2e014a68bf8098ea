import { DYNAMIC_DOOR } from "./support/cycle-stack";
import { CANCELLED_RUNS, describeInterruptedAnywhere } from "./support/interrupted-anywhere";

// Issue #20's acceptance for the dynamic door, the runs the CLI cancels: SIGTERM, Ctrl-C
// (test/reliability/support/interrupted-anywhere.ts; SIGKILL in interrupted-anywhere-killed-dynamic).
describeInterruptedAnywhere(DYNAMIC_DOOR, CANCELLED_RUNS);
