// RunPlugin for the Node.js language host of sdk v3.68.0, which scripts/ensure-pulumi-cli.sh builds
// when the module proxy does not serve the current host's module (docs/offline-engine.md, "Policy
// packs"). That host answers every RunPlugin with "not supported", and CLI 3.259 runs a Node.js policy
// pack (`pulumi preview --policy-pack DIR`) through RunPlugin of the language host it finds. The script
// copies the host's package, renames the host's own RunPlugin to runPluginUnsupported, and builds it
// with this file.
//
// It starts a policy pack the way the official CLI archive's `pulumi-analyzer-policy` script does:
// `node <@pulumi/pulumi/cmd/run-policy-pack> <engine address> .` in the pack's directory, the module
// resolved from there, with the pack's stdout (where the analyzer prints its port) and stderr
// streamed back.
// Other kinds of plugins keep the old answer.
package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

// Field numbers of RunPluginRequest and ProgramInfo in the CLI's language.proto that the v3.68.0
// messages do not have: they arrive as unknown fields.
const (
	runPluginInfoField    = 5 // RunPluginRequest.info (ProgramInfo)
	runPluginKindField    = 6 // RunPluginRequest.kind
	programDirectoryField = 2 // ProgramInfo.program_directory
)

// RunPlugin runs a Node.js policy pack (kind "analyzer"); every other kind is not supported.
func (host *nodeLanguageHost) RunPlugin(
	req *pulumirpc.RunPluginRequest, server pulumirpc.LanguageRuntime_RunPluginServer,
) error {
	kind, dir := newerRunPluginFields(req.ProtoReflect().GetUnknown())
	if kind != "analyzer" || dir == "" {
		return host.runPluginUnsupported(req, server)
	}
	nodeBin, err := exec.LookPath("node")
	if err != nil {
		return fmt.Errorf("could not find node on the $PATH: %w", err)
	}
	// Resolved as Node resolves it from the pack's directory: from its own node_modules, or from an
	// enclosing one (a pack shipped inside a package, such as node_modules/pulumi-broker-config/policy-pack).
	resolve := exec.Command(nodeBin, "-e", "process.stdout.write(require.resolve('@pulumi/pulumi/cmd/run-policy-pack'))")
	resolve.Dir = dir
	found, err := resolve.Output()
	if err != nil {
		return fmt.Errorf("could not find module '@pulumi/pulumi/cmd/run-policy-pack' from %s: "+
			"install the policy pack's dependencies (npm install): %w", dir, err)
	}
	entry := strings.TrimSpace(string(found))
	closer, stdout, stderr, err := rpcutil.MakeRunPluginStreams(server, false)
	if err != nil {
		return err
	}
	args := append([]string{entry}, req.GetArgs()...)
	args = append(args, ".")
	cmd := exec.Command(nodeBin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), req.GetEnv()...)
	cmd.Stdout = stdout
	cmd.Stderr = stderr
	runErr := cmd.Run()
	if err := closer.Close(); err != nil {
		return err
	}
	code := int32(0)
	if runErr != nil {
		var exitErr *exec.ExitError
		if !errors.As(runErr, &exitErr) {
			return runErr
		}
		code = int32(exitErr.ExitCode())
	}
	return server.Send(&pulumirpc.RunPluginResponse{Output: &pulumirpc.RunPluginResponse_Exitcode{Exitcode: code}})
}

// newerRunPluginFields reads `kind` and `info.program_directory` from the request's unknown fields.
func newerRunPluginFields(unknown []byte) (kind string, programDirectory string) {
	for len(unknown) > 0 {
		num, typ, n := protowire.ConsumeTag(unknown)
		if n < 0 {
			return kind, programDirectory
		}
		unknown = unknown[n:]
		if typ != protowire.BytesType {
			m := protowire.ConsumeFieldValue(num, typ, unknown)
			if m < 0 {
				return kind, programDirectory
			}
			unknown = unknown[m:]
			continue
		}
		value, m := protowire.ConsumeBytes(unknown)
		if m < 0 {
			return kind, programDirectory
		}
		unknown = unknown[m:]
		switch num {
		case runPluginKindField:
			kind = string(value)
		case runPluginInfoField:
			programDirectory = bytesField(value, programDirectoryField)
		}
	}
	return kind, programDirectory
}

// bytesField returns the last string field `field` of an encoded message, or "".
func bytesField(message []byte, field protowire.Number) string {
	found := ""
	for len(message) > 0 {
		num, typ, n := protowire.ConsumeTag(message)
		if n < 0 {
			return found
		}
		message = message[n:]
		m := protowire.ConsumeFieldValue(num, typ, message)
		if m < 0 {
			return found
		}
		if num == field && typ == protowire.BytesType {
			if value, k := protowire.ConsumeBytes(message); k >= 0 {
				found = string(value)
			}
		}
		message = message[m:]
	}
	return found
}
