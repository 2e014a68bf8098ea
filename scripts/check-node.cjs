// Stops with one clear line when this Node.js is older than package.json's `engines.node`.
//
// Run first by the npm scripts that need a new Node (`node scripts/check-node.cjs && …`) and required
// first by the two bins (dist/cli/broker-config.js, dist/emulator/cli.js), so that an old Node says
// which version is needed instead of failing later with ERR_UNKNOWN_FILE_EXTENSION ".mts" or a stack
// trace from a dependency. Written in plain CommonJS with no dependency and no syntax newer than
// Node 12 can read, because it must run on exactly the old versions it turns away. It ships in the
// npm package for the bins.
"use strict";

const fs = require("fs");
const path = require("path");

/**
 * The problem with running on Node `found` (such as "v20.19.2") when `range` (package.json's
 * `engines.node`, of the form ">=22.19.0") is required, as one line; undefined when `found` satisfies it.
 */
function nodeVersionProblem(found, range) {
  const wanted = /^\s*>=\s*(\d+)\.(\d+)\.(\d+)\s*$/.exec(range || "");
  if (!wanted) {
    return `pulumi-broker-config: cannot read the required Node.js version from package.json engines.node (${JSON.stringify(range)}); expected the form ">=X.Y.Z"`;
  }
  const have = /^v?(\d+)\.(\d+)\.(\d+)/.exec(found);
  const need = wanted.slice(1).map(Number);
  const got = have ? have.slice(1).map(Number) : [0, 0, 0];
  for (let i = 0; i < 3; i++) {
    if (got[i] > need[i]) return undefined;
    if (got[i] < need[i]) {
      return `pulumi-broker-config needs Node.js ${range.trim()}, but this is Node.js ${found} (${process.execPath}): put a newer node first on PATH`;
    }
  }
  return undefined;
}

/** package.json's `engines.node`, read beside this file's directory (the package root). */
function requiredRange() {
  const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, "..", "package.json"), "utf8"));
  return manifest.engines && manifest.engines.node;
}

/** Exits with status 1 and one line on stderr when this Node is too old. */
function requireSupportedNode() {
  const problem = nodeVersionProblem(process.version, requiredRange());
  if (problem !== undefined) {
    process.stderr.write(`${problem}\n`);
    process.exit(1);
  }
}

module.exports = { nodeVersionProblem, requiredRange };
requireSupportedNode();
