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
for file in accessKey.ts environment.ts provider.ts serviceKeyPair.ts workspace.ts; do
  rewrite "$file" 's/public static isInstance\(/public static override isInstance(/' "isInstance"
done
# A function's failure (a look-up that finds nothing, missing settings, a 401) reaches the program as
# the Node.js SDK's plain Error, which Pulumi prints as "failed with an unhandled exception" with the
# SDK's and grpc-js's stack frames; the functions call the SDK through utilities.ts's wrappers
# instead, which mark that error as a Pulumi RunError (printed as its message alone). Issue #32;
# docs/decisions.md "Errors reach the CLI as Pulumi's own".
for file in "$out"/*.ts; do
  if grep -q 'pulumi\.runtime\.invoke' "$file"; then
    rewrite "$(basename "$file")" 's/pulumi\.runtime\.invoke(Output)?\(/utilities.invoke$1(/g' "pulumi.runtime.invoke"
  fi
done
cat >>"$out/utilities.ts" <<'TS'

/**
 * Marks `error` (the Error the SDK made of a failed invoke, whose message is the provider's) as a
 * Pulumi `RunError`, which the Node.js SDK recognises by this member and prints as its message alone.
 */
function asRunError(error: unknown): unknown {
    if (typeof error === "object" && error !== null && !("__pulumiRunError" in error)) {
        Object.defineProperty(error, "__pulumiRunError", { value: true });
    }
    return error;
}

/** @internal `pulumi.runtime.invoke`, whose failure is a RunError (added by scripts/gen-native-sdk.sh). */
export function invoke(tok: string, props: pulumi.Inputs, opts?: pulumi.InvokeOptions): Promise<any> {
    return pulumi.runtime.invoke(tok, props, opts).catch((error: unknown) => {
        throw asRunError(error);
    });
}

/** @internal `pulumi.runtime.invokeOutput`, whose failure is a RunError (added by scripts/gen-native-sdk.sh). */
export function invokeOutput<T>(tok: string, props: pulumi.Inputs, opts?: pulumi.InvokeOutputOptions): pulumi.Output<T> {
    const output = pulumi.runtime.invokeOutput<T>(tok, props, opts);
    // The error is marked where the output's own promise fails, a few steps before the program's
    // handler can see it: every consumer of the output gets that same Error object. (`promise()` is
    // the SDK's internal accessor, which the generated callAsync above uses too.)
    (output as any).promise().catch(asRunError);
    return output;
}
TS

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
