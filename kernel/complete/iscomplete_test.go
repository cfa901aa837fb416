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
		{"comma", "a, b", "complete", ""},
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
