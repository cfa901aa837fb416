package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

const hello = `// run

// A comment.

package main

import "fmt"

func main() {
	fmt.Println("hi")
	if false {
		main()
	}
}
`

// cells decodes a notebook built by buildNotebook into its cells' sources.
func cells(t *testing.T, data []byte) []string {
	t.Helper()
	var nb nbFile
	if err := json.Unmarshal(data, &nb); err != nil {
		t.Fatal(err)
	}
	if nb.NBFormat != 4 || nb.NBFormatMinor != 5 {
		t.Errorf("nbformat %d.%d, want 4.5", nb.NBFormat, nb.NBFormatMinor)
	}
	ks, _ := nb.Metadata["kernelspec"].(map[string]any)
	if ks["name"] != "graphnb" {
		t.Errorf("kernelspec %v, want name graphnb", nb.Metadata["kernelspec"])
	}
	var srcs []string
	for i, c := range nb.Cells {
		if c.CellType != "code" || c.ID == "" || c.Outputs == nil || c.ExecutionCount != nil {
			t.Errorf("cell %d: %+v is not a fresh code cell with an id", i, c)
		}
		s, err := joinText(c.Source)
		if err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, s)
	}
	return srcs
}

func TestBuildNotebook(t *testing.T) {
	data, err := buildNotebook([]byte(hello), false)
	if err != nil {
		t.Fatal(err)
	}
	got := cells(t, data)
	want := strings.Replace(hello, "package main", "", 1)
	if len(got) != 2 || got[0] != want || got[1] != "main()" {
		t.Fatalf("cells = %q, want [%q %q]", got, want, "main()")
	}
	if strings.Count(got[0], "\n") != strings.Count(hello, "\n") {
		t.Error("cell 1 does not keep the file's line numbers")
	}
}

func TestBuildNotebookRenameMain(t *testing.T) {
	data, err := buildNotebook([]byte(hello), true)
	if err != nil {
		t.Fatal(err)
	}
	got := cells(t, data)
	want := strings.NewReplacer("package main", "", "func main()", "func gnbMain()", "\t\tmain()", "\t\tgnbMain()").Replace(hello)
	if len(got) != 2 || got[0] != want || got[1] != "gnbMain()" {
		t.Fatalf("cells = %q, want [%q %q]", got, want, "gnbMain()")
	}
	if _, err := buildNotebook([]byte("package main\n\nvar main = 1\n"), true); err == nil {
		t.Error("renaming a program without func main: no error")
	}
}

func TestReadOutputs(t *testing.T) {
	nb := `{"cells":[
	  {"cell_type":"code","id":"c1","metadata":{},"source":"x","execution_count":1,"outputs":[
	    {"output_type":"stream","name":"stderr","text":"2026/01/02 03:04:05 nil type\n"},
	    {"output_type":"error","ename":"InternalError","evalue":"yaegi failed","traceback":[]}]},
	  {"cell_type":"code","id":"c2","metadata":{},"source":"main()","execution_count":2,"outputs":[
	    {"output_type":"stream","name":"stdout","text":["a\n","b\n"]},
	    {"output_type":"error","ename":"Timeout","evalue":"too slow","traceback":[]}]}],
	 "metadata":{},"nbformat":4,"nbformat_minor":5}`
	var got engineRun
	if err := readOutputs([]byte(nb), &got); err != nil {
		t.Fatal(err)
	}
	if got.Stdout != "a\nb\n" || got.Stderr != "2026/01/02 03:04:05 nil type\n" {
		t.Errorf("stdout %q, stderr %q", got.Stdout, got.Stderr)
	}
	if got.EName != "InternalError" || got.Before || !got.CellTimedOut {
		t.Errorf("first error %s (output before it: %v), timed out %v; want InternalError, false, true", got.EName, got.Before, got.CellTimedOut)
	}
}

func TestClassify(t *testing.T) {
	ref := outcome{Stdout: "ok\n", Stderr: "printed\n"}
	nb := func(stdout, stderr, ename string) engineRun {
		r := engineRun{outcome: outcome{Stdout: stdout, Stderr: stderr}, Notebook: true, EName: ename}
		if ename != "" {
			r.Exit, r.EValue, r.Before = 1, "message", stdout != ""
		}
		return r
	}
	tests := []struct {
		name   string
		engine string
		got    engineRun
		class  string
		detail string
	}{
		{"same output", engineGraphnb, nb("ok\n", "printed\n", ""), Pass, ""},
		{"stdout differs", engineGraphnb, nb("ko\n", "printed\n", ""), Wrong, `stdout line 1: want "ok\n", got "ko\n"`},
		{"println to stdout", engineGraphnb, nb("ok\nprinted\n", "", ""), Wrong, `stdout line 2: want end of output, got "printed\n"`},
		{"stderr missing", engineGraphnb, nb("ok\n", "", ""), Wrong, `stderr line 1: want "printed\n", got end of output`},
		{"compile error", engineGraphnb, nb("", "", "CompileError"), Refused, "CompileError: message"},
		{"unsupported", engineGraphnb, nb("", "", "Unsupported"), Refused, "Unsupported: message"},
		{"refusal after output", engineGraphnb, nb("ok\n", "", "CompileError"), Panic, "CompileError: message"},
		{"panic", engineGraphnb, nb("", "", "panic"), Panic, "panic: message"},
		{"runtime error", engineGraphnb, nb("ok\n", "", "RuntimeError"), Panic, "RuntimeError: message"},
		{"cell timeout", engineGraphnb, engineRun{Notebook: true, EName: "panic", EValue: "in a goroutine", CellTimedOut: true, outcome: outcome{Exit: 1}},
			Timeout, "Timeout: the cell did not finish in time; first error: panic: in a goroutine"},
		{"killed", engineGraphnb, engineRun{outcome: outcome{TimedOut: true, Exit: -1, Seconds: 75}}, Timeout, "killed after 75 s"},
		{"signal", engineGraphnb, engineRun{outcome: outcome{Exit: -1, Signal: "segmentation fault", Stderr: "x\npanic: boom\n"}}, Crash, "killed by segmentation fault: panic: boom"},
		{"exit 2", engineGraphnb, engineRun{outcome: outcome{Exit: 2, Stderr: "fatal error: stack overflow\n"}, Notebook: true}, Crash, "exit status 2: fatal error: stack overflow"},
		{"no notebook", engineGraphnb, engineRun{outcome: outcome{Exit: 1, Stderr: "graphnb: cannot write\n"}}, Crash, "no notebook written (exit status 1): graphnb: cannot write"},
		{"yaegi pass", engineYaegi, engineRun{outcome: outcome{Stdout: "ok\n", Stderr: "printed\n"}}, Pass, ""},
		{"yaegi compile error", engineYaegi, engineRun{outcome: outcome{Exit: 1, Stderr: "run: p.go:3:4: undefined: x\n"}}, Refused, "p.go:3:4: undefined: x"},
		{"yaegi import error", engineYaegi, engineRun{outcome: outcome{Exit: 1, Stderr: "run: import \"unsafe\" error: not in GOPATH\n"}}, Refused, "import \"unsafe\" error: not in GOPATH"},
		{"yaegi panic", engineYaegi, engineRun{outcome: outcome{Exit: 1, Stderr: "p.go:5:6: panic: main.main(...)\nrun: boom\ngoroutine 1 [running]:\n"}}, Panic, "boom (at p.go:5:6)"},
		{"yaegi panic after output", engineYaegi, engineRun{outcome: outcome{Exit: 1, Stdout: "ok\n", Stderr: "run: p.go:3:4: undefined: x\n"}}, Panic, "run: p.go:3:4: undefined: x"},
		{"os.Exit(0)", engineGraphnb, engineRun{outcome: outcome{Exit: 1, Stdout: "ok\n", Stderr: "printed\n"}, Notebook: true, EName: "panic", EValue: "os.Exit(0)", Before: true}, Pass, ""},
		{"yaegi os.Exit(0)", engineYaegi, engineRun{outcome: outcome{Exit: 1, Stdout: "ok\n", Stderr: "printed\np.go:9:2: panic: main.main(...)\nrun: os.Exit(0)\ngoroutine 1 [running]:\n"}}, Pass, ""},
		{"yaegi os.Exit(1)", engineYaegi, engineRun{outcome: outcome{Exit: 1, Stdout: "ok\n", Stderr: "p.go:9:2: panic: main.main(...)\nrun: os.Exit(1)\ngoroutine 1 [running]:\n"}}, Panic, "os.Exit(1) (at p.go:9:2)"},
		{"yaegi crash", engineYaegi, engineRun{outcome: outcome{Exit: 2, Stderr: "panic: nil type [recovered]\n"}}, Crash, "exit status 2: panic: nil type [recovered]"},
	}
	for _, tt := range tests {
		class, detail := classify(tt.engine, ref, tt.got)
		if class != tt.class || detail != tt.detail {
			t.Errorf("%s: classify = %s, %q; want %s, %q", tt.name, class, detail, tt.class, tt.detail)
		}
	}
}

func TestExclusionReason(t *testing.T) {
	tests := []struct{ src, want string }{
		{hello, ""},
		{"// run\n\n//go:build linux\n\npackage main\n\nfunc main() {}\n", "build constraint: //go:build linux"},
		{"// run\n\n// +build linux\n\npackage main\n\nfunc main() {}\n", "build constraint: // +build linux"},
		{"// run\n\npackage main\n\nimport \"os/exec\"\n\nfunc main() { exec.Command(\"go\") }\n", "runs commands (imports os/exec): needs the go tool"},
		{"// run\n\npackage main\n\nimport \"example.com/x\"\n\nfunc main() { x.F() }\n", "imports example.com/x, not in the standard library"},
		{"// run\n\npackage main\n\nimport \"os\"\n\nfunc main() { os.ReadFile(\"b.go\") }\n", "names a Go file (b.go) of its directory"},
		{"// run\n\npackage main\n\nimport \"os\"\n\nfunc main() { os.Getwd() }\n", "depends on its working directory (os.Getwd)"},
	}
	for _, tt := range tests {
		if got := exclusionReason([]byte(tt.src)); got != tt.want {
			t.Errorf("exclusionReason(%q) = %q, want %q", tt.src, got, tt.want)
		}
	}
}

func TestSelectPrograms(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"a.go": hello,
		"b.go": "// errorcheck\n\npackage main\n",
		"c.go": "// run\n\n//go:build linux\n\npackage main\n\nfunc main() {}\n",
		"d.go": hello,
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	progs, excluded, err := selectPrograms(dir, regexp.MustCompile("^[abc]"))
	if err != nil {
		t.Fatal(err)
	}
	if len(progs) != 1 || progs[0].name != "a.go" || len(excluded) != 1 || excluded[0].Name != "c.go" {
		t.Errorf("programs %v, excluded %v; want a.go, and c.go excluded", progs, excluded)
	}
}

func TestCheck(t *testing.T) {
	expect := &Results{Counts: map[string]int{Pass: 3}, Programs: []Record{
		{Name: "a.go", Class: Pass}, {Name: "b.go", Class: Pass}, {Name: "c.go", Class: Pass}, {Name: "d.go", Class: Refused},
	}}
	r := &Results{Programs: []Record{
		{Name: "a.go", Class: Pass}, {Name: "b.go", Class: Panic, Detail: "panic: x"},
		{Name: "c.go", Class: Pass}, {Name: "d.go", Class: Refused}, {Name: "e.go", Class: Timeout},
	}}
	all := regexp.MustCompile("")
	got := check(r, expect, map[string]string{"e.go": "slow"}, all)
	want := []string{
		"b.go: panic: panic: x",
		"2 programs pass, fewer than the 3 of the expectation",
		"b.go: passed before, now panic: panic: x",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("check = %q, want %q", got, want)
	}
	// Allowed to panic, and -run selects only a and b: the floor is 1.
	if got := check(r, expect, map[string]string{"b.go": "known", "e.go": "slow"}, regexp.MustCompile("^[ab]")); len(got) != 0 {
		t.Errorf("check with b.go allowed and -run ^[ab] = %q, want nothing", got)
	}
}

func TestReadAllowlist(t *testing.T) {
	path := filepath.Join(t.TempDir(), "allow")
	os.WriteFile(path, []byte("# known failures\n\nrecover.go   yaegi cannot recover here  # issue 1\n"), 0o644)
	allow, err := readAllowlist(path)
	if err != nil || len(allow) != 1 || allow["recover.go"] != "yaegi cannot recover here" {
		t.Errorf("readAllowlist = %v, %v", allow, err)
	}
	os.WriteFile(path, []byte("recover.go\n"), 0o644)
	if _, err := readAllowlist(path); err == nil || !strings.Contains(err.Error(), "no reason") {
		t.Errorf("an entry without a reason: err = %v", err)
	}
}

func TestReferenceStripsExitStatus(t *testing.T) {
	m := exitStatusRE.FindStringSubmatchIndex("panic: x\n\ngoroutine 1\nexit status 2\n")
	if m == nil || "panic: x\n\ngoroutine 1\nexit status 2\n"[m[2]:m[3]] != "2" {
		t.Fatalf("exitStatusRE does not find go run's exit line: %v", m)
	}
}
