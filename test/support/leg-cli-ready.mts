// The setup file of every leg of the engine matrix but the main one (vitest.config.mts): before each
// of the leg's files is imported, its CLI must be ready, which the leg's global setup started
// preparing in the background (test/support/leg-cli.mts says why). The wait is the file's setup
// time, which the summary's file times leave out: the file's own work is what the budget is about.
import { inject } from "vitest";
import { awaitLegCli } from "./leg-cli.mts";

await awaitLegCli(inject("legCliStatus"), inject("pulumiBin"), inject("pulumiVersion"));
