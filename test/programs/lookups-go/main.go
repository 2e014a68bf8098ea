// The look-up functions with the generated Go SDK (sdk/go/broker): test/programs/lookups-native in Go.
// go.mod requires the SDK's module, which is not published: the end-to-end test appends a `replace`
// directive pointing at the checkout's sdk/go/broker, as a user of a clone does.
package main

import (
	"github.com/pulumi-broker-config/pulumi-broker-config/sdk/go/broker"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		cfg := config.New(ctx, "")
		switch cfg.Require("mode") {
		case "missing":
			missing := broker.LookupWorkspaceOutput(ctx, broker.LookupWorkspaceOutputArgs{
				Path: pulumi.String("/platform/nowhere"),
			})
			ctx.Export("missing", missing.Id())
			return nil
		case "duplicate":
			twin := broker.LookupAccessKeyOutput(ctx, broker.LookupAccessKeyOutputArgs{Name: pulumi.String("twin")})
			ctx.Export("twin", twin.Id())
			return nil
		}
		platform := broker.LookupWorkspaceOutput(ctx, broker.LookupWorkspaceOutputArgs{Path: pulumi.String("/platform")})
		team, err := broker.NewWorkspace(ctx, "team", &broker.WorkspaceArgs{
			Name:     pulumi.String(cfg.Require("teamName")),
			ParentId: platform.Id(),
		})
		if err != nil {
			return err
		}
		key := broker.LookupAccessKeyOutput(ctx, broker.LookupAccessKeyOutputArgs{Name: pulumi.String("orders-svc")})
		other, err := broker.NewProvider(ctx, "other", &broker.ProviderArgs{
			BaseUrl: pulumi.String(cfg.Require("otherUrl")),
			ApiKey:  cfg.RequireSecret("otherKey"),
		})
		if err != nil {
			return err
		}
		elsewhere := broker.LookupWorkspaceOutput(ctx, broker.LookupWorkspaceOutputArgs{
			Path: pulumi.String("/elsewhere"),
		}, pulumi.Provider(other))
		ctx.Export("platformId", platform.Id())
		ctx.Export("teamParentId", team.ParentId)
		ctx.Export("keyValue", key.AccessKey()) // a secret
		ctx.Export("keyPermissions", key.Permissions())
		ctx.Export("keyValid", broker.VerifyAccessKeyOutput(ctx, broker.VerifyAccessKeyOutputArgs{
			AccessKey: key.AccessKey(),
		}).Valid())
		ctx.Export("unknownValid", broker.VerifyAccessKeyOutput(ctx, broker.VerifyAccessKeyOutputArgs{
			AccessKey: pulumi.String("not-a-key-of-this-broker"),
		}).Valid())
		ctx.Export("otherPath", elsewhere.Path())
		workspaces := broker.GetWorkspacesOutput(ctx, broker.GetWorkspacesOutputArgs{})
		ctx.Export("workspaceNames", workspaces.Workspaces().ApplyT(func(ws []broker.WorkspaceInfo) []string {
			names := []string{}
			for _, w := range ws {
				names = append(names, w.Name)
			}
			return names
		}))
		serviceKeys := broker.GetAccessKeysOutput(ctx, broker.GetAccessKeysOutputArgs{
			Type:            broker.AccessKeyTypeSERVICE,
			EventPathPrefix: pulumi.String("orders/"),
		})
		ctx.Export("serviceKeyNames", serviceKeys.AccessKeys().ApplyT(func(keys []broker.AccessKeyInfo) []string {
			names := []string{}
			for _, k := range keys {
				names = append(names, k.Name)
			}
			return names
		}))
		return nil
	})
}
