import { DYNAMIC_DOOR } from "./support/cycle-stack";
import { describeInterruptedAnywhere, KILLED_RUNS } from "./support/interrupted-anywhere";

// Issue #20's acceptance for the dynamic door, the runs killed outright: SIGKILL, then recovery
// (test/reliability/support/interrupted-anywhere.ts; SIGTERM and Ctrl-C in interrupted-anywhere-cancelled-dynamic).
describeInterruptedAnywhere(DYNAMIC_DOOR, KILLED_RUNS);
