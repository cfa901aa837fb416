package complete

import "testing"

func TestIsComplete(t *testing.T) {
	tests := []struct {
		name, code     string
		status, indent string
	}{
		// The samples the conformance-suite configuration uses.
		{"CompleteSample", CompleteSample, "complete", ""},
		{"IncompleteSample", IncompleteSample, "incomplete", "    "},
		{"InvalidSample", InvalidSample, "invalid", ""},

		{"empty", "", "complete", ""},
		{"blank", " \n\t\n", "complete", ""},
		{"statement", "x := 1\n", "complete", ""},
		{"explicit semicolon", "x := 1;", "complete", ""},
		{"increment", "x++", "complete", ""},
		{"return", "return", "complete", ""},
		{"call", `fmt.Println("a", 1)`, "complete", ""},
		{"func with body", "func f() int { return 1 }", "complete", ""},
		{"func then statement", "func f() {}\nx := f", "complete", ""},
		{"closed block", "for i := 0; i < 3; i++ {\n\tfmt.Println(i)\n}", "complete", ""},
		{"if else closed", "if x {\n} else {\n}", "complete", ""},
		{"raw string over lines", "s := `a\nb`", "complete", ""},
		{"brackets in a comment", "x := 1 // (", "complete", ""},
		{"block comment closed", "/* a ( */ x", "complete", ""},
		{"brackets in strings", "s := \"(\" + `[` + string('{')", "complete", ""},
		{"method chain continued", "x := y.\n\tFoo()", "complete", ""},
		{"composite literal closed", "m := map[string]int{\n\t\"a\": 1,\n}", "complete", ""},
		{"type decl", "type P struct{ X, Y int }", "complete", ""},

		{"open brace", "func f() {", "incomplete", "    "},
		{"nested braces", "func f() {\n\tif x {", "incomplete", "        "},
		{"brackets opened on one line count once", "f(func() {", "incomplete", "    "},
		{"open paren", "fmt.Println(1,\n", "incomplete", "    "},
		{"open bracket", "xs := []int{\n\t1, 2,", "incomplete", "    "},
		{"var group", "var (", "incomplete", "    "},
		{"switch case", "switch x {\ncase 1:", "incomplete", "    "},
		{"go func", "go func() {", "incomplete", "    "},
		{"raw string open", "x := `abc", "incomplete", ""},
		{"raw string open, over lines", "x := `abc\n  def", "incomplete", ""},
		{"block comment open", "/* comment", "incomplete", ""},
		{"binary operator", "x := 1 +", "incomplete", "    "},
		{"logical operator", "ok := a &&\n", "incomplete", "    "},
		{"assignment", "x :=", "incomplete", "    "},
		{"comma", "a, b", "invalid", ""}, // an expression list is no statement
		{"trailing comma", "a,", "incomplete", "    "},
		{"dot", "fmt.", "incomplete", "    "},
		{"label", "L:", "incomplete", "    "},
		{"send", "ch <-", "incomplete", "    "},
		{"else", "if x {\n} else", "incomplete", "    "},
		{"keyword var", "var", "incomplete", "    "},
		{"func header without body", "func f() int", "incomplete", ""},
		{"func header without body after code", "x := 1\nfunc f(a int) (int, error)", "incomplete", ""},
		{"if header without body", "if x > 1", "incomplete", ""},
		{"for header without body", "for i := 0; i < 3; i++", "incomplete", ""},
		{"else if header without body", "if a {\n} else if b", "incomplete", ""},
		{"func value is not a header", "f := func() int { return 1 }", "complete", ""},

		{"extra closer", "}", "invalid", ""},
		{"extra paren", "fmt.Println(1))", "invalid", ""},
		{"mismatched", "f(]", "invalid", ""},
		{"illegal character", "x := 1 @ 2", "invalid", ""},
		{"question mark", "x := a ? b : c", "invalid", ""},
		{"hash", "#include <stdio.h>", "invalid", ""},
		{"unterminated string", "x := \"abc", "invalid", ""},
		{"unterminated string, open brace after", "x := \"abc\nfunc f() {", "invalid", ""},
		{"unterminated rune", "x := 'a", "invalid", ""},
		{"bad number", "x := 0x", "invalid", ""},
		{"illegal char inside open block", "func f() {\n\tx := $", "invalid", ""},

		{"line magic", "%time", "complete", ""},
		{"magics then code", "%time\n%env\nx := 1", "complete", ""},
		{"magic then open code", "%time\nfor {", "incomplete", "    "},
		{"cell magic", "%%cuda k\n__global__ void f(int *x) {", "complete", ""},
		{"magic word only", "  %help  ", "complete", ""},

		// Parsed (issue 13, case 11): a syntax error is invalid however the
		// brackets balance.
		{"double define", "x := := 7q", "invalid", ""},
		{"two operators", "x := 1 + / 2", "invalid", ""},
		{"keyword as name", "func := 3", "invalid", ""},
		{"error before an open brace", "for x := := 1 {", "invalid", ""},
		{"error inside an open function", "func f() {\n\tx := := 1", "invalid", ""},
		{"error in an earlier statement", "x := := 1\nfor {", "invalid", ""},
		{"error in an earlier declaration", "func f() {}}\nx :=", "invalid", ""},
		{"statement after an operator", "x := 1 +\nvar y = 2", "invalid", ""},
		{"else on its own line", "if x {\n}\nelse {\n}", "invalid", ""},
		{"else after else", "if x {\n} else {\n} else {", "invalid", ""},
		{"declaration in a statement run", "x := 1\ntype T struct{ y int }\nz := type", "invalid", ""},
		// …while what more input completes stays incomplete.
		{"expression list continued", "a, b,", "incomplete", "    "},
		{"call in a go statement", "go func() {", "incomplete", "    "},
		{"three-index slice", "s[1:2:", "incomplete", "    "},
		{"composite literal open", "p := Point{X: 1,", "incomplete", "    "},
		// The cell's mix of declarations and statements parses as the
		// session runs it: declaration runs as a file, statement runs as a
		// function body.
		{"declarations and statements", "import \"strings\"\n\nfunc shout(s string) string { return strings.ToUpper(s) }\n\nmsg := shout(\"a\")\ntype pair struct{ a, b int }\np := pair{1, 2}\nconst k = 3\nk * p.b", "complete", ""},
		{"method declaration then call", "type T int\nfunc (t T) M() int { return int(t) }\nT(1).M()", "complete", ""},
		{"function literal called at once", "func() { x = 1 }()", "complete", ""},
		{"generic function", "func Map[T, U any](xs []T, f func(T) U) []U { return nil }\nMap([]int{1}, func(i int) string { return \"\" })", "complete", ""},
		{"return at top level", "if x {\n\treturn\n}", "complete", ""},
		// Magics: any line with % in column 1 is not Go, nor a help query.
		{"magic between statements", "x := 1\n%time\ny := 2", "complete", ""},
		{"magic with a backquote", "%env A=`\nx := 1", "complete", ""},
		{"magic between, then an error", "x := 1\n%time\ny := := 2", "invalid", ""},
		{"percent inside a raw string", "s := `\n%time\n`", "complete", ""},
		{"%%time body parsed", "%%time\nx := := 1", "invalid", ""},
		{"%%time body incomplete", "%%time\nfor {", "incomplete", "    "},
		{"%%time body complete", "%%time\nx := 1", "complete", ""},
		{"help query", "strings.Split?", "complete", ""},
		{"help query, spaces", "  fmt ?  ", "invalid", ""},
		{"question mark after an expression", "x + 1?", "invalid", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, indent := IsComplete(tt.code)
			if status != tt.status || indent != tt.indent {
				t.Errorf("IsComplete(%q) = %q, %q; want %q, %q", tt.code, status, indent, tt.status, tt.indent)
			}
		})
	}
}
