package docindex

import (
	_ "embed" // the index
	"sort"
	"strings"
	"sync"

	"github.com/graphnb/graphnb/session/docindex/internal/format"
)

//go:embed docindex.json.gz
var data string

// Entry documents one exported symbol.
type Entry struct {
	// Kind is "func", "method", "type", "field", "var" or "const".
	Kind string
	// Name is the symbol's name within its package: "Split",
	// "Buffer.WriteString" for a method, "CSR.Offsets" for a field.
	Name string
	// Signature is the declaration without body as gofmt prints it, e.g.
	// "func Split(s, sep string) []string"; for a type, its type spec
	// with fields; for a field, "Name Type"; for a constant or variable,
	// its spec, or its whole group when that is short.
	Signature string
	// Doc is the doc comment's text (Go doc comment syntax), at most 40
	// lines; a cut is marked by a last line "…".
	Doc string
}

// PackageDoc documents one package.
type PackageDoc struct {
	ImportPath string
	Name       string // package name, e.g. "rand" for math/rand
	Synopsis   string // first sentence of Doc
	Doc        string // package doc comment, at most 60 lines
	// Std is true for standard-library packages, false for graphnb's.
	Std bool
}

type pkg struct {
	doc     PackageDoc
	entries []Entry // sorted by Name
}

var (
	once    sync.Once
	header  format.Header
	base    int64
	byPath  map[string]int // import path → index in header.Packages
	byName  map[string][]string
	loadErr error

	mu    sync.Mutex
	cache = map[string]*pkg{}
)

func load() error {
	once.Do(func() {
		h, off, err := format.ReadHeader(data)
		if err != nil {
			loadErr = err
			return
		}
		header, base = h, off
		byPath = make(map[string]int, len(h.Packages))
		byName = make(map[string][]string)
		for i, p := range h.Packages {
			byPath[p.Path] = i
			byName[p.Name] = append(byName[p.Name], p.Path)
		}
	})
	return loadErr
}

// Load decodes the index header now (normally the first lookup does) and
// reports a damaged index. It is cheap after the first call.
func Load() error { return load() }

// GoVersion is the Go release whose standard library the index documents,
// e.g. "go1.26.8"; "" when the index cannot be read.
func GoVersion() string {
	if load() != nil {
		return ""
	}
	return header.Go
}

// Packages lists the import paths the index documents, sorted.
func Packages() []string {
	if load() != nil {
		return nil
	}
	out := make([]string, len(header.Packages))
	for i, p := range header.Packages {
		out[i] = p.Path
	}
	return out
}

// resolve maps an import path to the index's spelling. Besides plain
// import paths it accepts yaegi's symbol-table keys "path/name" (such as
// "strings/strings" or "math/rand/rand").
func resolve(importPath string) (int, bool) {
	if load() != nil {
		return 0, false
	}
	if i, ok := byPath[importPath]; ok {
		return i, true
	}
	if j := strings.LastIndexByte(importPath, '/'); j > 0 {
		if i, ok := byPath[importPath[:j]]; ok && header.Packages[i].Name == importPath[j+1:] {
			return i, true
		}
	}
	return 0, false
}

func get(importPath string) *pkg {
	i, ok := resolve(importPath)
	if !ok {
		return nil
	}
	h := header.Packages[i]
	mu.Lock()
	defer mu.Unlock()
	if p, ok := cache[h.Path]; ok {
		return p
	}
	if h.Off < 0 || h.Len < 0 || base+h.Off+h.Len > int64(len(data)) {
		cache[h.Path] = nil
		return nil
	}
	fp, err := format.ReadPackage(data[base+h.Off : base+h.Off+h.Len])
	if err != nil {
		cache[h.Path] = nil // damaged: do not retry on every call
		return nil
	}
	p := &pkg{doc: PackageDoc{ImportPath: fp.Path, Name: fp.Name, Synopsis: fp.Synopsis, Doc: fp.Doc, Std: h.Std}}
	p.entries = make([]Entry, len(fp.Entries))
	for k, e := range fp.Entries {
		p.entries[k] = Entry{Kind: e.Kind, Name: e.Name, Signature: e.Signature, Doc: e.Doc}
	}
	sort.Slice(p.entries, func(a, b int) bool { return p.entries[a].Name < p.entries[b].Name })
	cache[h.Path] = p
	return p
}

// Lookup returns the documentation of name in the package importPath.
// name is a package-level symbol ("Split"), or "Type.Method" /
// "Type.Field". ok is false for an unknown package or name.
func Lookup(importPath, name string) (Entry, bool) {
	p := get(importPath)
	if p == nil {
		return Entry{}, false
	}
	k := sort.Search(len(p.entries), func(k int) bool { return p.entries[k].Name >= name })
	if k < len(p.entries) && p.entries[k].Name == name {
		return p.entries[k], true
	}
	return Entry{}, false
}

// Package returns the documentation of the package importPath.
func Package(importPath string) (PackageDoc, bool) {
	p := get(importPath)
	if p == nil {
		return PackageDoc{}, false
	}
	return p.doc, true
}

// Names lists the documented symbols of importPath, sorted: package-level
// names and, with a dot, methods and fields ("Buffer.Len"). nil for an
// unknown package.
func Names(importPath string) []string {
	p := get(importPath)
	if p == nil {
		return nil
	}
	out := make([]string, len(p.entries))
	for k, e := range p.entries {
		out[k] = e.Name
	}
	return out
}

// PathsNamed returns the import paths of the documented packages whose
// package name is name (e.g. "rand" → math/rand and crypto/rand), sorted.
func PathsNamed(name string) []string {
	if load() != nil {
		return nil
	}
	return append([]string(nil), byName[name]...)
}
