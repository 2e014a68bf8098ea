// The broker package: workspaces, access keys and service key pairs of the message-broker configuration API, managed with Pulumi.
package broker
