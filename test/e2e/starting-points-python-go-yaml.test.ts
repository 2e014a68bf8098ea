import { describeStartingPoints } from "./support/starting-points";

// Issue #32's starting points (test/e2e/support/starting-points.ts says what they prove) for the
// templates with no npm package: python, go and yaml, the plugin installed with
// `npx broker-config plugin install`, Python's and Go's SDK as the README says (YAML needs none). The
// Node.js templates: starting-points-nodejs.test.ts.
describeStartingPoints(["python", "go", "yaml"]);
