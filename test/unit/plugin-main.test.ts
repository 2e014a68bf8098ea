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

describe("the review command", () => {
  it.each([
    [["review", "preview.json"], ["preview.json"]],
    // `pulumi plugin run` puts the engine's logging flags first, as for any plugin it starts.
    [
      ["--logtostderr", "-v=9", "review", "preview.json", "--fail-on", "broadening"],
      ["preview.json", "--fail-on", "broadening"],
    ],
    [["review"], []],
  ])("is asked for by %j, with the arguments after `review`", (argv, review) => {
    expect(parseArgs(argv)).toEqual({ engineAddress: undefined, review });
  });

  it("is not asked for when the plugin is started to serve", () => {
    expect(parseArgs(["127.0.0.1:5000", "review"]).review).toBeUndefined();
  });
});
