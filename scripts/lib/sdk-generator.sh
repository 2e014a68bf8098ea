# Shared by scripts/gen-sdk.sh and scripts/gen-native-sdk.sh (sourced, not run): the generator
# program in scripts/gen-sdk (a Go program over Pulumi's own codegen), built once per machine and
# per revision of its sources into a cache outside the repository.
#
# The caller defines `repo` and `log` first. Sets `generator` (the program's path) and `version`
# (this package's version, which the SDKs carry).

# shellcheck source=go-program.sh
source "$repo/scripts/lib/go-program.sh"
build_go_program gen-sdk "the SDK generator"
generator=$go_program
