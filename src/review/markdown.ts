/**
 * PLACEHOLDER of the Markdown renderer, owned by the `review-render` branch, which replaces this
 * file whole: the same signature, so `command.ts` builds against either. It prints the summary and
 * one line per key as plain text in a fenced block (so no name can forge Markdown), nothing more.
 */
import type { AccessReview } from "./report";

/** Options of {@link renderReviewMarkdown}. */
export interface RenderOptions {
  /** Longest Markdown returned, in characters (a GitHub comment holds 65,536). */
  maxLength?: number;
}

/** The access review as Markdown for a pull-request comment (placeholder: see the module). */
export function renderReviewMarkdown(review: AccessReview, options?: RenderOptions): string {
  const lines = [
    `## Access review: ${review.broadens ? "broadens access" : "does not broaden access"}`,
    "",
    "```text",
    ...review.planned.keys.map(
      (key) =>
        `${key.verdict} ${key.kind} ${JSON.stringify(key.name)} +send ${key.added.send.length} +receive ${key.added.receive.length} -send ${key.removed.send.length} -receive ${key.removed.receive.length}`.replace(/`/gu, "'"),
    ),
    "```",
    "",
  ];
  const text = lines.join("\n");
  const max = options?.maxLength ?? 65_536;
  return text.length <= max ? text : `${text.slice(0, max - 40)}\n\`\`\`\n(cut: see --format json)\n`;
}
