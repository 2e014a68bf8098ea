module github.com/pulumi-broker-config/pulumi-broker-config/scripts/release/gomodzip

go 1.25.0

require golang.org/x/mod v0.37.0
