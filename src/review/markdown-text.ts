/**
 * How a user-controlled string (a key name, an event path, a workspace path) is written into the
 * access review's Markdown and Mermaid so that it renders as the text it is and nothing else.
 *
 * Names and paths come from a preview of someone's pull request: a name such as `## all checks
 * passed`, `<img src=x>` or `a | b` must not forge a heading, inject HTML or break a table. One rule
 * serves every context the report puts them in (a table cell, or text after other text on a line):
 * each ASCII punctuation character that is syntax there is backslash-escaped (CommonMark lets any of
 * them be, and GFM's table rows honour `\|`), and characters that would move text to another line
 * or hide it are shown as escapes. Code spans are not used: GitHub's table parser cannot hold a backslash followed by a pipe
 * inside one, and a line break inside one can still start a heading.
 */

/**
 * The ASCII punctuation that is syntax inside a line of GFM (or GitHub's math): every character
 * CommonMark lets a backslash escape, but for `-/,;='"%+?`, which mean nothing after other text on a
 * line and are common in names and paths (`orders-service`, `orders/*`). `.` and `:` are escaped
 * so that `www.example.com` and `https://…` do not become links.
 */
const MARKDOWN_PUNCTUATION = /[!#$&()*.:<>@[\\\]^_`{|}~]/gu;

/**
 * Characters that end a line, reorder or hide text: C0 and C1 controls, DEL, the Unicode line and
 * paragraph separators, and the bidirectional controls that can make a name read as another
 * (the "Trojan Source" characters).
 */
const HIDDEN = /[\p{Cc}\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;

/** The escapes JSON uses for the commonest hidden characters; the rest show as `\uXXXX`. */
const SHORT_ESCAPES: Readonly<Record<string, string>> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

/**
 * Where GitHub makes a link of plain text whatever its escapes (it finds them in the rendered text):
 * `@name` mentions (and notifies) a user or team, `user@host.example` becomes a mail link,
 * `https://…` and `www.…` become links. A zero-width space after the `@`, the `:` or the `www`
 * keeps the text as it reads without the link (Renovate does the same for mentions).
 */
const LINK_TRIGGER = /@|:(?=\/\/)|(?<=www)(?=\.)/giu;
const ZERO_WIDTH_SPACE = "\u200b";

/**
 * The text a reader sees for `value`: the string itself, with each hidden character (line breaks,
 * controls, bidirectional overrides) shown as its escape (`\n`, `\u202e`).
 *
 * @example
 * ```ts
 * visibleText("orders\n## ok"); // "orders\\n## ok"
 * ```
 */
export function visibleText(value: string): string {
  return value.replace(HIDDEN, (char) => SHORT_ESCAPES[char] ?? `\\u${hex4(char)}`);
}

/**
 * `value` as Markdown text that renders as {@link visibleText}`(value)` in a GFM table cell or after
 * other text on a line (not at a line's start, where `-`, `+` and `=` open blocks), and cannot start
 * or end any construct there (heading, HTML, link, emphasis, code, entity, table cell, autolink, math).
 * A zero-width space follows each `@`, a `:` before `//` and a `www` before `.`, so that GitHub
 * makes no mention or link of the text. An `@` is followed by a zero-width space so GitHub notifies nobody.
 *
 * @example
 * ```ts
 * markdownText("<img src=x>"); // "\\<img src\\=x\\>"
 * ```
 */
export function markdownText(value: string): string {
  return visibleText(value)
    .replace(LINK_TRIGGER, (found) => `${found}${ZERO_WIDTH_SPACE}`)
    .replace(MARKDOWN_PUNCTUATION, (char) => `\\${char}`);
}

/**
 * `value` as the text of a Mermaid node label written inside double quotes (`k0["…"]`): every
 * character but letters, digits, spaces and `-_./*` is written as Mermaid's entity code `#NNN;`
 * (Mermaid's own escape), so no quote, bracket, backtick, `<` or `#` can end the label, close the
 * code block or become HTML.
 *
 * @example
 * ```ts
 * mermaidLabel('say "hi"'); // "say #34;hi#34;"
 * ```
 */
export function mermaidLabel(value: string): string {
  let label = "";
  for (const char of visibleText(value)) {
    label += /^[\p{L}\p{N} _\-./*]$/u.test(char) ? char : `#${char.codePointAt(0)};`;
  }
  return label;
}

function hex4(char: string): string {
  return (char.codePointAt(0) ?? 0).toString(16).padStart(4, "0");
}
