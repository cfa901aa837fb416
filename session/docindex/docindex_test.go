package docindex

import (
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/traefik/yaegi/stdlib"

	"github.com/graphnb/graphnb/session/docindex/internal/extract"
	"github.com/graphnb/graphnb/session/docindex/internal/format"
)

const graphPath = "github.com/graphnb/graphnb/graph"

func TestLookup(t *testing.T) {
	tests := []struct {
		name, path, sym string
		kind            string
		sig             []string // substrings of Signature
		doc             []string // substrings of Doc
	}{
		{"func", "strings", "Split", "func",
			[]string{"func Split(s, sep string) []string"}, []string{"Split slices s into all substrings separated by sep"}},
		{"graphnb func", graphPath, "Build", "func",
			[]string{"func Build(el EdgeList, opt BuildOptions) (*CSR, error)"}, []string{"Build makes a CSR from an edge list"}},
		{"method", "bytes", "Buffer.WriteString", "method",
			[]string{"func (b *Buffer) WriteString(s string) (n int, err error)"}, []string{"WriteString appends the contents of s"}},
		{"graphnb method", graphPath, "CSR.NumVertices", "method",
			[]string{"func (g *CSR) NumVertices() int"}, nil},
		{"type with fields", graphPath, "CSR", "type",
			[]string{"type CSR struct {", "Offsets []int64", "Adj []int32", "Directed bool"}, []string{"compressed sparse row"}},
		{"field", graphPath, "CSR.Offsets", "field", []string{"Offsets []int64"}, nil},
		{"interface method", "io", "Reader.Read", "method", []string{"func (Reader) Read(p []byte) (n int, err error)"}, nil},
		{"constructor is package-level", "bytes", "NewBuffer", "func", []string{"func NewBuffer(buf []byte) *Buffer"}, nil},
		{"const in short group", "io", "SeekEnd", "const", []string{"SeekStart", "SeekEnd"}, []string{"whence"}},
		{"var", "io", "EOF", "var", []string{"var EOF = "}, []string{"EOF is the error returned by Read"}},
		{"type with unexported fields", "strings", "Builder", "type", []string{"contains filtered or unexported fields"}, nil},
		{"generic func", "slices", "Index", "func", []string{"func Index[S ~[]E, E comparable](s S, v E) int"}, nil},
		{"yaegi key spelling", "strings/strings", "Split", "func", []string{"func Split("}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, ok := Lookup(tt.path, tt.sym)
			if !ok {
				t.Fatalf("Lookup(%q, %q) not found", tt.path, tt.sym)
			}
			if e.Kind != tt.kind || e.Name != tt.sym {
				t.Errorf("kind, name = %q, %q; want %q, %q", e.Kind, e.Name, tt.kind, tt.sym)
			}
			for _, s := range tt.sig {
				if !strings.Contains(e.Signature, s) {
					t.Errorf("signature %q lacks %q", e.Signature, s)
				}
			}
			for _, s := range tt.doc {
				if !strings.Contains(e.Doc, s) {
					t.Errorf("doc %q lacks %q", e.Doc, s)
				}
			}
			if strings.Contains(e.Signature, "{\n\treturn") {
				t.Errorf("signature has a body: %q", e.Signature)
			}
		})
	}
}

func TestLookupUnknown(t *testing.T) {
	for _, c := range [][2]string{
		{"strings", "NoSuchThing"},
		{"strings", "Builder.NoSuchMethod"},
		{"strings", "split"}, // unexported / wrong case
		{"no/such/pkg", "Split"},
		{"", ""},
		{"internal/bytealg", "Index"},
	} {
		if e, ok := Lookup(c[0], c[1]); ok {
			t.Errorf("Lookup(%q, %q) = %+v, want not found", c[0], c[1], e)
		}
	}
	if n := Names("no/such/pkg"); n != nil {
		t.Errorf("Names(unknown) = %v", n)
	}
	if _, ok := Package("no/such/pkg"); ok {
		t.Error("Package(unknown) found")
	}
}

func TestPackage(t *testing.T) {
	p, ok := Package("strings")
	if !ok || p.Name != "strings" || !p.Std || !strings.HasPrefix(p.Synopsis, "Package strings implements") {
		t.Errorf("Package(strings) = %+v, %v", p, ok)
	}
	p, ok = Package("math/rand")
	if !ok || p.Name != "rand" || p.ImportPath != "math/rand" {
		t.Errorf("Package(math/rand) = %+v, %v", p, ok)
	}
	p, ok = Package(graphPath)
	if !ok || p.Std || p.Name != "graph" || !strings.Contains(p.Doc, "CSR") {
		t.Errorf("Package(graph) = %+v, %v", p, ok)
	}
	if got := PathsNamed("rand"); !slices.Contains(got, "math/rand") || !slices.Contains(got, "crypto/rand") {
		t.Errorf("PathsNamed(rand) = %v", got)
	}
}

func TestNames(t *testing.T) {
	n := Names("strings")
	if !slices.IsSorted(n) {
		t.Error("Names not sorted")
	}
	for _, want := range []string{"Split", "Builder", "Builder.WriteString", "Reader.Len"} {
		if !slices.Contains(n, want) {
			t.Errorf("Names(strings) lacks %q", want)
		}
	}
	for _, name := range n {
		if name == "" || !(name[0] >= 'A' && name[0] <= 'Z') {
			t.Errorf("Names(strings) has unexported %q", name)
		}
	}
}

// TestCoverage checks the index documents every package the interpreter
// exposes and every graphnb package.
func TestCoverage(t *testing.T) {
	if err := Load(); err != nil {
		t.Fatal(err)
	}
	have := Packages()
	keys := make([]string, 0, len(stdlib.Symbols))
	for k := range stdlib.Symbols {
		keys = append(keys, k)
	}
	for _, p := range extract.StdPaths(keys) {
		if !slices.Contains(have, p) {
			t.Errorf("stdlib package %s (in yaegi's stdlib.Symbols) is not indexed", p)
		}
	}
	for _, rel := range extract.GraphnbPackages {
		if !slices.Contains(have, extract.Module+"/"+rel) {
			t.Errorf("graphnb package %s is not indexed", rel)
		}
	}
	for _, p := range have {
		if strings.Contains(p, "internal") {
			t.Errorf("internal package %s indexed", p)
		}
		if d, ok := Package(p); !ok || d.ImportPath != p || d.Name == "" {
			t.Errorf("package %s does not decode: %+v", p, d)
		}
	}
}

// TestIndexFresh regenerates the index from source and compares it with
// the embedded copy: graphnb's packages always, the standard library when
// this toolchain is the one the index was made with.
func TestIndexFresh(t *testing.T) {
	if err := Load(); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Skipf("no go command: %v", err)
	}
	goroot := strings.TrimSpace(string(out))
	ctx := extract.Context(goroot)
	root, err := extract.ModuleRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := extract.Graphnb(&ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	checkStd := runtime.Version() == GoVersion()
	if checkStd {
		for _, h := range header.Packages {
			if !h.Std {
				continue
			}
			p, err := extract.Dir(&ctx, filepath.Join(goroot, "src", filepath.FromSlash(h.Path)), h.Path)
			if err != nil {
				t.Fatal(err)
			}
			fresh = append(fresh, p)
		}
	} else {
		t.Logf("standard library not checked: index made with %s, this is %s", GoVersion(), runtime.Version())
	}
	for _, p := range fresh {
		got := get(p.Path)
		if got == nil {
			t.Errorf("%s: missing from the embedded index; run go generate ./session/docindex", p.Path)
			continue
		}
		want := toPkg(p)
		if !reflect.DeepEqual(got.doc, want.doc) {
			t.Errorf("%s: package doc is stale; run go generate ./session/docindex", p.Path)
		}
		if !reflect.DeepEqual(got.entries, want.entries) {
			t.Errorf("%s: entries are stale (%s); run go generate ./session/docindex", p.Path, firstDiff(got.entries, want.entries))
		}
	}
}

func toPkg(p *format.Package) *pkg {
	out := &pkg{doc: PackageDoc{ImportPath: p.Path, Name: p.Name, Synopsis: p.Synopsis, Doc: p.Doc, Std: !strings.HasPrefix(p.Path, extract.Module+"/")}}
	for _, e := range p.Entries {
		out.entries = append(out.entries, Entry(e))
	}
	return out
}

func firstDiff(a, b []Entry) string {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return "first at " + a[i].Name + " / " + b[i].Name
		}
	}
	if len(a) != len(b) {
		return "different number of entries"
	}
	return "?"
}

func BenchmarkLoadHeader(b *testing.B) {
	for b.Loop() {
		if _, _, err := format.ReadHeader(data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodePackage(b *testing.B) {
	for _, path := range []string{"strings", "net/http", graphPath} {
		b.Run(strings.ReplaceAll(path, "/", "_"), func(b *testing.B) {
			i, ok := resolve(path)
			if !ok {
				b.Fatal("not indexed")
			}
			h := header.Packages[i]
			for b.Loop() {
				if _, err := format.ReadPackage(data[base+h.Off : base+h.Off+h.Len]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
