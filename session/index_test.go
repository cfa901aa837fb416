package session

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/printer"
	"go/token"
	"go/types"
	"io"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/graphnb/graphnb/algo/mst"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/session/internal/rewrite"
	"github.com/graphnb/graphnb/symbols"
	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
)

// Types of the compiled test package "tz".
type (
	tzIDs  []int32
	tzPair struct{ A, B int32 }
	tzHide struct{ a int } // not in the tables: unexported field, no name there
)

// tzSymbols is a compiled package for cells, "graphnb.test/tz": values of
// the shapes graphnb's packages do not return (maps, arrays, pointers to
// arrays, channels, slices of functions).
func tzSymbols() map[string]map[string]reflect.Value {
	ch := make(chan int32, 4)
	ch <- 7
	return map[string]map[string]reflect.Value{
		"graphnb.test/tz/tz": {
			"M":     reflect.ValueOf(func() map[string]int32 { return map[string]int32{"a": 1} }),
			"PA":    reflect.ValueOf(func() *[3]int32 { return &[3]int32{1, 2, 3} }),
			"A":     reflect.ValueOf(func() [3]int32 { return [3]int32{1, 2, 3} }),
			"Ch":    reflect.ValueOf(func() chan int32 { return ch }),
			"F":     reflect.ValueOf(func() []func(int) int { return []func(int) int{func(i int) int { return i + 1 }} }),
			"IDs":   reflect.ValueOf((*tzIDs)(nil)),
			"Pair":  reflect.ValueOf((*tzPair)(nil)),
			"Get":   reflect.ValueOf(func() tzIDs { return tzIDs{4, 5} }),
			"Pairs": reflect.ValueOf(func() []tzPair { return []tzPair{{1, 2}} }),
			"MP":    reflect.ValueOf(func() map[tzPair][]tzPair { return map[tzPair][]tzPair{{1, 2}: {{3, 4}}} }),
			"Hide":  reflect.ValueOf(func() []tzHide { return []tzHide{{1}} }),
		},
	}
}

// fixerSession is a session with graphnb's packages, tz, and a few
// variables of earlier cells.
func fixerSession(t *testing.T) *Session {
	t.Helper()
	s, _ := newTestSession(t, tzSymbols())
	mustRun(t, s, `g, _ := gen.RMAT(6, 4)
r := g.Roots(2, 1)
s := "abc"
m, _ := mst.Kruskal(g)
var st fmt.Stringer = time.Second
u, _ := url.Parse("http://x.org/p")
q, _ := url.ParseQuery("a=1")
ch := make(chan int)
pa := tz.PA()
ids := tz.Get()
fs := tz.F()
xs := []int{1}
func first[T any](xs []T) T { return xs[0] }`)
	return s
}

// newFixerFor parses code as Execute does and returns a fixer for it
// (not yet run) and the parsed runs.
func newFixerFor(t *testing.T, s *Session, code string) (*rewrite.Probe, []*rewrite.Run) {
	t.Helper()
	serial := s.register(code, 1)
	p, err := rewrite.NewProbe(rewriteEnv{s}, s.in.FileSet(), serial, code)
	if err != nil {
		t.Fatalf("%q: %v", code, err)
	}
	return p, p.Runs
}

func typeName(t reflect.Type) string {
	if t == nil {
		return "<nil>"
	}
	return t.String()
}

func exprText(e ast.Expr) string {
	if e == nil {
		return "<nil>"
	}
	return types.ExprString(e)
}

// nodeSource prints generated code on one line.
func nodeSource(t *testing.T, n any) string {
	t.Helper()
	var b bytes.Buffer
	if err := printer.Fprint(&b, token.NewFileSet(), n); err != nil {
		t.Fatal(err)
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

func TestTypeAST(t *testing.T) {
	s := fixerSession(t)
	cases := []struct {
		t    reflect.Type
		want string
	}{
		{reflect.TypeOf(int32(0)), "int32"},
		{reflect.TypeOf(byte(0)), "byte"},
		{reflect.TypeOf(""), "string"},
		{reflect.TypeOf((*error)(nil)).Elem(), "error"},
		{reflect.TypeOf((*any)(nil)).Elem(), "interface{}"},
		{reflect.TypeOf([]int32{}), "[]int32"},
		{reflect.TypeOf([3]float64{}), "[3]float64"},
		{reflect.TypeOf(map[string][]int32{}), "map[string][]int32"},
		{reflect.TypeOf(&graph.CSR{}), "*graph.CSR"},
		{reflect.TypeOf([]mst.Edge{}), "[]mst.Edge"},
		{reflect.TypeOf(time.Second), "time.Duration"},
		{reflect.TypeOf(url.Values{}), "url.Values"},
		{reflect.TypeOf((*fmt.Stringer)(nil)).Elem(), "fmt.Stringer"},
		{reflect.TypeOf(make(chan int)), "chan int"},
		{reflect.TypeOf(make(<-chan int)), "<-chan int"},
		{reflect.TypeOf(make(chan<- int)), "chan<- int"},
		{reflect.TypeOf(func(int, ...string) (bool, error) { return false, nil }), "func(int, ...string) (bool, error)"},
		{reflect.TypeOf(struct {
			A int `json:"a"`
		}{}), "struct{A int}"}, // with its tag (checked below)
		{reflect.TypeOf(tzPair{}), "tz.Pair"},
		{reflect.TypeOf(tzIDs{}), "tz.IDs"},
		{reflect.TypeOf(struct{ a int }{}), "<nil>"},               // an unexported field
		{reflect.TypeOf(tzHide{}), "<nil>"},                        // not in the tables
		{reflect.TypeOf(unsafe.Pointer(nil)), "unsafe.Pointer"},    // cells can import unsafe
		{reflect.TypeOf((*interface{ M() })(nil)).Elem(), "<nil>"}, // an unnamed interface with methods
	}
	for _, c := range cases {
		t.Run(c.want, func(t *testing.T) {
			f, _ := newFixerFor(t, s, "1")
			if got := exprText(f.TypeAST(c.t, token.NoPos)); got != c.want {
				t.Errorf("typeAST(%v) = %s, want %s", c.t, got, c.want)
			}
		})
	}
	f, _ := newFixerFor(t, s, "1")
	st, ok := f.TypeAST(reflect.TypeOf(struct {
		A int `json:"a"`
	}{}), token.NoPos).(*ast.StructType)
	if !ok || st.Fields.List[0].Tag == nil || st.Fields.List[0].Tag.Value != "`json:\"a\"`" && st.Fields.List[0].Tag.Value != `"json:\"a\""` {
		t.Errorf("struct tag lost: %#v", st)
	}
}

// TestTypeASTImports checks how printed types reach their packages: a
// bound name, an automatic import, an alias when the name is taken, the
// cell's own import.
func TestTypeASTImports(t *testing.T) {
	s, _ := newTestSession(t, nil)
	csr := reflect.TypeOf(&graph.CSR{})
	edge := reflect.TypeOf(mst.Edge{})

	f, _ := newFixerFor(t, s, "1")
	if got := exprText(f.TypeAST(edge, token.NoPos)); got != "mst.Edge" {
		t.Errorf("fresh session: %s, want mst.Edge", got)
	}
	if got := f.Imports()["mst"]; got != graphnbPrefix+"algo/mst" {
		t.Errorf("fresh session: imports %v, want mst", f.Imports())
	}

	mustRun(t, s, "graph := 1")
	f, _ = newFixerFor(t, s, "1")
	if got := exprText(f.TypeAST(csr, token.NoPos)); got != "*__gnb_graph.CSR" {
		t.Errorf("graph taken: %s, want *__gnb_graph.CSR", got)
	}
	if got := f.Imports()["__gnb_graph"]; got != graphnbPrefix+"graph" {
		t.Errorf("graph taken: imports %v, want __gnb_graph", f.Imports())
	}

	f, _ = newFixerFor(t, s, "1")
	f.SetHere(map[string]string{"gr": graphnbPrefix + "graph"})
	if got := exprText(f.TypeAST(csr, token.NoPos)); got != "*gr.CSR" || len(f.Imports()) != 0 {
		t.Errorf("cell import gr: %s %v, want *gr.CSR and no import", got, f.Imports())
	}

	// The alias works in a cell, and is reused.
	mustRun(t, s, "g, _ := gen.RMAT(4, 2)\nm, _ := mst.Kruskal(g)")
	mustRun(t, s, "mst := 2")
	for i := 0; i < 2; i++ {
		b := mustRun(t, s, "e := m.Edges[0]\nfmt.Sprintf(\"%T\", e)")
		if got := text(b); got != `"mst.Edge"` {
			t.Errorf("run %d: %s, want \"mst.Edge\"", i, got)
		}
	}

	// A cell's byte is __gnb_u_byte to the interpreter (typed_universe.go):
	// byte keeps its meaning there.
	mustRun(t, s, "byte := 3")
	f, _ = newFixerFor(t, s, "1")
	if got := exprText(f.TypeAST(reflect.TypeOf(byte(0)), token.NoPos)); got != "byte" {
		t.Errorf("byte redeclared: %s, want byte", got)
	}
}

func TestExprType(t *testing.T) {
	s := fixerSession(t)
	cases := []struct{ expr, want string }{
		{"g", "*graph.CSR"},
		{"g.Roots(1, 1)", "[]int32"},
		{"g.Roots(1, 1)[0]", "int32"},
		{"r[0]", "int32"},
		{"g.Adj", "[]int32"},
		{"g.Neighbors(0)[0]", "int32"},
		{"-r[0]", "int32"},
		{"r[0] + 1", "int32"},
		{"r[0] == 1", "bool"},
		{"(r)[0]", "int32"},
		{"s[1]", "uint8"},
		{`"xyz"[1]`, "uint8"},
		{"s[1:]", "string"},
		{"r[1:]", "[]int32"},
		{"m.Edges[0]", "mst.Edge"},
		{"m.Edges[0].W", "float64"},
		{"*u", "url.URL"},
		{"u.Host", "string"},
		{"u.Query()", "url.Values"},
		{`q["a"]`, "[]string"},
		{`q["a"][0]`, "string"},
		{"<-ch", "int"},
		{"st", "fmt.Stringer"},
		{"st.String()", "string"},
		{"st.(time.Duration)", "time.Duration"},
		{"len(r)", "int"},
		{"append(r, 1)", "[]int32"},
		{"int64(r[0])", "int64"},
		{"new(int)", "*int"},
		{"make(map[string]int)", "map[string]int"},
		{"min(r[0], 3)", "int32"},
		{"pa[1]", "int32"},
		{"pa[:]", "[]int32"},
		{"&r[0]", "*int32"},
		{"ids[0]", "int32"},
		{"ids", "session.tzIDs"},
		{`tz.M()["a"]`, "int32"},
		{"tz.A()[1]", "int32"},
		{"tz.MP()[tz.Pair{1, 2}][0]", "session.tzPair"},
		{"fs[0](3)", "int"},
		{"xs[0]", "int"},
		{"[]int{1}[0]", "int"},
		{"map[string]bool{}", "map[string]bool"},
		{"graph.EdgeList{}", "graph.EdgeList"},
		{"time.Second", "time.Duration"},
		{"nosuch", "<nil>"},
		{"nosuch[0]", "<nil>"},
		{"g.NoSuch", "<nil>"},
		{"3", "<nil>"}, // untyped
		{"first(xs)", "<nil>"},
	}
	for _, c := range cases {
		t.Run(c.expr, func(t *testing.T) {
			f, ps := newFixerFor(t, s, c.expr)
			e := ps[0].Body().List[0].(*ast.ExprStmt).X
			if got := typeName(f.ExprType(e)); got != c.want {
				t.Errorf("exprType(%s) = %s, want %s", c.expr, got, c.want)
			}
		})
	}
}

// TestExprTypeScopes checks that definitions of the cell shadow the
// values of earlier cells, statement by statement.
func TestExprTypeScopes(t *testing.T) {
	s := fixerSession(t)
	f, _ := newFixerFor(t, s, "a := g.Roots(1, 1)\nb := a[0]\nr := \"text\"\nc := r[0]\nvar d = tz.Get()\ne, err := gen.RMAT(4, 2)")
	f.FixRuns()
	for name, want := range map[string]string{
		"a": "[]int32", "b": "int32", "r": "string", "c": "uint8", "d": "session.tzIDs",
		"e": "*graph.CSR", "err": "error",
	} {
		et, ok := f.Lookup(name)
		if !ok || typeName(et) != want {
			t.Errorf("%s: %v %v, want %s", name, ok, typeName(et), want)
		}
	}
}

// TestExprTypeTrust checks the values whose static type the session
// cannot tell: a cell's interface type, and every unnamed type once a
// cell declared a type that is not a struct.
func TestExprTypeTrust(t *testing.T) {
	s := fixerSession(t)
	mustRun(t, s, "type P struct{ X int }\nps := []P{{1}}\ntype Shape interface{ Area() int }\nvar sh Shape")
	for expr, want := range map[string]string{"ps": "<nil>", "sh": "<nil>", "r": "[]int32"} {
		f, ps := newFixerFor(t, s, expr)
		if got := typeName(f.ExprType(ps[0].Body().List[0].(*ast.ExprStmt).X)); got != want {
			t.Errorf("structs only: exprType(%s) = %s, want %s", expr, got, want)
		}
	}
	mustRun(t, s, "type ID int32")
	for expr, want := range map[string]string{"r": "<nil>", "xs": "<nil>", "g": "*graph.CSR", "g.Roots(1, 1)": "[]int32", "st": "fmt.Stringer"} {
		f, ps := newFixerFor(t, s, expr)
		if got := typeName(f.ExprType(ps[0].Body().List[0].(*ast.ExprStmt).X)); got != want {
			t.Errorf("after type ID: exprType(%s) = %s, want %s", expr, got, want)
		}
	}
}

func TestFixRewrites(t *testing.T) {
	s := fixerSession(t)
	cases := []struct {
		code, want string
		unresolved int
	}{
		{"y := g.Roots(1, 1)[0]", "y := int32(g.Roots(1, 1)[0])", 0},
		{"y := r[0]", "y := int32(r[0])", 0},
		{"y := -r[0]", "y := -int32(r[0])", 0},
		{"y, _ := r[0], 0", "y, _ := int32(r[0]), 0", 0},
		{"p := s[1]", `p := byte(s[1])`, 0},
		{`p := "xyz"[1]`, `p := byte("xyz"[1])`, 0},
		{"a := &r[0]", "a := &[]int32(r)[0]", 0},
		{"q2 := pa[1]", "q2 := int32((*pa)[1])", 0},
		{"q3 := &pa[1]", "q3 := &[]int32((*pa)[:])[1]", 0},
		{"e := m.Edges[0].W", "e := mst.Edge(m.Edges[0]).W", 0},
		{"e := tz.MP()[tz.Pair{1, 2}][0]", "e := tz.Pair([]tz.Pair(tz.MP()[tz.Pair{1, 2}])[0])", 0},
		{"y := fs[0](3)", "y := (func(int) int)(fs[0])(3)", 0},
		{"y := g.Neighbors(r[0])", "y := g.Neighbors(int32(r[0]))", 0},
		{"lo := min(r[0], 3)", "lo := int32(min(int32(r[0]), 3))", 0},
		{"lo := min(2, 2.5)", "lo := float64(min(2, 2.5))", 0},
		{"f := first([]string{\"a\"})", "f := string(first([]string{\"a\"}))", 0},
		{"f := first[int](xs)", "f := int(first[int](xs))", 0},
		{"if v := r[0]; v > 0 {\n}", "if v := int32(r[0]); v > 0 { }", 0},
		{"L:\n\ty := r[0]", "L: y := int32(r[0])", 0},
		{"var w = r[0]", "var w = int32(r[0])", 0},
		// Left alone.
		{"y := r[0:1]", "y := r[0:1]", 0},
		{"n := len(r)", "n := len(r)", 0},
		{"y := int32(r[0])", "y := int32(int32(r[0]))", 0},
		{"r[0]", "r[0]", 0},
		{"r[0] = 1", "r[0] = 1", 0},
		{"y := func() int32 { return r[0] }()", "y := func() int32 { return r[0] }()", 0},
		{"for i := 0; i < 1; i++ {\n\ty := r[i]\n\t_ = y\n}", "for i := 0; i < 1; i++ { y := r[i] _ = y }", 0},
		{"y := nosuch[0]", "y := nosuch[0]", 1},
		{"h := tz.Hide()[0]", "h := tz.Hide()[0]", 1},
	}
	for _, c := range cases {
		t.Run(c.code, func(t *testing.T) {
			f, ps := newFixerFor(t, s, c.code)
			f.FixRuns()
			var got string
			if ps[0].Decl() {
				got = nodeSource(t, ps[0].File().Decls[0])
			} else {
				got = nodeSource(t, ps[0].Body().List[0])
			}
			if got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
			if f.Unresolved() != c.unresolved {
				t.Errorf("%d unresolved, want %d", f.Unresolved(), c.unresolved)
			}
		})
	}
}

func TestFixCommaOk(t *testing.T) {
	s := fixerSession(t)
	mustRun(t, s, "type P struct{ X int }\npm := map[string]P{}\nvar a any = 1")
	cases := []struct{ code, want string }{
		{`v, ok := q["a"]`, `v, ok := func() ([]string, bool) { __gnb_v1, __gnb_ok2 := q["a"] return __gnb_v1, __gnb_ok2 }()`},
		{"v, ok := <-ch", "v, ok := func() (int, bool) { __gnb_v1, __gnb_ok2 := <-ch return __gnb_v1, __gnb_ok2 }()"},
		{"d, ok := a.(time.Duration)", "d, ok := func() (time.Duration, bool) { __gnb_v1, __gnb_ok2 := a.(time.Duration) return __gnb_v1, __gnb_ok2 }()"},
		// The value type is unknown (a cell's struct type): evaluated twice.
		{`p, ok := pm["k"]`, `p, ok := pm["k"], false | p, ok = pm["k"]`},
		// Unknown and a receive: left (the error explains).
		{"v, ok := <-idc", "v, ok := <-idc"},
	}
	for _, c := range cases {
		t.Run(c.code, func(t *testing.T) {
			if strings.Contains(c.code, "idc") {
				mustRun(t, s, "type ID int\nidc := make(chan ID)")
			}
			f, ps := newFixerFor(t, s, c.code)
			f.FixRuns()
			var parts []string
			for _, st := range ps[0].Body().List {
				parts = append(parts, nodeSource(t, st))
			}
			if got := strings.Join(parts, " | "); got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

func TestNeedsFunc(t *testing.T) {
	s, _ := newTestSession(t, nil)
	cases := []struct {
		code string
		want bool
	}{
		{"for {\n\ta, b := f()\n}", true},
		{"if true {\n\tv, ok := m[k]\n}", true},
		{"if v, ok := m[k]; ok {\n}", true},
		{"{\n\tvar a, b = f()\n}", true},
		{"L:\n\tfor {\n\t\ta, b := f()\n\t}", true},
		{"switch {\ncase true:\n\ta, b := f()\n}", true},
		{"a, b := f()", false},                     // a top-level definition: yaegi declares it
		{"for {\n\ta := f()\n}", false},            // one variable
		{"for {\n\ta, b := 1, 2\n}", false},        // one value each
		{"go func() {\n\ta, b := f()\n}()", false}, // already in a function
		{"for {\n\tfunc() { a, b := f() }()\n}", false},
	}
	for _, c := range cases {
		t.Run(c.code, func(t *testing.T) {
			f, ps := newFixerFor(t, s, c.code)
			if got := f.NeedsFunc(ps[0].Body().List[0]); got != c.want {
				t.Errorf("needsFunc = %v, want %v", got, c.want)
			}
		})
	}
}

func TestFixStale(t *testing.T) {
	s, _ := newTestSession(t, nil)
	cases := []struct{ code, want string }{
		{"func f() {\n\tv, ok := m[k]\n}", "func f() { v, ok := m[k] if !ok { v = m[k] } }"},
		{"func f() {\n\tv, ok = m[k]\n}", "func f() { v, ok = m[k] if !ok { v = m[k] } }"},
		{"func f() {\n\tn, ok := x.(int)\n}", "func f() { n, ok := x.(int) if !ok { var __gnb_z1 int n = __gnb_z1 } }"},
		{"func f() {\n\tif v, ok := m[k]; ok {\n\t}\n}", "func f() { { v, ok := m[k] if !ok { v = m[k] } if ok { } } }"},
		{"func f() {\n\tv, ok := m[g()]\n}", "func f() { v, ok := m[g()] }"}, // not pure
		{"func f() {\n\tv, ok := m[v]\n}", "func f() { v, ok := m[v] }"},     // reads v
		{"func f() {\n\tv, _ := m[k]\n}", "func f() { v, _ := m[k] }"},       // no status
		{"func f() {\n\tv, ok := <-c\n}", "func f() { v, ok := <-c }"},       // yaegi is right
	}
	for _, c := range cases {
		t.Run(c.code, func(t *testing.T) {
			f, ps := newFixerFor(t, s, c.code)
			f.FixStale(ps[0])
			if got := nodeSource(t, ps[0].File().Decls[0]); got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

func TestVarDefs(t *testing.T) {
	s, _ := newTestSession(t, nil)
	cases := []struct{ code, want string }{
		{"var y = x", "y := x"},
		{"var y int64 = x", "y := int64(x)"},
		{"var y *int = nil", "y := (*int)(nil)"},
		{"var a, b = f()", "a, b := f()"},
		{"var a, b = 1, 2", "a, b := 1, 2"},
		{"var _ = f()", "_ = f()"},
		{"var y int", "<nil>"},
		{"var a, b int = f()", "<nil>"},
	}
	for _, c := range cases {
		t.Run(c.code, func(t *testing.T) {
			_, ps := newFixerFor(t, s, c.code)
			stmts := rewrite.VarDefs(ps[0].File().Decls[0].(*ast.GenDecl))
			got := "<nil>"
			if stmts != nil {
				got = nodeSource(t, stmts[0])
			}
			if got != c.want {
				t.Errorf("got %s, want %s", got, c.want)
			}
		})
	}
}

// TestExplainMessages checks that the errors the session cannot avoid
// name the expression and the fix.
func TestExplainMessages(t *testing.T) {
	s, _ := newTestSession(t, tzSymbols())
	mustRun(t, s, "g, _ := gen.RMAT(4, 2)\nr := g.Roots(1, 1)")
	cases := []struct{ code, want string }{
		{"h := tz.Hide()[0]", "Unsupported: yaegi, the interpreter, cannot infer the type of `tz.Hide()[0]` at the top level of a cell; write `h := T(tz.Hide()[0])` with its type T, or declare `var h T` first"},
		{"y := nosuch[0]", "CompileError: undefined: nosuch"},
		{"var w = nosuch[0]", "CompileError: undefined: nosuch"},
	}
	for _, c := range cases {
		t.Run(c.code, func(t *testing.T) {
			_, err := s.Execute(context.Background(), c.code, Cell{Count: 2})
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v, want an *Error", err)
			}
			if got := e.EName() + ": " + e.EValue(); got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

// TestYaegiGaps documents the yaegi v0.16.1 behaviour the rewrites work
// around, on a bare interpreter: if an upgrade fixes one, this test says
// so (and the rewrite may go).
func TestYaegiGaps(t *testing.T) {
	cases := []struct {
		name, code string
		fails      bool
	}{
		{"compiled index", "y := r[0]", true},
		{"converted index", "y := int32(r[0])", false},
		{"string index", "s := \"abc\"\np := s[1]", true},
		{"index in a function", "func f() int32 { return r[0] }", false},
		{"generic call", "y := min2(3, 5)", true},
		{"converted generic call", "y := int(min2(3, 5))", false},
		{"comma-ok", "m := map[string]int{}\nv, ok := m[\"a\"]", true},
		{"comma-ok in a block", "m := map[string]int{}\n{\n\tv, ok := m[\"a\"]\n\t_, _ = v, ok\n}", true},
		{"var reading an earlier variable", "var w = n", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			i := interp.New(interp.Options{Stdout: io.Discard, Stderr: io.Discard})
			if err := i.Use(stdlib.Symbols); err != nil {
				t.Fatal(err)
			}
			if err := i.Use(symbols.Symbols); err != nil {
				t.Fatal(err)
			}
			for _, setup := range []string{
				`import "github.com/graphnb/graphnb/graph/gen"`,
				"g, _ := gen.RMAT(4, 2)",
				"r := g.Roots(1, 1)",
				"n := 3",
				"func min2[T int | float64](a, b T) T { if a < b { return a }; return b }",
			} {
				if _, err := i.Eval(setup); err != nil {
					t.Fatalf("%s: %v", setup, err)
				}
			}
			var err error
			func() {
				defer func() {
					if r := recover(); r != nil {
						err = fmt.Errorf("panic: %v", r)
					}
				}()
				_, err = i.Eval(c.code)
			}()
			if (err != nil) != c.fails {
				t.Errorf("%q: error %v, want failure %v", c.code, err, c.fails)
			}
		})
	}
}

// BenchmarkExecuteIndexDefinition measures top-level definitions that the
// index rewrite handles — y := r[0] with r a compiled slice of an earlier
// cell (its type read from its value), y := g.Roots(1, 1)[0] (typed from
// the symbol tables) — next to one it leaves alone (y := len(r)). Every
// top-level definition adds a slot to yaegi's global frame, which later
// cells pay for, so the session is renewed every 256 cells.
func BenchmarkExecuteIndexDefinition(b *testing.B) {
	ctx := context.Background()
	for _, c := range []struct{ name, code string }{
		{"plain_len", "y := len(r)"},
		{"var_index", "y := r[0]"},
		{"method_index", "y := g.Roots(1, 1)[0]"},
	} {
		b.Run(c.name, func(b *testing.B) {
			var s *Session
			newSession := func() {
				if s != nil {
					s.Close()
				}
				var err error
				if s, err = New(withGraphnb(Options{})); err != nil {
					b.Fatal(err)
				}
				if _, err := s.Execute(ctx, "g, _ := gen.RMAT(6, 4)\nr := g.Roots(1, 1)", Cell{Count: 1}); err != nil {
					b.Fatal(err)
				}
			}
			newSession()
			defer func() { s.Close() }()
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if i++; i%256 == 0 {
					b.StopTimer()
					newSession()
					b.StartTimer()
				}
				if _, err := s.Execute(ctx, c.code, Cell{Count: 2}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
