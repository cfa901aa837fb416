// Command gen writes docindex.json.gz, the offline documentation index that
// package docindex embeds. It is run by `go generate ./session/docindex`
// from the package directory:
//
//	go run ./gen [-o docindex.json.gz]
//
// It documents the standard-library packages that yaegi's stdlib.Symbols
// exposes to cells (from the sources in $(go env GOROOT)/src) and graphnb's
// own packages listed in extract.GraphnbPackages (from the module's
// sources). The output is deterministic for a given Go version and source.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/traefik/yaegi/stdlib"

	"github.com/graphnb/graphnb/session/docindex/internal/extract"
	"github.com/graphnb/graphnb/session/docindex/internal/format"
)

func main() {
	out := flag.String("o", "docindex.json.gz", "output file")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("docindex/gen: ")

	goroot, err := goEnv("GOROOT")
	if err != nil {
		log.Fatal(err)
	}
	root, err := extract.ModuleRoot(".")
	if err != nil {
		log.Fatal(err)
	}
	ctx := extract.Context(goroot)

	var pkgs []*format.Package
	std := map[string]bool{}
	for _, path := range extract.StdPaths(stdlibKeys()) {
		dir := filepath.Join(goroot, "src", filepath.FromSlash(path))
		if _, err := os.Stat(dir); err != nil {
			log.Printf("skipping %s: not in %s", path, goroot)
			continue
		}
		p, err := extract.Dir(&ctx, dir, path)
		if err != nil {
			log.Fatal(err)
		}
		std[path] = true
		pkgs = append(pkgs, p)
	}
	gp, err := extract.Graphnb(&ctx, root)
	if err != nil {
		log.Fatal(err)
	}
	pkgs = append(pkgs, gp...)

	var b bytes.Buffer
	if err := format.Write(&b, runtime.Version(), pkgs, std); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, b.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
	n := 0
	for _, p := range pkgs {
		n += len(p.Entries)
	}
	fmt.Printf("docindex/gen: %s: %d packages, %d entries, %d bytes\n", *out, len(pkgs), n, b.Len())
}

func goEnv(name string) (string, error) {
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		return "", fmt.Errorf("go env %s: %w", name, err)
	}
	return strings.TrimSpace(string(out)), nil
}

func stdlibKeys() []string {
	keys := make([]string, 0, len(stdlib.Symbols))
	for k := range stdlib.Symbols {
		keys = append(keys, k)
	}
	return keys
}
