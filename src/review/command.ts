/**
 * `broker-config review`: the access review of a change, as Markdown for a pull-request comment or
 * as JSON. The `broker-config` CLI and the single-executable `broker` plugin (`pulumi plugin run
 * --kind resource broker -- review …`) both call {@link runReview}, so users without Node.js have it.
 *
 * Inputs: the output of `pulumi preview --json` (a file, or standard input); two configuration
 * documents (`--from old.yaml --to new.yaml`); or the live broker against a document
 * (`--from-broker --to new.yaml`). Exit codes: 0 reviewed; 3 the change broadens access and
 * `--fail-on broadening` was given; 2 bad arguments or input; 1 the broker could not be read.
 */
import * as fs from "node:fs";
import { parseArgs } from "node:util";
import { BrokerClient } from "../client/client";
import { isBrokerApiError, isBrokerSettingsError } from "../client/errors";
import { redactSecrets } from "../client/redact";
import { exportBrokerConfig } from "../export/document";
import { commandLineConnection, SETTING_FLAGS, settingFlagsHelp } from "../settings/command-line";
import { readDocument } from "./documents";
import { isReviewInputError, ReviewInputError } from "./errors";
import { renderReviewMarkdown } from "./markdown";
import type { AccessReview } from "./report";
import { reviewDocuments, reviewPreview } from "./review";

/** Where the command reads and writes: the process's streams, or a test's. */
export type ReviewIo = {
  stdin: NodeJS.ReadableStream;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: NodeJS.ProcessEnv;
};

/** Exit code: the review was written (and, with `--fail-on broadening`, does not broaden). */
export const REVIEW_OK = 0;
/** Exit code: the broker could not be read (`--from-broker`): connection, authentication, server. */
export const REVIEW_BROKER_FAILED = 1;
/** Exit code: bad arguments, or input that is not what the review reads. */
export const REVIEW_BAD_INPUT = 2;
/** Exit code: the change broadens access and `--fail-on broadening` was given. */
export const REVIEW_BROADENS = 3;

/** The help of `broker-config review`. */
export const REVIEW_USAGE = `Usage: broker-config review [PREVIEW.json | -] [--format markdown|json] [--fail-on broadening]
       broker-config review --from OLD.yaml --to NEW.yaml [--format …] [--fail-on broadening]
       broker-config review --from-broker --to NEW.yaml [connection options] [--format …] [--fail-on …]

Writes the access review of a change: which keys gain or lose which event paths, and whether the
change broadens access. Reads the output of \`pulumi preview --json\` (or \`pulumi preview --refresh
--json\`, whose "changed outside Pulumi" section is the drift since the last up) from the file, or
from standard input when none (or -) is given.

Options:
  --format markdown|json   markdown for a pull-request comment, or the review as JSON
                           (a versioned schema)                          [default: markdown]
  --fail-on broadening     exit 3 when the change broadens access
  --from FILE              a configuration document (the \`broker-config export\` format): the before
  --to FILE                a configuration document: the after (with --from or --from-broker)
  --from-broker            the before is the live broker, read as \`broker-config export\` reads it
                           (keys the --to document does not name are left out: nothing revokes them)
  --help                   show this help

Connection options (--from-broker only):
${settingFlagsHelp()}
  --api-key-env NAME       read the ACCOUNT API key from $NAME   [default: BROKER_API_KEY]

Exit codes: 0 reviewed, 3 broadens (with --fail-on broadening), 2 bad arguments or input,
1 the broker could not be read.
`;

/** A refusal of the command line: exit code 2 with the usage. */
class ReviewUsageError extends Error {}

/** What the command line asks for. */
interface ReviewArgs {
  format: "markdown" | "json";
  failOnBroadening: boolean;
  input:
    | { kind: "preview"; file: string | undefined }
    | { kind: "documents"; from: string; to: string }
    | { kind: "broker"; to: string; values: Record<string, unknown> };
}

function parseReviewArgs(argv: readonly string[]): ReviewArgs | "help" {
  if (argv.some((arg) => arg === "--api-key" || arg.startsWith("--api-key=")))
    throw new ReviewUsageError(
      "--api-key is not accepted: a key on the command line lands in shell history; set BROKER_API_KEY, or name another variable with --api-key-env",
    );
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: true,
      options: {
        ...SETTING_FLAGS,
        format: { type: "string" },
        "fail-on": { type: "string" },
        from: { type: "string" },
        to: { type: "string" },
        "from-broker": { type: "boolean", default: false },
        help: { type: "boolean", short: "h", default: false },
      },
    });
  } catch (error) {
    throw new ReviewUsageError(error instanceof Error ? error.message : String(error));
  }
  const { values, positionals } = parsed;
  if (values.help) return "help";
  const format = values.format ?? "markdown";
  if (format !== "markdown" && format !== "json")
    throw new ReviewUsageError(`--format must be markdown or json, got ${JSON.stringify(format)}`);
  const failOn = values["fail-on"];
  if (failOn !== undefined && failOn !== "broadening")
    throw new ReviewUsageError(`--fail-on takes one value, broadening; got ${JSON.stringify(failOn)}`);
  if (positionals.length > 1) throw new ReviewUsageError("review takes at most one file (the preview's JSON)");
  const [file] = positionals;
  const args = { format, failOnBroadening: failOn === "broadening" } as const;
  const fromBroker = values["from-broker"];
  if (values.from !== undefined || fromBroker) {
    if (values.from !== undefined && fromBroker)
      throw new ReviewUsageError("give either --from FILE or --from-broker, not both");
    if (values.to === undefined)
      throw new ReviewUsageError(`${fromBroker ? "--from-broker" : "--from"} needs --to FILE, the document after the change`);
    if (file !== undefined)
      throw new ReviewUsageError("a preview file and --from/--to are two ways to review: give one");
    return values.from !== undefined
      ? { ...args, input: { kind: "documents", from: values.from, to: values.to } }
      : { ...args, input: { kind: "broker", to: values.to, values } };
  }
  if (values.to !== undefined) throw new ReviewUsageError("--to needs --from FILE or --from-broker");
  const connectionFlag = Object.keys(SETTING_FLAGS).find((flag) => (values as Record<string, unknown>)[flag] !== undefined);
  if (connectionFlag !== undefined) throw new ReviewUsageError(`--${connectionFlag} is for --from-broker only`);
  return { ...args, input: { kind: "preview", file: file === "-" ? undefined : file } };
}

/**
 * Runs `broker-config review` with `argv` (the arguments after `review`), reading and writing
 * through `io`. Never throws: every failure is one line on `io.stderr` and an exit code.
 *
 * @returns The exit code: 0, 3 (broadens, with `--fail-on broadening`), 2 (bad input), 1 (broker).
 */
export async function runReview(argv: readonly string[], io: ReviewIo): Promise<number> {
  const secrets: string[] = [];
  try {
    const args = parseReviewArgs(argv);
    if (args === "help") {
      io.stdout(REVIEW_USAGE);
      return REVIEW_OK;
    }
    const review = await buildReview(args, io, secrets);
    io.stdout(
      args.format === "json" ? `${JSON.stringify(review, null, 2)}\n` : ensureNewline(renderReviewMarkdown(review)),
    );
    return args.failOnBroadening && review.broadens ? REVIEW_BROADENS : REVIEW_OK;
  } catch (error) {
    if (error instanceof ReviewUsageError) {
      io.stderr(`broker-config review: ${error.message}\n\n${REVIEW_USAGE}`);
      return REVIEW_BAD_INPUT;
    }
    if (isReviewInputError(error) || isBrokerSettingsError(error)) {
      io.stderr(`broker-config review: ${oneLine(error.message)}\n`);
      return REVIEW_BAD_INPUT;
    }
    if (isBrokerApiError(error)) {
      io.stderr(`broker-config review: ${oneLine(redactSecrets(error.message, secrets))}\n`);
      return REVIEW_BROKER_FAILED;
    }
    // A defect, not the input: still one line, never a stack trace, never a key.
    const message = error instanceof Error ? error.message : String(error);
    io.stderr(`broker-config review: unexpected failure: ${oneLine(redactSecrets(message, secrets))}\n`);
    return REVIEW_BROKER_FAILED;
  }
}

async function buildReview(args: ReviewArgs, io: ReviewIo, secrets: string[]): Promise<AccessReview> {
  const input = args.input;
  switch (input.kind) {
    case "preview": {
      const text = input.file === undefined ? await readStream(io.stdin) : readFile(input.file, "the preview");
      return reviewPreview(text);
    }
    case "documents": {
      const from = readDocument(input.from, readFile(input.from, "the --from document"));
      const to = readDocument(input.to, readFile(input.to, "the --to document"));
      return reviewDocuments(from, to, "documents", { from: input.from, to: input.to });
    }
    case "broker": {
      const to = readDocument(input.to, readFile(input.to, "the --to document"));
      const options = commandLineConnection(input.values, io.env, (message) => new ReviewUsageError(message));
      secrets.push(options.apiKey);
      const client = new BrokerClient(options);
      try {
        const exported = await exportBrokerConfig(client);
        return reviewDocuments(exported.document, to, "broker", { from: "broker", to: input.to });
      } finally {
        await client.close();
      }
    }
  }
}

/** A file's text, or the refusal naming it. */
function readFile(file: string, what: string): string {
  try {
    return fs.readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === "ENOENT" ? "no such file" : code === "EISDIR" ? "it is a directory" : (code ?? String(error));
    throw new ReviewInputError(`cannot read ${what} ${JSON.stringify(file)}: ${reason}`);
  }
}

/** Everything on a stream, as UTF-8 text; refuses a terminal, which would wait forever. */
async function readStream(stream: NodeJS.ReadableStream): Promise<string> {
  if ((stream as { isTTY?: boolean }).isTTY === true)
    throw new ReviewUsageError("no input: pass the file `pulumi preview --json` wrote, or pipe it in");
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString("utf8");
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/gu, "; ").trim();
}

function ensureNewline(text: string): string {
  return text.endsWith("\n") ? text : `${text}\n`;
}
