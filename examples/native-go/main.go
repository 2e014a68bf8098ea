// The native door in Go: the resources of the `broker` plugin, through the SDK module
// github.com/pulumi-broker-config/pulumi-broker-config/sdk/go/broker. The same program in
// TypeScript, Python and YAML is in examples/native-typescript, native-python and native-yaml.
package main

import (
	"github.com/pulumi-broker-config/pulumi-broker-config/sdk/go/broker"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		platform, err := broker.NewWorkspace(ctx, "platform", &broker.WorkspaceArgs{
			Name: pulumi.String("platform"),
		})
		if err != nil {
			return err
		}
		orders, err := broker.NewWorkspace(ctx, "orders", &broker.WorkspaceArgs{
			Name:     pulumi.String("orders"),
			ParentId: platform.WorkspaceId,
		})
		if err != nil {
			return err
		}
		ordersService, err := broker.NewAccessKey(ctx, "orders-service", &broker.AccessKeyArgs{
			Name: pulumi.String("orders-service"),
			Type: broker.AccessKeyTypeSERVICE,
			Permissions: &broker.PermissionsArgs{
				Send:    pulumi.StringArray{pulumi.String("orders/created")},
				Receive: pulumi.StringArray{pulumi.String("payments/*")},
			},
		})
		if err != nil {
			return err
		}
		// Change the trigger's value to give the key a new pair.
		ordersPair, err := broker.NewServiceKeyPair(ctx, "orders-pair", &broker.ServiceKeyPairArgs{
			AccessKey:        ordersService.AccessKey,
			RotationTriggers: pulumi.StringMap{"generation": pulumi.String("1")},
		})
		if err != nil {
			return err
		}
		ctx.Export("ordersPath", orders.Path)
		ctx.Export("ordersServiceId", ordersService.AccessKeyId)
		ctx.Export("ordersKey", ordersService.AccessKey) // a secret
		ctx.Export("ordersPublicKey", ordersPair.PublicKey)
		ctx.Export("ordersPrivateKey", ordersPair.PrivateKey) // a secret
		return nil
	})
}
