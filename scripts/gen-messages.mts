// Writes docs/messages.md, the table of every message users of the providers can meet, from the
// source (see scripts/lib/message-catalog.mts), formatted as Prettier formats the repository.
//
//   npm run gen:messages              write docs/messages.md
//   npm run gen:messages -- --check   fail when docs/messages.md differs from what the code gives
//
// test/unit/message-catalog.test.ts checks the same, and the Troubleshooting table of docs/operations.md
// against it, in every test run.
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import * as prettier from "prettier";
import { collectMessages, renderCatalog } from "./lib/message-catalog.mts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const file = path.join(root, "docs", "messages.md");
const options = (await prettier.resolveConfig(file)) ?? {};
const text = await prettier.format(renderCatalog(collectMessages(root)), { ...options, filepath: file });

if (process.argv.includes("--check")) {
  const current = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "";
  if (current !== text) {
    console.error(
      "gen-messages: docs/messages.md differs from the messages in the code: run `npm run gen:messages`",
    );
    process.exit(1);
  }
  console.log("gen-messages: docs/messages.md matches the code");
} else {
  fs.writeFileSync(file, text);
  console.log("gen-messages: wrote docs/messages.md");
}
