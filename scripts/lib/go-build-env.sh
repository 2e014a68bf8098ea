# The build flags of every Go program these scripts build (sourced, not run): the Pulumi CLIs and the
# Node.js host (scripts/ensure-pulumi-cli.sh), the Python, Go and YAML hosts
# (scripts/lib/language-host.sh, scripts/ensure-yaml-host.sh), our generators
# (scripts/lib/go-program.sh), the generated Go SDK's check (scripts/gen-sdk.sh) and actionlint.
# The tests' Go builds use the same (GO_BUILD_ENV in harness/repo.mts).
#
# Go's build cache reuses a compiled package only under the same flags: with one set everywhere, a
# package (the standard library first of all) compiled by one build is not compiled again by the next
# on a new machine (docs/offline-engine.md, "Go builds on a new machine").
# - CGO_ENABLED=0: pure-Go builds, which need no C toolchain.
# - -trimpath keeps package directories out of binaries and out of the cache keys, so a build with a
#   module cache of its own (test/e2e/release-go-and-component.test.ts's) finds what the others
#   compiled.
# Callers put `$go_build_flags` into GOFLAGS beside their `-mod` mode, which does not change the build.

export CGO_ENABLED=0
go_build_flags=-trimpath
