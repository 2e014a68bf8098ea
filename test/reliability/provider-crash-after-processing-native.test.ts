import { NATIVE_DOOR } from "./support/cycle-stack";
import { describeProviderCrash, HELD_AFTER_PROCESSING } from "./support/provider-crash";

// Issue #39's acceptance for the native door, the moments whose held request the broker processed and
// never answered (test/reliability/support/provider-crash.ts; the others in
// provider-crash-before-processing-native).
describeProviderCrash(NATIVE_DOOR, HELD_AFTER_PROCESSING);
