# Shared by scripts/gen-sdk.sh and scripts/gen-native-sdk.sh (sourced, not run): the generator
# program in scripts/gen-sdk (a Go program over Pulumi's own codegen), built once per machine and
# per revision of its sources into a cache outside the repository.
#
# The caller defines `repo` and `log` first. Sets `generator` (the program's path) and `version`
# (this package's version, which the SDKs carry).

if ! command -v go >/dev/null 2>&1; then
  log "no Go toolchain on PATH: the SDK generators are Go packages over Pulumi's codegen (install Go 1.25 or newer)"
  exit 1
fi
version=$(cd "$repo" && node -p 'require("./package.json").version')

generator_src="$repo/scripts/gen-sdk"
generator_key=$(cat "$generator_src/go.mod" "$generator_src/go.sum" "$generator_src/main.go" | sha256sum | cut -c1-16)
generator="${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-broker-config/gen-sdk/$generator_key/gen-sdk"
export CGO_ENABLED=0
if [ ! -x "$generator" ]; then
  log "building the SDK generator (about a minute, once per machine and generator revision)"
  mkdir -p "$(dirname "$generator")"
  (cd "$generator_src" && GOFLAGS=-mod=readonly go build -o "$generator.tmp" .)
  mv "$generator.tmp" "$generator"
fi
