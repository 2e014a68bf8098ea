/**
 * How the model measures and inspects text, shared by the name and event path rules.
 */

/**
 * The length of `text` in Unicode code points, the unit JSON Schema's `maxLength` counts (and so
 * the API contract): an emoji is one character here, where `String.length` would say two.
 */
export function codePointLength(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/**
 * Control characters (C0, DEL and C1, Unicode category Cc) have no place in names or event paths:
 * they are invisible or reformat dashboards and logs.
 */
export const CONTROL_CHARACTER = /\p{Cc}/u;
