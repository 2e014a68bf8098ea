import * as pulumi from "@pulumi/pulumi";
import {
  DYNAMIC_LOGICAL_NAME_INPUT,
  DYNAMIC_URN_INPUT,
  dynamicTypeToken,
  fieldNames,
  type ResourceDeclaration,
} from "../../core/declarations";

/**
 * The props a dynamic resource of `declaration` passes to `super()`: every field of the
 * declaration, `undefined`, with the caller's `args` laid over them.
 *
 * Why: the engine turns exactly the keys of the props given to `super()` into the resource's output
 * properties. Spreading only the caller's args would leave an optional input that is also an output
 * (a Workspace's `parentId`) missing at run time whenever it was not passed, although its type says
 * `Output`. Taking the keys from the declaration makes every declared field an output; a class
 * that declares an output the declaration lacks fails the schema test.
 *
 * A resource with an autonamed field also passes its logical name (`logicalName`), from which its
 * provider's `check` makes a name when the program gives none: the dynamic provider host gives
 * `check` no URN. `check` drops it from the inputs it records.
 *
 * A resource that creates objects on the broker (`opts` given) also passes its URN, under which its
 * provider records each create's intent before sending it (`src/core/intents.ts`): the host gives
 * `create` no URN either.
 */
export function dynamicProps<A extends object>(
  declaration: ResourceDeclaration,
  args: A,
  logicalName: string,
  opts?: pulumi.CustomResourceOptions,
): A {
  const unset = Object.fromEntries(fieldNames(declaration).map((name) => [name, undefined]));
  const autonamed = Object.values(declaration.fields).some(
    (field) => field.kind === "input" && field.autonamed === true,
  );
  const urn =
    opts === undefined
      ? {}
      : {
          [DYNAMIC_URN_INPUT]: withoutDependencies(
            pulumi.createUrn(logicalName, dynamicTypeToken(declaration), opts.parent),
          ),
        };
  return {
    ...unset,
    ...(autonamed ? { [DYNAMIC_LOGICAL_NAME_INPUT]: logicalName } : {}),
    ...urn,
    ...args,
  };
}

/**
 * `value`'s value without the resources it depends on. The URN made from a parent carries the parent
 * as a dependency, and a dependency on a component resource stands for all its children: the child
 * would wait for itself (a `BrokerConfig`'s resources never registered). The provider needs only the
 * text; a URN is known in previews too, so the value always arrives.
 */
function withoutDependencies(value: pulumi.Output<string>): pulumi.Output<string> {
  return pulumi.output(
    new Promise<string>((resolve) => {
      value.apply(resolve);
    }),
  );
}

// The classes' args and outputs are generated from the declarations (scripts/gen-dynamic-types.mts,
// into ./generated/) with their types spelled out (`pulumi.Output<string>`), not mapped from the
// declarations: a project without a `typescript` of its own (one copied from examples/, say) is
// compiled by the TypeScript 3.8 that @pulumi/pulumi vendors, which reads a mapped or
// template-literal type of a shipped declaration file as `any`. CI checks the generated files are
// current (`--check`); test/unit/dynamic-classes.test.ts checks each type, its optionality and its
// secrecy against the declaration; test/e2e/examples.test.ts compiles the examples under that TypeScript.
