package complete

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestInspect(t *testing.T) {
	tests := []struct {
		name   string
		code   string   // "|" marks the cursor (default: the end)
		detail int      // detail_level
		plain  []string // substrings of text/plain
		md     []string // substrings of text/markdown
		absent []string // substrings text/plain must not have
	}{
		{name: "package function", code: "strings.Split",
			plain: []string{"func Split(s, sep string) []string", "Split slices s into all substrings separated by sep"},
			md:    []string{"```go\nfunc Split(s, sep string) []string\n```", "Split slices s into all substrings"}},
		{name: "doc links become Markdown links", code: "strings.Split",
			md: []string{"[SplitN](https://pkg.go.dev/strings#SplitN)", "[Cut](https://pkg.go.dev/strings#Cut)"}},
		{name: "cursor at the start of the name", code: "strings.|Split(a, b)", plain: []string{"func Split("}},
		{name: "cursor in the middle of the name", code: "x := strings.Sp|lit(a, b)", plain: []string{"func Split("}},
		{name: "cursor right after the name", code: "x := strings.Split|(a, b)", plain: []string{"func Split("}},
		{name: "inside the call's parentheses", code: "strings.Split(", plain: []string{"func Split("}},
		{name: "inside the call's arguments", code: "strings.Split(s, |)", plain: []string{"func Split("}},
		{name: "inside a string argument", code: `strings.Split(s, "|`, plain: []string{"func Split("}},
		{name: "innermost call", code: "fmt.Println(strings.ToUpper(|", plain: []string{"func ToUpper(s string) string"}, absent: []string{"Println"}},
		{name: "package name", code: "strings", plain: []string{`package strings // import "strings"`, "Package strings implements simple functions"}},
		{name: "package name, cursor inside", code: "str|ings.Split", plain: []string{`package strings // import "strings"`}},
		{name: "package by another name", code: "rand", plain: []string{`package rand // import "math/rand"`}},
		{name: "package detail 1 lists names", code: "strings", detail: 1, plain: []string{"Names: ", "Split", "Builder"}},
		{name: "graphnb function", code: "graph.Build", plain: []string{"func Build(el EdgeList, opt BuildOptions) (*CSR, error)"}},
		{name: "graphnb package", code: "graph", plain: []string{`package graph // import "github.com/graphnb/graphnb/graph"`, "CSR"}},
		{name: "method via type", code: "bytes.Buffer.WriteString",
			plain: []string{"func (b *Buffer) WriteString(s string) (n int, err error)", "WriteString appends"}},
		{name: "graphnb method via type", code: "graph.CSR.NumVertices", plain: []string{"func (g *CSR) NumVertices() int"}},
		{name: "type", code: "graph.CSR", plain: []string{"type CSR struct", "Offsets []int64", "compressed sparse row"}},
		{name: "type detail 1 lists methods", code: "graph.CSR", detail: 1, plain: []string{"func (g *CSR) NumVertices() int", "func (g *CSR) String() string"}},
		{name: "field via type", code: "graph.CSR.Offsets", plain: []string{"Offsets []int64"}},
		{name: "package constant with its value", code: "math.Pi", plain: []string{"Pi", "math.Pi = 3.14159"}},
		{name: "typed package constant", code: "time.Minute", plain: []string{"Minute", "time.Minute = 1m0s"}},
		{name: "package variable with its value", code: "io.EOF", plain: []string{"var EOF = ", "io.EOF = EOF"}},
		{name: "symbol-table entry the index lacks", code: "graph.NotInIndex", plain: []string{"func graph.NotInIndex(int) string", "not in the offline documentation index"}},
		{name: "variable: type, value, type doc", code: "g",
			plain: []string{"var g *graph.CSR", "undirected graph: 3 vertices, 2 edges", "type CSR struct", "compressed sparse row"},
			md:    []string{"```go\nvar g *graph.CSR\n```", "```text\n"}},
		{name: "variable's method", code: "g.NumVertices()", plain: []string{"func (g *CSR) NumVertices() int"}},
		{name: "variable's method, cursor inside", code: "g.NumVer|tices()", plain: []string{"func (g *CSR) NumVertices() int"}},
		{name: "variable's field: doc and value", code: "g.Offsets",
			plain: []string{"Offsets []int64 // field of graph.CSR", "g.Offsets = [0 1 3 4]", "NumVertices()+1 non-decreasing"}},
		{name: "addressable value's pointer method", code: "buf.WriteString", plain: []string{"func (b *Buffer) WriteString"}},
		{name: "basic-typed variable", code: "d", plain: []string{"var d time.Duration", "1h30m0s", "type Duration int64"}},
		{name: "method of a basic-typed variable", code: "d.Hours", plain: []string{"func (d Duration) Hours() float64"}},
		{name: "unicode variable", code: "x := größe", plain: []string{"var größe int", "42"}},
		{name: "unicode variable, cursor inside", code: "x := grö|ße + 1", plain: []string{"var größe int"}},
		{name: "unicode before the cursor", code: "s := \"ünïcödé\" + strings.Rep|eat(s, 2)", plain: []string{"func Repeat(s string, count int) string"}},
		{name: "undocumented type: reflection", code: "p.Scale", plain: []string{"func (*complete.point) Scale(int)"}},
		{name: "undocumented value method", code: "p.Norm", plain: []string{"func (*complete.point) Norm() float64"}},
		{name: "field chain", code: "p.Inner.Label", plain: []string{"field Label string", "p.Inner.Label = in"}},
		{name: "promoted field", code: "p.Count", plain: []string{"field Count int", "p.Count = 0"}},
		{name: "through a nil pointer: type only", code: "p.Ptr.Label", plain: []string{"field Label string"}, absent: []string{"p.Ptr.Label ="}},
		{name: "big slice: bounded summary", code: "big", plain: []string{"var big []int", "[0 1 2 3", "…", "(len 100000)"}},
		{name: "map: sorted keys", code: "m", plain: []string{"map[a:1 b:2]"}},
		{name: "String that panics", code: "b", plain: []string{"panic in String"}},
		{name: "error value", code: "err", plain: []string{"oops: disk"}},
		{name: "nil pointer value", code: "nilp", plain: []string{"var nilp *complete.point", "<nil>"}},
		{name: "function-valued variable", code: "sq(3)", plain: []string{"func sq(int) int"}, absent: []string{"0x"}},
		{name: "builtin function", code: "x := len(xs)", plain: []string{"func len(v Type) int", "length"}, absent: []string{"xs"}},
		{name: "builtin min", code: "min", plain: []string{"func min[T cmp.Ordered](x T, y ...T) T"}},
		{name: "builtin type", code: "var x int64", plain: []string{"type int64 int64"}},
		{name: "keyword", code: "for", plain: []string{"for: loop"}},
		{name: "magic", code: "%time", plain: []string{"%time: report the cell's wall-clock time."}},
		{name: "magic, cursor inside", code: "%ti|me\nx := 1", plain: []string{"%time:"}},
	}
	sc := newScope()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, cur := at(tt.code)
			data, found := Inspect(code, cur, tt.detail, sc)
			if !found {
				t.Fatalf("Inspect(%q, %d) not found", code, cur)
			}
			plain, _ := data["text/plain"].(string)
			md, _ := data["text/markdown"].(string)
			if plain == "" || md == "" {
				t.Fatalf("bundle lacks text/plain or text/markdown: %v", data)
			}
			for _, s := range tt.plain {
				if !strings.Contains(plain, s) {
					t.Errorf("text/plain lacks %q:\n%s", s, plain)
				}
			}
			for _, s := range tt.md {
				if !strings.Contains(md, s) {
					t.Errorf("text/markdown lacks %q:\n%s", s, md)
				}
			}
			for _, s := range tt.absent {
				if strings.Contains(plain, s) {
					t.Errorf("text/plain has %q:\n%s", s, plain)
				}
			}
		})
	}
}

func TestInspectNotFound(t *testing.T) {
	sc := newScope()
	for _, code := range []string{
		"",
		"   ",
		"nosuch",
		"nosuch.Thing",
		"strings.NoSuchFunc",
		"graph.CSR.NoSuchMethod",
		"g.NoSuchMethod",
		"p.hide",       // unexported
		"p.unexported", // unexported method
		"fib",          // a cell's function: nothing known
		"sort.Strings", // "sort" is shadowed by a cell's name
		"x := 1 // strings.Split",
		"f().Method",
		"1.5",
		"%nosuchmagic",
		"%%cuda k\n__global__ void f() { strings.Split",
	} {
		if data, found := Inspect(code, utf8.RuneCountInString(code), 0, sc); found {
			t.Errorf("Inspect(%q) found: %v", code, data)
		}
	}
}

func TestInspectDetail(t *testing.T) {
	sc := newScope()
	short, ok1 := Inspect("fmt", 3, 0, sc)
	long, ok2 := Inspect("fmt", 3, 1, sc)
	if !ok1 || !ok2 {
		t.Fatal("fmt not found")
	}
	s, l := short["text/plain"].(string), long["text/plain"].(string)
	if len(s) >= len(l) || !strings.Contains(s, "…") {
		t.Errorf("detail 0 (%d bytes) should be a cut of detail 1 (%d bytes)", len(s), len(l))
	}
	if n := strings.Count(s, "\n"); n > shortDocLines+6 {
		t.Errorf("detail 0 has %d lines", n)
	}
}

func TestSummarize(t *testing.T) {
	sc := newScope()
	v, _ := sc.Value("big")
	s := summarize(v, maxValueBytes)
	if len(s) > maxValueBytes+40 || !strings.HasPrefix(s, "[0 1 2") || !strings.HasSuffix(s, "… (len 100000)") {
		t.Errorf("summary of a big slice: %d bytes: %q", len(s), s)
	}
	long := strings.Repeat("é", 1000)
	v = reflectValue(long)
	s = summarize(v, maxValueBytes)
	if !utf8.ValidString(s) || len(s) > maxValueBytes+4 {
		t.Errorf("summary of a long string: %d bytes, valid UTF-8 %v", len(s), utf8.ValidString(s))
	}
}
