package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runCLI(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = run(args, &o, &e)
	return code, o.String(), e.String()
}

func TestUsageErrorsExitTwo(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"no command", nil, "no command given"},
		{"unknown command", []string{"frobnicate"}, `unknown command "frobnicate"`},
		{"unknown algorithm", []string{"run", "dfs", "rmat:8"}, `unknown algorithm "dfs"`},
		{"missing graph", []string{"run", "bfs"}, "want ALGO GRAPH"},
		{"bad spec", []string{"run", "bfs", "rmat:x"}, "the scale must be a whole number"},
		{"unknown kind", []string{"info", "torus:5"}, `unknown graph kind "torus"`},
		{"bad flag", []string{"run", "bfs", "rmat:8", "-bogus"}, "flag provided but not defined"},
		{"bad roots", []string{"run", "bfs", "rmat:8", "-roots", "0"}, "-roots must be at least 1"},
		{"source out of range", []string{"run", "bfs", "path:5", "-source", "7"}, "-source 7 is not a vertex"},
		{"gen without -o", []string{"gen", "rmat:8"}, "-o FILE is required"},
		{"gen unknown format", []string{"gen", "rmat:8", "-o", "x.docx"}, "x.docx"},
		{"bad weights", []string{"info", "rmat:8", "-weights", "int:0"}, "int:MAX"},
		{"negative source", []string{"run", "bfs", "path:5", "-source", "-5"}, "-source -5 is not a vertex"},
		{"negative delta", []string{"run", "sssp", "path:5", "-delta", "-1"}, "-delta -1 must be a positive bucket width"},
		{"NaN delta", []string{"run", "sssp", "path:5", "-delta", "NaN"}, "-delta NaN must be"},
		{"negative tile", []string{"run", "apsp", "path:5", "-tile", "-3"}, "-tile -3 must be a positive tile size"},
		{"backward scales", []string{"bench", "sssp", "rmat", "-scales", "20-10", "-quiet"}, "the range 20-10 runs backwards"},
		{"zero step", []string{"bench", "sssp", "rmat", "-scales", "10-12:0", "-quiet"}, "the step 0 must be at least 1"},
		{"negative roots", []string{"bench", "sssp", "rmat", "-scales", "8", "-roots", "-1", "-quiet"}, "must not be negative"},
		{"unknown baseline", []string{"bench", "sssp", "rmat", "-scales", "8", "-variants", "cpu/dijkstra", "-baseline", "nope", "-quiet"}, `-baseline "nope" is not a variant of this sweep`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := runCLI(c.args...)
			if code != 2 {
				t.Fatalf("exit %d, want 2 (stderr %q)", code, stderr)
			}
			if !strings.Contains(stderr, c.want) {
				t.Fatalf("stderr %q lacks %q", stderr, c.want)
			}
			if n := strings.Count(stderr, c.want); n != 1 {
				t.Fatalf("stderr %q says %q %d times, want once", stderr, c.want, n)
			}
		})
	}
}

// TestWriteErrorsNameTheUsersPath checks that a file that cannot be
// written is reported once, under the name the user gave, not under the
// temporary name the file is first written to.
func TestWriteErrorsNameTheUsersPath(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-dir")
	nb := filepath.Join(t.TempDir(), "nb.ipynb")
	if err := os.WriteFile(nb, []byte(`{"cells":[],"metadata":{},"nbformat":4,"nbformat_minor":5}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"gen", "path:4", "-o", filepath.Join(missing, "g.gr")},
		{"exec", nb, "-o", filepath.Join(missing, "out.ipynb")},
	} {
		code, _, stderr := runCLI(args...)
		want := args[len(args)-1]
		if code != 1 || strings.Count(stderr, want) != 1 || strings.Contains(stderr, ".tmp") || strings.Contains(stderr, "/.") {
			t.Errorf("%v: exit %d, stderr %q; want 1 and one message naming %s", args, code, stderr, want)
		}
	}
}

func TestRuntimeErrorsExitOne(t *testing.T) {
	code, _, stderr := runCLI("info", filepath.Join(t.TempDir(), "missing.gr"))
	if code != 1 || !strings.Contains(stderr, "missing.gr") {
		t.Fatalf("exit %d, stderr %q: want 1 and the file named", code, stderr)
	}
	code, _, stderr = runCLI("run", "apsp", "grid:4x4", "-int") // uniform [0,1) weights are not integers
	if code != 1 || !strings.Contains(stderr, "whole number") {
		t.Fatalf("exit %d, stderr %q: want 1 and a whole-number error", code, stderr)
	}
}

// testRunArgs are the arguments of "graphnb run" for a's tests on a
// small graph, two roots, with more flags: a dense-matrix method gets a
// grid with whole-number weights.
func testRunArgs(a algorithm, more ...string) []string {
	args := []string{"run", a.name, "rmat:10", "-roots", "2"}
	switch a.name {
	case "apsp", "fw", "densebf":
		args = []string{"run", a.name, "grid:12x12", "-roots", "2", "-weights", "int:9", "-int"}
	}
	return append(args, more...)
}

func TestEveryAlgorithmRunsAndValidates(t *testing.T) {
	for _, a := range algorithms {
		t.Run(a.name, func(t *testing.T) {
			code, out, stderr := runCLI(testRunArgs(a)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			unit := "TEPS (Graph500)"
			switch a.name {
			case "apsp", "fw":
				unit = " updates/s"
			case "densebf":
				unit = " matrix entries/s"
			}
			if !strings.Contains(out, "valid)") || !strings.Contains(out, unit) {
				t.Fatalf("output lacks a validated run with %s:\n%s", unit, out)
			}
			if a.rooted && unit == "TEPS (Graph500)" && !strings.Contains(out, "2 runs: Graph500") {
				t.Fatalf("output lacks the two-root summary:\n%s", out)
			}
		})
	}
}

// TestRunTrace runs every algorithm with -trace: the traced ones print
// each run's trace (a table of steps) under the run's line; the others
// are refused before the graph is made, naming those that trace.
func TestRunTrace(t *testing.T) {
	for _, a := range algorithms {
		t.Run(a.name, func(t *testing.T) {
			code, out, stderr := runCLI(testRunArgs(a, "-trace")...)
			if !a.traced {
				if want := "run: -trace: " + a.name + " keeps no trace; traced runs: bfs, sssp, dijkstra, mst"; code != 2 || !strings.Contains(stderr, want) || out != "" {
					t.Fatalf("exit %d, want 2, no output and %q:\nstdout:\n%s\nstderr:\n%s", code, want, out, stderr)
				}
				return
			}
			runs := 2
			if !a.rooted {
				runs = 1
			}
			if code != 0 || strings.Count(out, "valid)") != runs || strings.Count(out, "    step  kind") != runs {
				t.Fatalf("exit %d, want %d validated runs each with its trace:\n%s\n%s", code, runs, out, stderr)
			}
		})
	}
}

func TestGenWritesEveryFormatAndInfoReadsIt(t *testing.T) {
	dir := t.TempDir()
	for _, ext := range []string{".gr", ".mtx", ".el", ".gnb", ".gr.gz"} {
		path := filepath.Join(dir, "g"+ext)
		code, _, stderr := runCLI("gen", "ssca2:8", "-weights", "int:50", "-o", path)
		if code != 0 {
			t.Fatalf("gen %s: exit %d: %s", ext, code, stderr)
		}
		args := []string{"info", path}
		if ext == ".gr" || ext == ".gr.gz" {
			args = append(args, "-symmetrize") // DIMACS stores arcs
		}
		code, out, stderr := runCLI(args...)
		if code != 0 {
			t.Fatalf("info %s: exit %d: %s", ext, code, stderr)
		}
		if !strings.Contains(out, "undirected graph: 256 vertices") {
			t.Fatalf("info %s:\n%s", ext, out)
		}
	}
}

func TestVersionAndHelp(t *testing.T) {
	if code, out, _ := runCLI("version"); code != 0 || out != "graphnb "+version+"\n" {
		t.Fatalf("version: %d %q", code, out)
	}
	if code, out, _ := runCLI("help"); code != 0 || !strings.Contains(out, "graphnb run ALGO GRAPH") {
		t.Fatalf("help: %d %q", code, out)
	}
	if code, _, stderr := runCLI("run", "-h"); code != 0 || !strings.Contains(stderr, "-roots") {
		t.Fatalf("run -h: %d %q", code, stderr)
	}
}

func TestDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("the demo takes several seconds")
	}
	code, out, stderr := runCLI("demo")
	if code != 0 {
		t.Fatalf("demo: exit %d: %s\n%s", code, stderr, out)
	}
	if n := strings.Count(out, "$ graphnb"); n != len(demo) {
		t.Fatalf("demo ran %d commands, want %d", n, len(demo))
	}
	if !strings.Contains(out, "every result was validated") {
		t.Fatalf("demo output:\n%s", out)
	}
}
