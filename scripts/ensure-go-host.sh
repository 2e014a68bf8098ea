#!/usr/bin/env bash
# Makes Go Pulumi programs run through `npx pulumi` on a machine without internet access.
#
# Needs the Pulumi CLI from scripts/ensure-pulumi-cli.sh (which calls this script at its end) and
# puts the Go language host `pulumi-language-go` beside it in $PULUMI_HOME/versions/<version>/bin,
# where the engine looks for language hosts. A second run takes a moment.
#
# The Go language host is its own untagged module today (sdk/go/pulumi-language-go/v3), which
# module proxies may not serve. Until sdk v3.66.0 it lived inside the tagged sdk/v3 module (the
# v3.67 releases are not verifiable against the checksum database, and v3.68.0 no longer carries
# it); that host runs programs (`go build` of the program, which brings its own sdk/v3 version)
# with today's CLI. Go programs need Go on PATH at run time.
#
# Prints the bin directory on stdout; progress goes to stderr.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
version=$(cd "$repo" && node -p 'require("@pulumi/pulumi/package.json").version')
pulumi_home=${PULUMI_HOME:-$HOME/.pulumi}
bin_dir="$pulumi_home/versions/$version/bin"
host_cache="${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-broker-config/pulumi-cli/v$version/go-host"
# The last verifiable sdk/v3 release whose module still contains the Go language host.
host_sdk_version=v3.66.0
log() { echo "ensure-go-host: $*" >&2; }

if [ ! -x "$bin_dir/pulumi" ]; then
  log "no Pulumi CLI in $bin_dir: run scripts/ensure-pulumi-cli.sh first"
  exit 1
fi

# Replaces a file in bin_dir only when it differs, by rename: overwriting a binary that a running
# test is executing fails with "Text file busy".
install_into_bin() {
  local source=$1 target="$bin_dir/$(basename "$1")"
  if ! cmp -s "$source" "$target"; then
    cp "$source" "$target.tmp.$$"
    chmod 755 "$target.tmp.$$"
    mv -f "$target.tmp.$$" "$target"
  fi
}

# Prints the path of language host $1 when it comes with a Pulumi install of our version rather than
# from this script, and nothing otherwise: one the `pulumi` wrapper downloaded into bin_dir together
# with the CLI (present there although this script never built one), or a developer's install on PATH.
own_install_host() {
  if [ -x "$bin_dir/$1" ] && [ ! -e "$host_cache/$1" ]; then
    echo "$bin_dir/$1"
    return 0
  fi
  local found
  found=$(command -v "$1" 2>/dev/null || true)
  [ -n "$found" ] || return 0
  found=$(readlink -f "$found")
  if [ "$(dirname "$found")" != "$(readlink -f "$bin_dir")" ] &&
    [ "$("$(dirname "$found")/pulumi" version 2>/dev/null)" = "v$version" ]; then
    echo "$found"
  fi
}

# Makes bin_dir's $2 a link to $1 unless $1 is that file already.
link_into_bin() {
  [ "$1" = "$bin_dir/$2" ] || ln -sfn "$1" "$bin_dir/$2"
}

# A developer's own Pulumi install at this version carries its Go host: that one is used.
own_host=$(own_install_host pulumi-language-go)
if [ -n "$own_host" ]; then
  link_into_bin "$own_host" pulumi-language-go
  echo "$bin_dir"
  exit 0
fi

if ! command -v go >/dev/null 2>&1; then
  log "no Go toolchain on PATH: the Go language host is built with Go, and Go programs need it to run"
  exit 1
fi

if [ ! -x "$host_cache/pulumi-language-go" ]; then
  log "building the Go language host of sdk $host_sdk_version (once per machine)"
  work="$host_cache/module"
  mkdir -p "$work"
  printf 'module pulumi-broker-config.local/pulumi-language-go\n\ngo 1.24\n\nrequire github.com/pulumi/pulumi/sdk/v3 %s\n' \
    "$host_sdk_version" >"$work/go.mod"
  printf '//go:build tools\n\npackage tools\n\nimport _ "github.com/pulumi/pulumi/sdk/v3/go/pulumi-language-go"\n' \
    >"$work/tools.go"
  (
    cd "$work"
    export CGO_ENABLED=0 GOFLAGS=-mod=mod
    go mod tidy
    go build -o "$host_cache/pulumi-language-go.tmp" github.com/pulumi/pulumi/sdk/v3/go/pulumi-language-go
  )
  mv "$host_cache/pulumi-language-go.tmp" "$host_cache/pulumi-language-go"
fi
install_into_bin "$host_cache/pulumi-language-go"

log "Go language host ready in $bin_dir"
echo "$bin_dir"
