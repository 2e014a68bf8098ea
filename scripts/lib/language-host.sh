# Shared by scripts/ensure-{python,go,yaml}-host.sh (sourced, not run): where the
# Pulumi CLI's bin directory is, and how a language host gets into it.
#
# The caller sets `host_name` (for log lines), `host_kind` (`python-host`, `go-host`, `yaml-host`),
# `host_sdk_version` (the sdk/v3 release the host is built from) and `cli_version` (the CLI whose bin
# directory receives the host; empty: the version of our @pulumi/pulumi devDependency, the default of
# scripts/ensure-pulumi-cli.sh) before sourcing. A built host is cached under its kind and sdk
# release, the exact inputs of its build, and copied into the bin directory of every CLI version that
# asks: the same host serves CLI 3.259 and 3.274 (docs/offline-engine.md). Defines repo, sdk_version
# (the devDependency's), version (the CLI's), bin_dir, cache_root and host_cache, and fails when the
# CLI of scripts/ensure-pulumi-cli.sh is not there yet.

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
sdk_version=$(cd "$repo" && node -p 'require("@pulumi/pulumi/package.json").version')
version=${cli_version:-$sdk_version}
pulumi_home=${PULUMI_HOME:-$HOME/.pulumi}
bin_dir="$pulumi_home/versions/$version/bin"
cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-broker-config"
host_cache="$cache_root/language-hosts/$host_kind-$host_sdk_version"
log() { echo "ensure-$host_name: $*" >&2; }

# Test files running side by side ask for the same host at once, on a new machine while it is still
# to be built: the build writes to fixed temporary names (`$host_cache/module`, `*.tmp`), so two
# builds at once fail on each other's files. Callers of one host take turns: the first builds it, the
# others find it built. The lock is held until the script exits.
mkdir -p "$(dirname "$host_cache")"
exec 9>"$host_cache.lock"
flock 9

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
# from these scripts, and nothing otherwise: one the `pulumi` wrapper downloaded into bin_dir together
# with the CLI (present there although no script built one), or a developer's install on PATH.
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

# build_host_from_sdk SDK_VERSION PACKAGE BINARY: builds Go package PACKAGE of module
# github.com/pulumi/pulumi/sdk/v3 at SDK_VERSION into $host_cache/BINARY, from an outer module in
# $host_cache/module (whose module cache later steps can read with `go list -m`). Needs Go on PATH.
build_host_from_sdk() {
  local sdk_version=$1 package=$2 binary=$3 work="$host_cache/module"
  if ! command -v go >/dev/null 2>&1; then
    log "no Go toolchain on PATH to build $binary"
    exit 1
  fi
  log "building $binary of sdk $sdk_version (once per machine)"
  mkdir -p "$work"
  printf 'module pulumi-broker-config.local/%s\n\ngo 1.24\n\nrequire github.com/pulumi/pulumi/sdk/v3 %s\n' \
    "$binary" "$sdk_version" >"$work/go.mod"
  printf '//go:build tools\n\npackage tools\n\nimport _ "%s"\n' "$package" >"$work/tools.go"
  (
    cd "$work"
    # shellcheck source=go-build-env.sh
    source "$repo/scripts/lib/go-build-env.sh"
    export GOFLAGS="-mod=mod $go_build_flags"
    go mod tidy
    go build -o "$host_cache/$binary.tmp" "$package"
  )
  mv "$host_cache/$binary.tmp" "$host_cache/$binary"
}
