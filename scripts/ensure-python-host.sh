#!/usr/bin/env bash
# Makes Python Pulumi programs run through `npx pulumi` on a machine without internet access.
#
#   bash scripts/ensure-python-host.sh [CLI_VERSION]
#
# Needs the Pulumi CLI from scripts/ensure-pulumi-cli.sh (which calls this script at its end) and
# adds what Python programs need:
#   - the Python language host `pulumi-language-python` and its `pulumi-language-python-exec` shim,
#     put beside the CLI in $PULUMI_HOME/versions/<version>/bin (the `pulumi` wrapper puts that
#     directory first on PATH, where the engine looks for language hosts);
#   - a virtualenv outside the repository holding exactly scripts/python/programs.lock: PyPI `pulumi`
#     at the version of our @pulumi/pulumi devDependency (the default CLI's) and the generated Python
#     SDK's other dependencies. scripts/ensure-python-env.sh checks and repairs it on every run.
# CLI_VERSION (default: that devDependency's version) names the CLI whose bin directory receives the
# host; the virtualenv is the same for every CLI version.
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

# The last sdk/v3 release whose module still contains the Python language host.
host_name=python-host host_kind=python-host host_sdk_version=v3.68.0 cli_version=${1:-}
# shellcheck source=lib/language-host.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/language-host.sh"
venv="$cache_root/venvs/programs"
lock="$repo/scripts/python/programs.lock"

python=${PYTHON:-python3}
if ! command -v "$python" >/dev/null 2>&1; then
  log "no $python on PATH: Python Pulumi programs need Python 3 (set PYTHON to another interpreter)"
  exit 1
fi
# `pulumi` in the venv is the default CLI's version, the one of our @pulumi/pulumi devDependency.
if ! grep -qx "pulumi==$sdk_version" "$lock"; then
  log "$lock pins $(grep '^pulumi==' "$lock" || echo 'no pulumi'), @pulumi/pulumi is $sdk_version:" \
    "set pulumi==$sdk_version in scripts/python/programs.in and run bash scripts/python/lock.sh programs"
  exit 1
fi

# --- the language host -------------------------------------------------------------------------
# A developer's own Pulumi install at this version carries its Python host: that one is used.
own_host=$(own_install_host pulumi-language-python)
if [ -n "$own_host" ] && [ -f "$(dirname "$own_host")/pulumi-language-python-exec" ]; then
  link_into_bin "$own_host" pulumi-language-python
  link_into_bin "$(dirname "$own_host")/pulumi-language-python-exec" pulumi-language-python-exec
else
  if [ ! -x "$host_cache/pulumi-language-python" ] || [ ! -f "$host_cache/pulumi-language-python-exec" ]; then
    build_host_from_sdk "$host_sdk_version" github.com/pulumi/pulumi/sdk/v3/python/cmd/pulumi-language-python \
      pulumi-language-python
    # The shim that runs the program's __main__ lives in the same module directory.
    sdk_dir=$(cd "$host_cache/module" && go list -m -f '{{.Dir}}' github.com/pulumi/pulumi/sdk/v3)
    cp "$sdk_dir/python/cmd/pulumi-language-python-exec" "$host_cache/pulumi-language-python-exec"
  fi
  # (The shim copied out of the read-only module cache is made executable here: the engine runs it.)
  install_into_bin "$host_cache/pulumi-language-python"
  install_into_bin "$host_cache/pulumi-language-python-exec"
fi

# --- the virtualenv ------------------------------------------------------------------------------
PYTHON=$python bash "$repo/scripts/ensure-python-env.sh" "$venv" "$lock" >/dev/null

log "Python language host (CLI $version) and virtualenv (pulumi $sdk_version) ready"
echo "$venv"
