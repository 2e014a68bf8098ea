#!/usr/bin/env bash
# Makes Python Pulumi programs run through `npx pulumi` on a machine without internet access.
#
# Needs the Pulumi CLI from scripts/ensure-pulumi-cli.sh (which calls this script at its end) and
# adds what Python programs need:
#   - the Python language host `pulumi-language-python` and its `pulumi-language-python-exec` shim,
#     put beside the CLI in $PULUMI_HOME/versions/<version>/bin (the `pulumi` wrapper puts that
#     directory first on PATH, where the engine looks for language hosts);
#   - a virtualenv with PyPI `pulumi` at the CLI's version (the version of our @pulumi/pulumi
#     devDependency), cached outside the repository.
# A second run takes seconds.
#
# The Python language host is a Go program. Module proxies that do not serve its own untagged
# module (sdk/python/cmd/pulumi-language-python/v3) still serve sdk/v3@v3.68.0, the last release
# that carried it inside the sdk module; that host runs programs with today's CLI. It ignores
# Pulumi.yaml's `runtime.options.virtualenv`, so callers put the venv's bin directory first on PATH:
#
#   venv=$(bash scripts/ensure-python-host.sh)
#   PATH="$venv/bin:$(bash scripts/ensure-pulumi-cli.sh):$PATH" npx pulumi up
#
# Prints the virtualenv's directory on stdout; progress goes to stderr.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
version=$(cd "$repo" && node -p 'require("@pulumi/pulumi/package.json").version')
pulumi_home=${PULUMI_HOME:-$HOME/.pulumi}
bin_dir="$pulumi_home/versions/$version/bin"
cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-broker-config"
host_cache="$cache_root/pulumi-cli/v$version/python-host"
venv="$cache_root/python/pulumi-v$version/venv"
# The last sdk/v3 release whose module still contains the Python language host.
host_sdk_version=v3.68.0
log() { echo "ensure-python-host: $*" >&2; }

if [ ! -x "$bin_dir/pulumi" ]; then
  log "no Pulumi CLI in $bin_dir: run scripts/ensure-pulumi-cli.sh first"
  exit 1
fi

python=${PYTHON:-python3}
if ! command -v "$python" >/dev/null 2>&1; then
  log "no $python on PATH: Python Pulumi programs need Python 3 (set PYTHON to another interpreter)"
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

# --- the language host -------------------------------------------------------------------------
# A developer's own Pulumi install at this version carries its Python host: that one is used.
own_host=$(own_install_host pulumi-language-python)
if [ -n "$own_host" ] && [ -f "$(dirname "$own_host")/pulumi-language-python-exec" ]; then
  link_into_bin "$own_host" pulumi-language-python
  link_into_bin "$(dirname "$own_host")/pulumi-language-python-exec" pulumi-language-python-exec
else
  if [ ! -x "$host_cache/pulumi-language-python" ] || [ ! -f "$host_cache/pulumi-language-python-exec" ]; then
    if ! command -v go >/dev/null 2>&1; then
      log "no Go toolchain to build the Python language host"
      exit 1
    fi
    log "building the Python language host of sdk $host_sdk_version (once per machine)"
    work="$host_cache/module"
    mkdir -p "$work"
    printf 'module pulumi-broker-config.local/pulumi-language-python\n\ngo 1.24\n\nrequire github.com/pulumi/pulumi/sdk/v3 %s\n' \
      "$host_sdk_version" >"$work/go.mod"
    printf '//go:build tools\n\npackage tools\n\nimport _ "github.com/pulumi/pulumi/sdk/v3/python/cmd/pulumi-language-python"\n' \
      >"$work/tools.go"
    (
      cd "$work"
      export CGO_ENABLED=0 GOFLAGS=-mod=mod
      go mod tidy
      go build -o "$host_cache/pulumi-language-python.tmp" github.com/pulumi/pulumi/sdk/v3/python/cmd/pulumi-language-python
      # The shim that runs the program's __main__ lives in the same module directory.
      sdk_dir=$(go list -m -f '{{.Dir}}' github.com/pulumi/pulumi/sdk/v3)
      cp "$sdk_dir/python/cmd/pulumi-language-python-exec" "$host_cache/pulumi-language-python-exec"
    )
    mv "$host_cache/pulumi-language-python.tmp" "$host_cache/pulumi-language-python"
  fi
  # (The shim copied out of the read-only module cache is made executable here: the engine runs it.)
  install_into_bin "$host_cache/pulumi-language-python"
  install_into_bin "$host_cache/pulumi-language-python-exec"
fi

# --- the virtualenv ------------------------------------------------------------------------------
# `pulumi` in the venv must match the CLI: the SDK and the engine speak one protocol version.
installed=""
if [ -x "$venv/bin/python" ]; then
  installed=$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("pulumi"))' 2>/dev/null || true)
fi
if [ "$installed" != "$version" ]; then
  log "preparing a virtualenv with PyPI pulumi==$version in $venv"
  rm -rf "$venv"
  mkdir -p "$(dirname "$venv")"
  "$python" -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "pulumi==$version" >&2
  installed=$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("pulumi"))')
  if [ "$installed" != "$version" ]; then
    log "the virtualenv holds pulumi $installed, expected $version"
    exit 1
  fi
fi

log "Python language host and virtualenv (pulumi $version) ready"
echo "$venv"
