// The README's Go example: a workspace tree and a SERVICE key, with the generated Go SDK (sdk/go/broker).
// go.mod requires the SDK's module, which is not published: the end-to-end test appends a
// `replace` directive pointing at the checkout's sdk/go/broker, as a user of a clone does.
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
		ctx.Export("ordersId", orders.WorkspaceId)
		ctx.Export("ordersPath", orders.Path)
		ctx.Export("ordersServiceId", ordersService.AccessKeyId)
		ctx.Export("ordersKey", ordersService.AccessKey) // a secret
		return nil
	})
}
