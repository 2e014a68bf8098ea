/**
 * docs/messages.md, the table of every message users of the providers meet, is made from the code
 * (scripts/lib/message-catalog.mts): it must be current, it must find messages wherever they are
 * raised, and every row of the Troubleshooting table (docs/operations.md, moved there from the README) must be one of them.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as prettier from "prettier";
import { describe, expect, it } from "vitest";
import {
  adviceOf,
  collectMessages,
  messagesIn,
  renderCatalog,
  sentencesIn,
  type FoundMessage,
} from "../../scripts/lib/message-catalog.mts";

const root = path.join(__dirname, "../..");
const messages = collectMessages(root);

/** The runs of four consecutive words of a message (none across a `…`), lower case, to recognise it by. */
function wordRuns(text: string): Set<string> {
  const runs = new Set<string>();
  for (const part of text.toLowerCase().replace(/`/gu, "").split("…")) {
    const words = part.split(/[^a-z0-9:/'.-]+/u).filter((w) => w !== "");
    for (let i = 0; i + 4 <= words.length; i++) runs.add(words.slice(i, i + 4).join(" "));
  }
  return runs;
}

/** The messages of the Troubleshooting table of docs/operations.md (first column, in backticks). */
function troubleshootingMessages(): string[] {
  const page = fs.readFileSync(path.join(root, "docs", "operations.md"), "utf8");
  const section = /^## Troubleshooting\n([\s\S]*?)^## /mu.exec(page)?.[1] ?? "";
  return [...section.matchAll(/^\| `(.+?)`\s+\|/gmu)].map((m) => m[1] ?? "");
}

describe("docs/messages.md", () => {
  it("is what the code gives (run `npm run gen:messages` after adding or changing a message)", async () => {
    const file = path.join(root, "docs", "messages.md");
    const expected = await prettier.format(renderCatalog(messages), {
      ...((await prettier.resolveConfig(file)) ?? {}),
      filepath: file,
    });
    expect(fs.readFileSync(file, "utf8")).toBe(expected);
  });

  it("finds errors, check failures, warnings and rule verdicts, with interpolations as …", () => {
    const source = [
      "function f(ctx, failures, name) {",
      "  failures.add(`permissions.send[${1}]`, `must be a list of event paths, got ${name}`);",
      "  void ctx.log.warn(`Access key ${name} was revoked; it still exists`);",
      '  if (!name) throw new BrokerSettingsError("BROKER_SETTINGS_MISSING", "No broker API key: set " + name);',
      '  log.log("warning", "The API key is not a secret");',
      '  throw new Error(`Workspace "${name}"`);',
      "}",
    ].join("\n");
    const found = messagesIn("src/core/example.ts", source).map((m: FoundMessage) => [m.kind, m.text]);
    expect(found).toEqual([
      ["check failure", "must be a list of event paths, got …"],
      ["warning", "Access key … was revoked; it still exists"],
      ["error", "No broker API key: set …"],
      ["warning", "The API key is not a secret"],
    ]);
    // A model rule's returned verdict is a part of a check failure.
    expect(messagesIn("src/model/names.ts", 'function f() { return "contains whitespace"; }')).toEqual([
      { text: "contains whitespace", file: "src/model/names.ts", kind: "part of an error" },
    ]);
  });

  it("lists the messages of both doors and the review command, each with what to do where it says", () => {
    const texts = messages.map((m) => m.text);
    expect(texts).toContain("No broker API base URL: set it with …");
    expect(texts.some((t) => t.startsWith("this resource lives at …, but … now points to …"))).toBe(true);
    expect(new Set(messages.map((m) => m.file.split("/")[1]))).toEqual(
      new Set(["model", "core", "client", "settings", "native", "dynamic", "review"]),
    );
    expect(
      adviceOf(
        'Invalid broker:timeoutMs "0": it must be a positive integer; fix it with `pulumi config set broker:timeoutMs <number>`',
      ),
    ).toBe("fix it with `pulumi config set broker:timeoutMs <number>`");
  });

  it("has every message of the Troubleshooting table", () => {
    const readme = troubleshootingMessages();
    expect(readme.length).toBeGreaterThan(10);
    // Messages from outside the doors that the README explains as well: the Node.js check, and
    // what the API (the emulator here) says in the body of an error.
    const read = (file: string): string => fs.readFileSync(path.join(root, file), "utf8");
    const others = [
      ...sentencesIn("scripts/check-node.cjs", read("scripts/check-node.cjs")),
      ...fs
        .readdirSync(path.join(root, "src", "emulator"))
        .filter((f) => f.endsWith(".ts"))
        .flatMap((f) => sentencesIn(`src/emulator/${f}`, read(`src/emulator/${f}`))),
    ];
    const known = [...messages, ...others].map((m) => wordRuns(m.text));
    const unknown = readme.filter((row) => {
      const runs = wordRuns(row);
      return !known.some((message) => [...runs].some((run) => message.has(run)));
    });
    expect(unknown).toEqual([]);
  });
});
