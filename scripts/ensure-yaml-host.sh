#!/usr/bin/env bash
# Makes Pulumi YAML programs run through `npx pulumi` on a machine without internet access.
#
# Needs the Pulumi CLI from scripts/ensure-pulumi-cli.sh and puts the YAML language host
# `pulumi-language-yaml` beside it in $PULUMI_HOME/versions/<version>/bin, where the engine looks for
# language hosts (the CLI version is the first argument; by default our @pulumi/pulumi's). The host is the module github.com/pulumi/pulumi-yaml, which the Go module proxy
# serves with tags: it is built once per machine with `go install` at the version below (about a
# minute), then cached. A second run takes a moment. YAML programs need no SDK, only the plugins of
# the packages they use.
#
# Prints the bin directory on stdout; progress goes to stderr.
set -euo pipefail

# The pulumi-yaml release built; it requires pulumi pkg/sdk v3.206.0, which the proxy serves.
host_name=yaml-host host_kind=yaml-host host_sdk_version=v1.25.0 cli_version=${1:-}
# shellcheck source=lib/language-host.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/language-host.sh"

# A developer's own Pulumi install at this version carries its YAML host: that one is used.
own_host=$(own_install_host pulumi-language-yaml)
if [ -n "$own_host" ]; then
  link_into_bin "$own_host" pulumi-language-yaml
  echo "$bin_dir"
  exit 0
fi

if [ ! -x "$host_cache/pulumi-language-yaml" ]; then
  if ! command -v go >/dev/null 2>&1; then
    log "no Go toolchain on PATH to build pulumi-language-yaml"
    exit 1
  fi
  log "building pulumi-language-yaml $host_sdk_version (once per machine)"
  mkdir -p "$host_cache"
  # shellcheck source=lib/go-build-env.sh
  source "$repo/scripts/lib/go-build-env.sh"
  GOFLAGS="-mod=mod $go_build_flags" GOBIN="$host_cache/bin.tmp" \
    go install "github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml@$host_sdk_version"
  mv "$host_cache/bin.tmp/pulumi-language-yaml" "$host_cache/pulumi-language-yaml"
  rm -rf "$host_cache/bin.tmp"
fi
install_into_bin "$host_cache/pulumi-language-yaml"

log "YAML language host ready in $bin_dir"
echo "$bin_dir"
