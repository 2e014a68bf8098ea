#!/usr/bin/env bash
# Makes actionlint (the GitHub Actions workflow linter, github.com/rhysd/actionlint) available and
# prints the path of its binary on stdout; progress goes to stderr.
#
# actionlint is a Go module: on a machine's first run it is built with `go install` through the Go
# module proxy (no prebuilt download), into a cache outside the repository; later runs take no time.
set -euo pipefail

version=v1.7.12
cache_dir="${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-broker-config/actionlint/$version"
binary="$cache_dir/actionlint"
log() { echo "ensure-actionlint: $*" >&2; }

if [ -x "$binary" ] && "$binary" -version 2>/dev/null | head -n 1 | grep -qx "$version"; then
  echo "$binary"
  exit 0
fi

if ! command -v go >/dev/null 2>&1; then
  log "go is not on PATH: actionlint $version is built from the Go module proxy and needs Go"
  exit 1
fi

log "building actionlint $version with $(go version) into $cache_dir (once per machine)"
mkdir -p "$cache_dir"
# shellcheck source=lib/go-build-env.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/go-build-env.sh"
GOBIN="$cache_dir" GOFLAGS="-mod=mod $go_build_flags" \
  go install "github.com/rhysd/actionlint/cmd/actionlint@$version" >&2
echo "$binary"
