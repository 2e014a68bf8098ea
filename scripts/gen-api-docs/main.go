// Command gen-api-docs renders the API docs of the `broker` package from its schema.json with
// Pulumi's own docs generator (github.com/pulumi/pulumi/pkg/v3/codegen/docs): the pages a Pulumi
// Registry user reads, one per resource and function, with every language's names and the Example
// Usage and Import sections of the descriptions.
//
// The generator left pulumi/pulumi for the Registry's repository after pkg v3.143.0, whose module the
// Go module proxy does not serve; v3.143.0 is the newest version that carries it, so this program
// is a module of its own at that version (the SDK generators in scripts/gen-sdk follow the CLI's).
//
// Usage:
//
//	gen-api-docs -schema schema.json -out <dir> -version <semver>
//
// Writes the generated tree (`<module>/<resource>/_index.md`, `_index.md`, …) under <dir>, replacing
// what was there. Run through scripts/gen-api-docs.sh (`npm run gen:api-docs`).
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/blang/semver"
	"github.com/pulumi/pulumi/pkg/v3/codegen/docs"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

// tool names the generator in the generated pages.
const tool = "pulumi-broker-config gen-api-docs"

func main() {
	schemaPath := flag.String("schema", "schema.json", "path of the package schema")
	outDir := flag.String("out", "", "directory that receives the pages")
	version := flag.String("version", "", "package version, used when the schema carries none")
	flag.Parse()
	if flag.NArg() != 0 || *outDir == "" {
		fail(errors.New("usage: gen-api-docs -schema schema.json -out <dir> -version <semver>"))
	}
	if err := run(*schemaPath, *outDir, *version); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "gen-api-docs: %v\n", err)
	os.Exit(1)
}

func run(schemaPath, outDir, version string) error {
	data, err := os.ReadFile(schemaPath)
	if err != nil {
		return fmt.Errorf("reading the schema: %w", err)
	}
	var spec schema.PackageSpec
	if err := json.Unmarshal(data, &spec); err != nil {
		return fmt.Errorf("%s is not a package schema: %w", schemaPath, err)
	}
	if spec.Version == "" {
		if _, err := semver.ParseTolerant(version); err != nil {
			return fmt.Errorf("-version %q is not a semantic version: %w", version, err)
		}
		spec.Version = version
	}
	pkg, diags, err := schema.BindSpec(spec, nil)
	if err != nil {
		return fmt.Errorf("binding %s: %w", schemaPath, err)
	}
	if diags.HasErrors() {
		return fmt.Errorf("%s is not a valid package schema:\n%s", schemaPath, diags.Error())
	}

	files, err := docs.NewContext(tool, pkg).GeneratePackage()
	if err != nil {
		return fmt.Errorf("rendering the docs: %w", err)
	}
	if err := os.RemoveAll(outDir); err != nil {
		return err
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		file := filepath.Join(outDir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(file, files[name], 0o644); err != nil {
			return err
		}
		fmt.Println(name)
	}
	return nil
}
