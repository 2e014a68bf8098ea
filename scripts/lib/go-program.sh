# Shared by the scripts that run one of our Go programs over Pulumi's own codegen (sourced, not run):
# scripts/gen-sdk (the SDK generators) and scripts/gen-api-docs (the docs generator). Each program is
# built once per machine and per revision of its sources into a cache outside the repository, so a
# second run starts at once and a changed program is never run stale.
#
# The caller defines `repo` and `log` first.

if ! command -v go >/dev/null 2>&1; then
  log "no Go toolchain on PATH: our generators are Go programs over Pulumi's codegen (install Go 1.25 or newer)"
  exit 1
fi

# The flags of all our Go builds (CGO_ENABLED=0 exported, `go_build_flags`), for the programs and the
# Go SDK that scripts/gen-sdk.sh checks by building it.
# shellcheck source=go-build-env.sh
source "$repo/scripts/lib/go-build-env.sh"

# This package's version, which the SDKs and the docs carry.
version=$(cd "$repo" && node -p 'require("./package.json").version')

# build_go_program NAME WHAT [ENV=VALUE...]
#   Builds the program in scripts/NAME (unless its build for this revision is cached) and sets
#   `go_program` to the binary's path. WHAT names it in the one line logged while building; any
#   ENV=VALUE is passed to `go build` only (e.g. GONOSUMDB for a module no checksum database holds).
build_go_program() {
  local name=$1 what=$2
  shift 2
  local src="$repo/scripts/$name"
  # The revision is the hash of everything that decides the binary: the module files and the source.
  local key
  key=$(cat "$src/go.mod" "$src/go.sum" "$src/main.go" | sha256sum | cut -c1-16)
  go_program="${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-broker-config/$name/$key/$name"
  if [ ! -x "$go_program" ]; then
    log "building $what (a minute or two, once per machine and revision)"
    mkdir -p "$(dirname "$go_program")"
    # Built under a temporary name and renamed, so an interrupted build never leaves a binary that
    # the check above would take for a finished one.
    (cd "$src" && env GOFLAGS="-mod=readonly $go_build_flags" "$@" go build -o "$go_program.tmp" .)
    mv "$go_program.tmp" "$go_program"
  fi
}
