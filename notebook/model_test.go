package notebook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// Both fixtures are in Jupyter's own on-disk form: 00-tour.ipynb as
// Jupyter's nbconvert wrote it, outputs and all (ops/tour.sh),
// testdata/outputs.ipynb written by Python's nbformat
// 5.5 (nbformat.write) with outputs of every kind and fields nbformat does
// not define (x_top_level, x_cell_field, x_unknown_output_field), which
// must survive.
var roundTripFiles = []string{"../notebooks/00-tour.ipynb", "testdata/outputs.ipynb"}

func TestRoundTripIsByteExact(t *testing.T) {
	for _, name := range roundTripFiles {
		t.Run(filepath.Base(name), func(t *testing.T) {
			data, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			nb, err := Parse(data)
			if err != nil {
				t.Fatal(err)
			}
			out, err := nb.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out, data) {
				t.Fatalf("written notebook differs from %s:\n%s", name, firstDiff(out, data))
			}
		})
	}
}

// firstDiff shows the first differing line of two texts.
func firstDiff(a, b []byte) string {
	la, lb := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			return fmt.Sprintf("line %d: got  %s\nwant %s", i+1, la[i], lb[i])
		}
	}
	return "lengths differ"
}

func TestReadTour(t *testing.T) {
	nb, err := ReadFile("../notebooks/00-tour.ipynb")
	if err != nil {
		t.Fatal(err)
	}
	if nb.NBFormat != 4 || nb.NBFormatMinor != 5 {
		t.Errorf("nbformat %d.%d, want 4.5", nb.NBFormat, nb.NBFormatMinor)
	}
	var ks struct{ Name string }
	if ok, err := nb.Metadata.Get("kernelspec", &ks); !ok || err != nil || ks.Name != "graphnb" {
		t.Errorf("kernelspec %+v (present %v, err %v), want name graphnb", ks, ok, err)
	}
	c := nb.Cells[1]
	if c.Type != Code || c.ID != "7770828d" || !c.HasTag(ParametersTag) {
		t.Errorf("cell 2: type %q id %q tags %v, want the code cell 7770828d tagged parameters", c.Type, c.ID, c.Tags())
	}
	if !strings.HasPrefix(c.Source, "scale := 14 ") || strings.Count(c.Source, "\n") != 2 {
		t.Errorf("cell 2 source not joined from its lines: %q", c.Source)
	}
}

func TestReadOutputs(t *testing.T) {
	nb, err := ReadFile("testdata/outputs.ipynb")
	if err != nil {
		t.Fatal(err)
	}
	c := nb.Cells[1]
	if len(c.Outputs) != 7 || c.ExecutionCount != 1 {
		t.Fatalf("code-1: %d outputs, count %d; want 7 and 1", len(c.Outputs), c.ExecutionCount)
	}
	if o := c.Outputs[0]; o.Name != "stdout" || o.Text != "Δ-stepping <fast> & right\nsecond line\n" {
		t.Errorf("stream output: %q %q", o.Name, o.Text)
	}
	if s, _ := c.Outputs[2].Data.Text("image/png"); !strings.HasPrefix(s, "iVBOR") || strings.Contains(s, "\n") {
		t.Errorf("image/png %q: want one base64 string", s)
	}
	if s, _ := c.Outputs[3].Data.Text("text/html"); s != "<table>\n<tr><td>1</td></tr>\n</table>" {
		t.Errorf("text/html not joined: %q", s)
	}
	raw, ok := c.Outputs[4].Data["application/json"].(json.RawMessage)
	var v struct{ A []any }
	if !ok || json.Unmarshal(raw, &v) != nil || len(v.A) != 3 {
		t.Errorf("application/json %T %s: want the raw object", c.Outputs[4].Data["application/json"], raw)
	}
	if o := c.Outputs[6]; o.Type != ExecuteResult || o.ExecutionCount != 1 {
		t.Errorf("execute_result: %+v", o)
	}
	if o := nb.Cells[2].Outputs[0]; o.EName != "panic" || o.EValue != "boom" || len(o.Traceback) != 2 {
		t.Errorf("error output: %+v", o)
	}
	if nb.Cells[3].ExecutionCount != 0 || nb.Cells[3].Source != "" {
		t.Errorf("empty cell: count %d source %q", nb.Cells[3].ExecutionCount, nb.Cells[3].Source)
	}
	if compact(nb.Extra["x_top_level"]) != `{"kept":true}` || compact(c.Extra["x_cell_field"]) != "[1,2]" ||
		compact(c.Outputs[0].Extra["x_unknown_output_field"]) != `"kept"` {
		t.Errorf("unknown fields lost: %s %s %s", nb.Extra, c.Extra, c.Outputs[0].Extra)
	}
	if _, ok := nb.Cells[0].Extra["attachments"]; !ok {
		t.Errorf("markdown attachments lost")
	}
}

func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return err.Error()
	}
	return b.String()
}

func TestParseErrors(t *testing.T) {
	const good = `{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}`
	cell := func(c string) string {
		return `{"nbformat": 4, "nbformat_minor": 5, "metadata": {},
 "cells": [` + c + `]}`
	}
	cases := []struct {
		name     string
		in       string
		sentinel error
		want     string
		line     int
	}{
		{"empty file", " \n", ErrSyntax, "the file is empty", 0},
		{"truncated", good[:40], ErrSyntax, "not valid JSON", 1},
		{"syntax error on line 3", "{\n \"cells\": [],\n \"nbformat\": 4,,\n}", ErrSyntax, "invalid character ','", 3},
		{"a list", "[1, 2]", ErrInvalid, "the file is JSON but not a notebook", 1},
		{"no nbformat", `{"cells": []}`, ErrInvalid, `no "nbformat" field`, 1},
		{"nbformat 3", `{"nbformat": 3, "nbformat_minor": 0, "metadata": {}, "worksheets": [{"cells": []}]}`, ErrVersion,
			`nbformat 3: graphnb reads nbformat 4 notebooks only; convert it first with "jupyter nbconvert --to notebook --nbformat 4 FILE"`, 1},
		{"nbformat 5", `{"nbformat": 5, "nbformat_minor": 0, "cells": []}`, ErrVersion, "nbformat 5: graphnb reads nbformat 4", 1},
		{"nbformat a string", `{"nbformat": "4", "nbformat_minor": 0, "cells": []}`, ErrInvalid, `nbformat: want a whole number ≥ 0, got "4"`, 1},
		{"no minor", `{"nbformat": 4, "cells": []}`, ErrInvalid, `no "nbformat_minor"`, 1},
		{"no cells", `{"nbformat": 4, "nbformat_minor": 5}`, ErrInvalid, `no "cells" list`, 1},
		{"cells an object", `{"nbformat": 4, "nbformat_minor": 5, "cells": {}}`, ErrInvalid, "cells: want a list, got an object", 1},
		{"metadata a list", `{"nbformat": 4, "nbformat_minor": 5, "cells": [], "metadata": []}`, ErrInvalid, "metadata: want a JSON object, got a list", 1},
		{"cell not an object", cell(`"x"`), ErrInvalid, "cell 1: want a JSON object, got a string", 2},
		{"no cell_type", cell(`{"source": ""}`), ErrInvalid, `cell 1: no "cell_type"`, 2},
		{"unknown cell_type", cell(`{"cell_type": "heading", "source": "", "metadata": {}}`), ErrInvalid, `cell 1: unknown cell_type "heading"`, 2},
		{"no source", cell(`{"cell_type": "markdown", "metadata": {}}`), ErrInvalid, `cell 1: no "source"`, 2},
		{"source a number", cell(`{"cell_type": "markdown", "id": "a", "source": 7}`), ErrInvalid, "cell 1 (id a): source: want a string or a list of strings, got a number", 2},
		{"source list of numbers", cell(`{"cell_type": "markdown", "source": [1]}`), ErrInvalid, "want a string or a list of strings, got a list", 2},
		{"bad id", cell(`{"cell_type": "markdown", "id": "no spaces", "source": ""}`), ErrInvalid, `the id "no spaces" is not 1 to 64 letters`, 2},
		{"duplicate id", cell(`{"cell_type": "markdown", "id": "a", "source": ""},
 {"cell_type": "raw", "id": "a", "source": ""}`), ErrInvalid, `cell 2 (id a): the id "a" is also the id of cell 1`, 3},
		{"bad count", cell(`{"cell_type": "code", "source": "", "execution_count": "1", "outputs": []}`), ErrInvalid, "execution_count: want a whole number ≥ 0 or null", 2},
		{"outputs an object", cell(`{"cell_type": "code", "source": "", "outputs": {}}`), ErrInvalid, "cell 1: outputs: want a list", 2},
		{"no output_type", cell(`{"cell_type": "code", "source": "", "outputs": [{}]}`), ErrInvalid, `cell 1, output 1: no "output_type"`, 2},
		{"unknown output_type", cell(`{"cell_type": "code", "source": "", "outputs": [{"output_type": "pyout"}]}`), ErrInvalid, `unknown output_type "pyout"`, 2},
		{"stream without name", cell(`{"cell_type": "code", "source": "", "outputs": [
  {"output_type": "stream", "text": "x"}]}`), ErrInvalid, `cell 1, output 1: a stream output needs "name"`, 3},
		{"display without data", cell(`{"cell_type": "code", "source": "", "outputs": [{"output_type": "display_data"}]}`), ErrInvalid, `a display_data output needs "data"`, 2},
		{"traceback a string", cell(`{"cell_type": "code", "source": "", "outputs": [{"output_type": "error", "ename": "e", "evalue": "v", "traceback": "t"}]}`), ErrInvalid, "traceback: want a list of strings", 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			nb, err := Parse([]byte(c.in))
			if err == nil {
				t.Fatalf("no error; notebook %+v", nb)
			}
			if !errors.Is(err, c.sentinel) {
				t.Errorf("error %v does not wrap %v", err, c.sentinel)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q lacks %q", err, c.want)
			}
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error %T is not a *FormatError", err)
			}
			if fe.Line != c.line {
				t.Errorf("line %d, want %d (%v)", fe.Line, c.line, err)
			}
		})
	}
}

func TestReadFileNamesTheFile(t *testing.T) {
	name := filepath.Join(t.TempDir(), "broken.ipynb")
	if err := os.WriteFile(name, []byte("{\n \"cells\": [\n  {\"cell_type\": \"code\"\n]}"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadFile(name)
	if err == nil || !strings.HasPrefix(err.Error(), name+":4:1: notebook: not valid JSON") {
		t.Fatalf("error %v: want it to start with %s:4:1: notebook: not valid JSON", err, name)
	}
	if _, err := ReadFile(filepath.Join(t.TempDir(), "missing.ipynb")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing file: %v, want os.ErrNotExist", err)
	}
}

func TestSplitLines(t *testing.T) {
	// Expected values are Python's str.splitlines(True).
	cases := []struct {
		in   string
		want []string
	}{
		{"", []string{}},
		{"a", []string{"a"}},
		{"a\n", []string{"a\n"}},
		{"a\nb", []string{"a\n", "b"}},
		{"\n\n", []string{"\n", "\n"}},
		{"a\r\nb\rc", []string{"a\r\n", "b\r", "c"}},
		{"a\vb\fc\x1cd\x1de\x1ef", []string{"a\v", "b\f", "c\x1c", "d\x1d", "e\x1e", "f"}},
		{"x\u0085y\u2028z\u2029", []string{"x\u0085", "y\u2028", "z\u2029"}},
		{"Δ\nλ", []string{"Δ\n", "λ"}},
		{"\xff\n", []string{"\xff\n"}},
	}
	for _, c := range cases {
		if got := SplitLines(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("SplitLines(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestWriteJoinsAndSplitsLikeJupyter(t *testing.T) {
	// Strings where Jupyter writes lists, and the reverse: written in
	// Jupyter's form, read back the same.
	in := `{"nbformat": 4, "nbformat_minor": 4, "metadata": {"m": 1}, "cells": [
 {"cell_type": "code", "source": "a\nb", "metadata": {}, "execution_count": 3, "outputs": [
  {"output_type": "stream", "name": "stdout", "text": ["x\n", "y"]},
  {"output_type": "execute_result", "data": {"text/plain": "1\n2", "image/png": ["iVBO", "Rw=="]}, "execution_count": 3}]}]}`
	nb, err := Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	out, err := nb.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"\"source\": [\n    \"a\\n\",\n    \"b\"\n   ]",
		"\"text\": [\n      \"x\\n\",\n      \"y\"\n     ]",
		"\"text/plain\": [\n       \"1\\n\",\n       \"2\"\n      ]",
		`"image/png": "iVBORw=="`,
		"\"metadata\": {},\n     \"output_type\": \"execute_result\"",
		"\n \"nbformat_minor\": 4\n}\n",
	} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	again, err := Parse(out)
	if err != nil {
		t.Fatal(err)
	}
	if again.Cells[0].Source != "a\nb" || again.Cells[0].Outputs[0].Text != "x\ny" {
		t.Errorf("read back: %q %q", again.Cells[0].Source, again.Cells[0].Outputs[0].Text)
	}
}

func TestMarshalValidates(t *testing.T) {
	nb := New()
	nb.Cells = append(nb.Cells, NewCode("1"), &Cell{Type: "heading"})
	if _, err := nb.Marshal(); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), `cell 2: unknown cell_type "heading"`) {
		t.Fatalf("Marshal: %v, want the unknown cell type reported", err)
	}
	nb.Cells[1] = NewMarkdown("# x")
	nb.Cells[0].Outputs = append(nb.Cells[0].Outputs, &Output{Type: Stream, Text: "x"})
	if _, err := nb.Marshal(); err == nil || !strings.Contains(err.Error(), "cell 1, output 1: a stream output needs a name") {
		t.Fatalf("Marshal: %v, want the nameless stream reported", err)
	}
	nb.NBFormat = 3
	if _, err := nb.Marshal(); !errors.Is(err, ErrVersion) {
		t.Fatalf("Marshal of nbformat 3: %v", err)
	}
}

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "x.ipynb")
	nb := New()
	nb.Cells = append(nb.Cells, NewMarkdown("hello"), NewCode("1 + 1"))
	for range 2 { // the second write replaces the first
		if err := nb.WriteFile(name); err != nil {
			t.Fatal(err)
		}
	}
	back, err := ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Cells) != 2 || back.Cells[1].Source != "1 + 1" {
		t.Fatalf("read back %+v", back.Cells)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("directory holds %d entries, want only x.ipynb (no temporary file left)", len(entries))
	}
	if err := nb.WriteFile(filepath.Join(dir, "no", "such", "dir.ipynb")); err == nil {
		t.Fatal("writing into a missing directory succeeded")
	}
}

func TestWriteFileKeepsWhatTheNameIs(t *testing.T) {
	dir := t.TempDir()
	nb := New()
	nb.Cells = append(nb.Cells, NewCode("1"))
	t.Run("a link stays a link", func(t *testing.T) {
		target, link := filepath.Join(dir, "target.ipynb"), filepath.Join(dir, "link.ipynb")
		if err := os.WriteFile(target, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, link); err != nil {
			t.Skip("no symbolic links here:", err)
		}
		if err := nb.WriteFile(link); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Fatalf("the link was replaced (%v)", err)
		}
		fi, err := os.Stat(target)
		if err != nil || fi.Size() == 0 || fi.Mode().Perm() != 0o600 {
			t.Fatalf("target: %v, size %d, mode %v; want the notebook, mode 0600 kept", err, fi.Size(), fi.Mode())
		}
	})
	t.Run("a pipe is written to, not replaced", func(t *testing.T) {
		fifo := filepath.Join(dir, "fifo")
		if err := mkfifo(fifo); err != nil {
			t.Skip("no named pipes here:", err)
		}
		got := make(chan []byte)
		go func() {
			b, _ := os.ReadFile(fifo)
			got <- b
		}()
		if err := nb.WriteFile(fifo); err != nil {
			t.Fatal(err)
		}
		if b := <-got; !bytes.HasPrefix(b, []byte("{\n \"cells\"")) {
			t.Fatalf("read %q from the pipe", b)
		}
		if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
			t.Fatalf("the pipe was replaced (%v)", err)
		}
	})
}

func TestMetadataGetSet(t *testing.T) {
	var m Metadata
	if err := m.Set("tags", []string{"a", "<b>"}); err != nil {
		t.Fatal(err)
	}
	if string(m["tags"]) != `["a","<b>"]` {
		t.Errorf("Set stored %s (HTML must not be escaped)", m["tags"])
	}
	var tags []string
	if ok, err := m.Get("tags", &tags); !ok || err != nil || len(tags) != 2 {
		t.Errorf("Get: %v %v %v", tags, ok, err)
	}
	if ok, _ := m.Get("missing", &tags); ok {
		t.Error("Get of a missing key reported it present")
	}
	var n int
	if _, err := m.Get("tags", &n); err == nil {
		t.Error("Get into the wrong type succeeded")
	}
	if err := m.Set("bad", func() {}); err == nil {
		t.Error("Set of a func succeeded")
	}
	c := &Cell{Metadata: Metadata{"tags": json.RawMessage(`"not a list"`)}}
	if c.Tags() != nil || c.HasTag("not a list") {
		t.Error("tags that are not a list of strings must count as none")
	}
}

// FuzzParse: whatever parses writes out in a form that parses back to the
// same bytes.
func FuzzParse(f *testing.F) {
	// Small seeds only: inputs mutated from the 77 KB tour ran slowly and
	// were slow to minimise (ops/test.sh now bounds minimisation to 2000
	// executions an input; before, they held CI's fuzz stage at 0
	// executions a second for minutes). The tour's round trip is
	// TestRoundTripIsByteExact's; outputs.ipynb has every output kind.
	for _, name := range roundTripFiles {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		if len(data) <= 16<<10 {
			f.Add(data)
		}
	}
	f.Add([]byte(`{"nbformat": 4, "nbformat_minor": 2, "cells": [{"cell_type": "raw", "source": ["a\r", "b"]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		nb, err := Parse(data)
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error %T %v is not a *FormatError", err, err)
			}
			return
		}
		out, err := nb.Marshal()
		if err != nil {
			t.Fatalf("Marshal of a parsed notebook: %v", err)
		}
		nb2, err := Parse(out)
		if err != nil {
			t.Fatalf("reparse: %v\n%s", err, out)
		}
		out2, err := nb2.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out, out2) {
			t.Fatalf("not stable:\n%s\n---\n%s", out, out2)
		}
	})
}
