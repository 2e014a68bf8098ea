// One Environment with the generated Go SDK (sdk/go/broker), deploying the document in the file the
// stack config `documentFile` names. go.mod and go.sum are test/programs/go-native's: the test copies
// them in, and appends the `replace` of the SDK's unpublished module, as a user of a clone does.
package main

import (
	"os"

	"github.com/pulumi-broker-config/pulumi-broker-config/sdk/go/broker"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		documentFile := config.Require(ctx, "documentFile")
		document, err := os.ReadFile(documentFile)
		if err != nil {
			return err
		}
		environment, err := broker.NewEnvironment(ctx, "environment", &broker.EnvironmentArgs{
			Document:     pulumi.String(string(document)),
			DocumentName: pulumi.String(documentFile),
		})
		if err != nil {
			return err
		}
		ctx.Export("workspaces", environment.Workspaces)
		ctx.Export("accessKeys", environment.AccessKeys)
		ctx.Export("accessKeyValues", environment.AccessKeyValues) // a secret
		ctx.Export("privateKeys", environment.PrivateKeys)         // a secret
		return nil
	})
}
