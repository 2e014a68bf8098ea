// The catalog of user-facing messages: every message the two doors (the dynamic providers and the
// `broker` plugin) can show a user, found in the source by its shape, so that the table in
// docs/messages.md is made from the code and cannot drift from it.
//
// A message is the text of
//   - an error: `new SomethingError(…)` (each string argument),
//   - a check failure: `failures.add(property, message)`,
//   - a warning: `warn(message)`, `….warn(message)`, `….log("warning", message)`,
//   - a part of a message: a string returned by the model's rules (src/model, which `check` reports
//     as failures), by the client's error mapping (src/client/error-mapping.ts, network-errors.ts)
//     or by any function named for what it makes (`…Message`, `…Hint`, `…Reason`, `…Problem`), or a
//     constant so named (`OUTCOME_UNKNOWN_HINT`),
// in the modules the doors run: src/model, src/core, src/client, src/settings, src/native, src/dynamic,
// and in the access review (`broker-config review`, which the CLI and the plugin binary both run).
// Interpolated values show as `…`.
import * as fs from "node:fs";
import * as path from "node:path";
import ts from "typescript";

/** The folders of src/ whose messages users of the providers meet. */
export const MESSAGE_FOLDERS = [
  "model",
  "core",
  "client",
  "settings",
  "native",
  "dynamic",
  "review",
] as const;

/** Whether the strings `file` returns are parts of messages: the model's rules, the client's error mapping. */
function returnsMessageParts(file: string): boolean {
  return (
    file.startsWith("src/model/") ||
    file === "src/client/error-mapping.ts" ||
    file === "src/client/network-errors.ts"
  );
}

/** One message found in the source. */
export interface FoundMessage {
  /** The text, interpolations as `…`. */
  readonly text: string;
  /** The file, relative to the repository root. */
  readonly file: string;
  /** `error`, `check failure`, `warning` or `part of an error`. */
  readonly kind: string;
}

/** Names of functions and constants that make (parts of) messages. */
const MESSAGE_MAKER = /(?:message|hint|reason|problem)s?$/iu;

/** The texts a string-like expression can take (both branches of a `? :`), interpolations as `…`. */
function texts(node: ts.Expression): string[] {
  if (ts.isConditionalExpression(node)) return [...texts(node.whenTrue), ...texts(node.whenFalse)];
  if (ts.isParenthesizedExpression(node)) return texts(node.expression);
  const text = staticText(node);
  return text === undefined ? [] : [text];
}

/** The name of the function `node` is in, if it has one. */
function enclosingFunctionName(node: ts.Node): string | undefined {
  for (let at: ts.Node = node; !ts.isSourceFile(at);) {
    at = at.parent;
    if ((ts.isFunctionDeclaration(at) || ts.isMethodDeclaration(at)) && at.name !== undefined)
      return at.name.getText();
    if ((ts.isArrowFunction(at) || ts.isFunctionExpression(at)) && ts.isVariableDeclaration(at.parent))
      return at.parent.name.getText();
  }
  return undefined;
}

/** The static text of a string-like expression, interpolations as `…`; `undefined` for other expressions. */
export function staticText(node: ts.Expression): string | undefined {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isTemplateExpression(node))
    return node.head.text + node.templateSpans.map((span) => `…${span.literal.text}`).join("");
  if (ts.isParenthesizedExpression(node)) return staticText(node.expression);
  if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken) {
    const left = staticText(node.left);
    const right = staticText(node.right);
    if (left === undefined && right === undefined) return undefined;
    return `${left ?? "…"}${right ?? "…"}`;
  }
  return undefined;
}

/** The name a call or `new` is made through: `warn` for `warn(…)` and `ctx.log.warn(…)`. */
function calleeName(expression: ts.Expression): string | undefined {
  if (ts.isIdentifier(expression)) return expression.text;
  if (ts.isPropertyAccessExpression(expression)) return expression.name.text;
  return undefined;
}

/**
 * A message worth a row: a sentence, or a rule's short verdict such as `contains whitespace`; not
 * a name (`Workspace "…"`), a value's description (`a list`) or a fragment such as `", "`.
 */
function isMessage(text: string): boolean {
  if (/^[A-Za-z ]+"…"$/u.test(text.trim())) return false;
  const words = text.replace(/…/gu, " ").trim().split(/\s+/u);
  return words.length >= 3 || (words.length === 2 && /^(?:is|has|contains|must)$/u.test(words[0] ?? ""));
}

/** Every message in the TypeScript source `text` of `file` (relative to the repository root). */
export function messagesIn(file: string, text: string): FoundMessage[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: FoundMessage[] = [];
  const add = (node: ts.Expression | undefined, kind: string): void => {
    if (node === undefined) return;
    for (const message of texts(node))
      if (isMessage(message)) found.push({ text: message.replace(/\s+/gu, " ").trim(), file, kind });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isNewExpression(node) && calleeName(node.expression)?.endsWith("Error") === true) {
      for (const arg of node.arguments ?? []) add(arg, "error");
    } else if (ts.isCallExpression(node)) {
      const name = calleeName(node.expression);
      if (name === "add" && node.arguments.length === 2) add(node.arguments[1], "check failure");
      else if (name === "warn") add(node.arguments[0], "warning");
      else if (
        name === "log" &&
        node.arguments[0] !== undefined &&
        staticText(node.arguments[0]) === "warning"
      )
        add(node.arguments[1], "warning");
    } else if (ts.isReturnStatement(node)) {
      if (returnsMessageParts(file) || MESSAGE_MAKER.test(enclosingFunctionName(node) ?? ""))
        add(node.expression, "part of an error");
    } else if (ts.isVariableDeclaration(node) && MESSAGE_MAKER.test(node.name.getText())) {
      add(node.initializer, "part of an error");
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Every message of the doors' modules under `root`, in file order, each text once per file. */
export function collectMessages(root: string): FoundMessage[] {
  const files = MESSAGE_FOLDERS.flatMap((folder) =>
    fs
      .readdirSync(path.join(root, "src", folder), { recursive: true, encoding: "utf8" })
      .filter((f) => f.endsWith(".ts"))
      .map((f) => path.posix.join("src", folder, f.split(path.sep).join("/"))),
  ).sort();
  const seen = new Set<string>();
  return files.flatMap((file) =>
    messagesIn(file, fs.readFileSync(path.join(root, file), "utf8")).filter((m) => {
      const key = `${m.file}\0${m.text}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    }),
  );
}

/** Which door a file serves: the native plugin, the dynamic providers, or both (the shared layers). */
export function doorsOf(file: string): string {
  if (file.startsWith("src/native/")) return "native";
  if (file.startsWith("src/dynamic/")) return "dynamic";
  // The command line's: `broker-config review` (the CLI, and the plugin binary's `review`), and the
  // connection flags `export` and `review --from-broker` share.
  if (file.startsWith("src/review/")) return "review command";
  if (file === "src/settings/command-line.ts") return "CLI";
  return "both";
}

/** Words that begin an instruction to the user. */
const INSTRUCTION =
  /^(?:set|run|fix|use|pass|rename|remove|check|raise|copy|declare|choose|retry|wait|put|install|restrict|report|look|add|give|move|adopt|import|keep|delete|rotate|name|update|try|make|wrap|reinstall|change|lower|see|correct|refresh|leave|write|nest|omit|unset|select|point|create|replace|read|contact)\b/iu;

/**
 * What the message tells the user to do: its clauses that give an instruction (`set …`, `run …`,
 * `fix …`), also after a condition (`If …, fix it`, `To move it on purpose, set …`), or `—` when
 * it gives none.
 */
export function adviceOf(text: string): string {
  const clauses = text.split(/(?<=[.;:!?])\s+|,\s+(?=(?:or|and|then)\s)/u);
  const advice = clauses.filter((clause) => {
    const bare = clause
      .replace(/^[`(]+/u, "")
      .replace(/^(?:(?:if|to|when|unless)\b[^,]*,\s*)/iu, "")
      .replace(/^(?:or|and|then|also|please|instead)\s+/iu, "");
    return INSTRUCTION.test(bare);
  });
  return advice.length === 0 ? "—" : advice.join(" ");
}

/**
 * A Markdown table cell: pipes escaped, and emphasis marks outside code spans (a message's `*` is
 * a wildcard, not emphasis).
 */
function cell(text: string): string {
  return text
    .split("`")
    .map((part, i) => (i % 2 === 1 ? part : part.replace(/[*_]/gu, (mark) => `\\${mark}`)))
    .join("`")
    .replace(/\|/gu, "\\|");
}

/** docs/messages.md for `messages`. */
export function renderCatalog(messages: readonly FoundMessage[]): string {
  const rows = messages.map(
    (m) => `| ${cell(m.text)} | \`${m.file}\` | ${m.kind} | ${doorsOf(m.file)} | ${cell(adviceOf(m.text))} |`,
  );
  return [
    "# Messages",
    "",
    "Every message a user of the providers can meet, as the source writes it (`…` stands for a value",
    "filled in when it is shown), where it is raised, which door shows it (`both`: the dynamic",
    "providers and the `broker` plugin; `review command`: `broker-config review`, from the CLI or the",
    "plugin binary), and what it tells the user to do. This file is generated",
    "from the code by `npm run gen:messages`; CI fails when it is stale, so a message cannot be added",
    "or changed without its row. The Troubleshooting table of docs/operations.md is checked against it.",
    "",
    "| message | raised in | kind | door | what to do |",
    "| --- | --- | --- | --- | --- |",
    ...rows,
    "",
  ].join("\n");
}

/** Every string in `text` of four words or more: for finding where a message the README quotes comes from. */
export function sentencesIn(file: string, text: string): FoundMessage[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: FoundMessage[] = [];
  const visit = (node: ts.Node): void => {
    if (
      ts.isStringLiteral(node) ||
      ts.isNoSubstitutionTemplateLiteral(node) ||
      ts.isTemplateExpression(node)
    ) {
      const sentence = staticText(node);
      if (sentence !== undefined && sentence.replace(/…/gu, " ").trim().split(/\s+/u).length >= 4)
        found.push({ text: sentence, file, kind: "text" });
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}
