package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/graphnb/graphnb/notebook"
)

// repoRoot is the repository root, seen from this package's directory.
const repoRoot = "../.."

// anchor is GitHub's anchor of a Markdown heading: lower case, spaces to
// hyphens, punctuation other than hyphens and underscores dropped.
func anchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// headings returns the anchors of the headings of a Markdown file and the
// numbers of its numbered sections ("## 4. APSP…" gives "4").
func headings(t *testing.T, path string) (anchors, sections map[string]bool) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	anchors, sections = map[string]bool{}, map[string]bool{}
	numbered := regexp.MustCompile(`^(\d+)\. `)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		text, ok := strings.CutPrefix(strings.TrimLeft(sc.Text(), "#"), " ")
		if !ok || !strings.HasPrefix(sc.Text(), "#") {
			continue
		}
		anchors[anchor(text)] = true
		if m := numbered.FindStringSubmatch(text); m != nil {
			sections[m[1]] = true
		}
	}
	return anchors, sections
}

// TestStudyReferences checks that every citation of the studies in the
// repository (comments, docs, notebooks: "docs/studies.md §4" and links
// to "studies.md#anchor") names a section that docs/studies.md has, and
// that nothing cites the digest the repository never held (seeds.md).
func TestStudyReferences(t *testing.T) {
	anchors, sections := headings(t, filepath.Join(repoRoot, "docs", "studies.md"))
	for _, n := range []string{"1", "2", "3", "4", "5"} {
		if !sections[n] {
			t.Errorf("docs/studies.md has no section %s", n)
		}
	}
	cite := regexp.MustCompile(`studies\.md §(\d+)`)
	link := regexp.MustCompile(`studies\.md#([^)"\s]+)`)
	seeds := "seeds" + ".md"
	count := 0
	err := filepath.WalkDir(repoRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != repoRoot && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "bin" || name == "build" || name == "out") {
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(path) {
		case ".go", ".cu", ".md", ".ipynb", ".sh", ".py":
		default:
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		text := string(data)
		rel, _ := filepath.Rel(repoRoot, path)
		if rel == filepath.Join("cmd", "graphnb", "docs_test.go") { // this file's patterns are no citations
			return nil
		}
		if strings.Contains(text, seeds) {
			t.Errorf("%s cites %s, which is not in the repository: cite docs/studies.md §N", rel, seeds)
		}
		for _, m := range cite.FindAllStringSubmatch(text, -1) {
			count++
			if !sections[m[1]] {
				t.Errorf("%s cites docs/studies.md §%s, which does not exist", rel, m[1])
			}
		}
		for _, m := range link.FindAllStringSubmatch(text, -1) {
			count++
			if !anchors[m[1]] {
				t.Errorf("%s links to studies.md#%s, which is no heading of docs/studies.md", rel, m[1])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if count < 40 {
		t.Errorf("found only %d citations of docs/studies.md; did the walk miss the tree?", count)
	}
}

// TestReadmeDataPaths checks that the graph files the README's commands
// name exist where the commands run, the repository root.
func TestReadmeDataPaths(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	file := regexp.MustCompile(`^[\w./-]+\.(gr|mtx|el|edges)(\.gz)?$`)
	n := 0
	for _, line := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(line, "bin/graphnb ") {
			continue
		}
		line, _, _ = strings.Cut(line, "#")
		fields := strings.Fields(line)
		for i, f := range fields {
			if !file.MatchString(f) || (i > 0 && fields[i-1] == "-o") {
				continue
			}
			n++
			if _, err := os.Stat(filepath.Join(repoRoot, f)); err != nil {
				t.Errorf("README: %q names %s, which is not there from the repository root", strings.TrimSpace(line), f)
			}
		}
	}
	if n == 0 {
		t.Error("the README's commands name no graph file; this test looks for them")
	}
}

// readmeBlocks returns the fenced code blocks of the README that follow
// the line start and come before the line stop (Go blocks, and plain
// blocks whose first line is a cell magic such as %%cuda).
func readmeBlocks(t *testing.T, start, stop string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	i := strings.Index(text, "\n"+start)
	if i < 0 {
		t.Fatalf("README has no line %q", start)
	}
	text = text[i:]
	if j := strings.Index(text, "\n"+stop); j >= 0 {
		text = text[:j]
	} else {
		t.Fatalf("README has no line %q after %q", stop, start)
	}
	var blocks []string
	lines := strings.Split(text, "\n")
	for k := 0; k < len(lines); k++ {
		fence := lines[k]
		if fence != "```go" && fence != "```" {
			continue
		}
		var b []string
		for k++; k < len(lines) && lines[k] != "```"; k++ {
			b = append(b, lines[k])
		}
		if fence == "```go" || (len(b) > 0 && strings.HasPrefix(b[0], "%%")) {
			blocks = append(blocks, strings.Join(b, "\n"))
		}
	}
	return blocks
}

// TestReadmeGPUCells runs the cells of the README's GPU section, as
// written, on a machine without a GPU (the host device): the %%cuda cell
// binds nil, and the cells that use it must say why and carry on, not
// panic on a nil module.
func TestReadmeGPUCells(t *testing.T) {
	t.Setenv("GRAPHNB_DEVICE", "host")
	cells := readmeBlocks(t, "## The GPU", "**Without a GPU**")
	if len(cells) != 4 {
		t.Fatalf("the README's GPU section has %d cells, want 4 (the test expects the device, upload, %%%%cuda and launch cells)", len(cells))
	}
	got := execCells(t, "GPU", cells)
	var last strings.Builder
	for _, o := range got.Cells[len(got.Cells)-1].Outputs {
		last.WriteString(o.Text)
		if s, ok := o.Data["text/plain"].(string); ok {
			last.WriteString(s)
		}
	}
	if !strings.Contains(last.String(), "not launched: ") || !strings.Contains(last.String(), "[1 2 3]") {
		t.Errorf("the launch cell printed %q; want the reason it did not launch and x unchanged", last.String())
	}
}

// TestReadmeGroupCells runs the cells of the README's "Many GPUs" section,
// as written, on a machine without a GPU: a group of the host device, the
// CPU search, every root valid.
func TestReadmeGroupCells(t *testing.T) {
	t.Setenv("GRAPHNB_DEVICE", "host")
	cells := readmeBlocks(t, "## Many GPUs", "* **The split graph**")
	if len(cells) != 2 {
		t.Fatalf("the README's Many GPUs section has %d cells, want 2 (the group and the search)", len(cells))
	}
	var text strings.Builder
	for _, c := range execCells(t, "Many GPUs", cells).Cells {
		for _, o := range c.Outputs {
			text.WriteString(o.Text)
			if s, ok := o.Data["text/plain"].(string); ok {
				text.WriteString(s)
			}
		}
	}
	if !strings.Contains(text.String(), "over a group of 1 rank") || strings.Count(text.String(), "bfs over 1 rank(s)") != 4 {
		t.Errorf("the group cells printed %q; want the split graph and 4 searches", text.String())
	}
}

// TestReadmeTraceCells runs the cell of the README's traces section, as
// written, on the CPU: the trace printed level by level, the timeline and
// the work-efficiency chart drawn.
func TestReadmeTraceCells(t *testing.T) {
	t.Setenv("GRAPHNB_DEVICE", "host")
	cells := readmeBlocks(t, "## Seeing inside a run: traces", "**The device's ceilings.**")
	if len(cells) != 1 {
		t.Fatalf("the README's traces section has %d cells, want 1", len(cells))
	}
	var text strings.Builder
	images := 0
	for _, c := range execCells(t, "traces", cells).Cells {
		for _, o := range c.Outputs {
			text.WriteString(o.Text)
			if s, ok := o.Data["text/plain"].(string); ok {
				text.WriteString(s)
			}
			if _, ok := o.Data["image/png"]; ok {
				images++
			}
		}
	}
	for _, want := range []string{"bottom-up", "top-down", "arcs inspected", "work efficiency chart"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the traces cell printed %q; want %q in it", text.String(), want)
		}
	}
	if images != 2 {
		t.Errorf("the traces cell drew %d charts, want 2 (timeline, work efficiency)", images)
	}
}

// execCells runs cells as a notebook with graphnb exec on the CPU and
// returns the executed notebook, failing t when a cell fails.
func execCells(t *testing.T, what string, cells []string) *notebook.Notebook {
	t.Helper()
	var nb strings.Builder
	nb.WriteString(`{"cells": [`)
	for i, c := range cells {
		src, _ := json.Marshal(c)
		if i > 0 {
			nb.WriteString(",")
		}
		fmt.Fprintf(&nb, `{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": null, "source": %s}`, src)
	}
	nb.WriteString(`], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}`)
	dir := t.TempDir()
	in, out := filepath.Join(dir, "cells.ipynb"), filepath.Join(dir, "cells.out.ipynb")
	if err := os.WriteFile(in, []byte(nb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI("exec", in, "-o", out); code != 0 {
		t.Fatalf("the README's %s cells fail on the CPU: exit %d, %s", what, code, stderr)
	}
	got, err := notebook.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return got
}
