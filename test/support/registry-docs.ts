/**
 * Reads the Registry documentation out of `schema.json`: each resource's and function's example
 * programs per language, as Pulumi's docs generator finds them (fenced blocks inside
 * `{{% example %}}` … `{{% /example %}}`).
 */
import * as fs from "node:fs";
import * as path from "node:path";

/** The parts of schema.json these tests read. */
export interface PackageSchema {
  readonly [key: string]: unknown;
  readonly resources: Record<string, SchemaResource>;
  readonly functions: Record<string, SchemaFunction>;
}
export interface SchemaResource {
  readonly description: string;
  readonly inputProperties: Record<string, unknown>;
  readonly properties: Record<string, unknown>;
}
export interface SchemaFunction {
  readonly description: string;
  readonly inputs: { readonly properties: Record<string, unknown> };
  readonly outputs: { readonly properties: Record<string, unknown> };
}

/** One example program found in a description. */
export interface ExampleProgram {
  /** The resource or function token whose description holds it. */
  readonly token: string;
  /** Which `{{% example %}}` section of the description holds it, from 0. */
  readonly section: number;
  readonly language: string;
  readonly code: string;
}

/** The committed schema.json. */
export function readSchema(root: string): PackageSchema {
  return JSON.parse(fs.readFileSync(path.join(root, "schema.json"), "utf8")) as PackageSchema;
}

/** Every token with a description: the resources, then the functions. */
export function describedTokens(schema: PackageSchema): [string, string][] {
  return [
    ...Object.entries(schema.resources).map(([token, r]): [string, string] => [token, r.description]),
    ...Object.entries(schema.functions).map(([token, f]): [string, string] => [token, f.description]),
  ];
}

/** The fenced code blocks of each `{{% example %}}` section of `description`, by language. */
export function examplesIn(token: string, description: string): ExampleProgram[] {
  const sections = [...description.matchAll(/\{\{% example %\}\}([\s\S]*?)\{\{% \/example %\}\}/gu)];
  return sections.flatMap((section, index) =>
    [...(section[1] ?? "").matchAll(/```(\w+)\n([\s\S]*?)```/gu)].map((block) => ({
      token,
      section: index,
      language: block[1] ?? "",
      code: block[2] ?? "",
    })),
  );
}

/** Every example program of the schema. */
export function allExamples(schema: PackageSchema): ExampleProgram[] {
  return describedTokens(schema).flatMap(([token, description]) => examplesIn(token, description));
}

/**
 * The program in `language` of the same example as `example` (same token, same section).
 * @throws when the example has no program in `language`.
 */
export function inOtherLanguage(
  examples: readonly ExampleProgram[],
  example: ExampleProgram,
  language: string,
): ExampleProgram {
  const found = examples.find(
    (e) => e.token === example.token && e.section === example.section && e.language === language,
  );
  if (found === undefined) {
    throw new Error(`${example.token}: example ${example.section} has no ${language} program`);
  }
  return found;
}

/** A file name for an example: its token's name, such as `getWorkspace`, and its index. */
export function exampleName(example: ExampleProgram, index: number): string {
  return `${example.token.split(":").at(-1) ?? "example"}-${index}`;
}
