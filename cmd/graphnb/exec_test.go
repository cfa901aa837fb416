package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graphnb/graphnb/notebook"
)

// copyNotebook copies testdata/small.ipynb into a fresh directory.
func copyNotebook(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "small.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "small.ipynb")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestExecWritesOutputs(t *testing.T) {
	in := copyNotebook(t)
	orig, _ := os.ReadFile(in)
	code, stdout, stderr := runCLI("exec", in, "-p", "n=5", "-p", "greeting=hi")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	out := strings.TrimSuffix(in, ".ipynb") + ".out.ipynb"
	if !strings.Contains(stdout, "4 cells run") || !strings.Contains(stdout, out) {
		t.Errorf("stdout %q: want the cell count and %s", stdout, out)
	}
	if now, _ := os.ReadFile(in); string(now) != string(orig) {
		t.Error("the input notebook changed")
	}
	nb, err := notebook.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(nb.Cells) != 5 || !nb.Cells[2].HasTag(notebook.InjectedParametersTag) {
		t.Fatalf("%d cells: want the injected parameters cell third", len(nb.Cells))
	}
	if o := nb.Cells[3].Outputs; len(o) != 1 || o[0].Text != "hi from a path of 5 vertices\n" {
		t.Errorf("cell 4 outputs %+v", o)
	}
	o := nb.Cells[4].Outputs
	if len(o) != 2 || o[0].Data["text/plain"] != `"done"` || o[1].Type != notebook.ExecuteResult || o[1].Data["text/plain"] != "50" {
		t.Errorf("cell 5 outputs %+v: want the updated display and 50", o)
	}
}

func TestExecOutputChoices(t *testing.T) {
	t.Run("-o", func(t *testing.T) {
		in := copyNotebook(t)
		out := filepath.Join(t.TempDir(), "elsewhere.ipynb")
		if code, _, stderr := runCLI("exec", "-o", out, in); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if _, err := notebook.ReadFile(out); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("-o -", func(t *testing.T) {
		in := copyNotebook(t)
		code, stdout, stderr := runCLI("exec", in, "-o", "-")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		nb, err := notebook.Parse([]byte(stdout))
		if err != nil || nb.Cells[3].ExecutionCount != 3 {
			t.Fatalf("standard output is not the executed notebook: %v", err)
		}
	})
	t.Run("-inplace", func(t *testing.T) {
		in := copyNotebook(t)
		if code, _, stderr := runCLI("exec", "-inplace", in); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		nb, err := notebook.ReadFile(in)
		if err != nil || nb.Cells[2].ExecutionCount != 2 {
			t.Fatalf("the notebook was not executed in place: %v", err)
		}
		if entries, _ := os.ReadDir(filepath.Dir(in)); len(entries) != 1 {
			t.Errorf("%d files beside the notebook, want none", len(entries)-1)
		}
	})
}

func TestExecFailingCell(t *testing.T) {
	in := copyNotebook(t)
	nb, err := notebook.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	bad := notebook.NewCode("var s []int\n_ = s[5]")
	bad.ID = "bad"
	nb.Cells = append(nb.Cells[:3], append([]*notebook.Cell{bad}, nb.Cells[3:]...)...)
	if err := nb.WriteFile(in); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI("exec", in)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (stderr %q)", code, stderr)
	}
	out := strings.TrimSuffix(in, ".ipynb") + ".out.ipynb"
	msg := strings.TrimSuffix(stderr, "\n")
	if strings.Contains(msg, "\n") || !strings.Contains(msg, "cell 4 (In [3], id bad): panic:") || !strings.Contains(msg, out) {
		t.Errorf("stderr %q: want one line naming the cell and the notebook written", stderr)
	}
	got, err := notebook.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if o := got.Cells[3].Outputs; len(o) != 1 || o[0].Type != notebook.Error || o[0].EName != "panic" {
		t.Errorf("failing cell outputs %+v", o)
	}
	if c := got.Cells[4]; c.ExecutionCount != 0 || len(c.Outputs) != 0 {
		t.Errorf("the cell after the failure ran: count %d", c.ExecutionCount)
	}
}

func TestExecErrors(t *testing.T) {
	in := copyNotebook(t)
	broken := filepath.Join(t.TempDir(), "broken.ipynb")
	if err := os.WriteFile(broken, []byte("{\n \"cells\": [,]\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	v3 := filepath.Join(t.TempDir(), "v3.ipynb")
	if err := os.WriteFile(v3, []byte(`{"nbformat": 3, "nbformat_minor": 0, "worksheets": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no notebook", []string{"exec"}, 2, "want NOTEBOOK"},
		{"-o with -inplace", []string{"exec", in, "-o", "x.ipynb", "-inplace"}, 2, "-o and -inplace exclude each other"},
		{"malformed -p", []string{"exec", in, "-p", "novalue"}, 2, "want name=value"},
		{"unknown parameter", []string{"exec", in, "-p", "m=1"}, 2, "m is not set by the parameters cell, cell 2 (id params), which sets n, greeting"},
		{"negative timeout", []string{"exec", in, "-timeout", "-1s"}, 2, "-timeout must not be negative"},
		{"missing file", []string{"exec", filepath.Join(t.TempDir(), "none.ipynb")}, 1, "none.ipynb"},
		{"malformed notebook", []string{"exec", broken}, 1, broken + ":2:12: notebook: not valid JSON"},
		{"nbformat 3", []string{"exec", v3}, 1, "nbformat 3: graphnb reads nbformat 4 notebooks only"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := runCLI(c.args...)
			if code != c.code || !strings.Contains(stderr, c.want) {
				t.Fatalf("exit %d, stderr %q: want %d and %q", code, stderr, c.code, c.want)
			}
		})
	}
	if _, err := os.Stat(strings.TrimSuffix(in, ".ipynb") + ".out.ipynb"); err == nil {
		t.Error("a refused run wrote a notebook")
	}
}

// Cells run in the notebook's directory, as under Jupyter: a relative path
// in a cell finds a file beside the notebook, whatever the caller's
// directory; a relative -o is taken from the caller's directory.
func TestExecRunsInTheNotebooksDirectory(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "beside.txt"), []byte("found me"), 0o644); err != nil {
		t.Fatal(err)
	}
	nb := notebook.New()
	nb.Cells = append(nb.Cells, notebook.NewCode(`b, err := os.ReadFile("beside.txt")
if err != nil {
	panic(err)
}
string(b)`))
	in := filepath.Join(dir, "nb.ipynb")
	if err := nb.WriteFile(in); err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	out := "exec_cwd_test.out.ipynb" // relative: beside the test, not the notebook
	defer os.Remove(filepath.Join(wd, out))
	if code, _, stderr := runCLI("exec", "-o", out, in); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if now, _ := os.Getwd(); now != wd {
		t.Errorf("the working directory is %s after exec, want %s back", now, wd)
	}
	got, err := notebook.ReadFile(filepath.Join(wd, out))
	if err != nil {
		t.Fatalf("the output is not where -o said, relative to the caller: %v", err)
	}
	if text, _ := got.Cells[0].Outputs[0].Data.Text("text/plain"); !strings.Contains(text, "found me") {
		t.Errorf("cell output %+v, want the file's text", got.Cells[0].Outputs)
	}
}
