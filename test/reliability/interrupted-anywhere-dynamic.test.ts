import { describeInterruptedAnywhere } from "./support/interrupted-anywhere";

// Issue #20's acceptance for the dynamic door (test/reliability/support/interrupted-anywhere.ts).
describeInterruptedAnywhere({ name: "dynamic", program: "broker", plugin: false });
