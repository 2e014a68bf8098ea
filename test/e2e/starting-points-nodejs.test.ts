import { describeStartingPoints } from "./support/starting-points";

// Issue #32's starting points (test/e2e/support/starting-points.ts says what they prove) for the
// Node.js templates, typescript and javascript: the package installed with `npm install` as the
// README's Quickstart says, the native door from TypeScript and the dynamic door from JavaScript, each
// stack destroyed by its provider. The other templates: starting-points-python-go-yaml.test.ts.
describeStartingPoints(["typescript", "javascript"]);
