import type * as pulumi from "@pulumi/pulumi";

/**
 * The names of the outputs a resource class declares (`declare readonly x: pulumi.Output<T>`),
 * without the `id` and `urn` every resource has.
 */
export type OutputName<R> = Exclude<
  { [K in keyof R]-?: R[K] extends pulumi.Output<unknown> ? K : never }[keyof R],
  "id" | "urn"
>;

/**
 * Every declared output of a resource class, each `undefined`: the props a dynamic resource starts
 * from before its inputs are laid over them.
 *
 * Why: the engine turns exactly the keys of the props given to `super()` into the resource's output
 * properties. Spreading only the caller's args would leave an optional input that is also an output
 * (a Workspace's `parentId`) missing at run time whenever it was not passed, although its type says
 * `Output`. Typing this as a record over {@link OutputName} makes the compiler reject a class whose
 * constructor forgets one.
 */
export type UnsetOutputs<R> = { [K in OutputName<R>]: undefined };
