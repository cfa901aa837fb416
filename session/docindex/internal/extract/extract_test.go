package extract

import (
	"go/build"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDir(t *testing.T) {
	ctx := build.Default
	p, err := Dir(&ctx, "testdata/p", "example.com/p")
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "p" || p.Synopsis != "Package p is a fixture for extract's tests." || !strings.Contains(p.Doc, "second paragraph") {
		t.Errorf("package = %q %q %q", p.Name, p.Synopsis, p.Doc)
	}
	byName := map[string]Entry{}
	for i, e := range p.Entries {
		if i > 0 && p.Entries[i-1].Name >= e.Name {
			t.Errorf("entries not sorted and unique at %q", e.Name)
		}
		byName[e.Name] = e
	}
	tests := []struct {
		name, kind string
		sig        []string
		notSig     []string
		doc        string
	}{
		{"A", "const", []string{"const (\n\tA = 1 // a\n\tB = 2 // b\n)"}, nil, "Small is a short const group."},
		{"M3", "const", []string{"const M3"}, []string{"M4"}, "Mode values"},
		{"M0", "const", []string{"const M0 Mode = iota"}, nil, "Mode values"},
		{"Mode", "type", []string{"type Mode int"}, nil, "Mode is a mode."},
		{"Mode.String", "method", []string{"func (m Mode) String() string"}, []string{"return"}, "String names the mode."},
		{"V", "var", []string{"var V = 3"}, nil, "V is a variable."},
		{"Big", "type", []string{"type Big struct {", "F0  int // field 0", "// … ", "more lines", "}"}, []string{"F59", "hidden"}, "Big has many fields."},
		{"Big.F59", "field", []string{"F59 int"}, nil, "field 59"},
		{"Embeds.Reader", "field", []string{"io.Reader // embedded"}, nil, ""},
		{"Embeds.Mode", "field", []string{"*Mode // embedded"}, nil, ""},
		{"Embeds.Named", "field", []string{"Named string"}, nil, "Named is documented."},
		{"Embeds", "type", []string{"contains filtered or unexported fields"}, nil, "Embeds embeds."},
		{"Iface.Do", "method", []string{"func (Iface) Do(x int) error"}, nil, "Do does."},
		{"NewEmbeds", "func", []string{"func NewEmbeds() *Embeds"}, []string{"return"}, "NewEmbeds makes one."},
		{"Map", "func", []string{"func Map[T, U any](xs []T, f func(T) U) []U"}, nil, "Map is generic."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, ok := byName[tt.name]
			if !ok {
				t.Fatalf("no entry %q", tt.name)
			}
			if e.Kind != tt.kind {
				t.Errorf("kind = %q, want %q", e.Kind, tt.kind)
			}
			for _, s := range tt.sig {
				if !strings.Contains(e.Signature, s) {
					t.Errorf("signature lacks %q:\n%s", s, e.Signature)
				}
			}
			for _, s := range tt.notSig {
				if strings.Contains(e.Signature, s) {
					t.Errorf("signature has %q:\n%s", s, e.Signature)
				}
			}
			if !strings.HasPrefix(e.Doc, tt.doc) {
				t.Errorf("doc = %q, want prefix %q", e.Doc, tt.doc)
			}
		})
	}
	for _, name := range []string{"unexported", "Embeds.x", "Iface.hidden", "Big.hidden", "Iface.Closer"} {
		if _, ok := byName[name]; ok {
			t.Errorf("unexported or embedded-interface entry %q indexed", name)
		}
	}
	long := byName["LongDoc"].Doc
	if n := strings.Count(long, "\n") + 1; n != MaxDocLines+1 || !strings.HasSuffix(long, "\n…") {
		t.Errorf("LongDoc doc has %d lines, ends %q", n, long[len(long)-10:])
	}
	if n := strings.Count(byName["Big"].Signature, "\n") + 1; n != MaxTypeLines {
		t.Errorf("Big signature has %d lines, want %d", n, MaxTypeLines)
	}
}

func TestStdPaths(t *testing.T) {
	got := StdPaths([]string{"fmt/fmt", "math/rand/rand", ".", "github.com/traefik/yaegi/stdlib/stdlib", "internal/abi/abi", "go/internal/x/x"})
	want := []string{"fmt", "math/rand"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("StdPaths = %v, want %v", got, want)
	}
}

func TestModuleRoot(t *testing.T) {
	root, err := ModuleRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "session", "docindex")); err != nil {
		t.Errorf("ModuleRoot = %q", root)
	}
	if _, err := ModuleRoot("/"); err == nil {
		t.Error("ModuleRoot(/) succeeded")
	}
}

// TestPromoted checks that methods promoted from a type of another module
// package, embedded through a local alias, are documented on the
// embedding type, and that the type's own methods win.
func TestPromoted(t *testing.T) {
	root, err := ModuleRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	ctx := build.Default
	p, err := Dir(&ctx, filepath.Join(root, "algo", "sssp"), Module+"/algo/sssp")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Entry{}
	for _, e := range p.Entries {
		got[e.Name] = e
	}
	for _, m := range []string{"Bytes", "PrepTime", "Label", "Device"} {
		e, ok := got["Prepared."+m]
		if !ok || e.Kind != "method" || !strings.HasPrefix(e.Signature, "func (b *Prepared) "+m+"(") || e.Doc == "" {
			t.Errorf("Prepared.%s: %+v (found %v)", m, e, ok)
		}
	}
	if e := got["Prepared.Close"]; !strings.Contains(e.Doc, "nil Prepared") {
		t.Errorf("Prepared.Close is not sssp's own: %+v", e)
	}
}
