import { describeProviderCrash } from "./support/provider-crash";

// Issue #39's acceptance for the native door (test/reliability/support/provider-crash.ts).
describeProviderCrash({ name: "native", program: "native", plugin: true });
