package session

import (
	"reflect"
	"testing"
	"time"
)

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
