// Exports a secret taken from stack config, and which Go and Pulumi Go SDK built the program.
package main

import (
	"runtime"
	"runtime/debug"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

func sdkVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path == "github.com/pulumi/pulumi/sdk/v3" {
				return dep.Version
			}
		}
	}
	return ""
}

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		cfg := config.New(ctx, "")
		ctx.Export("greeting", pulumi.String("hello from "+cfg.Require("who")))
		// RequireSecret keeps the value wrapped: the engine must store it encrypted.
		ctx.Export("token", cfg.RequireSecret("token"))
		ctx.Export("goVersion", pulumi.String(runtime.Version()))
		ctx.Export("pulumiSdkVersion", pulumi.String(sdkVersion()))
		return nil
	})
}
