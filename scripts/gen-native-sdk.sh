#!/usr/bin/env bash
# Generates the Node.js SDK of the `broker` package (sdk/nodejs, published as
# `pulumi-broker-config/native`) from schema.json with Pulumi's own Node.js code generator, through
# the generator program in scripts/gen-sdk (the one that also writes the Python and Go SDKs).
#
#   npm run gen:native             regenerate sdk/nodejs in place
#   npm run gen:native -- --check  fail when sdk/nodejs differs from what schema.json generates (CI)
#
# The generated SDK is compiled inside this package rather than published as its own npm package,
# so three things change on the way in, each checked to apply:
#   - only the TypeScript sources are kept (the generator's package.json, tsconfig.json, README.md
#     and git files describe a separate package);
#   - utilities.ts reads the version from this package's package.json (two levels up from
#     sdk/nodejs and dist/native-sdk), so resources ask the engine for resource-broker-v<our version>;
#   - this package's stricter compiler settings get what they require: `export type` for re-exported
#     interfaces (isolatedModules) and `override` on `isInstance` (noImplicitOverride).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
log() { echo "gen-native-sdk: $*" >&2; }

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
# The generator program, built once per source revision (the same cache as scripts/gen-sdk.sh).
# shellcheck source=lib/sdk-generator.sh
source "$repo/scripts/lib/sdk-generator.sh"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$generator" -schema "$repo/schema.json" -out "$work/gen" -version "$version" -languages nodejs
out="$work/native"
cp -R "$work/gen/nodejs" "$out"
find "$out" -type f ! -name '*.ts' -delete

# rewrite FILE PERL-EXPRESSION WHAT: applies a substitution that must change the file.
rewrite() {
  local file="$out/$1" before
  before=$(sha256sum "$file")
  perl -0pi -e "$2" "$file"
  if [ "$(sha256sum "$file")" = "$before" ]; then
    log "$1: the generator's output changed shape ($3 not found); update scripts/gen-native-sdk.sh"
    exit 1
  fi
}
rewrite utilities.ts "s#require\('./package.json'\)#require('../../package.json')#" "require('./package.json')"
rewrite index.ts 's/^export \{ ((?:\w+Args|\w+Result)(?:, \w+)*) \} from/export type { \1 } from/mg' "export { XArgs } from"
for file in accessKey.ts provider.ts serviceKeyPair.ts workspace.ts; do
  rewrite "$file" 's/public static isInstance\(/public static override isInstance(/' "isInstance"
done

if $check; then
  if ! diff -ru "$repo/sdk/nodejs" "$out" >&2; then
    log "sdk/nodejs is out of date: run \`npm run gen:native\` and commit sdk/nodejs"
    exit 1
  fi
  log "sdk/nodejs matches schema.json"
  exit 0
fi
rm -rf "$repo/sdk/nodejs"
cp -R "$out" "$repo/sdk/nodejs"
log "wrote sdk/nodejs (version $version)"
