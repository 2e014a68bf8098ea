// Command gen-sdk generates the `broker` package's SDKs from its schema.json with Pulumi's own code
// generators, at the version of the Pulumi CLI this repository builds (see go.mod).
//
// `pulumi package gen-sdk` would do the same through the language hosts, but the hosts that can be
// built offline (sdk v3.68.0) do not implement GeneratePackage; calling the generators directly
// gives the same output without them.
//
// Usage:
//
//	gen-sdk -schema schema.json -out <dir> -version <semver> [-languages python,go,nodejs]
//
// Each language is written to <dir>/<language> (python, go, nodejs), replacing what was there.
// The Go SDK is one module whose root is its package: <dir>/go/<package>, with go.mod and
// pulumi-plugin.json beside the package's files (see goModuleAtPackage).
// Run through scripts/gen-sdk.sh (`npm run gen:sdk`), which also tidies and checks the Go SDK.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/blang/semver"
	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	nodejsgen "github.com/pulumi/pulumi/pkg/v3/codegen/nodejs"
	pythongen "github.com/pulumi/pulumi/pkg/v3/codegen/python"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

// tool names the generator in the "do not edit" banner of every generated file.
const tool = "pulumi-broker-config gen-sdk"

func main() {
	schemaPath := flag.String("schema", "schema.json", "path of the package schema")
	outDir := flag.String("out", "sdk", "directory that receives one subdirectory per language")
	version := flag.String("version", "",
		"SDK version, used when the schema carries none; must equal the schema's version when it does")
	languages := flag.String("languages", "python,go", "comma-separated languages to generate: python, go, nodejs")
	flag.Parse()
	if flag.NArg() != 0 {
		fail(fmt.Errorf("unexpected arguments %q: all inputs are flags (see -help)", flag.Args()))
	}
	if err := run(*schemaPath, *outDir, *version, strings.Split(*languages, ",")); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "gen-sdk: %v\n", err)
	os.Exit(1)
}

func run(schemaPath, outDir, version string, languages []string) error {
	pkg, err := bindSchema(schemaPath, version)
	if err != nil {
		return err
	}
	for _, language := range languages {
		files, err := generate(strings.TrimSpace(language), pkg)
		if err != nil {
			return err
		}
		if err := writeTree(filepath.Join(outDir, strings.TrimSpace(language)), files); err != nil {
			return err
		}
	}
	return nil
}

// bindSchema reads and validates the schema the way `pulumi package gen-sdk` does (BindSpec checks it
// against the package metaschema), setting the version when the schema leaves it out.
func bindSchema(schemaPath, version string) (*schema.Package, error) {
	data, err := os.ReadFile(schemaPath)
	if err != nil {
		return nil, fmt.Errorf("reading the schema: %w", err)
	}
	var spec schema.PackageSpec
	if err := json.Unmarshal(data, &spec); err != nil {
		return nil, fmt.Errorf("%s is not a package schema: %w", schemaPath, err)
	}
	switch {
	case spec.Version == "" && version == "":
		return nil, fmt.Errorf("%s has no version: pass -version", schemaPath)
	case spec.Version == "":
		if _, err := semver.ParseTolerant(version); err != nil {
			return nil, fmt.Errorf("-version %q is not a semantic version: %w", version, err)
		}
		spec.Version = version
	case version != "" && spec.Version != version:
		return nil, fmt.Errorf("%s says version %q but -version is %q: keep one of them", schemaPath, spec.Version, version)
	}

	pkg, diags, err := schema.BindSpec(spec, refusingLoader{}, schema.ValidationOptions{})
	if err != nil {
		return nil, fmt.Errorf("binding %s: %w", schemaPath, err)
	}
	if diags.HasErrors() {
		return nil, fmt.Errorf("%s is not a valid package schema:\n%s", schemaPath, diags.Error())
	}
	return pkg, nil
}

func generate(language string, pkg *schema.Package) (map[string][]byte, error) {
	var files map[string][]byte
	var err error
	switch language {
	case "python":
		files, err = pythongen.GeneratePackage(tool, pkg, nil, refusingLoader{})
	case "go":
		files, err = gogen.GeneratePackage(tool, pkg, nil)
		if err == nil {
			files, err = goModuleAtPackage(files, pkg)
		}
	case "nodejs":
		files, err = nodejsgen.GeneratePackage(tool, pkg, nil, nil, false, refusingLoader{})
	default:
		return nil, fmt.Errorf("unknown language %q: choose python, go or nodejs", language)
	}
	if err != nil {
		return nil, fmt.Errorf("generating the %s SDK: %w", language, err)
	}
	return files, nil
}

// goModuleAtPackage moves the generated Go module's root from the directory above the package to
// the package itself: go.mod (its module path made the package's import path) and .gitattributes
// join the package's files, so pulumi-plugin.json sits at the module root.
//
// The generator (with "supportPack") writes go.mod one level above the package, as
// `pulumi package gen-sdk` lays out sdk/go: module <repo>/sdk/go, package <repo>/sdk/go/broker.
// A Go language host finds a module's pulumi-plugin.json only at the module root, in go/ or in go/*/
// (newer hosts also in */): in that layout the hosts before those newer ones see no plugin, so
// `pulumi install`, `pulumi plugin install` and the engine's required-plugins answer miss `broker`.
// At the package, every host finds it; the import path stays the same, and `go get` of that path
// fetches the module whose root is the package the program imports.
func goModuleAtPackage(files map[string][]byte, pkg *schema.Package) (map[string][]byte, error) {
	info, _ := pkg.Language["go"].(gogen.GoPackageInfo)
	if info.ImportBasePath == "" {
		return nil, fmt.Errorf("the schema sets no language.go.importBasePath: the Go module's path is that import path")
	}
	dir := path.Base(info.ImportBasePath)
	goMod, ok := files["go.mod"]
	if !ok {
		return nil, fmt.Errorf(`the Go generator wrote no go.mod: the schema needs "meta": {"supportPack": true}`)
	}
	lines := strings.SplitN(string(goMod), "\n", 2)
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "module ") {
		return nil, fmt.Errorf("the generated go.mod does not start with its module line:\n%s", goMod)
	}
	moved := make(map[string][]byte, len(files))
	for name, content := range files {
		switch {
		case name == "go.mod":
			moved[path.Join(dir, name)] = []byte("module " + info.ImportBasePath + "\n" + lines[1])
		case name == ".gitattributes":
			moved[path.Join(dir, name)] = content
		case strings.HasPrefix(name, dir+"/"):
			moved[name] = content
		default:
			return nil, fmt.Errorf("the Go generator wrote %s outside the package directory %s/", name, dir)
		}
	}
	return moved, nil
}

// writeTree replaces dir with exactly the generated files, so files the generator no longer emits
// do not linger.
func writeTree(dir string, files map[string][]byte) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		target := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(target, files[name], 0o644); err != nil {
			return err
		}
	}
	return nil
}

// refusingLoader is the loader for a schema that references no other package: binding and the
// generators need one, and any request to load another package is a schema error worth naming.
type refusingLoader struct{}

var _ schema.ReferenceLoader = refusingLoader{}

func refuse(name string) error {
	return fmt.Errorf("the schema refers to package %q; the broker schema must stand alone "+
		"(only types of its own and Pulumi's built-in types)", name)
}

func (refusingLoader) LoadPackage(name string, _ *semver.Version) (*schema.Package, error) {
	return nil, refuse(name)
}

func (refusingLoader) LoadPackageV2(_ context.Context, d *schema.PackageDescriptor) (*schema.Package, error) {
	return nil, refuse(descriptorName(d))
}

func (refusingLoader) LoadPackageReference(name string, _ *semver.Version) (schema.PackageReference, error) {
	return nil, refuse(name)
}

func (refusingLoader) LoadPackageReferenceV2(
	_ context.Context, d *schema.PackageDescriptor,
) (schema.PackageReference, error) {
	return nil, refuse(descriptorName(d))
}

func descriptorName(d *schema.PackageDescriptor) string {
	if d == nil {
		return "<unnamed>"
	}
	return d.Name
}
