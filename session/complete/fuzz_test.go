package complete

import (
	"testing"
	"unicode/utf8"
)

// FuzzEntryPoints checks that no code and cursor make Complete, Inspect or
// IsComplete panic, and that Complete's range is sane.
func FuzzEntryPoints(f *testing.F) {
	for _, s := range []string{
		"fmt.Pri", "p.Inner.", "%ti", "%%cuda k\nx", "s := `a\nb", "/* x", "x := \"é", "größe.",
		"strings.Split(s, ", "g.Offsets", "1.5.", ")", "a.b.c.d.e", "\xff\xfe.", "//", "\"\\",
	} {
		f.Add(s, utf8.RuneCountInString(s))
		f.Add(s, 2)
	}
	sc := newScope()
	f.Fuzz(func(t *testing.T, code string, cursor int) {
		n := utf8.RuneCountInString(code)
		m, start, end := Complete(code, cursor, sc)
		if m == nil || start < 0 || start > end || end > n {
			t.Fatalf("Complete(%q, %d) = %v, %d, %d", code, cursor, m, start, end)
		}
		for _, d := range []int{0, 1} {
			if data, ok := Inspect(code, cursor, d, sc); ok && data["text/plain"] == "" {
				t.Fatalf("Inspect(%q, %d) found with no text", code, cursor)
			}
		}
		if status, _ := IsComplete(code); status != "complete" && status != "incomplete" && status != "invalid" {
			t.Fatalf("IsComplete(%q) = %q", code, status)
		}
	})
}
