// Command gomodzip writes the zip of a Go module directory as the go command and module proxies
// serve it (`<module>@<version>/<file>` entries, the go command's file rules and size limits),
// with golang.org/x/mod/zip, the library the go command itself uses. `npm run release`
// (scripts/release/goproxy.mts) runs it to put the Go SDK (sdk/go/broker) into a GOPROXY directory.
//
//	gomodzip -module <path> -version <vX.Y.Z> -dir <module dir> -out <file.zip>
package main

import (
	"flag"
	"fmt"
	"os"

	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"
)

func main() {
	path := flag.String("module", "", "the module path")
	version := flag.String("version", "", "the module version (vX.Y.Z)")
	dir := flag.String("dir", "", "the module's directory (holding go.mod)")
	out := flag.String("out", "", "the zip file to write")
	flag.Parse()
	if *path == "" || *version == "" || *dir == "" || *out == "" {
		fmt.Fprintln(os.Stderr, "usage: gomodzip -module <path> -version <vX.Y.Z> -dir <dir> -out <file.zip>")
		os.Exit(2)
	}
	if err := write(module.Version{Path: *path, Version: *version}, *dir, *out); err != nil {
		fmt.Fprintf(os.Stderr, "gomodzip: %v\n", err)
		os.Exit(1)
	}
}

// write creates the zip; x/mod/zip lists files in a sorted order and sets no times, so the same
// directory gives the same bytes.
func write(m module.Version, dir, out string) error {
	file, err := os.Create(out)
	if err != nil {
		return err
	}
	if err := modzip.CreateFromDir(file, m, dir); err != nil {
		file.Close()
		return err
	}
	return file.Close()
}
