package complete

import (
	"strings"
	"testing"
)

// Cells of typical size, completed or inspected at their end.
var benchCells = map[string]string{
	"pkg_member": "g := graph.Build(el, graph.BuildOptions{})\nfmt.Pri",
	"bare":       strings.Repeat("x := 1\n", 50) + "pr",
	"field":      "n := p.Inner.La",
}

func BenchmarkComplete(b *testing.B) {
	sc := newScope()
	for name, code := range benchCells {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				Complete(code, len([]rune(code)), sc)
			}
		})
	}
}

func BenchmarkInspect(b *testing.B) {
	sc := newScope()
	for name, code := range map[string]string{"func": "strings.Split(", "variable": "g", "package": "fmt"} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, ok := Inspect(code, len(code), 0, sc); !ok {
					b.Fatal("not found")
				}
			}
		})
	}
}

func BenchmarkIsComplete(b *testing.B) {
	code := strings.Repeat("for i := 0; i < 3; i++ {\n\tfmt.Println(i, `raw`, \"s\") // c\n}\n", 20)
	for b.Loop() {
		IsComplete(code)
	}
}
