import { NATIVE_DOOR } from "./support/cycle-stack";
import { describeProviderCrash, HELD_BEFORE_PROCESSING } from "./support/provider-crash";

// Issue #39's acceptance for the native door, the moments whose held request the broker never processed
// (test/reliability/support/provider-crash.ts; the others in provider-crash-after-processing-native).
describeProviderCrash(NATIVE_DOOR, HELD_BEFORE_PROCESSING);
