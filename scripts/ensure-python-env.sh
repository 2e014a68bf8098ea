#!/usr/bin/env bash
# Makes the virtualenv VENV hold exactly the distributions pinned in LOCK, and prints VENV's path.
#
# A virtualenv is an environment, not a build output: it is never trusted because it exists. Every
# run checks it against its declared list and repairs it:
#   - a venv whose interpreter no longer runs is made anew;
#   - `pip install -r LOCK` installs what is missing or at another version (a no-op when satisfied;
#     downloads come from PyPI or pip's own cache);
#   - distributions the lock does not name (left by an earlier run, a test or a hand) are uninstalled;
#   - then the venv must equal the lock, name for name and version for version, and `pip check` must
#     pass; otherwise the script fails and says what differs.
# Runs that prepare the same venv at once take turns (flock), so parallel test files are safe.
#
# The locks live in scripts/python/ (NAME.lock, generated from NAME.in by scripts/python/lock.sh).
#
# Usage: bash scripts/ensure-python-env.sh VENV LOCK
# Environment: PYTHON, the interpreter that makes a new venv (default python3).
set -euo pipefail

venv=${1:?usage: ensure-python-env.sh VENV LOCK}
lock=${2:?usage: ensure-python-env.sh VENV LOCK}
python=${PYTHON:-python3}
log() { echo "ensure-python-env: $*" >&2; }

if [ ! -f "$lock" ]; then
  log "no lock file $lock"
  exit 1
fi
lock=$(cd "$(dirname "$lock")" && pwd)/$(basename "$lock")

# name==version lines with names normalised as PyPI does (PEP 503), sorted: one form for both sides.
normalise() {
  { grep -Ev '^\s*(#|$)' || true; } | sed -E 's/\s+//g; s/@.*$/==(not-from-an-index)/' |
    awk -F'==' '{ name = tolower($1); gsub(/[-_.]+/, "-", name); print name "==" $2 }' | LC_ALL=C sort
}
pip() { "$venv/bin/python" -m pip --disable-pip-version-check --require-virtualenv "$@"; }

prepare() {
  if ! "$venv/bin/python" -c 'import sys' >/dev/null 2>&1; then
    if ! command -v "$python" >/dev/null 2>&1; then
      log "no $python on PATH to make $venv (set PYTHON to another interpreter)"
      exit 1
    fi
    log "making $venv with $("$python" --version 2>&1)"
    rm -rf "$venv"
    mkdir -p "$(dirname "$venv")"
    "$python" -m venv "$venv"
  fi

  local wanted present extra
  wanted=$(normalise <"$lock")
  present=$(pip freeze | normalise)
  if [ "$present" != "$wanted" ]; then
    extra=$(comm -23 <(echo "$present" | cut -d= -f1 | sort -u) <(echo "$wanted" | cut -d= -f1 | sort -u))
    if [ -n "$extra" ]; then
      log "uninstalling what $(basename "$lock") does not name: $(echo "$extra" | tr '\n' ' ')"
      # shellcheck disable=SC2086 # one distribution name a word
      pip uninstall --quiet --yes $extra >&2
    fi
    log "installing $(basename "$lock") into $venv"
    pip install --quiet --no-deps -r "$lock" >&2
    present=$(pip freeze | normalise)
  fi
  if [ "$present" != "$wanted" ]; then
    log "$venv does not match $lock after installing it:"
    diff <(echo "$wanted") <(echo "$present") | sed 's/^/  /' >&2 || true
    exit 1
  fi
  if ! pip check >&2; then
    log "$lock is not a consistent set (pip check above): regenerate it with scripts/python/lock.sh"
    exit 1
  fi
}

mkdir -p "$(dirname "$venv")"
exec 9>"$venv.lock"
flock 9
prepare
echo "$venv"
