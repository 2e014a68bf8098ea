import * as pulumi from "@pulumi/pulumi";
import { describe, expect, it } from "vitest";
import { knownInputs, UnknownComponentInputError } from "../../src/native/construct";

// What Construct hands a component: the deserialized inputs as plain values. The SDK's
// `deserializeInputs` wraps a secret input, or one with dependencies, in an Output (made here as
// the SDK's provider server makes them); an input that is not known yet cannot decide which
// resources the component declares.

/** An Output as `deserializeInputs` makes one: its value, known or not, secret or not. */
function output(value: unknown, { known = true, secret = false } = {}): pulumi.Output<unknown> {
  const OutputClass = pulumi.Output as unknown as new (
    resources: Set<pulumi.Resource>,
    promise: Promise<unknown>,
    isKnown: Promise<boolean>,
    isSecret: Promise<boolean>,
    allResources: Promise<Set<pulumi.Resource>>,
  ) => pulumi.Output<unknown>;
  return new OutputClass(
    new Set(),
    Promise.resolve(value),
    Promise.resolve(known),
    Promise.resolve(secret),
    Promise.resolve(new Set()),
  );
}

describe("knownInputs", () => {
  it("passes plain inputs on as they are", async () => {
    expect(await knownInputs(pulumi, "broker:index:Environment", { document: "version: 1\n" })).toEqual({
      document: "version: 1\n",
    });
  });

  it("takes the value of a secret or dependent input", async () => {
    const inputs = {
      document: output("version: 1\n", { secret: true }),
      documentName: output("broker.yaml"),
    };
    expect(await knownInputs(pulumi, "broker:index:Environment", inputs)).toEqual({
      document: "version: 1\n",
      documentName: "broker.yaml",
    });
  });

  it("fails on an input that is not known yet, naming the component and the input", async () => {
    const inputs = { document: output(undefined, { known: false }) };
    const error = await knownInputs(pulumi, "broker:index:Environment", inputs).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnknownComponentInputError);
    expect((error as Error).message).toMatch(
      /^broker:index:Environment's `document` is not known yet: it decides which resources the component declares/u,
    );
  });
});
