package session

import (
	"context"
	"testing"
)

// Method values of compiled pointer types compile and behave as Go's:
// wherever they appear, bound to the receiver when evaluated.
func TestMethodValuesOfCompiledPointers(t *testing.T) {
	s, _ := newTestSession(t, nil)
	mustRun(t, s, `g, _ := gen.RMAT(6, 4)
bb := new(bytes.Buffer)
bb.WriteString("first")`)
	cases := []struct{ name, code, want string }{
		{"define at the top level", "fn := bb.String\nfn()", `"first"`},
		{"assign at the top level", "fn2 := func() string { return \"\" }\nfn2 = bb.String\nfn2()", `"first"`},
		{"var with a type", "var fn3 func() string = bb.String\nfn3()", `"first"`},
		{"inside a function, a local receiver", `h := func() string {
	b := new(bytes.Buffer)
	b.WriteString("local")
	fn := b.String
	return fn()
}
h()`, `"local"`},
		{"a var declared in a function, assigned in a branch (notebook 06)", `h2 := func() string {
	var b *bytes.Buffer
	get := func() string { return "none" }
	if true {
		b = new(bytes.Buffer)
		b.WriteString("branch")
		get = b.String
	}
	return get()
}
h2()`, `"branch"`},
		{"returned from a function with a typed parameter", `k := func(c *graph.CSR) func() *graph.CSR { return c.Undirected }
k(g)() == g`, "true"},
		{"passed as an argument", `call := func(f func() string) string { return f() }
call(bb.String)`, `"first"`},
		{"bound when evaluated", `b1 := new(bytes.Buffer)
b1.WriteString("one")
early := b1.String
b1 = new(bytes.Buffer)
b1.WriteString("two")
early() + " " + b1.String()`, `"one two"`},
		{"no results", `w := new(bytes.Buffer)
w.WriteString("x")
reset := w.Reset
reset()
w.Len()`, "0"},
		{"several results and arguments", `w2 := new(bytes.Buffer)
write := w2.Write
n, err := write([]byte("abc"))
fmt.Sprint(n, err, w2.String())`, `"3 <nil>abc"`},
		{"variadic", `var sb strings.Builder
lg := log.New(&sb, "", 0)
printf := lg.Printf
printf("%d-%s", 7, "x")
sb.String()`, `"7-x\n"`},
		{"in a function declared in the cell", `func size(c *graph.CSR) func() int { return c.NumVertices }
size(g)()`, "64"},
		{"in a range loop over compiled pointers", `var fs []func() string
for _, b := range []*bytes.Buffer{bb, bb} {
	fs = append(fs, b.String)
}
fs[1]()`, `"first"`},
		{"a field of function type is not a method", `vs, _ := bench.LookupAll("bfs", "cpu/td")
vp := &vs[0]
prep := vp.Prepare
prep != nil`, "true"},
		{"after a called selector in the same statement", `c4 := new(bytes.Buffer)
c4.WriteString("x"); fn4 := c4.String
strings.ToUpper(fn4())`, `"X"`},
		{"a method value followed by calls", `c5 := new(bytes.Buffer)
c5.WriteString("y")
fn5 := c5.String
fn5() + strings.Repeat("z", c5.Len())`, `"yz"`},
		{"a local that shadows a pointer", `h3 := func() int { bb := []int{4}; return len(bb) }
h3()`, "1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, err := s.Execute(context.Background(), c.code, Cell{Count: 1})
			if err != nil {
				t.Fatalf("%v", describeErr(err))
			}
			if got := text(b); got != c.want {
				t.Errorf("result %q, want %q", got, c.want)
			}
		})
	}
}

// A method value whose receiver's type the heuristic pass cannot infer
// (here a field of a cell's struct type) is written by the typed pass
// methodvalues, from the checker's facts.
func TestMethodValueUnknownReceiver(t *testing.T) {
	s, _ := newTestSession(t, nil)
	mustRun(t, s, `type W struct{ b *bytes.Buffer }
w := W{new(bytes.Buffer)}`)
	mustRun(t, s, `get := func() string { return "" }
get = w.b.String`)
	mustRun(t, s, `var wr func([]byte) (int, error)
wr = w.b.Write
wr([]byte("the session "))`)
	mustRun(t, s, "w.b.WriteString(\"survives\")")
	if got := text(mustRun(t, s, "get()")); got != `"the session survives"` {
		t.Errorf("get() = %s", got)
	}
}

// The pass runs whenever a selector is not called, wherever the calls
// are in the cell.
func TestHasSelectorValue(t *testing.T) {
	s, _ := newTestSession(t, nil)
	for code, want := range map[string]bool{
		"f := a.B\nc.D()":  true,
		"c.D()\nf := a.B":  true,
		"c.D()\ne.F(g.H)":  true,
		"c.D()\ne.F(1)":    false,
		"x := 1 + 2":       false,
		"fmt.Println(a.B)": true,
	} {
		f, _ := newFixerFor(t, s, code)
		if got := f.HasSelectorValue(); got != want {
			t.Errorf("%q: %v, want %v", code, got, want)
		}
	}
}
