/**
 * The core: every resource's check / diff / create / read / update / delete over typed inputs and
 * outputs, knowing nothing of which adapter (the dynamic provider, or a native provider plugin)
 * calls it. Adapters decode the engine's property bags with the `decode*` functions, pass a
 * {@link CoreContext}, and map the typed results to their engine's form.
 * @packageDocumentation
 */
export type { CheckContext, CoreContext, DeleteCheckContext } from "./context";
export type {
  ChangeKind,
  CheckFailure,
  CheckResult,
  CreateResult,
  DiffResult,
  PropertyChange,
  ReadResult,
} from "./results";
export { StateDecodeError, isEmptyState, toPropertyBag, type PropertyBag } from "./state";
export { NOT_KNOWN, UNKNOWN, isKnown, type NotKnown } from "./unknown";
export { PartiallyCreatedError, isPartiallyCreatedError } from "./partial-failure";
export { NotImportableError, isNotImportableError } from "./import";
export type { EndpointInputsOf } from "./endpoint";
export { withChosenName, withInterruptedName, type AutonamingProposal, type NameSource } from "./autoname";
export * from "./workspace";
export * from "./access-key";
export * from "./service-key-pair";
