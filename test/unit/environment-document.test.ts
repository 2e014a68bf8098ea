import { describe, expect, it } from "vitest";
import { isBrokerConfigDocumentError } from "../../src/config-as-data";
import { environmentDocument, type EnvironmentInputs } from "../../src/native/environment";

// The native Environment's inputs → a validated document: the text (`document`, located problems
// under `documentName`) or the object (`config`, problems by path), exactly one of them.

const TEXT = `version: 1
accessKeys:
  - name: orders-svc
    type: ADMIN
`;

function problemOf(inputs: EnvironmentInputs): string {
  try {
    environmentDocument(inputs);
  } catch (error) {
    if (isBrokerConfigDocumentError(error)) return error.message;
    throw error;
  }
  throw new Error("the document was accepted");
}

describe("environmentDocument", () => {
  it("reads YAML text and returns the document", () => {
    expect(environmentDocument({ document: "version: 1\nworkspaces:\n  - name: platform\n" })).toEqual({
      version: 1,
      workspaces: [{ name: "platform" }],
    });
  });

  it("names line and column of a mistake in the text, under documentName", () => {
    expect(problemOf({ document: TEXT, documentName: "broker.yaml" })).toContain(
      'broker.yaml:4:11 accessKeys[0].type: must be one of "ACCOUNT", "SERVICE"',
    );
  });

  it('names the text "document" when no documentName is given', () => {
    expect(problemOf({ document: TEXT })).toContain("document:4:11 accessKeys[0].type:");
  });

  it("holds a documentName ending in .json to JSON's syntax", () => {
    expect(problemOf({ document: "version: 1\n", documentName: "broker.json" })).toContain(
      "broker.json:1:1 (document): is not valid JSON",
    );
  });

  it("takes the document as an object, naming the path of a mistake", () => {
    expect(environmentDocument({ config: { version: 1 } })).toEqual({ version: 1 });
    expect(problemOf({ config: { version: 1, accessKeys: [{ name: "a", type: "ADMIN" }] } })).toContain(
      'accessKeys[0].type: must be one of "ACCOUNT", "SERVICE"',
    );
  });

  it("needs exactly one of document and config", () => {
    expect(problemOf({})).toContain("Environment needs exactly one of `document`");
    expect(problemOf({})).toContain("got neither");
    expect(problemOf({ document: "version: 1\n", config: { version: 1 } })).toContain("got both");
  });

  it("refuses a document that is not text", () => {
    expect(problemOf({ document: 42 })).toContain("`document` must be text (YAML or JSON), got number");
  });
});
