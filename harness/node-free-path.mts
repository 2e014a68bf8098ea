/**
 * A PATH on which no Node.js can be found, for the tests that show the released plugin and SDKs
 * need none: each directory of the PATH that holds `node` (or npm's commands) is replaced by a
 * directory of links to everything else in it, so the other tools (`python`, `go`, `tar`) stay.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";

/** What a Node.js installation puts on the PATH. */
const NODE_COMMANDS = new Set(["node", "nodejs", "npm", "npx", "corepack"]);

/**
 * `pathValue` with every directory holding a Node.js command swapped for a linked copy without
 * them, made under `scratch`; throws if `node` can still be found on the result.
 */
export function nodeFreePath(pathValue: string, scratch: string): string {
  const dirs = pathValue.split(path.delimiter).filter((dir) => dir !== "");
  const result = dirs.map((dir, index) => {
    const entries = fs.existsSync(dir) ? fs.readdirSync(dir) : [];
    if (!entries.some((name) => NODE_COMMANDS.has(name))) return dir;
    const shadow = path.join(scratch, `path-${index}`);
    fs.mkdirSync(shadow, { recursive: true });
    for (const name of entries)
      if (!NODE_COMMANDS.has(name)) fs.symlinkSync(path.join(dir, name), path.join(shadow, name));
    return shadow;
  });
  const joined = result.join(path.delimiter);
  const found = spawnSync("sh", ["-c", "command -v node nodejs npm"], {
    env: { PATH: joined },
    encoding: "utf8",
  });
  if (found.stdout.trim() !== "") throw new Error(`node is still on the PATH: ${found.stdout.trim()}`);
  return joined;
}
