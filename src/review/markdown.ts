/**
 * The access review as GitHub-flavoured Markdown, for a pull-request comment and
 * `$GITHUB_STEP_SUMMARY`: the verdict and the counts first, then each key's change, each key's
 * access after the change (the diff hides the union), the paths that gain a sender or receiver
 * (the inverted view), workspace moves, a Mermaid diagram of a small change, and what changed
 * outside Pulumi.
 *
 * Two promises hold whatever the input: every user-controlled string is written through
 * `markdown-text.ts` (it renders as text, never as markup), and the document is never longer than
 * `maxLength` (rows that do not fit are counted in a line saying what was left out).
 */
import { markdownText, mermaidLabel } from "./markdown-text";
import type {
  AccessChange,
  AccessReview,
  AccessVerdict,
  Direction,
  KeyAccess,
  KeyChange,
  KeyChangeKind,
  UnknownValue,
} from "./report";

/**
 * The longest comment GitHub accepts, in characters: the default `maxLength`.
 * @default 65536
 */
export const DEFAULT_REVIEW_MAX_LENGTH = 65_536;

/** Sections with more rows than this are collapsed into `<details>`, so the summary stays on screen. */
export const COLLAPSE_ABOVE_ROWS = 10;

/** The most grants (added and removed, all keys) a change may touch to get a diagram. */
export const MAX_DIAGRAM_GRANTS = 30;

/** Options of {@link renderReviewMarkdown}. */
export interface RenderReviewOptions {
  /**
   * The most characters (UTF-16 code units, never fewer than the characters GitHub counts) the
   * document may have. Rows past it are left out, and a line after the summary says how many.
   * @default 65536 (GitHub's limit for a comment)
   */
  maxLength?: number;
}

/**
 * Renders an access review as GitHub-flavoured Markdown: one document under `maxLength`
 * characters, safe to post as a pull-request comment whatever names and paths the change holds.
 *
 * @example
 * ```ts
 * fs.appendFileSync(process.env.GITHUB_STEP_SUMMARY!, renderReviewMarkdown(review));
 * ```
 * @throws RangeError when `maxLength` cannot hold even the verdict and the counts.
 */
export function renderReviewMarkdown(review: AccessReview, options?: { maxLength?: number }): string {
  const maxLength = options?.maxLength ?? DEFAULT_REVIEW_MAX_LENGTH;
  const head = renderHead(review);
  const sections = [
    ...changeSections(review.planned, "###"),
    ...(review.drift === undefined ? [] : driftSections(review.drift)),
  ];
  const reserve = leftOutNote(
    sections.map((s) => ({ section: s, shown: 0 })),
    maxLength,
  ).length;
  const room = maxLength - head.length - reserve;
  if (room < 0) {
    throw new RangeError(
      `renderReviewMarkdown: maxLength ${maxLength} is too small: the verdict and the counts alone take ${head.length + reserve} characters`,
    );
  }
  const body: string[] = [];
  let used = 0;
  const fitted = sections.map((section) => {
    const { text, shown } = fit(section, room - used);
    body.push(text);
    used += text.length;
    return { section, shown };
  });
  return head + leftOutNote(fitted, maxLength) + body.join("");
}

// ---------------------------------------------------------------------------------------------------
// The head: title, verdict, counts. It holds no user-controlled text, so its length is bounded.

const VERDICT_TITLE: Record<AccessVerdict, string> = {
  broadens: "⚠️ broadens access",
  narrows: "narrows access",
  unchanged: "no change of access",
};

/** The title, the verdict, the counts and drift's verdict: blocks apart by blank lines, ending a line. */
function renderHead(review: AccessReview): string {
  const { planned, drift } = review;
  const blocks = [
    [`## Broker access review: ${VERDICT_TITLE[planned.verdict]}`],
    verdictCallout(planned, SOURCE_WORDS[review.source]),
    summaryTable(planned),
  ];
  if (drift !== undefined) {
    blocks.push([
      `**Changed outside Pulumi** since the last \`up\` (the last section): ${driftVerdict(drift)}.`,
    ]);
  }
  return `${blocks.map((lines) => lines.join("\n")).join("\n\n")}\n`;
}

/** What the review compared, as the verdict's sentence says it. */
const SOURCE_WORDS: Record<AccessReview["source"], string> = {
  preview: "This change",
  documents: "The new document",
  broker: "Applying the document",
};

function verdictCallout(change: AccessChange, subject: string): string[] {
  const broadening = change.keys.filter((k) => k.verdict === "broadens").length;
  const narrowing = change.keys.filter((k) => k.verdict === "narrows").length;
  switch (change.verdict) {
    case "broadens":
      return [
        "> [!CAUTION]",
        `> **${subject} broadens access:** ${keys(broadening)} ${broadening === 1 ? "gains" : "gain"} access ` +
          `${broadening === 1 ? "it" : "they"} did not have. Check who gains what below before approving.`,
      ];
    case "narrows":
      return [
        "> [!NOTE]",
        `> ${subject} narrows access: no key gains access; ${keys(narrowing)} ${narrowing === 1 ? "loses" : "lose"} some.`,
      ];
    case "unchanged":
      return ["> [!NOTE]", `> ${subject} grants and revokes no access.`];
  }
}

function driftVerdict(drift: AccessChange): string {
  const broadening = drift.keys.filter((k) => k.verdict === "broadens").length;
  if (drift.verdict === "broadens") return `**broadens access** (${keys(broadening)})`;
  return drift.verdict === "narrows" ? "narrows access" : "no change of access";
}

function summaryTable({ summary }: AccessChange): string[] {
  const columns: [string, number][] = [
    ["Keys created", summary.keysCreated],
    ["Keys revoked", summary.keysRevoked],
    ["Keys replaced", summary.keysReplaced],
    ["Keys rotated", summary.keysRotated],
    ["Keys updated", summary.keysUpdated],
    ["Grants added", summary.grantsAdded],
    ["Grants removed", summary.grantsRemoved],
  ];
  return table(
    columns.map(([title]) => title),
    [columns.map(([, count]) => count.toLocaleString("en-US"))],
  );
}

// ---------------------------------------------------------------------------------------------------
// Sections: a heading, an optional introduction and rows that may be cut, or a block shown whole.

interface Section {
  /** `### Access keys`, or the heading of a block. */
  heading: string;
  /** Lines between the heading and the table (our own words only). */
  intro: string[];
  /** The table's column titles; no table for a block. */
  columns?: string[];
  /** One rendered row (or, for a block, its one whole text) per item. */
  rows: string[];
  /** What the left-out line and the `<details>` summary call the items, such as `keys' changes`. */
  unit: string;
  /** Whether the items are shown only whole (a diagram): all or none. */
  whole?: boolean;
}

function changeSections(change: AccessChange, level: "###" | "####"): Section[] {
  const ordered = [...change.keys].sort((a, b) => VERDICT_ORDER[a.verdict] - VERDICT_ORDER[b.verdict]);
  const sections: Section[] = [];
  if (ordered.length > 0) {
    sections.push({
      heading: `${level} Access keys`,
      intro: ["What each key gains (+) and loses (−), most broadening first."],
      columns: ["Key", "Change", "Send", "Receive"],
      rows: ordered.map(keyChangeRow),
      unit: "keys' changes",
    });
    sections.push({
      heading: `${level} Access after the change`,
      intro: ["Each key's whole access once the change is applied: what a diff of one list does not show."],
      columns: ["Key", "Type", "May send to", "May receive from"],
      rows: ordered.map(accessAfterRow),
      unit: "keys' access after the change",
    });
  }
  if (change.gains.length > 0) {
    sections.push({
      heading: `${level} Who gains access`,
      intro: [
        "Each event path or wildcard area that gains a sender or a receiver, with the keys that gain it.",
      ],
      columns: ["Event path", "Gains a", "Gained by"],
      rows: change.gains.map((gain) =>
        row([
          markdownText(gain.path),
          gain.direction === "send" ? "sender" : "receiver",
          gain.keys.map(markdownText).join(", "),
        ]),
      ),
      unit: "paths that gain access",
    });
  }
  if (change.workspaces.length > 0) {
    sections.push({
      heading: `${level} Workspaces moved`,
      intro: ["A workspace renamed or moved changes the path of everything under it."],
      columns: ["Workspace path before", "After"],
      rows: change.workspaces.map((move) => row([markdownText(move.from), markdownText(move.to)])),
      unit: "workspace moves",
    });
  }
  const diagram = level === "###" ? grantDiagram(ordered) : undefined;
  if (diagram !== undefined) {
    sections.push({
      heading: `${level} Changed grants`,
      intro: ["Solid arrows are grants added, dotted arrows grants removed."],
      rows: [diagram],
      unit: "diagram of the changed grants",
      whole: true,
    });
  }
  return sections;
}

function driftSections(drift: AccessChange): Section[] {
  const head: Section = {
    heading: "### Changed outside Pulumi",
    intro: [],
    rows: [
      [
        "Access on the broker that differs from what the last `up` left: grants a key gained or lost, keys revoked by hand.",
        "",
        ...verdictCallout(drift, "What changed outside Pulumi"),
        "",
        ...summaryTable(drift),
      ].join("\n"),
    ],
    unit: "verdict and counts of what changed outside Pulumi",
    whole: true,
  };
  return [head, ...changeSections(drift, "####")];
}

const VERDICT_ORDER: Record<AccessVerdict, number> = { broadens: 0, narrows: 1, unchanged: 2 };

// ---------------------------------------------------------------------------------------------------
// Rows.

const KIND_WORDS: Record<KeyChangeKind, string> = {
  created: "created",
  revoked: "revoked",
  retained: "removed from the stack, kept on the broker",
  replaced: "replaced",
  rotated: "rotated (new value)",
  updated: "updated",
};

const VERDICT_WORDS: Record<AccessVerdict, string> = {
  broadens: "**broadens**",
  narrows: "narrows",
  unchanged: "same access",
};

const KNOWN_AFTER_UP = "known after up";

function keyChangeRow(change: KeyChange): string {
  const what = [KIND_WORDS[change.kind]];
  const typeChange = typeChangeWords(change);
  if (typeChange !== undefined) what.push(typeChange);
  what.push(VERDICT_WORDS[change.verdict]);
  return row([
    markdownText(change.name),
    what.join(", "),
    directionChange(change, "send"),
    directionChange(change, "receive"),
  ]);
}

function typeChangeWords({ before, after }: KeyChange): string | undefined {
  if (before === undefined || after === undefined) return undefined;
  if (isUnknown(after.type)) return `type ${KNOWN_AFTER_UP}`;
  if (isUnknown(before.type) || before.type === after.type) return undefined;
  return `type ${before.type} → ${after.type}`;
}

function directionChange(change: KeyChange, direction: Direction): string {
  // Unknown lists are never read as removals: what they will hold is decided during `up`.
  if (change.after !== undefined && isUnknown(change.after[direction])) return KNOWN_AFTER_UP;
  const parts = [
    ...change.added[direction].map((path) => `+ ${markdownText(path)}`),
    ...change.removed[direction].map((path) => `− ${markdownText(path)}`),
  ];
  return parts.length === 0 ? "no change" : parts.join(", ");
}

function accessAfterRow(change: KeyChange): string {
  const { after } = change;
  if (after === undefined)
    return row([markdownText(change.name), "—", "nothing (revoked)", "nothing (revoked)"]);
  return row([
    markdownText(change.name),
    isUnknown(after.type) ? KNOWN_AFTER_UP : after.type,
    pathList(after, "send"),
    pathList(after, "receive"),
  ]);
}

function pathList(access: KeyAccess, direction: Direction): string {
  const paths = access[direction];
  if (isUnknown(paths)) return KNOWN_AFTER_UP;
  return paths.length === 0 ? "nothing" : paths.map(markdownText).join(", ");
}

function isUnknown(value: unknown): value is UnknownValue {
  return typeof value === "object" && value !== null && (value as Partial<UnknownValue>).unknown === true;
}

// ---------------------------------------------------------------------------------------------------
// The diagram.

/**
 * A Mermaid flowchart of the changed grants, keys on the left and event paths on the right, for a
 * change of at most {@link MAX_DIAGRAM_GRANTS} grants; `undefined` for none or more.
 */
function grantDiagram(changes: readonly KeyChange[]): string | undefined {
  const edges: { key: string; path: string; label: string; removed: boolean }[] = [];
  for (const change of changes) {
    for (const direction of ["send", "receive"] as const) {
      for (const path of change.added[direction])
        edges.push({ key: change.name, path, label: `${direction} added`, removed: false });
      for (const path of change.removed[direction])
        edges.push({ key: change.name, path, label: `${direction} removed`, removed: true });
    }
  }
  if (edges.length === 0 || edges.length > MAX_DIAGRAM_GRANTS) return undefined;
  const keyIds = new Map<string, string>();
  const pathIds = new Map<string, string>();
  const lines = ["```mermaid", "flowchart LR"];
  const node = (ids: Map<string, string>, prefix: string, value: string, open: string, close: string) => {
    let id = ids.get(value);
    if (id === undefined) {
      id = `${prefix}${ids.size}`;
      ids.set(value, id);
      lines.push(`  ${id}${open}"${mermaidLabel(value)}"${close}`);
    }
    return id;
  };
  const links: string[] = [];
  for (const edge of edges) {
    const from = node(keyIds, "k", edge.key, "(", ")");
    const to = node(pathIds, "p", edge.path, "[", "]");
    links.push(`  ${from} ${edge.removed ? "-.->" : "-->"}|"${edge.label}"| ${to}`);
  }
  lines.push(...links);
  // Added grants green, removed red: the same colours as GitHub's diffs.
  const indices = (removed: boolean) =>
    edges.flatMap((edge, index) => (edge.removed === removed ? [String(index)] : [])).join(",");
  if (edges.some((e) => !e.removed)) lines.push(`  linkStyle ${indices(false)} stroke:#1a7f37`);
  if (edges.some((e) => e.removed)) lines.push(`  linkStyle ${indices(true)} stroke:#cf222e`);
  lines.push("```");
  return lines.join("\n");
}

// ---------------------------------------------------------------------------------------------------
// Fitting: each section takes the rows that fit in the room left, in order.

/** A section and how many of its rows the document shows. */
interface Fitted {
  section: Section;
  shown: number;
}

function fit(section: Section, room: number): { text: string; shown: number } {
  const collapsed = section.rows.length > COLLAPSE_ABOVE_ROWS;
  const open = [
    "",
    section.heading,
    "",
    ...section.intro,
    ...(section.intro.length > 0 ? [""] : []),
    ...(collapsed
      ? [`<details><summary>${section.rows.length.toLocaleString("en-US")} ${section.unit}</summary>`, ""]
      : []),
    ...(section.columns === undefined ? [] : table(section.columns, [])),
  ].join("\n");
  const close = collapsed ? "\n\n</details>\n" : "\n";
  let text = open;
  let shown = 0;
  for (const line of section.rows) {
    if (text.length + 1 + line.length + close.length > room) break;
    text += `\n${line}`;
    shown++;
  }
  if (shown === 0 || (section.whole === true && shown < section.rows.length)) return { text: "", shown: 0 };
  return { text: text + close, shown };
}

/**
 * The line after the summary saying what did not fit, or `""` when everything did. With `shown: 0`
 * everywhere it is the longest it can be: that length is reserved before anything is fitted.
 */
function leftOutNote(fitted: readonly Fitted[], maxLength: number): string {
  const parts = fitted
    .filter(({ section, shown }) => section.rows.length > shown)
    .map(({ section, shown }) =>
      section.whole === true
        ? `the ${section.unit}`
        : `${(section.rows.length - shown).toLocaleString("en-US")} of ${section.rows.length.toLocaleString("en-US")} ${section.unit}`,
    );
  if (parts.length === 0) return "";
  // A blank line first: a line right after the summary table would be read as one more row.
  return (
    `\n**Left out to fit in ${maxLength.toLocaleString("en-US")} characters:** ${parts.join("; ")}. ` +
    "All of them are in `broker-config review --format json`.\n"
  );
}

// ---------------------------------------------------------------------------------------------------
// Tables.

function table(columns: readonly string[], rows: readonly (readonly string[])[]): string[] {
  return [row(columns), row(columns.map(() => "---")), ...rows.map(row)];
}

/** One GFM table row; each cell is our own words or text already escaped by `markdownText`. */
function row(cells: readonly string[]): string {
  return `| ${cells.join(" | ")} |`;
}

function keys(count: number): string {
  return `${count.toLocaleString("en-US")} ${count === 1 ? "key" : "keys"}`;
}
