#!/usr/bin/env bash
# Makes `npx pulumi` work on a machine without internet access.
#
#   bash scripts/ensure-pulumi-cli.sh [VERSION]
#
# The `pulumi` npm package (a devDependency) runs $PULUMI_HOME/versions/<version>/bin/pulumi when that
# file exists and downloads it otherwise. Where downloads are impossible but the Go module proxy is
# reachable, this script builds the CLI and the Node.js language host from source with `go`, caches
# the build outside the repository, keyed by the CLI version, and puts the binaries (plus the
# dynamic-provider plugin script) where the wrapper looks. A second run takes seconds. With internet
# access and no Go, it does nothing and `npx pulumi` downloads as usual.
#
# VERSION is the CLI version to build (e.g. 3.274.1, for the engine matrix of
# harness/engine-matrix.mts). It defaults to the version of our @pulumi/pulumi devDependency, which
# the `pulumi` wrapper must equal: that default is the CLI `npx pulumi` runs. Another version goes to
# its own $PULUMI_HOME/versions/<VERSION>/bin, which callers put first on PATH (the harness does).
#
# When the proxy does not serve the Node.js language host's own module, the host is built from sdk
# v3.68.0 with scripts/language-host/run_plugin.go added: that old host cannot run plugins, and the
# CLI runs a Node.js policy pack (`pulumi preview --policy-pack DIR`) through the language host's
# RunPlugin (docs/offline-engine.md, "Policy packs").
#
# It then runs scripts/ensure-python-host.sh, which adds the Python language host beside the CLI and
# prepares a virtualenv with PyPI `pulumi` at the devDependency's version, and
# scripts/ensure-go-host.sh, which adds the Go language host, so Python and Go programs (the
# generated SDKs' users) run as well.
# The language hosts are the same for every CLI version (docs/offline-engine.md says which).
#
# Prints the bin directory on stdout; progress goes to stderr.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
sdk_version=$(cd "$repo" && node -p 'require("@pulumi/pulumi/package.json").version')
wrapper_version=$(cd "$repo" && node -p 'require("pulumi/package.json").version')
version=${1:-$sdk_version}
if ! [[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
  echo "ensure-pulumi-cli: '$version' is not a CLI version (expected e.g. 3.274.1)" >&2
  exit 1
fi
pulumi_home=${PULUMI_HOME:-$HOME/.pulumi}
bin_dir="$pulumi_home/versions/$version/bin"
cache_dir="${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-broker-config/pulumi-cli/v$version"
log() { echo "ensure-pulumi-cli: $*" >&2; }

if [ "$sdk_version" != "$wrapper_version" ]; then
  log "the pulumi wrapper ($wrapper_version) and @pulumi/pulumi ($sdk_version) differ; keep both devDependencies at one version"
  exit 1
fi
if [ "$version" != "$wrapper_version" ]; then
  log "CLI v$version is not the pulumi wrapper's version ($wrapper_version): \`npx pulumi\` will not run it;" \
    "put $bin_dir first on PATH to use it"
fi

finish() {
  # Python and Go programs (the SDKs' tests) need their language hosts, Python also a venv; its path
  # is what scripts/ensure-python-host.sh prints, so it is not repeated here.
  bash "$repo/scripts/ensure-python-host.sh" "$version" >/dev/null
  bash "$repo/scripts/ensure-go-host.sh" "$version" >/dev/null
  echo "$bin_dir"
  exit 0
}

install_plugin_script() {
  # The engine looks for the dynamic-provider plugin on PATH; the wrapper puts bin_dir first on PATH.
  cp "$repo/node_modules/@pulumi/pulumi/pulumi-resource-pulumi-nodejs" "$bin_dir/"
  chmod +x "$bin_dir/pulumi-resource-pulumi-nodejs"
}

# Which Node.js language host the cache holds: "module" when built from the host's own module, else
# sdk v3.68.0's with our RunPlugin, stamped with that file's digest so a change to it rebuilds the host.
host_stamp_file="$cache_dir/cli/pulumi-language-nodejs.stamp"
run_plugin_go="$repo/scripts/language-host/run_plugin.go"
patched_stamp="sdk-v3.68.0+run-plugin-$(sha256sum "$run_plugin_go" | cut -c1-16)"
host_current() {
  [ -x "$cache_dir/cli/pulumi-language-nodejs" ] || return 1
  local stamp
  stamp=$(cat "$host_stamp_file" 2>/dev/null || true)
  [ "$stamp" = module ] || [ "$stamp" = "$patched_stamp" ]
}
# The installed host is the cached one, when this machine built one (a CLI found on PATH has its own).
installed_host_current() {
  [ ! -d "$cache_dir/cli" ] ||
    { host_current && cmp -s "$cache_dir/cli/pulumi-language-nodejs" "$bin_dir/pulumi-language-nodejs"; }
}

if [ -x "$bin_dir/pulumi" ] && [ -x "$bin_dir/pulumi-language-nodejs" ] &&
  [ "$("$bin_dir/pulumi" version 2>/dev/null)" = "v$version" ] && installed_host_current; then
  install_plugin_script
  finish
fi

# A suitable CLI already on PATH (e.g. a developer's install) is used as it is.
if command -v pulumi >/dev/null 2>&1 && command -v pulumi-language-nodejs >/dev/null 2>&1 &&
  [ "$(pulumi version 2>/dev/null)" = "v$version" ]; then
  mkdir -p "$bin_dir"
  ln -sf "$(command -v pulumi)" "$bin_dir/pulumi"
  ln -sf "$(command -v pulumi-language-nodejs)" "$bin_dir/pulumi-language-nodejs"
  install_plugin_script
  finish
fi

if ! command -v go >/dev/null 2>&1; then
  log "no Pulumi CLI v$version and no Go toolchain to build one; \`npx pulumi\` will try to download it"
  exit 1
fi

# shellcheck source=lib/go-build-env.sh
source "$repo/scripts/lib/go-build-env.sh"
export GOFLAGS="-mod=mod $go_build_flags"
ldflags="-X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=v$version"

if [ ! -x "$cache_dir/cli/pulumi" ]; then
  log "building the Pulumi CLI v$version from the Go module proxy (several minutes, once per machine)"
  work="$cache_dir/cli-module"
  mkdir -p "$work"
  # `go install` refuses modules with replace directives, so build from an outer module that
  # requires pkg and sdk at one version and repeats pkg's non-local replace lines.
  pkg_gomod=$(cd "$work" && go mod download -json "github.com/pulumi/pulumi/pkg/v3@v$version" |
    node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).GoMod))')
  {
    printf 'module pulumi-broker-config.local/pulumi-cli\n\ngo 1.24\n\nrequire (\n'
    printf '\tgithub.com/pulumi/pulumi/pkg/v3 v%s\n\tgithub.com/pulumi/pulumi/sdk/v3 v%s\n)\n\n' "$version" "$version"
    grep -E '^replace .*=> [^.]' "$pkg_gomod" | sort -u || true
  } >"$work/go.mod"
  printf '//go:build tools\n\npackage tools\n\nimport _ "github.com/pulumi/pulumi/pkg/v3/cmd/pulumi"\n' >"$work/tools.go"
  (cd "$work" && go mod tidy && go build -ldflags "$ldflags" -o "$cache_dir/cli/pulumi.tmp" github.com/pulumi/pulumi/pkg/v3/cmd/pulumi)
  # By rename: an interrupted build leaves no binary that a later run would take for a finished one.
  mv "$cache_dir/cli/pulumi.tmp" "$cache_dir/cli/pulumi"
fi

if ! host_current; then
  rm -f "$cache_dir/cli/pulumi-language-nodejs" "$host_stamp_file"
  work="$cache_dir/langhost-module"
  mkdir -p "$work"
  # The Node.js language host is its own module without tags: require it at the commit of the pkg tag.
  commit=$(cd "$cache_dir/cli-module" && go list -m -json "github.com/pulumi/pulumi/pkg/v3@v$version" |
    node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log((JSON.parse(s).Origin||{}).Hash||""))')
  host_module=github.com/pulumi/pulumi/sdk/nodejs/cmd/pulumi-language-nodejs/v3
  printf 'module pulumi-broker-config.local/pulumi-language-nodejs\n\ngo 1.24\n' >"$work/go.mod"
  if [ -n "$commit" ] && (cd "$work" && go get "$host_module@$commit" >/dev/null 2>&1); then
    log "building the Node.js language host at $commit"
    (cd "$work" && go build -ldflags "$ldflags" -o "$cache_dir/cli/pulumi-language-nodejs.tmp" "$host_module")
    stamp=module
  else
    # Some module proxies do not serve the host's untagged module. Until v3.68.0 the host lived in
    # the tagged sdk module; its gRPC interface is still compatible with the CLI (the engine falls
    # back where newer calls are unimplemented), and it runs programs with our @pulumi/pulumi.
    # That host answers RunPlugin with "not supported", so policy packs could not run: its package is
    # copied into this module with its RunPlugin renamed and ours (scripts/language-host/run_plugin.go)
    # beside it.
    log "the proxy does not serve $host_module; building the language host of sdk v3.68.0 instead, with RunPlugin for policy packs"
    printf 'module pulumi-broker-config.local/pulumi-language-nodejs\n\ngo 1.24\n\nrequire github.com/pulumi/pulumi/sdk/v3 v3.68.0\n' >"$work/go.mod"
    printf '//go:build tools\n\npackage tools\n\nimport _ "github.com/pulumi/pulumi/sdk/v3/nodejs/cmd/pulumi-language-nodejs"\n' >"$work/tools.go"
    (cd "$work" && go mod tidy)
    host_src="$(cd "$work" && go list -m -json github.com/pulumi/pulumi/sdk/v3 |
      node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).Dir))')/nodejs/cmd/pulumi-language-nodejs"
    rm -rf "$work/host"
    mkdir -p "$work/host"
    for file in "$host_src"/*.go; do
      case "$file" in *_test.go) ;; *) cp "$file" "$work/host/" ;; esac
    done
    chmod u+w "$work/host"/*.go
    sed -i 's/^func (host \*nodeLanguageHost) RunPlugin(/func (host *nodeLanguageHost) runPluginUnsupported(/' "$work/host/main.go"
    if ! grep -q '^func (host \*nodeLanguageHost) runPluginUnsupported(' "$work/host/main.go"; then
      log "sdk v3.68.0's language host has no RunPlugin to replace; check scripts/language-host/run_plugin.go"
      exit 1
    fi
    cp "$run_plugin_go" "$work/host/"
    (cd "$work" && go build -o "$cache_dir/cli/pulumi-language-nodejs.tmp" ./host)
    stamp=$patched_stamp
  fi
  mv "$cache_dir/cli/pulumi-language-nodejs.tmp" "$cache_dir/cli/pulumi-language-nodejs"
  echo "$stamp" >"$host_stamp_file"
fi

mkdir -p "$bin_dir"
cp "$cache_dir/cli/pulumi" "$cache_dir/cli/pulumi-language-nodejs" "$bin_dir/"
install_plugin_script
actual=$("$bin_dir/pulumi" version)
if [ "$actual" != "v$version" ]; then
  log "built CLI reports $actual, expected v$version"
  exit 1
fi
log "Pulumi CLI $actual ready in $bin_dir"
finish
