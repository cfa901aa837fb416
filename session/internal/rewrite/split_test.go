package rewrite

import (
	"reflect"
	"strings"
	"testing"
)

func TestSplitRuns(t *testing.T) {
	cases := []struct {
		name string
		code string
		want []string // "D:" or "S:" and the run's text, trimmed
	}{
		{"expression", "1+1", []string{"S:1+1"}},
		{"declarations then statements", "import \"fmt\"\nfunc f() {}\nx := 1\nf()",
			[]string{"D:import \"fmt\"\nfunc f() {}", "S:x := 1\nf()"}},
		{"interleaved", "x := 1\ntype T int\ny := T(x)\nconst c = 2\nvar v = c",
			[]string{"S:x := 1", "D:type T int", "S:y := T(x)", "D:const c = 2\nvar v = c"}},
		{"function literal called at once is a statement", "func() {\n\tprintln(1)\n}()",
			[]string{"S:func() {\n\tprintln(1)\n}()"}},
		{"literal with parameters and a result", "func(x int) int { return x }(3)",
			[]string{"S:func(x int) int { return x }(3)"}},
		{"literal with two results", "func(x int) (int, error) { return x, nil }(3)",
			[]string{"S:func(x int) (int, error) { return x, nil }(3)"}},
		{"method declaration", "func (r T) M() int { return 1 }\nr.M()",
			[]string{"D:func (r T) M() int { return 1 }", "S:r.M()"}},
		{"pointer receiver", "func (r *T) M() {}", []string{"D:func (r *T) M() {}"}},
		{"generic function", "func Max[T int | float64](a, b T) T { return a }\nMax(1, 2)",
			[]string{"D:func Max[T int | float64](a, b T) T { return a }", "S:Max(1, 2)"}},
		{"nested braces stay in one item", "for i := 0; i < 3; i++ {\n\tfunc() {}()\n\ttype x int\n}\nvar z int",
			[]string{"S:for i := 0; i < 3; i++ {\n\tfunc() {}()\n\ttype x int\n}", "D:var z int"}},
		{"grouped declarations", "import (\n\t\"a\"\n\t\"b\"\n)\nvar (\n\tp = 1\n)",
			[]string{"D:import (\n\t\"a\"\n\t\"b\"\n)\nvar (\n\tp = 1\n)"}},
		{"comments only", "// nothing\n/* here */", nil},
		{"empty", "", nil},
		{"semicolons", "x := 1; y := 2; func g() {}", []string{"S:x := 1; y := 2;", "D:func g() {}"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, r := range Split(c.code, nil) {
				kind := "S:"
				if r.decl {
					kind = "D:"
				}
				got = append(got, kind+strings.TrimSpace(c.code[r.start:r.end]))
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("Split(%q)\n got %q\nwant %q", c.code, got, c.want)
			}
		})
	}
}

func TestSplitRunsPositions(t *testing.T) {
	code := "x := 1\n\n  func f() {}\ny := 2"
	runs := Split(code, nil)
	want := []struct {
		line, col int
		decl      bool
	}{{1, 1, false}, {3, 3, true}, {4, 1, false}}
	if len(runs) != len(want) {
		t.Fatalf("got %d runs, want %d", len(runs), len(want))
	}
	for i, w := range want {
		if runs[i].line != w.line || runs[i].col != w.col || runs[i].decl != w.decl {
			t.Errorf("run %d at %d:%d decl=%v, want %d:%d decl=%v", i, runs[i].line, runs[i].col, runs[i].decl, w.line, w.col, w.decl)
		}
	}
}

func TestSplitRunsBreaks(t *testing.T) {
	// A magic on line 2 separates two statement runs.
	code := "x := 1\n\ny := 2"
	if n := len(Split(code, nil)); n != 1 {
		t.Errorf("without a break: %d runs, want 1", n)
	}
	if n := len(Split(code, []int{2})); n != 2 {
		t.Errorf("with a break on line 2: %d runs, want 2", n)
	}
}
