import { DYNAMIC_DOOR } from "./support/cycle-stack";
import { describeProviderCrash, HELD_AFTER_PROCESSING } from "./support/provider-crash";

// Issue #39's acceptance for the dynamic door, the moments whose held request the broker processed and
// never answered (test/reliability/support/provider-crash.ts; the others in
// provider-crash-before-processing-dynamic).
describeProviderCrash(DYNAMIC_DOOR, HELD_AFTER_PROCESSING);
