package complete

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// at splits a test input at its "|" marker: the code and the cursor in
// code points.
func at(s string) (string, int) {
	i := strings.Index(s, "|")
	if i < 0 {
		return s, utf8.RuneCountInString(s)
	}
	return s[:i] + s[i+1:], utf8.RuneCountInString(s[:i])
}

func TestComplete(t *testing.T) {
	tests := []struct {
		name  string
		code  string   // "|" marks the cursor (default: the end)
		want  []string // exact matches, in order; nil: see has/hasNot
		has   []string // matches that must be present
		not   []string // matches that must be absent
		start int      // code points; -1: don't check
		end   int
	}{
		{name: "package member", code: "fmt.Pri", want: []string{"Print", "Printf", "Println"}, start: 4, end: 7},
		{name: "package member, stdlib table", code: "x := strings.Spl", want: []string{"Split", "SplitAfter", "SplitAfterN", "SplitN"}, start: 13, end: 16},
		{name: "all members after dot", code: "bytes.", has: []string{"Buffer", "NewBuffer", "Compare"}, not: []string{"_Reader", "errNegativeRead"}, start: 6, end: 6},
		{name: "exact name first, then prefix, then other case",
			code: "fmt.Print", want: []string{"Print", "Printf", "Println"}, start: 4, end: 9},
		{name: "case-insensitive after case-sensitive", code: "fmt.sprint", want: []string{"Sprint", "Sprintf", "Sprintln"}, start: 4, end: 10},
		{name: "graphnb package", code: "graph.B", want: []string{"Build", "BuildOptions"}, start: 6, end: 7},
		{name: "bare identifier: names, keywords, builtins, packages",
			code: "pr", want: []string{"print", "printed", "println", "Printer"}, start: 0, end: 2},
		{name: "bare identifier: package names", code: "x := st", want: []string{"string", "strings", "strs", "struct"}, start: 5, end: 7},
		{name: "builtins min max clear", code: "m", has: []string{"m", "make", "map", "math", "max", "min"}, start: 0, end: 1},
		{name: "clear", code: "cle", want: []string{"clear"}, start: 0, end: 3},
		{name: "keyword", code: "fo", want: []string{"for"}, start: 0, end: 2},
		{name: "variable: methods through pointer, fields", code: "g.",
			has: []string{"NumVertices", "NumArcs", "String", "Offsets", "Adj", "Weights", "Directed"}, start: 2, end: 2},
		{name: "variable: filtered", code: "g.Num", want: []string{"NumArcs", "NumEdges", "NumVertices"}, start: 2, end: 5},
		{name: "variable: pointer-receiver methods of an addressable value", code: "buf.Wri",
			want: []string{"Write", "WriteByte", "WriteRune", "WriteString", "WriteTo"}, start: 4, end: 7},
		{name: "struct: own, promoted and embedded fields, value and pointer methods", code: "p.",
			has: []string{"X", "Y", "Inner", "Ptr", "Label", "Count", "Describe", "Reset", "Norm", "Scale"},
			not: []string{"hide", "note", "inner", "unexported"}, start: 2, end: 2},
		{name: "field chain", code: "p.Inner.", want: []string{"Count", "Describe", "Label", "Reset", "Ünïcode"}, start: 8, end: 8},
		{name: "field chain through nil pointer (type only)", code: "p.Ptr.La", want: []string{"Label"}, start: 6, end: 8},
		{name: "nil pointer variable (type only)", code: "nilp.Sc", want: []string{"Scale"}, start: 5, end: 7},
		{name: "chain across lines", code: "n := g.\n\tNumV", want: []string{"NumVertices"}, start: 9, end: 13},
		{name: "package variable", code: "os.Stdout.WriteS", want: []string{"WriteString"}, start: 10, end: 16},
		{name: "package type: method expressions", code: "time.Duration.Hou", want: []string{"Hours"}, start: 14, end: 17},
		{name: "user name shadows package", code: "sort.", want: []string{}, start: 5, end: 5},
		{name: "variable of basic type", code: "d.Sec", want: []string{"Seconds"}, start: 2, end: 5},
		{name: "cursor in the middle: end covers the identifier", code: "fmt.Pri|ntln(1)", want: []string{"Print", "Printf", "Println"}, start: 4, end: 11},
		{name: "cursor at the start of an identifier", code: "fmt.|Println", has: []string{"Println", "Errorf"}, start: 4, end: 11},
		{name: "cursor at the end of an identifier", code: "x := fmt.Println|(1)", want: []string{"Println"}, start: 9, end: 16},
		{name: "unicode before the cursor", code: "s := \"héllo wörld ✓\"\nfmt.Spr", want: []string{"Sprint", "Sprintf", "Sprintln"}, start: 25, end: 28},
		{name: "unicode identifier", code: "x := grö", want: []string{"größe"}, start: 5, end: 8},
		{name: "unicode identifier, cursor inside", code: "x := gr|öße + 1", want: []string{"graph", "größe"}, start: 5, end: 10},
		{name: "unicode identifier, cursor before its last letter", code: "x := größ|e + 1", want: []string{"größe"}, start: 5, end: 10},
		{name: "unicode method name", code: "p.Inner.Ün", want: []string{"Ünïcode"}, start: 8, end: 10},
		{name: "inside a string", code: `fmt.Println("fmt.Pr`, want: []string{}, start: 19, end: 19},
		{name: "inside a raw string", code: "s := `a\nfmt.Pr", want: []string{}, start: 14, end: 14},
		{name: "inside a line comment", code: "x := 1 // fmt.Pr", want: []string{}, start: 16, end: 16},
		{name: "inside a block comment", code: "/* fmt.Pr", want: []string{}, start: 9, end: 9},
		{name: "after a closed string and comment", code: "s := \"a\" /* c */\nfmt.Pri", want: []string{"Print", "Printf", "Println"}, start: 21, end: 24},
		{name: "after an unterminated string on an earlier line", code: "s := \"abc\nfmt.Pri", want: []string{"Print", "Printf", "Println"}, start: 14, end: 17},
		{name: "after a call: not evaluated", code: "strings.NewReader(s).Re", want: []string{}, start: 23, end: 23},
		{name: "after an index: not evaluated", code: "strs[0].Le", want: []string{}, start: 10, end: 10},
		{name: "number", code: "x := 1.5", want: []string{}, start: 8, end: 8},
		{name: "after a number's dot", code: "x := 3.", want: []string{}, start: 7, end: 7},
		{name: "unknown package", code: "nosuch.Fo", want: []string{}, start: 9, end: 9},
		{name: "cell function has no members", code: "fib.", want: []string{}, start: 4, end: 4},
		{name: "unknown member of a package", code: "fmt.Nosuch", want: []string{}, start: 10, end: 10},
		{name: "unknown field in a chain", code: "p.Nope.X", want: []string{}, start: 8, end: 8},
		{name: "unexported field in a chain", code: "p.hide.X", want: []string{}, start: 8, end: 8},
		{name: "method in a chain is not called", code: "p.Norm.X", want: []string{}, start: 8, end: 8},
		{name: "constant of a package has no members", code: "math.Pi.X", want: []string{}, start: 9, end: 9},
		{name: "magic", code: "%ti", want: []string{"%time"}, start: 0, end: 3},
		{name: "cell magic", code: "%%cu", want: []string{"%%cuda"}, start: 0, end: 4},
		{name: "all magics", code: "%", want: []string{"%%cuda", "%doc", "%env", "%gpu", "%help", "%time"}, start: 0, end: 1},
		{name: "cursor before a magic", code: "|  %time", want: nil, has: []string{"fmt", "for"}, start: 0, end: 0},
		{name: "magic on a later line", code: "x := 1\n  %he", want: []string{"%help"}, start: 9, end: 12},
		{name: "Go after a magic word", code: "%time fmt.Spr", want: []string{"Sprint", "Sprintf", "Sprintln"}, start: 10, end: 13},
		{name: "cell magic body is not Go", code: "%%cuda k\n__global__ void f() { fmt.Pr", want: []string{}, start: 37, end: 37},
	}
	sc := newScope()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, cur := at(tt.code)
			got, start, end := Complete(code, cur, sc)
			if got == nil {
				t.Fatal("matches is nil, want a non-nil slice")
			}
			if tt.want != nil && !slices.Equal(got, tt.want) {
				t.Errorf("matches = %q, want %q", got, tt.want)
			}
			for _, h := range tt.has {
				if !slices.Contains(got, h) {
					t.Errorf("matches %q lack %q", got, h)
				}
			}
			for _, n := range tt.not {
				if slices.Contains(got, n) {
					t.Errorf("matches %q contain %q", got, n)
				}
			}
			if tt.start >= 0 && (start != tt.start || end != tt.end) {
				t.Errorf("range = [%d, %d), want [%d, %d)", start, end, tt.start, tt.end)
			}
			seen := map[string]bool{}
			for _, m := range got {
				if seen[m] {
					t.Errorf("duplicate match %q", m)
				}
				seen[m] = true
			}
		})
	}
}

func TestCompleteOrder(t *testing.T) {
	got := rank([]string{"Printf", "print", "Print", "prints", "Print", "Sprint", "PRINTER", "println"}, "Print")
	want := []string{"Print", "Printf", "print", "PRINTER", "println", "prints"}
	if !slices.Equal(got, want) {
		t.Errorf("rank = %q, want %q", got, want)
	}
}

func TestCompleteMagicLister(t *testing.T) {
	sc := magicScope{newScope()}
	sc.magics = map[string]string{"%time": "t", "%timeit": "ti", "%%bash": "b"}
	got, start, end := Complete("%tim", 4, sc)
	if want := []string{"%time", "%timeit"}; !slices.Equal(got, want) || start != 0 || end != 4 {
		t.Errorf("Complete = %q [%d,%d), want %q [0,4)", got, start, end, want)
	}
}

func TestCompleteCursorOutOfRange(t *testing.T) {
	sc := newScope()
	got, start, end := Complete("fmt.Pri", 99, sc)
	if !slices.Equal(got, []string{"Print", "Printf", "Println"}) || start != 4 || end != 7 {
		t.Errorf("cursor past the end: %q [%d,%d)", got, start, end)
	}
	got, start, end = Complete("fmt.Pri", -3, sc)
	if start != 0 || end > 3 || slices.Contains(got, "Println") {
		t.Errorf("negative cursor: %q [%d,%d)", got, start, end)
	}
}

func TestCodePoints(t *testing.T) {
	s := "aé✓😀b"
	for cp, b := range []int{0, 1, 3, 6, 10, 11, 11} {
		if got := byteOffset(s, cp); got != b {
			t.Errorf("byteOffset(%d) = %d, want %d", cp, got, b)
		}
		if cp <= 5 {
			if got := codePoints(s, b); got != cp {
				t.Errorf("codePoints(%d) = %d, want %d", b, got, cp)
			}
		}
	}
}
