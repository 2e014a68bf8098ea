/**
 * The errors of the look-up functions: invalid arguments, nothing found, more than one match. Each
 * message says what was looked up and where (the API base URL), so that a failed preview in a
 * pull-request check tells the reader which environment lacked what.
 */
import { BrokerError, branded, type BrokerErrorCode } from "../../client/errors";

/** The codes a {@link BrokerLookupError} carries. */
export type LookupErrorCode = Extract<
  BrokerErrorCode,
  "BROKER_LOOKUP_INVALID" | "BROKER_LOOKUP_NOT_FOUND" | "BROKER_LOOKUP_AMBIGUOUS"
>;

/**
 * A look-up function failed on its own terms: `BROKER_LOOKUP_INVALID` (bad arguments, nothing was
 * sent), `BROKER_LOOKUP_NOT_FOUND` or `BROKER_LOOKUP_AMBIGUOUS` (several objects share the name:
 * look the one you mean up by id). API and settings failures keep their own error classes.
 */
export class BrokerLookupError extends BrokerError {
  /** The look-up function, such as `broker:index:getWorkspace`. */
  readonly function: string;
  /** The ids of every match, for `BROKER_LOOKUP_AMBIGUOUS`; empty otherwise. */
  readonly matchingIds: readonly number[];

  constructor(code: LookupErrorCode, fn: string, message: string, matchingIds: readonly number[] = []) {
    super(code, message);
    this.name = "BrokerLookupError";
    this.function = fn;
    this.matchingIds = matchingIds;
  }
}

/** Whether `e` is a {@link BrokerLookupError} from any copy of this package. */
export const isBrokerLookupError = branded(BrokerLookupError, "BrokerLookupError");

/**
 * A look-up function's argument is invalid (`BROKER_LOOKUP_INVALID`): thrown before any request, its
 * message naming the function, such as `broker:index:getWorkspace: give id or path`.
 */
export class LookupArgumentError extends BrokerLookupError {
  constructor(fn: string, problem: string) {
    super("BROKER_LOOKUP_INVALID", fn, `${fn}: ${problem}`);
    this.name = "LookupArgumentError";
  }
}
