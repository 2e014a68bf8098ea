// Workspaces, access keys and service key pairs of the message-broker configuration API.
package broker
