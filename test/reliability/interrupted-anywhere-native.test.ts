import { describeInterruptedAnywhere } from "./support/interrupted-anywhere";

// Issue #20's acceptance for the native door (test/reliability/support/interrupted-anywhere.ts).
describeInterruptedAnywhere({ name: "native", program: "native", plugin: true });
