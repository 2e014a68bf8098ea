/**
 * The dynamic classes' args and outputs agree with the resource declarations in type, optionality
 * and secrecy, not only in name. They are generated from the declarations
 * (scripts/gen-dynamic-types.mts into src/dynamic/resources/generated/): the first test fails when
 * a generated file is stale or edited by hand. The type assertions below restate, independently of
 * the generator, what each type must be; they are checked by the TypeScript compiler: by
 * `npm run typecheck`, and by the second test here, which compiles this file, so that a class that
 * drifts from its declaration (say, an optional output typed `Output<string>`) fails `vitest` too.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type * as pulumi from "@pulumi/pulumi";
import * as ts from "typescript";
import { describe, expect, expectTypeOf, it } from "vitest";
import { GENERATED_DIR, renderDynamicTypes } from "../../scripts/lib/dynamic-types.mts";
import {
  ACCESS_KEY,
  RESOURCES,
  SERVICE_KEY_PAIR,
  SHARED_TYPES,
  WORKSPACE,
  type ResourceDeclaration,
} from "../../src/core/declarations";
import type { ValueOf } from "../../src/core/declared";
import type { AccessKey, AccessKeyArgs, PermissionsArgs } from "../../src/dynamic/resources/access-key";
import type { ServiceKeyPair, ServiceKeyPairArgs } from "../../src/dynamic/resources/service-key-pair";
import type { Workspace, WorkspaceArgs } from "../../src/dynamic/resources/workspace";

/** What an output of `F` must be, spelled out here as the schema says it (independently of the classes). */
type ExpectedOutput<F> = F extends { readonly type: infer T; readonly optional: true }
  ? pulumi.Output<ValueOf<T> | undefined>
  : F extends { readonly type: infer T }
    ? pulumi.Output<ValueOf<T>>
    : never;

/** The outputs a class declares (its properties named like a field of `D`), with their types. */
type ClassOutputs<C, D extends ResourceDeclaration> = { -readonly [K in keyof C & keyof D["fields"]]: C[K] };
type ExpectedOutputs<C, D extends ResourceDeclaration> = {
  -readonly [K in keyof C & keyof D["fields"]]: ExpectedOutput<D["fields"][K]>;
};

type InputKeys<D extends ResourceDeclaration> = {
  [K in keyof D["fields"]]: D["fields"][K] extends { readonly kind: "input" } ? K : never;
}[keyof D["fields"]];
type RequiredKeys<D extends ResourceDeclaration> = {
  [K in InputKeys<D>]: D["fields"][K] extends { readonly required: true } ? K : never;
}[InputKeys<D>];
type ArgOf<T> = T extends { readonly $ref: "#/types/broker:index:Permissions" }
  ? PermissionsArgs
  : T extends { readonly type: "object"; readonly additionalProperties: infer V }
    ? Record<string, pulumi.Input<ValueOf<V>>>
    : ValueOf<T>;
/** The args of `D`'s class: every input, required exactly when declared so. */
type ExpectedArgs<D extends ResourceDeclaration> = {
  [K in RequiredKeys<D>]: pulumi.Input<ArgOf<D["fields"][K]["type"]>>;
} & { [K in Exclude<InputKeys<D>, RequiredKeys<D>>]?: pulumi.Input<ArgOf<D["fields"][K]["type"]>> };
type Flat<T> = { [K in keyof T]: T[K] };

// The assertions the compiler checks (see the file's comment).
expectTypeOf<ClassOutputs<AccessKey, typeof ACCESS_KEY>>().toEqualTypeOf<
  ExpectedOutputs<AccessKey, typeof ACCESS_KEY>
>();
expectTypeOf<ClassOutputs<Workspace, typeof WORKSPACE>>().toEqualTypeOf<
  ExpectedOutputs<Workspace, typeof WORKSPACE>
>();
expectTypeOf<ClassOutputs<ServiceKeyPair, typeof SERVICE_KEY_PAIR>>().toEqualTypeOf<
  ExpectedOutputs<ServiceKeyPair, typeof SERVICE_KEY_PAIR>
>();
expectTypeOf<Flat<AccessKeyArgs>>().toEqualTypeOf<Flat<ExpectedArgs<typeof ACCESS_KEY>>>();
expectTypeOf<Flat<WorkspaceArgs>>().toEqualTypeOf<Flat<ExpectedArgs<typeof WORKSPACE>>>();
expectTypeOf<Flat<ServiceKeyPairArgs>>().toEqualTypeOf<Flat<ExpectedArgs<typeof SERVICE_KEY_PAIR>>>();
// Every field of a declaration is an output of its class, as the engine records it (dynamicProps).
expectTypeOf<Exclude<keyof (typeof ACCESS_KEY)["fields"], keyof AccessKey>>().toEqualTypeOf<never>();
expectTypeOf<Exclude<keyof (typeof WORKSPACE)["fields"], keyof Workspace>>().toEqualTypeOf<never>();
expectTypeOf<
  Exclude<keyof (typeof SERVICE_KEY_PAIR)["fields"], keyof ServiceKeyPair>
>().toEqualTypeOf<never>();
// The drift this test was written for: AccessKey's createdAt is optional.
expectTypeOf<AccessKey["createdAt"]>().toEqualTypeOf<pulumi.Output<string | undefined>>();

const ROOT = path.join(__dirname, "../..");
const RESOURCES_DIR = path.join(ROOT, "src/dynamic/resources");
/** Each class's generated base, which declares its outputs. */
const CLASSES: readonly { file: string; className: string; declaration: ResourceDeclaration }[] = [
  { file: "generated/access-key.ts", className: "AccessKeyBase", declaration: ACCESS_KEY },
  { file: "generated/workspace.ts", className: "WorkspaceBase", declaration: WORKSPACE },
  { file: "generated/service-key-pair.ts", className: "ServiceKeyPairBase", declaration: SERVICE_KEY_PAIR },
];

/** Each `declare readonly` output of `className` in `file`, with its TSDoc. */
function classOutputs(file: string, className: string): Map<string, string> {
  const source = ts.createSourceFile(
    file,
    fs.readFileSync(path.join(RESOURCES_DIR, file), "utf8"),
    ts.ScriptTarget.Latest,
    true,
  );
  const outputs = new Map<string, string>();
  for (const statement of source.statements) {
    if (!ts.isClassDeclaration(statement) || statement.name?.text !== className) continue;
    for (const member of statement.members.filter(ts.isPropertyDeclaration)) {
      const doc = ts
        .getJSDocCommentsAndTags(member)
        .map((node) => node.getText(source))
        .join("\n");
      outputs.set(member.name.getText(source), doc);
    }
  }
  return outputs;
}

describe("the dynamic classes against their declarations", () => {
  it("are generated from them as committed (run `npm run gen:dynamic` after changing a declaration)", async () => {
    const files = await renderDynamicTypes({ resources: RESOURCES, sharedTypes: SHARED_TYPES }, ROOT);
    const dir = path.join(ROOT, GENERATED_DIR);
    expect(fs.readdirSync(dir).sort()).toEqual([...files.keys()].sort());
    for (const [name, text] of files) {
      expect(fs.readFileSync(path.join(dir, name), "utf8"), `${GENERATED_DIR}/${name}`).toBe(text);
    }
  });

  it("compiles this file's type assertions: types and optionality of args and outputs agree", () => {
    const configFile = ts.readConfigFile(path.join(__dirname, "../../tsconfig.json"), (file) =>
      ts.sys.readFile(file),
    );
    const { options } = ts.parseJsonConfigFileContent(
      configFile.config,
      ts.sys,
      path.join(__dirname, "../.."),
    );
    const program = ts.createProgram([__filename], { ...options, noEmit: true });
    const diagnostics = ts
      .getPreEmitDiagnostics(program, program.getSourceFile(__filename))
      .map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n").split("\n")[0]);
    expect(diagnostics).toEqual([]);
  });

  it.each(CLASSES)(
    "$className declares every declared field and no other, and says SECRET exactly on secret outputs",
    ({ file, className, declaration }) => {
      const outputs = classOutputs(file, className);
      expect(outputs.size).toBeGreaterThan(0);
      for (const [name, doc] of outputs) {
        const field = declaration.fields[name];
        expect(field, `${className}.${name} is not declared`).toBeDefined();
        expect(/SECRET/u.test(doc), `${className}.${name}: SECRET in its doc`).toBe(field?.secret === true);
      }
      // Every field of the declaration is an output of the class, inputs as the engine records them.
      expect([...outputs.keys()]).toEqual(Object.keys(declaration.fields));
    },
  );
});
