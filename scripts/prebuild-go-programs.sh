#!/usr/bin/env bash
# Compiles, once, the Go packages that the tests' Go programs build: the module graph of
# test/programs/go-native (Pulumi's Go SDK at the version its go.mod requires, with its dependencies)
# against the generated SDK in sdk/go/broker, with the flags of every test's Go build
# (scripts/lib/go-build-env.sh; GO_BUILD_ENV in harness/repo.mts).
#
#   bash scripts/prebuild-go-programs.sh
#
# Why: on a new machine the release, environment and go-host tests each build a program over that
# graph, and they start together. Go's build cache reuses a compiled package only once a build has
# finished it, so three builds at once compiled the same 700-odd packages three times (the cold run's
# three slowest files, 200-300 s each). Run before the tests (`.ci/run` does, beside the other
# checks), their builds find every package compiled and only compile and link the program. On a
# machine whose cache holds them already it takes seconds. It changes nothing in the repository.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
log() { echo "prebuild-go-programs: $*" >&2; }
if ! command -v go >/dev/null 2>&1; then
  log "no Go toolchain on PATH: the tests' Go programs need one (install Go 1.25 or newer)"
  exit 1
fi
# shellcheck source=lib/go-build-env.sh
source "$repo/scripts/lib/go-build-env.sh"

program="$repo/test/programs/go-native"
sdk_dir="$repo/sdk/go/broker"
sdk_module=$(sed -n 's/^module //p' "$sdk_dir/go.mod")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$program/go.mod" "$program/go.sum" "$program/main.go" "$work/"
# As the tests lay the program out: the SDK's module from this checkout.
(cd "$work" && go mod edit -replace="$sdk_module=$sdk_dir")
started=$SECONDS
(cd "$work" && GOFLAGS="-mod=mod $go_build_flags" go build -o "$work/program" .)
log "the Go programs' packages are compiled ($((SECONDS - started)) s)"
