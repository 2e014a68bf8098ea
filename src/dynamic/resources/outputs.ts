import { fieldNames, type ResourceDeclaration } from "../../core/declarations";

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
