/**
 * Adoption: taking over a workspace or access key that already exists instead of creating one.
 */

/**
 * Whether a resource takes over an existing object when `adopt` is not given: only when asked, so
 * that nothing made outside the stack becomes managed (and destroyed) by it by surprise.
 * @default false
 */
export const DEFAULT_ADOPT = false;
