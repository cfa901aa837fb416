package session

import (
	"reflect"
	"strings"
	"testing"
	"time"
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
			for _, r := range splitRuns(c.code, nil) {
				kind := "S:"
				if r.decl {
					kind = "D:"
				}
				got = append(got, kind+strings.TrimSpace(c.code[r.start:r.end]))
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("splitRuns(%q)\n got %q\nwant %q", c.code, got, c.want)
			}
		})
	}
}

func TestSplitRunsPositions(t *testing.T) {
	code := "x := 1\n\n  func f() {}\ny := 2"
	runs := splitRuns(code, nil)
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
	if n := len(splitRuns(code, nil)); n != 1 {
		t.Errorf("without a break: %d runs, want 1", n)
	}
	if n := len(splitRuns(code, []int{2})); n != 2 {
		t.Errorf("with a break on line 2: %d runs, want 2", n)
	}
}

func TestExtractMagics(t *testing.T) {
	cases := []struct {
		name   string
		code   string
		magics []magic
		rest   string
	}{
		{"none", "x := 1 % 2", nil, "x := 1 % 2"},
		{"line magics", "%time\nx := 1\n%env A=b c\ny", []magic{{1, "time", "", false}, {3, "env", "A=b c", false}}, "\nx := 1\n\ny"},
		{"last line", "x\n%gpu", []magic{{2, "gpu", "", false}}, "x\n"},
		{"indented is code", "  %time", nil, "  %time"},
		{"raw string", "s := `\n%time\n`\n%help", []magic{{4, "help", "", false}}, "s := `\n%time\n`\n"},
		{"block comment", "/*\n%time\n*/", nil, "/*\n%time\n*/"},
		{"string with a backquote", "s := \"`\"\n%time", []magic{{2, "time", "", false}}, "s := \"`\"\n"},
		{"rune with a quote", "r := '\"'\n%time", []magic{{2, "time", "", false}}, "r := '\"'\n"},
		{"line comment with a backquote", "x := 1 // `\n%time", []magic{{2, "time", "", false}}, "x := 1 // `\n"},
		{"%time STATEMENT", "a := 1\n%time x := f(\"%\")\ny", []magic{{2, "time", "", true}}, "a := 1\n      x := f(\"%\")\ny"},
		{"%time STATEMENT, last line", "%time x++", []magic{{1, "time", "", true}}, "      x++"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, rest := extractMagics(c.code)
			if !reflect.DeepEqual(m, c.magics) || rest != c.rest {
				t.Errorf("extractMagics(%q) = %v, %q; want %v, %q", c.code, m, rest, c.magics, c.rest)
			}
		})
	}
}

func TestCellMagic(t *testing.T) {
	for code, want := range map[string]string{
		"%%cuda add\nbody": "cuda add",
		"\n  %%time\nx":    "time",
	} {
		got, ok := cellMagic(code)
		if !ok || got != want {
			t.Errorf("cellMagic(%q) = %q, %v; want %q", code, got, ok, want)
		}
	}
	if _, ok := cellMagic("x := 1\n%%time"); ok {
		t.Error("a %% line after code is not a cell magic")
	}
}

func TestFormatWall(t *testing.T) {
	for d, want := range map[int64]string{1230000: "1.23 ms", 45000: "0.04 ms", 4567000000: "4.567 s"} {
		if got := formatWall(timeDuration(d)); got != want {
			t.Errorf("formatWall(%d) = %q, want %q", d, got, want)
		}
	}
}

func timeDuration(ns int64) time.Duration { return time.Duration(ns) }
