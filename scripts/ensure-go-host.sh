#!/usr/bin/env bash
# Makes Go Pulumi programs run through `npx pulumi` on a machine without internet access.
#
#   bash scripts/ensure-go-host.sh [CLI_VERSION]
#
# Needs the Pulumi CLI from scripts/ensure-pulumi-cli.sh (which calls this script at its end) and
# puts the Go language host `pulumi-language-go` beside it in $PULUMI_HOME/versions/<version>/bin,
# where the engine looks for language hosts (CLI_VERSION defaults to the version of our @pulumi/pulumi
# devDependency, like scripts/ensure-pulumi-cli.sh's). A second run takes a moment.
#
# The Go language host is its own untagged module today (sdk/go/pulumi-language-go/v3), which
# module proxies may not serve. Until sdk v3.66.0 it lived inside the tagged sdk/v3 module (the
# v3.67 releases are not verifiable against the checksum database, and v3.68.0 no longer carries
# it); that host runs programs (`go build` of the program, which brings its own sdk/v3 version)
# with today's CLI. Go programs need Go on PATH at run time.
#
# Prints the bin directory on stdout; progress goes to stderr.
set -euo pipefail

# The last verifiable sdk/v3 release whose module still contains the Go language host.
host_name=go-host host_kind=go-host host_sdk_version=v3.66.0 cli_version=${1:-}
# shellcheck source=lib/language-host.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/language-host.sh"

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
  build_host_from_sdk "$host_sdk_version" github.com/pulumi/pulumi/sdk/v3/go/pulumi-language-go pulumi-language-go
fi
install_into_bin "$host_cache/pulumi-language-go"

log "Go language host ready in $bin_dir"
echo "$bin_dir"
