#!/usr/bin/env bash
# Sets the module versions of the Go programs the tests build (test/programs/*/go.mod,
# test/e2e/programs/*/go.mod and the examples', examples/*/go.mod) to those the default leg's Pulumi
# CLI build selects, wherever both graphs hold a module, and tidies them.
#
#   bash scripts/align-go-programs.sh
#
# Why: Go's build cache reuses a compiled package only when its version and every dependency's
# version are the same. With the versions `go mod tidy` once gave them, the programs' graph shared
# 409 of 732 packages with the CLI's build, so each new machine compiled the other 323 (Pulumi's Go
# SDK and everything above gRPC) in the tests, in the three Go-building files at once. Aligned, every
# package but the program, our SDK and three of Pulumi's SDK packages comes from the CLI's build,
# which `.ci/run` makes before the tests (docs/offline-engine.md, "Go builds on a new machine").
# test/integration/go-program-modules.test.ts fails when a program drifts from the CLI: run this
# after changing the @pulumi/pulumi devDependency (the CLI's version) or a program's go.mod.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
log() { echo "align-go-programs: $*" >&2; }
# shellcheck source=lib/go-build-env.sh
source "$repo/scripts/lib/go-build-env.sh"
export GOFLAGS="-mod=mod $go_build_flags"

bash "$repo/scripts/ensure-pulumi-cli.sh" >/dev/null
# Where that script builds the default CLI: its cache directory for the devDependency's version.
cli_version=$(cd "$repo" && node -p 'require("@pulumi/pulumi/package.json").version')
cli_module="${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-broker-config/pulumi-cli/v$cli_version/cli-module"
if [ ! -f "$cli_module/go.mod" ]; then
  log "no $cli_module/go.mod: the CLI on PATH was not built here, so there is no build to align with"
  exit 1
fi
sdk_module=$(sed -n 's/^module //p' "$repo/sdk/go/broker/go.mod")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$cli_module" && go list -m -f '{{.Path}} {{.Version}}' all) >"$work/cli.txt"

for gomod in "$repo"/test/programs/*/go.mod "$repo"/test/e2e/programs/*/go.mod "$repo"/examples/*/go.mod; do
  program=$(dirname "$gomod")
  copy="$work/${program#"$repo"/}"
  mkdir -p "$(dirname "$copy")"
  cp -r "$program" "$copy"
  # As the tests lay the program out: the SDK's module from this checkout (for a program that does
  # not require it, the directive changes nothing).
  (cd "$copy" && go mod edit -replace="$sdk_module=$repo/sdk/go/broker")
  (cd "$copy" && go list -m -f '{{.Path}} {{.Version}}' all) >"$work/program.txt"
  mapfile -t requires < <(awk 'NR == FNR { cli[$1] = $2; next }
    ($1 in cli) && $2 != "" && cli[$1] != $2 { print "-require=" $1 "@" cli[$1] }' "$work/cli.txt" "$work/program.txt")
  if [ "${#requires[@]}" -gt 0 ]; then
    (cd "$copy" && go mod edit "${requires[@]}" && go mod tidy)
  fi
  (cd "$copy" && go mod edit -dropreplace="$sdk_module")
  if cmp -s "$copy/go.mod" "$gomod" && cmp -s "$copy/go.sum" "$program/go.sum"; then
    log "${program#"$repo"/}: already aligned"
  else
    cp "$copy/go.mod" "$copy/go.sum" "$program/"
    log "${program#"$repo"/}: go.mod and go.sum updated"
  fi
done
