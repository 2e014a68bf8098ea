import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { LOGO_URL, REPOSITORY } from "../../src/core/declarations/package-schema";
import { describedTokens, examplesIn, readSchema } from "../support/registry-docs";

// Issue #34: what the Pulumi Registry reads from schema.json. Its package page shows the metadata;
// each resource's and function's page shows the description's Example Usage (a tab per language)
// and, for a resource, its Import section. test/integration/schema-examples.test.ts checks that
// the example programs work.

const root = path.join(__dirname, "..", "..");
const schema = readSchema(root);

describe("the package metadata the Registry reads", () => {
  it("names the package, its repository, homepage and publisher", () => {
    expect(schema["name"]).toBe("broker");
    expect(schema["displayName"]).toEqual(expect.any(String));
    expect(schema["description"]).toMatch(/^The broker package: /u);
    expect(schema["publisher"]).toBe("pulumi-broker-config");
    expect(schema["license"]).toBe("Apache-2.0");
    expect(schema["repository"]).toBe(REPOSITORY);
    expect(schema["homepage"]).toBe(REPOSITORY);
    expect(REPOSITORY).toMatch(/^https:\/\/github\.com\/[\w-]+\/[\w-]+$/u);
  });

  it("has a logo that is an SVG committed in the repository, at its raw address on the main branch", () => {
    expect(schema["logoUrl"]).toBe(LOGO_URL);
    const [, owner, repo, file] =
      /^https:\/\/raw\.githubusercontent\.com\/([\w-]+)\/([\w-]+)\/main\/(.+)$/u.exec(LOGO_URL) ?? [];
    expect(`https://github.com/${owner}/${repo}`).toBe(REPOSITORY);
    expect(file).toBe("docs/logo.svg");
    const svg = fs.readFileSync(path.join(root, file ?? ""), "utf8");
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[^>]* viewBox="0 0 64 64"/u);
    expect(svg.trim()).toMatch(/<\/svg>$/u);
  });

  it("has keywords with a Registry category and kind/native", () => {
    const keywords = schema["keywords"] as string[];
    expect(keywords).toContain("kind/native");
    expect(keywords.filter((k) => k.startsWith("category/"))).toEqual(["category/cloud"]);
  });
});

describe("the descriptions of resources and functions", () => {
  it.each(describedTokens(schema))(
    "%s has Example Usage in TypeScript, Python, Go and YAML",
    (token, description) => {
      expect(description).toMatch(/\{\{% examples %\}\}\n## Example Usage\n[\s\S]*\{\{% \/examples %\}\}/u);
      const examples = examplesIn(token, description);
      expect(examples.length).toBeGreaterThanOrEqual(4);
      expect(examples.map((e) => e.language)).toEqual(
        examples.flatMap((_, i) => (i % 4 === 0 ? ["typescript", "python", "go", "yaml"] : [])),
      );
      expect(examples.every((e) => e.code.trim() !== "")).toBe(true);
    },
  );

  it.each(Object.entries(schema.resources))("resource %s has an Import section", (token, resource) => {
    const importSection = /\n## Import\n\n([\s\S]*)$/u.exec(resource.description)?.[1];
    expect(importSection).toBeDefined();
    if (token === "broker:index:ServiceKeyPair") {
      // The API returns a private key only when it makes the pair: the section says so instead.
      expect(importSection).toMatch(/^A ServiceKeyPair cannot be imported: /u);
      expect(importSection).not.toContain("$ pulumi import");
    } else if (token === "broker:index:Environment") {
      // A component is not imported: the section says what to do instead (adopt, or one resource).
      expect(importSection).toMatch(/^An Environment is a component: it is not imported itself\./u);
      expect(importSection).toContain("`adopt: true`");
      expect(importSection).not.toContain("$ pulumi import");
    } else {
      const name = token.split(":")[2];
      expect(importSection).toMatch(new RegExp(`\\n\\$ pulumi import ${token} [a-z-]+ \\d+\\n`, "u"));
      expect(importSection).toMatch(
        new RegExp(
          `^An? ${name === "Workspace" ? "workspace" : "access key"} is imported by its numeric id on the broker`,
          "u",
        ),
      );
    }
  });

  it("have no Import section on functions", () => {
    for (const fn of Object.values(schema.functions)) expect(fn.description).not.toContain("## Import");
  });
});
