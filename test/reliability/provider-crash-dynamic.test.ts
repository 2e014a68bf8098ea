import { describeProviderCrash } from "./support/provider-crash";

// Issue #39's acceptance for the dynamic door (test/reliability/support/provider-crash.ts).
describeProviderCrash({ name: "dynamic", program: "broker", plugin: false });
