package main

import (
	"bytes"
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
		})
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

func TestEveryAlgorithmRunsAndValidates(t *testing.T) {
	for _, a := range algorithms {
		t.Run(a.name, func(t *testing.T) {
			graph, extra := "rmat:10", []string{}
			switch a.name {
			case "apsp", "fw", "densebf":
				graph, extra = "grid:12x12", []string{"-weights", "int:9", "-int"}
			}
			args := append([]string{"run", a.name, graph, "-roots", "2"}, extra...)
			code, out, stderr := runCLI(args...)
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
