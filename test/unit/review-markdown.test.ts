/**
 * The access review's Markdown (issue #47), read back the way GitHub reads it: parsed with a
 * CommonMark/GFM parser (micromark, which implements the GFM spec GitHub's renderer follows) into a
 * syntax tree, and rendered to HTML. Names and paths holding Markdown, HTML and line breaks must
 * come back as the text they are, in the table cells the report puts them in, with no heading,
 * table, link or HTML element the report did not make; the document must fit in a GitHub comment
 * whatever the size of the change, and say what it left out.
 */
import type { Heading, Nodes, Root, Table } from "mdast";
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { micromark } from "micromark";
import { gfm, gfmHtml } from "micromark-extension-gfm";
import { describe, expect, it } from "vitest";
import {
  DEFAULT_REVIEW_MAX_LENGTH,
  MAX_DIAGRAM_GRANTS,
  renderReviewMarkdown,
} from "../../src/review/markdown";
import { mermaidLabel } from "../../src/review/markdown-text";
import type { AccessChange, AccessReview, KeyChange } from "../../src/review/report";

// ---------------------------------------------------------------------------------------------------
// Building reviews.

function keyChange(name: string, change: Partial<KeyChange> = {}): KeyChange {
  return {
    name,
    source: `urn:pulumi:dev::p::broker:index:AccessKey::${name}`,
    kind: "updated",
    before: { type: "SERVICE", send: [], receive: [] },
    after: { type: "SERVICE", send: ["orders/created"], receive: [] },
    added: { send: ["orders/created"], receive: [] },
    removed: { send: [], receive: [] },
    unknown: false,
    verdict: "broadens",
    ...change,
  };
}

function accessChange(keys: KeyChange[], rest: Partial<AccessChange> = {}): AccessChange {
  const count = (kind: KeyChange["kind"]) => keys.filter((k) => k.kind === kind).length;
  const grants = (side: "added" | "removed") =>
    keys.reduce((n, k) => n + k[side].send.length + k[side].receive.length, 0);
  return {
    summary: {
      keysCreated: count("created"),
      keysRevoked: count("revoked"),
      keysReplaced: count("replaced"),
      keysRotated: count("rotated"),
      keysUpdated: count("updated"),
      grantsAdded: grants("added"),
      grantsRemoved: grants("removed"),
    },
    verdict: keys.some((k) => k.verdict === "broadens")
      ? "broadens"
      : keys.some((k) => k.verdict === "narrows")
        ? "narrows"
        : "unchanged",
    keys,
    gains: [],
    workspaces: [],
    ...rest,
  };
}

function review(planned: AccessChange, drift?: AccessChange): AccessReview {
  return {
    schemaVersion: 1,
    source: "preview",
    planned,
    ...(drift === undefined ? {} : { drift }),
    broadens: planned.verdict === "broadens" || drift?.verdict === "broadens",
  };
}

// ---------------------------------------------------------------------------------------------------
// Reading the Markdown back.

function parse(markdown: string): Root {
  return fromMarkdown(markdown, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });
}

/** The HTML a GFM renderer makes, raw HTML passed through (GitHub sanitises after this step). */
function toHtml(markdown: string): string {
  return micromark(markdown, { allowDangerousHtml: true, extensions: [gfm()], htmlExtensions: [gfmHtml()] });
}

function nodes(root: Nodes): Nodes[] {
  const all: Nodes[] = [root];
  if ("children" in root) for (const child of root.children) all.push(...nodes(child));
  return all;
}

/** The text a reader sees in a node. */
function textOf(node: Nodes): string {
  if (node.type === "text" || node.type === "inlineCode") return node.value;
  if ("children" in node) return node.children.map(textOf).join("");
  return "";
}

function headings(root: Root): string[] {
  return nodes(root)
    .filter((n): n is Heading => n.type === "heading")
    .map((h) => `${"#".repeat(h.depth)} ${textOf(h)}`);
}

/** Each table as its rows of cell texts, the header row first. */
function tables(root: Root): string[][][] {
  return nodes(root)
    .filter((n): n is Table => n.type === "table")
    .map((t) => t.children.map((r) => r.children.map(textOf)));
}

function tableAfter(root: Root, heading: string): string[][] {
  const children = root.children;
  const at = children.findIndex(
    (n) => n.type === "heading" && `${"#".repeat(n.depth)} ${textOf(n)}` === heading,
  );
  expect(at, heading).toBeGreaterThanOrEqual(0);
  const table = children.slice(at + 1).find((n): n is Table => n.type === "table" || n.type === "heading");
  expect(table?.type, heading).toBe("table");
  return (table as Table).children.map((r) => r.children.map(textOf));
}

/** Every raw HTML the parser found (a block or inline `html` node). */
function rawHtml(root: Root): string[] {
  return nodes(root).flatMap((n) => (n.type === "html" ? [n.value] : []));
}

/** The tags of rendered HTML: micromark escapes every `<` of text, so each `<` left opens a tag. */
function tagNames(html: string): Set<string> {
  return new Set([...html.matchAll(/<\/?([a-zA-Z][a-zA-Z0-9-]*)/gu)].map((m) => m[1]!.toLowerCase()));
}

// ---------------------------------------------------------------------------------------------------

const SUMMARY_HEADER = [
  "Keys created",
  "Keys revoked",
  "Keys replaced",
  "Keys rotated",
  "Keys updated",
  "Grants added",
  "Grants removed",
];

/** The tags the report's own Markdown makes in HTML. */
const REPORT_TAGS = [
  "h2",
  "h3",
  "h4",
  "p",
  "blockquote",
  "strong",
  "table",
  "thead",
  "tbody",
  "tr",
  "th",
  "td",
  "code",
  "pre",
  "details",
  "summary",
];

/**
 * Names and paths as a hostile pull request could write them, each with the text a reader must
 * see: itself, but for line breaks and bidirectional controls (shown as escapes) and a zero-width
 * space after `@` (so GitHub mentions nobody).
 */
const HOSTILE: readonly (readonly [what: string, value: string, shown: string])[] = [
  ["a forged heading", "## all checks passed", "## all checks passed"],
  ["an HTML image", "<img src=x onerror=alert(1)>", "<img src=x onerror=alert(1)>"],
  [
    "a closing details tag and a script",
    "</details><script>alert(1)</script>",
    "</details><script>alert(1)</script>",
  ],
  ["a details tag", "<details><summary>ok</summary>", "<details><summary>ok</summary>"],
  ["backticks", "a`b``c```", "a`b``c```"],
  ["a pipe", "billing | admin", "billing | admin"],
  ["a backslash before a pipe", "a\\|b\\", "a\\|b\\"],
  ["a line break that starts a heading", "svc\n## all checks passed", "svc\\n## all checks passed"],
  ["a line break that ends a table row", "svc\n\n| forged | row |", "svc\\n\\n| forged | row |"],
  ["a carriage return and a tab", "a\rb\tc", "a\\rb\\tc"],
  ["a code span", "`rm -rf` ``x``", "`rm -rf` ``x``"],
  ["a link", "[click here](https://evil.example)", "[click here](https:\u200b//evil.example)"],
  ["an image link", "![x](https://evil.example/x.png)", "![x](https:\u200b//evil.example/x.png)"],
  ["emphasis", "*emph* _u_ **strong** ~~gone~~", "*emph* _u_ **strong** ~~gone~~"],
  ["HTML entities", "&lt;b&gt; &#60;i&#62; &amp;", "&lt;b&gt; &#60;i&#62; &amp;"],
  [
    "bare URLs",
    "www.evil.example WWW.evil.example https://evil.example/x",
    "www\u200b.evil.example WWW\u200b.evil.example https:\u200b//evil.example/x",
  ],
  ["a mail address", "security@evil.example", "security@\u200bevil.example"],
  ["a mention", "@octocat @org/team", "@\u200boctocat @\u200borg/team"],
  ["math", "$x^2$ $$y$$", "$x^2$ $$y$$"],
  ["a bidirectional override", "safe\u202edeliver", "safe\\u202edeliver"],
  ["list and quote markers", "- item > quote 1. one", "- item > quote 1. one"],
  ["a thematic break", "---", "---"],
  ["a footnote reference", "[^1]", "[^1]"],
  ["the secret placeholder", "[secret]", "[secret]"],
];

/** A review with `value` as a key's name, its added path, a gaining path and a workspace move. */
function hostileReview(value: string): AccessReview {
  const planned = accessChange(
    [
      keyChange(value, {
        after: { type: "SERVICE", send: [value], receive: [value] },
        added: { send: [value], receive: [value] },
      }),
      keyChange("plain", {
        kind: "revoked",
        after: undefined,
        verdict: "narrows",
        added: { send: [], receive: [] },
        removed: { send: [value], receive: [] },
      }),
    ],
    {
      gains: [{ path: value, direction: "receive", keys: [value, "plain"] }],
      workspaces: [{ from: value, to: `/platform/${value}` }],
    },
  );
  return review(planned);
}

const HOSTILE_HEADINGS = [
  "## Broker access review: ⚠️ broadens access",
  "### Access keys",
  "### Access after the change",
  "### Who gains access",
  "### Workspaces moved",
  "### Changed grants",
];

describe("renderReviewMarkdown with names and paths holding Markdown and HTML", () => {
  it.each(HOSTILE)("renders %s as text, in the cells it belongs to", (_, value, shown) => {
    const markdown = renderReviewMarkdown(hostileReview(value));
    const root = parse(markdown);

    expect(headings(root)).toEqual(HOSTILE_HEADINGS);
    expect(tables(root).map((t) => t[0])).toEqual([
      SUMMARY_HEADER,
      ["Key", "Change", "Send", "Receive"],
      ["Key", "Type", "May send to", "May receive from"],
      ["Event path", "Gains a", "Gained by"],
      ["Workspace path before", "After"],
    ]);
    expect(tableAfter(root, "### Access keys")).toEqual([
      ["Key", "Change", "Send", "Receive"],
      [shown, "updated, broadens", `+ ${shown}`, `+ ${shown}`],
      ["plain", "revoked, narrows", `− ${shown}`, "no change"],
    ]);
    expect(tableAfter(root, "### Access after the change")).toEqual([
      ["Key", "Type", "May send to", "May receive from"],
      [shown, "SERVICE", shown, shown],
      ["plain", "—", "nothing (revoked)", "nothing (revoked)"],
    ]);
    expect(tableAfter(root, "### Who gains access")).toEqual([
      ["Event path", "Gains a", "Gained by"],
      [shown, "receiver", `${shown}, plain`],
    ]);
    expect(tableAfter(root, "### Workspaces moved")).toEqual([
      ["Workspace path before", "After"],
      [shown, `/platform/${shown}`],
    ]);
    // No link, image, emphasis, code or footnote came out of the value: only the report's own bold.
    const made = nodes(root).filter((n) =>
      ["link", "image", "emphasis", "delete", "inlineCode", "footnoteReference", "linkReference"].includes(
        n.type,
      ),
    );
    expect(made).toEqual([]);
    expect(rawHtml(root)).toEqual([]);
    expect([...tagNames(toHtml(markdown))].filter((tag) => !REPORT_TAGS.includes(tag))).toEqual([]);
  });

  it("keeps each hostile label inside its Mermaid node", () => {
    for (const [what, value] of HOSTILE) {
      const root = parse(renderReviewMarkdown(hostileReview(value)));
      const diagrams = nodes(root).flatMap((n) =>
        n.type === "code" && n.lang === "mermaid" ? [n.value] : [],
      );
      expect(diagrams, what).toHaveLength(1);
      const lines = diagrams[0]!.split("\n");
      // Two nodes for the value (as a key and as a path), one for "plain"; three edges.
      const labels = lines.filter((line) => /^ {2}[kp]\d+[[(]"/u.test(line));
      expect(labels, what).toEqual([
        `  k0("${mermaidLabel(value)}")`,
        `  p0["${mermaidLabel(value)}"]`,
        `  k1("plain")`,
      ]);
      for (const label of labels)
        expect(label.slice(label.indexOf('"') + 1, -2), what).toMatch(/^[^"`<>[\](){}|\n]*$/u);
    }
    expect(mermaidLabel('say "hi" <b>')).toBe("say #34;hi#34; #60;b#62;");
  });

  it("shows a secret name as [secret], and nothing of what it hides", () => {
    const markdown = renderReviewMarkdown(review(accessChange([keyChange("[secret]")])));
    expect(tableAfter(parse(markdown), "### Access keys")[1]![0]).toBe("[secret]");
  });
});

describe("renderReviewMarkdown as GitHub renders it", () => {
  it("keeps its tables, and a long section collapsed in <details> with the table inside", () => {
    const keys = Array.from({ length: 12 }, (_, i) => keyChange(`svc-${String(i).padStart(2, "0")}`));
    const markdown = renderReviewMarkdown(review(accessChange(keys)));
    const html = toHtml(markdown);
    expect(html.match(/<table>/gu)).toHaveLength(3);
    expect(html).toContain("<details><summary>12 keys' changes</summary>");
    // The table inside <details> is a table, not text: GFM needs the blank line after <summary>.
    const details = html.slice(html.indexOf("<details>"), html.indexOf("</details>"));
    expect(details).toContain("<table>");
    expect(details).toContain("<td>svc-11</td>");
    expect(
      rawHtml(parse(markdown)).every((h) => /^(<details><summary>[^<]*<\/summary>|<\/details>)$/u.test(h)),
    ).toBe(true);
  });

  it("says loudly that a change broadens access, and which verdict otherwise", () => {
    const broadens = toHtml(renderReviewMarkdown(review(accessChange([keyChange("a"), keyChange("b")]))));
    expect(broadens).toContain("<h2>Broker access review: ⚠️ broadens access</h2>");
    expect(broadens).toContain(
      "<strong>This change broadens access:</strong> 2 keys gain access they did not have.",
    );
    const narrows = renderReviewMarkdown(
      review(
        accessChange([
          keyChange("a", {
            verdict: "narrows",
            added: { send: [], receive: [] },
            removed: { send: ["x/y"], receive: [] },
          }),
        ]),
      ),
    );
    expect(narrows).toContain("## Broker access review: narrows access");
    expect(narrows).toContain("This change narrows access: no key gains access; 1 key loses some.");
    const same = renderReviewMarkdown(
      review(
        accessChange([
          keyChange("a", { kind: "rotated", verdict: "unchanged", added: { send: [], receive: [] } }),
        ]),
      ),
    );
    expect(same).toContain("## Broker access review: no change of access");
    expect(same).toContain("grants and revokes no access");
  });

  it("puts the counts first, in one table", () => {
    const keys = [
      keyChange("new", { kind: "created", before: undefined }),
      keyChange("gone", {
        kind: "revoked",
        after: undefined,
        verdict: "narrows",
        added: { send: [], receive: [] },
        removed: { send: ["a/b", "c/d"], receive: [] },
      }),
      keyChange("turned", { kind: "rotated", verdict: "unchanged", added: { send: [], receive: [] } }),
    ];
    const root = parse(renderReviewMarkdown(review(accessChange(keys))));
    expect(root.children.slice(0, 3).map((n) => n.type)).toEqual(["heading", "blockquote", "table"]);
    expect(tables(root)[0]).toEqual([SUMMARY_HEADER, ["1", "1", "0", "1", "0", "1", "2"]]);
  });

  it("reads an unknown list as known after up, never as a removal, and shows a type change", () => {
    const key = keyChange("later", {
      before: { type: "SERVICE", send: ["a/b"], receive: ["c/d"] },
      after: { type: "ACCOUNT", send: { unknown: true }, receive: ["c/d"] },
      added: { send: [], receive: [] },
      unknown: true,
    });
    const typeLater = keyChange("typed-later", {
      after: { type: { unknown: true }, send: ["orders/created"], receive: [] },
    });
    const root = parse(renderReviewMarkdown(review(accessChange([key, typeLater]))));
    expect(tableAfter(root, "### Access keys").slice(1)).toEqual([
      ["later", "updated, type SERVICE → ACCOUNT, broadens", "known after up", "no change"],
      ["typed-later", "updated, type known after up, broadens", "+ orders/created", "no change"],
    ]);
    expect(tableAfter(root, "### Access after the change").slice(1)).toEqual([
      ["later", "ACCOUNT", "known after up", "c/d"],
      ["typed-later", "known after up", "orders/created", "nothing"],
    ]);
  });

  it("draws the changed grants for a change of at most 30 grants, and none above", () => {
    const paths = (n: number) => Array.from({ length: n }, (_, i) => `orders/e${i}`);
    const small = renderReviewMarkdown(
      review(
        accessChange([
          keyChange("a", {
            added: { send: paths(MAX_DIAGRAM_GRANTS - 1), receive: [] },
            removed: { send: [], receive: ["x/y"] },
          }),
        ]),
      ),
    );
    const diagram = nodes(parse(small)).find((n) => n.type === "code" && n.lang === "mermaid");
    expect(
      diagram?.type === "code" && diagram.value.split("\n").filter((l) => /-->|-\.->/u.test(l)).length,
    ).toBe(MAX_DIAGRAM_GRANTS);
    expect(small).toContain('k0 -.->|"receive removed"| p29');
    // Below the tables.
    expect(small.indexOf("```mermaid")).toBeGreaterThan(small.lastIndexOf("| --- |"));
    const large = renderReviewMarkdown(
      review(accessChange([keyChange("a", { added: { send: paths(MAX_DIAGRAM_GRANTS + 1), receive: [] } })])),
    );
    expect(large).not.toContain("```mermaid");
  });

  it("gives what changed outside Pulumi its own section, with its verdict in the summary", () => {
    const planned = accessChange([
      keyChange("a", { kind: "rotated", verdict: "unchanged", added: { send: [], receive: [] } }),
    ]);
    const drift = accessChange([keyChange("billing-svc", { added: { send: [], receive: ["payments/*"] } })], {
      gains: [{ path: "payments/*", direction: "receive", keys: ["billing-svc"] }],
    });
    const markdown = renderReviewMarkdown(review(planned, drift));
    const root = parse(markdown);
    expect(headings(root)).toEqual([
      "## Broker access review: no change of access",
      "### Access keys",
      "### Access after the change",
      "### Changed outside Pulumi",
      "#### Access keys",
      "#### Access after the change",
      "#### Who gains access",
    ]);
    expect(markdown).toContain(
      "**Changed outside Pulumi** since the last `up` (the last section): **broadens access** (1 key).",
    );
    expect(markdown).toContain(
      "> **What changed outside Pulumi broadens access:** 1 key gains access it did not have.",
    );
    expect(tableAfter(root, "#### Who gains access")[1]).toEqual(["payments/*", "receiver", "billing-svc"]);
  });
});

describe("renderReviewMarkdown fits in a GitHub comment", () => {
  /** A change of `count` keys, each gaining two paths of its own. */
  function largeReview(count: number): AccessReview {
    const keys = Array.from({ length: count }, (_, i) =>
      keyChange(`service-${i}`, {
        kind: "created",
        before: undefined,
        after: { type: "SERVICE", send: [`orders/${i}/created`], receive: [`payments/${i}/*`] },
        added: { send: [`orders/${i}/created`], receive: [`payments/${i}/*`] },
      }),
    );
    const gains = keys.flatMap((k) => [
      { path: k.added.send[0]!, direction: "send" as const, keys: [k.name] },
      { path: k.added.receive[0]!, direction: "receive" as const, keys: [k.name] },
    ]);
    return review(accessChange(keys, { gains }));
  }

  it("renders 5,000 changed keys under 65,536 characters, the summary whole, saying what it left out", () => {
    const markdown = renderReviewMarkdown(largeReview(5_000));
    expect(markdown.length).toBeLessThan(DEFAULT_REVIEW_MAX_LENGTH);
    const root = parse(markdown);
    expect(tables(root)[0]).toEqual([SUMMARY_HEADER, ["5,000", "0", "0", "0", "0", "10,000", "0"]]);
    const shownKeys = tableAfter(root, "### Access keys").length - 1;
    expect(shownKeys).toBeGreaterThan(100);
    expect(shownKeys).toBeLessThan(5_000);
    const note = /\*\*Left out to fit in 65,536 characters:\*\* ([^\n]*)\n/u.exec(markdown);
    expect(note?.[1]).toContain(`${(5_000 - shownKeys).toLocaleString("en-US")} of 5,000 keys' changes`);
    expect(note?.[1]).toContain("of 10,000 paths that gain access");
    expect(note?.[1]).toContain("All of them are in `broker-config review --format json`.");
    // Every table the document opened is closed: the last <details> is closed too.
    expect(markdown.match(/<details>/gu)?.length).toBe(markdown.match(/<\/details>/gu)?.length);
  });

  it("stays within any maxLength, down to the summary alone", () => {
    const large = largeReview(300);
    for (const maxLength of [1_500, 2_000, 3_333, 10_000, 40_000]) {
      const markdown = renderReviewMarkdown(large, { maxLength });
      expect(markdown.length, String(maxLength)).toBeLessThanOrEqual(maxLength);
      expect(markdown, String(maxLength)).toContain("**Left out to fit in");
    }
    expect(() => renderReviewMarkdown(large, { maxLength: 200 })).toThrow(
      /^renderReviewMarkdown: maxLength 200 is too small: the verdict and the counts alone take \d+ characters$/u,
    );
  });

  it("leaves out a row longer than the comment, and still fits", () => {
    const huge = "x/".repeat(40_000) + "y";
    const markdown = renderReviewMarkdown(
      review(accessChange([keyChange("small"), keyChange(huge, { added: { send: [huge], receive: [] } })])),
    );
    expect(markdown.length).toBeLessThanOrEqual(DEFAULT_REVIEW_MAX_LENGTH);
    expect(markdown).toContain("1 of 2 keys' changes");
    expect(
      tableAfter(parse(markdown), "### Access keys")
        .slice(1)
        .map((r) => r[0]),
    ).toEqual(["small"]);
  });

  it("says nothing was left out when everything fits", () => {
    expect(renderReviewMarkdown(largeReview(3))).not.toContain("Left out");
  });
});
