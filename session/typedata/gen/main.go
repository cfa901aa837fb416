// Command gen writes the type data that graphnb's cell checker imports:
// the export data (golang.org/x/tools/go/gcexportdata's indexed format) of
// every package a cell can import — the standard-library packages of
// yaegi's tables and graphnb's packages of symbols — as one
// multi-member gzip file (see package typedata for the layout).
//
//	go run ./gen -o exports.gz
//
// It needs the Go toolchain (go/packages runs `go list` and the compiler);
// the kernel that reads the file does not.
package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"go/types"
	"os"
	"reflect"
	"sort"
	"strings"

	"github.com/graphnb/graphnb/session/typedata/internal/format"
	"github.com/graphnb/graphnb/symbols"
	"github.com/traefik/yaegi/stdlib"
	"golang.org/x/tools/go/gcexportdata"
	"golang.org/x/tools/go/packages"
)

func main() {
	out := flag.String("o", "exports.gz", "write the type data to `FILE`")
	flag.Parse()
	data, err := Generate()
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(*out, data, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

// Paths returns the import paths cells can import: those of yaegi's
// standard-library tables and of graphnb's symbol tables, sorted.
func Paths() []string {
	seen := map[string]bool{}
	for _, table := range []map[string]map[string]reflect.Value{stdlib.Symbols, symbols.Symbols} {
		for key := range table {
			i := strings.LastIndexByte(key, '/')
			if i > 0 {
				seen[key[:i]] = true
			}
		}
	}
	var paths []string
	for p := range seen {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	return paths
}

// Generate loads every package of Paths with go/packages and encodes it.
func Generate() ([]byte, error) {
	paths := Paths()
	cfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedTypes | packages.NeedDeps | packages.NeedImports,
		Env:  append(os.Environ(), "GOOS=linux", "GOARCH=amd64", "CGO_ENABLED=1", "GOFLAGS=-mod=mod"),
	}
	pkgs, err := packages.Load(cfg, paths...)
	if err != nil {
		return nil, err
	}
	byPath := map[string]*types.Package{}
	var errs []string
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		for _, e := range p.Errors {
			errs = append(errs, e.Error())
		}
		if p.Types != nil {
			byPath[p.PkgPath] = p.Types
		}
	})
	if len(errs) > 0 {
		return nil, fmt.Errorf("loading packages: %s", strings.Join(errs, "; "))
	}
	var members [][]byte
	var header format.Header
	for _, path := range paths {
		pkg := byPath[path]
		if pkg == nil {
			return nil, fmt.Errorf("package %s was not loaded", path)
		}
		var raw bytes.Buffer
		if err := gcexportdata.Write(&raw, nil, pkg); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		member, err := gzipped(raw.Bytes())
		if err != nil {
			return nil, err
		}
		header.Packages = append(header.Packages, format.Entry{Path: path, Name: pkg.Name(), Size: len(member)})
		members = append(members, member)
	}
	js, err := json.Marshal(header)
	if err != nil {
		return nil, err
	}
	first, err := gzipped(js)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.Write(first)
	for _, m := range members {
		b.Write(m)
	}
	return b.Bytes(), nil
}

// gzipped compresses data as one gzip member, deterministically (no
// name, no time).
func gzipped(data []byte) ([]byte, error) {
	var b bytes.Buffer
	w, err := gzip.NewWriterLevel(&b, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(data); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
