// The spec-driven program of test/programs/native in Go, with the generated Go SDK (sdk/go/broker).
// What to deploy comes from the stack config `spec` (JSON: `workspaces` with `name`, `resource` and
// `parent`, `keys` with `name`, `type`, `permissions` and `rotationTriggers`), so a test changes the
// declared state by changing config. go.mod and go.sum are test/programs/go-native's: the test copies
// them in, and appends the `replace` of the SDK's unpublished module, as a user of a clone does.
package main

import (
	"github.com/pulumi-broker-config/pulumi-broker-config/sdk/go/broker"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

type workspaceSpec struct {
	Name     string `json:"name"`
	Resource string `json:"resource"`
	Parent   string `json:"parent"`
}

type keySpec struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Permissions struct {
		Send    []string `json:"send"`
		Receive []string `json:"receive"`
	} `json:"permissions"`
	RotationTriggers map[string]string `json:"rotationTriggers"`
}

type spec struct {
	Workspaces []workspaceSpec `json:"workspaces"`
	Keys       []keySpec       `json:"keys"`
}

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		var s spec
		config.RequireObject(ctx, "spec", &s)

		workspaces := map[string]*broker.Workspace{}
		paths := pulumi.StringMap{}
		for _, w := range s.Workspaces {
			resource := w.Resource
			if resource == "" {
				resource = w.Name
			}
			args := &broker.WorkspaceArgs{Name: pulumi.String(w.Name)}
			if w.Parent != "" {
				args.ParentId = workspaces[w.Parent].WorkspaceId
			}
			workspace, err := broker.NewWorkspace(ctx, resource, args)
			if err != nil {
				return err
			}
			workspaces[resource] = workspace
			paths[resource] = workspace.Path
		}

		ids := pulumi.IntMap{}
		for _, k := range s.Keys {
			args := &broker.AccessKeyArgs{
				Name: pulumi.String(k.Name),
				Type: broker.AccessKeyType(k.Type),
				Permissions: &broker.PermissionsArgs{
					Send:    pulumi.ToStringArray(k.Permissions.Send),
					Receive: pulumi.ToStringArray(k.Permissions.Receive),
				},
			}
			if k.RotationTriggers != nil {
				args.RotationTriggers = pulumi.ToStringMap(k.RotationTriggers)
			}
			key, err := broker.NewAccessKey(ctx, k.Name, args)
			if err != nil {
				return err
			}
			ids[k.Name] = key.AccessKeyId
		}
		ctx.Export("keyIds", ids)
		ctx.Export("workspacePaths", paths)
		return nil
	})
}
