#!/usr/bin/env bash
# Generates the `broker` package's Python and Go SDKs (sdk/python, sdk/go/broker) from schema.json with
# Pulumi's own code generators, at the version of our Pulumi CLI (scripts/gen-sdk/ pins it).
#
#   npm run gen:sdk              regenerate sdk/python and sdk/go/broker in place
#   npm run gen:sdk -- --check   regenerate into a temporary directory and fail when the result
#                                differs from the SDK files committed (tracked by git) under sdk/;
#                                then build and vet the generated Go SDK (for CI)
#
# The SDKs carry the version in package.json (schema.json may leave `version` out; when it has one,
# it must be the same). The Go SDK is the module sdk/go/broker, whose root is the package (so the Go
# language host finds its pulumi-plugin.json; scripts/gen-sdk/main.go says why). Its go.mod comes
# from the generator; `go mod tidy` adds go.sum so that `go build` works on a checkout. The
# generator program is built once per machine and cached outside the repository, keyed by its
# sources. Needs Go and the Go module proxy (or a module cache that already holds the modules, as it
# does after scripts/ensure-pulumi-cli.sh).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
languages=(python go)
log() { echo "gen-sdk: $*" >&2; }

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

schema="$repo/schema.json"
if [ ! -f "$schema" ]; then
  log "no schema.json at the repository root: the SDKs are generated from the broker package's schema"
  exit 1
fi
# --- the generator program, built once per source revision ----------------------------------------
# shellcheck source=lib/sdk-generator.sh
source "$repo/scripts/lib/sdk-generator.sh"

# --- generate ----------------------------------------------------------------------------------------
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
langs=$(
  IFS=,
  echo "${languages[*]}"
)
"$generator" -schema "$schema" -out "$out" -version "$version" -languages "$langs"
# The Go module's directory: the package's, the last element of language.go.importBasePath.
go_module=$(cd "$out/go" && find . -mindepth 2 -maxdepth 2 -name go.mod -printf '%h\n' | sed 's|^\./||')
if [ -z "$go_module" ] || [ ! -f "$out/go/$go_module/pulumi-plugin.json" ]; then
  log "the Go generator wrote no module with its pulumi-plugin.json at its root under go/"
  exit 1
fi
# go.sum completes the generated module; GOFLAGS=-mod=mod lets tidy add what the SDK imports.
(cd "$out/go/$go_module" && GOFLAGS=-mod=mod go mod tidy)

if ! $check; then
  for lang in "${languages[@]}"; do
    rm -rf "${repo:?}/sdk/$lang"
    mkdir -p "$repo/sdk"
    cp -R "$out/$lang" "$repo/sdk/$lang"
  done
  log "wrote sdk/python and sdk/go/$go_module (version $version)"
  exit 0
fi

# --- check: compare with the committed SDK, then build the Go SDK ---------------------------------
# The committed SDK is what git tracks; build products of `pip install ./sdk/python` and the like
# are untracked and do not count.
generated=$(cd "$out" && find "${languages[@]}" -type f | LC_ALL=C sort)
committed=$(cd "$repo/sdk" 2>/dev/null && git ls-files -- "${languages[@]}" | LC_ALL=C sort || true)
problems=0
while IFS= read -r file; do
  [ -n "$file" ] || continue
  log "sdk/$file is generated but not committed"
  problems=$((problems + 1))
done < <(LC_ALL=C comm -23 <(echo "$generated") <(echo "$committed"))
while IFS= read -r file; do
  [ -n "$file" ] || continue
  log "sdk/$file is committed but no longer generated"
  problems=$((problems + 1))
done < <(LC_ALL=C comm -13 <(echo "$generated") <(echo "$committed"))
while IFS= read -r file; do
  [ -n "$file" ] || continue
  if ! cmp -s "$out/$file" "$repo/sdk/$file"; then
    log "sdk/$file differs from what schema.json generates:"
    diff -u "$repo/sdk/$file" "$out/$file" | head -40 >&2 || true
    problems=$((problems + 1))
  fi
done < <(LC_ALL=C comm -12 <(echo "$generated") <(echo "$committed"))
if [ "$problems" -ne 0 ]; then
  log "$problems SDK file(s) out of date: run \`npm run gen:sdk\` and commit sdk/"
  exit 1
fi
log "sdk/python and sdk/go/$go_module match schema.json"

# With the flags of all our Go builds (scripts/lib/go-build-env.sh, sourced by lib/go-program.sh), so
# this build reuses what the CLI compiled before it, and a test's program of the same module graph
# (the starting points' Go program) what this one compiled.
(cd "$out/go/$go_module" && GOFLAGS="-mod=readonly $go_build_flags" go build ./... &&
  GOFLAGS="-mod=readonly $go_build_flags" go vet ./...)
log "the Go SDK builds and passes go vet"
