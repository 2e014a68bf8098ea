/** Maps the core's typed results to the dynamic provider host's `dynamic.*` results. */
import type { dynamic } from "@pulumi/pulumi";
import { DYNAMIC_LOGICAL_NAME_INPUT } from "../../core/declarations";
import { isPartiallyCreatedError } from "../../core/partial-failure";
import type { CheckResult, CreateResult, DiffResult, ReadResult } from "../../core/results";
import { toPropertyBag, type PropertyBag } from "../../core/state";
import { CreatedButFailedError } from "./partial-failure";

/**
 * The result of a synchronous core operation as a promise, as the dynamic provider expects; what it
 * throws becomes a rejection.
 */
export function settle<T>(compute: () => T): Promise<T> {
  return new Promise((resolve) => {
    resolve(compute());
  });
}

/** The endpoint recorded by the previous check (dynamic `check` receives the old inputs). */
export function recordedBaseUrl(olds: PropertyBag): string | undefined {
  const baseUrl = olds["baseUrl"];
  return typeof baseUrl === "string" ? baseUrl : undefined;
}

/**
 * The checked inputs for the engine: the program's inputs with every known value replaced by its
 * checked form (defaults filled in, permissions normalised). Values not known yet keep the engine's
 * own representation, and `__provider` stays.
 */
export function toDynamicCheck(news: PropertyBag, result: CheckResult<object>): dynamic.CheckResult {
  if (result.inputs === undefined) return { inputs: news, failures: [...result.failures] };
  const { [DYNAMIC_LOGICAL_NAME_INPUT]: _logicalName, ...program } = news;
  return { inputs: { ...program, ...toPropertyBag(result.inputs) }, failures: [] };
}

/** The dynamic host forwards only `changes`, `replaces` and `deleteBeforeReplace`. */
export function toDynamicDiff(result: DiffResult): dynamic.DiffResult {
  return {
    changes: result.changes,
    replaces: [...result.replaces],
    deleteBeforeReplace: result.deleteBeforeReplace,
  };
}

/**
 * Runs a core create. An object created but not finished becomes the error the dynamic host
 * understands as "keep it in the stack", with the dynamic provider's `__provider` in its properties
 * (the host adds it to results, but not to errors).
 */
export async function toDynamicCreate(
  raw: PropertyBag,
  create: () => Promise<CreateResult<object>>,
): Promise<dynamic.CreateResult> {
  try {
    const { id, outputs } = await create();
    return { id, outs: toPropertyBag(outputs) };
  } catch (error) {
    if (!isPartiallyCreatedError(error)) throw error;
    const outputs = typeof error.outputs === "object" && error.outputs !== null ? error.outputs : {};
    throw new CreatedButFailedError(
      error.what,
      error.createdId,
      toPropertyBag(outputs),
      raw["__provider"],
      error.cause,
    );
  }
}

/** A refresh result; an object that is gone leaves the stack (`id: ""`). */
export function toDynamicRead(result: ReadResult<object, object>): dynamic.ReadResult {
  if (!result.exists) return { id: "" };
  return { id: result.id, props: toPropertyBag(result.outputs), inputs: toPropertyBag(result.inputs) };
}
