/**
 * `broker-config review` run in process, as the command-line tests of the access review run it,
 * and the documents they share.
 */
import { Readable } from "node:stream";
import { runReview } from "../../src/review/command";

/** What one run of the review command gave: its exit code and what it wrote. */
export interface ReviewRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `broker-config review` with `argv`, `stdin` as its input and `env` as its environment. */
export async function runReviewCommand(
  argv: string[],
  stdin = "",
  env: NodeJS.ProcessEnv = {},
): Promise<ReviewRun> {
  let stdout = "";
  let stderr = "";
  const code = await runReview(argv, {
    stdin: Readable.from(stdin === "" ? [] : [Buffer.from(stdin)]),
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    env,
  });
  return { code, stdout, stderr };
}

/**
 * The access keys of the documents "after" the reviewed change (a list under `accessKeys:`):
 * billing sends to `billing/*`, audit receives from `audit/*`.
 */
export const BILLING_AND_AUDIT_KEYS = `  - name: billing
    type: SERVICE
    permissions: { send: ["billing/*"] }
  - name: audit
    type: SERVICE
    permissions: { receive: ["audit/*"] }
`;
