import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { validateBrokerConfig } from "../../src/config-as-data";

// Every code block of README.md is checked: TypeScript is type-checked against the built package
// (as a user's program compiles), YAML and JSON are parsed, shell is syntax-checked and may only
// call the tools the README tells users to have.

const root = path.join(__dirname, "../..");
const readme = fs.readFileSync(path.join(root, "README.md"), "utf8");
const blocks = [...readme.matchAll(/^```(\w+)\n([\s\S]*?)^```$/gmu)].map((m, index) => ({
  index,
  language: m[1]!,
  code: m[2]!,
}));

describe("README code blocks", () => {
  it("has blocks of every kind it uses, each with a language", () => {
    expect(blocks.length).toBeGreaterThan(5);
    expect(readme.match(/^```$/gmu)?.length).toBe(blocks.length);
    expect(new Set(blocks.map((b) => b.language))).toEqual(new Set(["sh", "ts", "yaml"]));
  });

  it("type-checks every TypeScript block against the built package", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pbc-readme-"));
    try {
      const files = blocks
        .filter((b) => b.language === "ts")
        .map((b) => {
          const file = path.join(dir, `block${b.index}.ts`);
          // Each block is its own module, as each is a separate snippet.
          fs.writeFileSync(file, `${b.code}\nexport {};\n`);
          return file;
        });
      fs.writeFileSync(
        path.join(dir, "tsconfig.json"),
        JSON.stringify({
          compilerOptions: {
            target: "ES2022",
            module: "commonjs",
            moduleResolution: "node10",
            strict: true,
            noEmit: true,
            skipLibCheck: true,
            types: ["node"],
            typeRoots: [path.join(root, "node_modules/@types")],
            baseUrl: root,
            paths: {
              "pulumi-broker-config": ["dist/index.d.ts"],
              "pulumi-broker-config/*": ["dist/*"],
              "@pulumi/pulumi": ["node_modules/@pulumi/pulumi"],
            },
          },
          files,
        }),
      );
      const tsc = path.join(root, "node_modules/typescript/bin/tsc");
      const run = (): string => execFileSync(process.execPath, [tsc, "-p", dir], { encoding: "utf8" });
      expect(run).not.toThrow();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("parses every YAML block, and validates configuration documents against the schema", () => {
    let documents = 0;
    for (const block of blocks.filter((b) => b.language === "yaml")) {
      const parsed = parseYaml(block.code) as unknown;
      if (parsed !== null && typeof parsed === "object" && "version" in parsed) {
        documents++;
        expect(validateBrokerConfig(parsed)).toEqual([]);
      }
    }
    expect(documents).toBeGreaterThan(0);
  });

  it("syntax-checks every shell block and uses only documented tools", () => {
    for (const block of blocks.filter((b) => b.language === "sh")) {
      execFileSync("bash", ["-n"], { input: block.code });
      for (const line of block.code.split("\n").map((l) => l.replace(/#.*$/u, "").trim())) {
        if (line === "") continue;
        // Leading VAR=value assignments are part of a command line.
        const command = line.split(/\s+/u).find((word) => !/^[A-Z_]+=/u.test(word));
        expect(["npm", "npx", "pulumi"]).toContain(command);
      }
    }
  });
});
