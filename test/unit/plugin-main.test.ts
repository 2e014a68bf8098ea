import { describe, expect, it } from "vitest";
import { parseArgs } from "../../src/native/main";

describe("parseArgs", () => {
  it.each([
    [["127.0.0.1:5000"], "127.0.0.1:5000"],
    [["--logtostderr", "-v=9", "127.0.0.1:5000"], "127.0.0.1:5000"],
    [["--tracing", "http://tracing.test", "--logtostderr", "localhost:1234"], "localhost:1234"],
    [["--tracing=http://tracing.test", "-v=3", "[::1]:9"], "[::1]:9"],
    [["-v=1"], undefined],
    [[], undefined],
  ])("finds the engine address in %j", (argv, address) => {
    expect(parseArgs(argv).engineAddress).toBe(address);
  });
});
