#!/usr/bin/env bash
# Fuzzes the emulator against its contract, openapi.yaml, with Schemathesis (a maintained
# property-based API fuzzer from PyPI): every operation gets schema-valid and schema-invalid requests
# generated from the contract, and every answer must be one the contract describes (status, body,
# headers), a schema-valid request must not be refused as invalid, an invalid one must be refused.
#
# Needs a built emulator (`npm run build`) and Python >= 3.10. Schemathesis runs in a virtualenv
# outside the repository that holds exactly scripts/python/schemathesis.lock, checked and repaired
# by scripts/ensure-python-env.sh on every run. The run is bounded
# (examples per operation) and reproducible (a fixed seed, no example database).
#
# Usage: bash scripts/contract-fuzz.sh [extra schemathesis run options]
# Environment: CONTRACT_FUZZ_MAX_EXAMPLES (default 50), CONTRACT_FUZZ_SEED (default 20261123).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
venv="${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-broker-config/venvs/schemathesis"
max_examples=${CONTRACT_FUZZ_MAX_EXAMPLES:-50}
seed=${CONTRACT_FUZZ_SEED:-20261123}
log() { echo "contract-fuzz: $*" >&2; }

if [ ! -f "$repo/dist/emulator/cli.js" ]; then
  log "dist/emulator/cli.js is missing: run \`npm run build\` first"
  exit 1
fi

python=""
for candidate in python3.13 python3.12 python3.11 python3.10 python3; do
  if command -v "$candidate" >/dev/null 2>&1 &&
    "$candidate" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)' 2>/dev/null; then
    python=$candidate
    break
  fi
done
if [ -z "$python" ]; then
  log "Schemathesis needs Python >= 3.10; none was found on PATH"
  exit 1
fi
PYTHON=$python bash "$repo/scripts/ensure-python-env.sh" "$venv" "$repo/scripts/python/schemathesis.lock" >/dev/null
schemathesis_version=$("$venv/bin/schemathesis" --version)

# The emulator prints one JSON line {"url","adminKey"} when it listens; a throwaway admin key.
admin_key="bka_contractfuzz$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
coproc EMULATOR { exec node "$repo/dist/emulator/cli.js" --port 0 --json --admin-key "$admin_key"; }
emulator_pid=$EMULATOR_PID
trap 'kill "$emulator_pid" 2>/dev/null || true; wait "$emulator_pid" 2>/dev/null || true' EXIT
if ! read -r -t 30 ready <&"${EMULATOR[0]}"; then
  log "the emulator did not report its address within 30 s"
  exit 1
fi
url=$(node -e 'process.stdout.write(JSON.parse(process.argv[1]).url)' "$ready")
log "emulator at $url; $schemathesis_version, $max_examples examples per operation, seed $seed"

# Run from a scratch directory: Schemathesis reads a schemathesis.toml and writes reports relative to
# its working directory, and neither belongs in the repository.
scratch=$(mktemp -d)
trap 'kill "$emulator_pid" 2>/dev/null || true; wait "$emulator_pid" 2>/dev/null || true; rm -rf "$scratch"' EXIT
cd "$scratch"
"$venv/bin/schemathesis" run "$repo/openapi.yaml" \
  --url "$url" \
  --header "X-API-KEY: $admin_key" \
  --checks all \
  --max-examples "$max_examples" \
  --seed "$seed" \
  --generation-database none \
  --workers 1 \
  --no-color \
  "$@"
