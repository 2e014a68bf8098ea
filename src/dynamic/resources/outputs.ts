import type * as pulumi from "@pulumi/pulumi";
import { fieldNames, type PERMISSIONS, type ResourceDeclaration } from "../../core/declarations";
import type { ValueOf } from "../../core/declared";
import type { PermissionsArgs } from "./access-key";

/**
 * The props a dynamic resource of `declaration` passes to `super()`: every field of the
 * declaration, `undefined`, with the caller's `args` laid over them.
 *
 * Why: the engine turns exactly the keys of the props given to `super()` into the resource's output
 * properties. Spreading only the caller's args would leave an optional input that is also an output
 * (a Workspace's `parentId`) missing at run time whenever it was not passed, although its type says
 * `Output`. Taking the keys from the declaration makes every declared field an output; a class
 * that declares an output the declaration lacks fails the schema test.
 */
export function dynamicProps<A extends object>(declaration: ResourceDeclaration, args: A): A {
  const unset = Object.fromEntries(fieldNames(declaration).map((name) => [name, undefined]));
  return { ...unset, ...args };
}

/**
 * The type of output `K` of a dynamic resource of `D`, as the package schema (and so every generated
 * SDK) types it: an output the declaration marks `optional` may be `undefined`. The classes type
 * their `declare readonly` outputs with it, so that a class cannot say more than the declaration.
 */
export type DeclaredOutput<D extends ResourceDeclaration, K extends keyof D["fields"]> = pulumi.Output<
  ValueOf<D["fields"][K]["type"]> | (D["fields"][K] extends { readonly optional: true } ? undefined : never)
>;

/**
 * The type of input `K` of a dynamic resource of `D`, as a program passes it: a `pulumi.Input` of
 * the declared type, with the members of a list, a map or the permissions object inputs as well.
 */
export type DeclaredInput<D extends ResourceDeclaration, K extends keyof D["fields"]> = pulumi.Input<
  ArgValue<D["fields"][K]["type"]>
>;

/** The value a program passes for a property of declared type `T`. */
type ArgValue<T> = T extends { readonly $ref: `#/types/${typeof PERMISSIONS.token}` }
  ? PermissionsArgs
  : T extends { readonly type: "array"; readonly items: infer I }
    ? pulumi.Input<ArgValue<I>>[]
    : T extends { readonly type: "object"; readonly additionalProperties: infer V }
      ? Record<string, pulumi.Input<ArgValue<V>>>
      : ValueOf<T>;
