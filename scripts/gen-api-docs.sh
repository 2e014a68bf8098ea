#!/usr/bin/env bash
# Renders the `broker` package's API docs from schema.json with Pulumi's own docs generator (the
# program in scripts/gen-api-docs), into api-docs/ (git-ignored): the resource and function pages a
# Pulumi Registry user reads, in every language, so that a maintainer can read them before a release.
#
#   npm run gen:api-docs             render into api-docs/
#   npm run gen:api-docs -- --check  render into a scratch directory and fail unless every resource
#                                    and function of schema.json has its page, with its Example Usage
#                                    (and, for a resource, its Import section) (CI)
#
# The generator program is built once per machine and per revision of its sources into a cache
# outside the repository (about two minutes the first time).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
log() { echo "gen-api-docs: $*" >&2; }

check=false
for arg in "$@"; do
  case "$arg" in
    --check) check=true ;;
    *)
      log "unknown argument '$arg' (the only option is --check)"
      exit 2
      ;;
  esac
done

# shellcheck source=lib/go-program.sh
source "$repo/scripts/lib/go-program.sh"
# pulumi-java's module (which the generator imports for Java names) is in no public checksum
# database: go.sum pins its hash, and nothing asks the database for it.
build_go_program gen-api-docs "the docs generator" GONOSUMDB=github.com/pulumi/pulumi-java
generator=$go_program

if [ "$check" = false ]; then
  "$generator" -schema "$repo/schema.json" -out "$repo/api-docs" -version "$version" >/dev/null
  log "wrote $(find "$repo/api-docs" -name '*.md' | wc -l) pages into api-docs/ (version $version)"
  exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$generator" -schema "$repo/schema.json" -out "$work/docs" -version "$version" >/dev/null
# Every resource and function of the schema has a page with its sections; the generator names each
# page's folder after the token's last part, lower-cased.
node - "$repo/schema.json" "$work/docs" <<'JS'
const fs = require("node:fs");
const path = require("node:path");
const [schemaFile, dir] = process.argv.slice(2);
const schema = JSON.parse(fs.readFileSync(schemaFile, "utf8"));
const problems = [];
const pages = [
  ...Object.keys(schema.resources).map((token) => ({ token, resource: true })),
  ...Object.keys(schema.functions).map((token) => ({ token, resource: false })),
];
for (const { token, resource } of pages) {
  const file = path.join(dir, token.split(":").at(-1).toLowerCase(), "_index.md");
  if (!fs.existsSync(file)) {
    problems.push(`${token}: no page ${path.relative(dir, file)}`);
    continue;
  }
  const page = fs.readFileSync(file, "utf8");
  // The Example Usage section: from its heading to the next of its level.
  const start = page.indexOf("\n## Example Usage\n");
  if (start < 0) problems.push(`${token}: no Example Usage`);
  const rest = page.slice(start + 1);
  const next = rest.indexOf("\n## ");
  const examples = start < 0 ? "" : next < 0 ? rest : rest.slice(0, next);
  // A language the description has no block for still gets its tab, saying "Coming soon!".
  for (const language of ["typescript", "python", "go", "yaml"]) {
    const tab = new RegExp(`<pulumi-choosable type="language" values="${language}">\\s*\`\`\`${language}\n`, "u");
    if (!tab.test(examples)) problems.push(`${token}: no ${language} example`);
  }
  if (resource && !page.includes("## Import")) problems.push(`${token}: no Import section`);
}
if (problems.length > 0) {
  console.error(`gen-api-docs: the rendered pages lack:\n  ${problems.join("\n  ")}`);
  process.exit(1);
}
console.log(`gen-api-docs: rendered a page for each of ${pages.length} resources and functions, with their sections`);
JS
