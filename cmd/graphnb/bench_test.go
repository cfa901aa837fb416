package main

import (
	"bytes"
	"encoding/csv"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/graphnb/graphnb/bench"
	"github.com/graphnb/graphnb/plots"
)

func TestBenchUsageErrorsExitTwo(t *testing.T) {
	dir := t.TempDir()
	badSpec := filepath.Join(dir, "bad.json")
	os.WriteFile(badSpec, []byte(`{"algo": "sssp", "family": "rmat", "scale": [5]}`), 0o644)
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"no arguments", []string{"bench"}, "want ALGO FAMILY"},
		{"one argument", []string{"bench", "sssp"}, "want ALGO FAMILY"},
		{"unknown variant", []string{"bench", "sssp", "rmat", "-scales", "5", "-variants", "cpu/dijkstra,gpu/magic"},
			`unknown sssp variant "gpu/magic"; choose from cpu/dijkstra, cpu/delta, cpu/bf`},
		{"variant of another algorithm", []string{"bench", "bfs", "rmat", "-scales", "5", "-variants", "cpu/dijkstra"}, `unknown bfs variant "cpu/dijkstra"`},
		{"unknown algorithm", []string{"bench", "dfs", "rmat", "-scales", "5"}, `no variants for algorithm "dfs"`},
		{"bad scales", []string{"bench", "bfs", "rmat", "-scales", "16-1x"}, "not a list of whole numbers"},
		{"no scales", []string{"bench", "bfs", "rmat"}, "needs Scales"},
		{"bad family", []string{"bench", "bfs", "torus:{n}", "-sizes", "4"}, `unknown graph kind "torus"`},
		{"bad weights", []string{"bench", "sssp", "rmat", "-scales", "5", "-weights", "heavy"}, `unknown weights "heavy"`},
		{"negative roots", []string{"bench", "bfs", "rmat", "-scales", "5", "-roots", "-1"}, "must not be negative"},
		{"bad device", []string{"bench", "bfs", "rmat", "-scales", "5", "-device", "gpu"}, `-device "gpu"`},
		{"speedup chart without baseline", []string{"bench", "bfs", "rmat", "-scales", "5", "-speedup-png", "x.png"}, "needs -baseline"},
		{"spec with unknown field", []string{"bench", "-spec", badSpec}, `unknown field "scale"`},
		{"bad flag", []string{"bench", "bfs", "rmat", "-bogus"}, "flag provided but not defined"},
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

func TestBenchList(t *testing.T) {
	code, out, stderr := runCLI("bench", "-list")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"sssp\n", "cpu/dijkstra", "CPU Dijkstra", "cpu/do", "cpu/boruvka", "cpu/blocked"} {
		if !strings.Contains(out, want) {
			t.Fatalf("-list lacks %q:\n%s", want, out)
		}
	}
	if code, _, stderr := runCLI("bench", "-h"); code != 0 || !strings.Contains(stderr, "-scales") || !strings.Contains(stderr, "ALGO FAMILY") {
		t.Fatalf("bench -h: %d %q", code, stderr)
	}
}

// A small sweep writes JSON, CSV, per-run CSV and both charts, and prints
// the table and the speedups.
func TestBenchWritesEverything(t *testing.T) {
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	code, out, stderr := runCLI("bench", "sssp", "rmat", "-scales", "5-6", "-roots", "2", "-quiet",
		"-variants", "cpu/dijkstra, cpu/delta", "-o", p("s.json"), "-csv", p("s.csv"), "-runs-csv", p("runs.csv"),
		"-png", p("s.png"), "-baseline", "cpu/dijkstra", "-speedup-png", p("speedup.svg"), "-name", "tiny sweep")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"tiny sweep", "CPU Δ-stepping", "arcs/s mean", "speedup over CPU Dijkstra", "2 paired runs"} {
		if !strings.Contains(out, want) {
			t.Fatalf("output lacks %q:\n%s", want, out)
		}
	}
	tab, err := bench.LoadFile(p("s.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.Rows) != 4 || tab.Meta.Name != "tiny sweep" || tab.Meta.GraphnbVersion != version ||
		!strings.HasPrefix(tab.Meta.Command, "graphnb bench sssp rmat -scales 5-6") || !strings.Contains(tab.Meta.Command, `"cpu/dijkstra, cpu/delta"`) {
		t.Fatalf("table: %d rows, meta %+v", len(tab.Rows), tab.Meta)
	}
	for _, r := range tab.Rows {
		if r.NumRuns != 2 || r.NumValidated != 2 {
			t.Fatalf("row %s %s: %d runs, %d validated", r.Variant, r.Graph, r.NumRuns, r.NumValidated)
		}
	}
	for name, records := range map[string]int{"s.csv": 5, "runs.csv": 9} {
		f, err := os.Open(p(name))
		if err != nil {
			t.Fatal(err)
		}
		recs, err := csv.NewReader(f).ReadAll()
		f.Close()
		if err != nil || len(recs) != records {
			t.Fatalf("%s: %d records (want %d), %v", name, len(recs), records, err)
		}
	}
	img, err := os.ReadFile(p("s.png"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := png.Decode(bytes.NewReader(img)); err != nil {
		t.Fatalf("chart: %v", err)
	}
	if svg, err := os.ReadFile(p("speedup.svg")); err != nil || !strings.Contains(string(svg), "<svg") {
		t.Fatalf("speedup chart: %v", err)
	}
}

// With -o - (the default) the JSON alone goes to standard output, so it
// can be piped; the text table goes to standard error. A spec file gives
// the sweep, and command-line flags override it.
func TestBenchSpecAndStdout(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "mst.json")
	os.WriteFile(spec, []byte(`{"algo": "mst", "family": "ssca2", "scales": [6, 7],
		"variants": ["cpu/boruvka", "cpu/kruskal"], "weights": "int:255", "repetitions": 1}`), 0o644)
	code, out, stderr := runCLI("bench", "-spec", spec, "-reps", "2", "-quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	tab, err := bench.Load(strings.NewReader(out))
	if err != nil {
		t.Fatalf("standard output is not a result table: %v\n%s", err, out)
	}
	if len(tab.Rows) != 4 || tab.Rows[0].NumRuns != 2 || tab.Meta.Weights != "int:255" || tab.Meta.Roots != 0 || tab.Meta.Name != "MST on SSCA#2" {
		t.Fatalf("%d rows, %d runs, meta %+v", len(tab.Rows), tab.Rows[0].NumRuns, tab.Meta)
	}
	if !strings.Contains(stderr, "CPU Borůvka") || !strings.Contains(stderr, "2 repetition(s) per graph") {
		t.Fatalf("stderr lacks the text table:\n%s", stderr)
	}
}

// A YAML spec works like a JSON one, with the command line's shorthands.
func TestBenchYAMLSpec(t *testing.T) {
	spec := filepath.Join(t.TempDir(), "sweep.yaml")
	os.WriteFile(spec, []byte("algo: bfs\nfamily: rmat\nscales: 6-8:2\nvariants: cpu/td, cpu/do\nroots: 2\n"), 0o644)
	code, out, stderr := runCLI("bench", "-spec", spec, "-quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	tab, err := bench.Load(strings.NewReader(out))
	if err != nil {
		t.Fatalf("standard output is not a result table: %v\n%s", err, out)
	}
	if len(tab.Rows) != 4 || !slices.Equal(tab.Meta.Scales, []int{6, 8}) || tab.Meta.Roots != 2 {
		t.Fatalf("%d rows, meta %+v", len(tab.Rows), tab.Meta)
	}
	os.WriteFile(spec, []byte("algo: bfs\nfamily: rmat\nscales: 8-6\n"), 0o644)
	if code, _, stderr := runCLI("bench", "-spec", spec, "-quiet"); code != 2 || !strings.Contains(stderr, `"8-6": the range 8-6 runs backwards`) || !strings.Contains(stderr, "sweep.yaml") {
		t.Fatalf("bad scales: exit %d, stderr %s", code, stderr)
	}
}

// APSP sweeps over sizes chart time against n.
func TestBenchAPSPSizes(t *testing.T) {
	dir := t.TempDir()
	code, _, stderr := runCLI("bench", "apsp", "er:{n}:0.2", "-sizes", "16,32", "-reps", "1", "-quiet",
		"-o", filepath.Join(dir, "a.json"), "-png", filepath.Join(dir, "a.png"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	tab, err := bench.LoadFile(filepath.Join(dir, "a.json"))
	// every registered APSP variant (CPU and GPU) on both sizes
	if err != nil || len(tab.Rows) != 2*len(bench.Names("apsp")) || tab.Rows[0].Graph != "er:16:0.2" {
		t.Fatalf("table %v, err %v", tab, err)
	}
	if st, err := os.Stat(filepath.Join(dir, "a.png")); err != nil || st.Size() < 1000 {
		t.Fatalf("chart: %v", err)
	}
}

// A failure during the sweep exits 1 and still writes what was measured.
func TestBenchRuntimeErrorKeepsResults(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "partial.json")
	// Kruskal needs an undirected graph: a directed file fails at run time.
	gr := filepath.Join(dir, "d.gr")
	os.WriteFile(gr, []byte("p sp 3 2\na 1 2 1\na 2 3 1\n"), 0o644)
	code, _, stderr := runCLI("bench", "mst", gr, "-quiet", "-o", out)
	if code != 1 || !strings.Contains(stderr, "partial.json") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	tab, err := bench.LoadFile(out)
	if err != nil || tab.Meta.Stopped == "" {
		t.Fatalf("partial table %+v, %v", tab, err)
	}
	code, _, stderr = runCLI("bench", "bfs", filepath.Join(dir, "missing.gr"), "-quiet", "-o", out)
	if code != 1 || !strings.Contains(stderr, "missing.gr") {
		t.Fatalf("missing graph: exit %d, stderr %q", code, stderr)
	}
}

// -from reloads result files, merges them and writes what a sweep would;
// files of different algorithms are refused.
func TestBenchFromMergesResultFiles(t *testing.T) {
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	for _, c := range [][]string{
		{"bench", "sssp", "rmat", "-scales", "5", "-roots", "2", "-quiet", "-variants", "cpu/dijkstra", "-o", p("a.json")},
		{"bench", "sssp", "rmat", "-scales", "5", "-roots", "2", "-quiet", "-variants", "cpu/bf", "-o", p("b.json")},
		{"bench", "bfs", "rmat", "-scales", "5", "-roots", "2", "-quiet", "-variants", "cpu/do", "-o", p("c.json")},
	} {
		if code, _, stderr := runCLI(c...); code != 0 {
			t.Fatalf("%v: exit %d: %s", c, code, stderr)
		}
	}
	code, stdout, stderr := runCLI("bench", "-from", p("a.json")+","+p("b.json"), "-name", "merged",
		"-png", p("m.png"), "-csv", p("m.csv"), "-baseline", "cpu/dijkstra")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"merged", "CPU Dijkstra", "CPU Bellman-Ford", "speedup"} {
		if !strings.Contains(strings.ToLower(stdout), strings.ToLower(want)) {
			t.Errorf("the text lacks %q:\n%s", want, stdout)
		}
	}
	if st, err := os.Stat(p("m.png")); err != nil || st.Size() < 1000 {
		t.Errorf("chart: %v", err)
	}
	csvText, err := os.ReadFile(p("m.csv"))
	if err != nil || strings.Count(string(csvText), "\n") != 3 { // header + one row per variant
		t.Errorf("CSV %q, %v", csvText, err)
	}
	// -variants keeps some curves, by name or label.
	code, _, stderr = runCLI("bench", "-from", p("a.json")+","+p("b.json"), "-variants", "CPU Bellman-Ford", "-csv", p("k.csv"))
	csvText, err = os.ReadFile(p("k.csv"))
	if code != 0 || err != nil || strings.Count(string(csvText), "\n") != 2 || !strings.Contains(string(csvText), "CPU Bellman-Ford") {
		t.Errorf("-from -variants: exit %d, %s, CSV %q", code, stderr, csvText)
	}
	code, _, stderr = runCLI("bench", "-from", p("a.json"), "-variants", "cpu/delta")
	if code != 2 || !strings.Contains(stderr, "no row of those variants") || !strings.Contains(stderr, "CPU Dijkstra") {
		t.Errorf("-from -variants of no row: exit %d, %q", code, stderr)
	}
	code, _, stderr = runCLI("bench", "-from", p("a.json")+","+p("c.json"))
	if code != 2 || !strings.Contains(stderr, "merge files of one algorithm") {
		t.Errorf("mixed algorithms: exit %d, %q", code, stderr)
	}
	code, _, stderr = runCLI("bench", "-from", p("missing.json"))
	if code == 0 || !strings.Contains(stderr, "missing.json") {
		t.Errorf("a missing file: exit %d, %q", code, stderr)
	}
}

// A bfs or sssp table on R-MAT follows Graph500's rules unless told
// otherwise: its vertex labels are permuted; -permute=false keeps the
// generator's and the table says so.
func TestBenchPermutesGraph500Tables(t *testing.T) {
	for _, c := range []struct {
		args    []string
		permute bool
		says    string
	}{
		{[]string{"bench", "bfs", "rmat", "-scales", "6", "-roots", "2", "-variants", "cpu/do", "-quiet"}, true, ", permuted"},
		{[]string{"bench", "bfs", "rmat", "-scales", "6", "-roots", "2", "-variants", "cpu/do", "-quiet", "-permute=false"}, false, "unpermuted"},
		{[]string{"bench", "mst", "rmat", "-scales", "6", "-reps", "1", "-variants", "cpu/kruskal", "-quiet"}, false, ""},
	} {
		code, out, stderr := runCLI(c.args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, stderr)
		}
		tab, err := bench.Load(strings.NewReader(out))
		if err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		if tab.Meta.Permute != c.permute || (c.says != "" && !strings.Contains(stderr, c.says)) || (c.says == "" && strings.Contains(stderr, "permuted")) {
			t.Errorf("%v: permute %v, want %v; the table says\n%s", c.args, tab.Meta.Permute, c.permute, stderr)
		}
	}
}

// -peer runs peer programs after the sweep and writes their rows beside
// the variants'; -from reloads them, and the chart draws them as curves.
// A failing peer exits 1 with the sweep's rows written.
func TestBenchPeers(t *testing.T) {
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	fake := "sh ../../bench/testdata/fakepeer.sh "
	code, stdout, stderr := runCLI("bench", "bfs", "rmat", "-scales", "5,6", "-roots", "2", "-variants", "cpu/do",
		"-o", p("a.json"), "-csv", p("a.csv"),
		"-peer", "gapbs-bfs="+fake+"gapbs {scale} {roots}",
		"-peer", "mst:ecl-mst="+fake+"ecl-mst {scale} {roots} {file}")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"peer: gapbs-bfs", "peer: mst", "Peers, measured in the same call"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the text lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "peer gapbs-bfs on rmat:6:16: sh ../../bench/testdata/fakepeer.sh gapbs 6 2") {
		t.Errorf("no progress line per peer command: %q", stderr)
	}
	csvText, err := os.ReadFile(p("a.csv"))
	if err != nil || strings.Count(string(csvText), "peer: ") != 4 {
		t.Errorf("CSV %q, %v", csvText, err)
	}
	tab, err := bench.LoadFile(p("a.json"))
	if err != nil || len(tab.Rows) != 6 || len(tab.Meta.Peers) != 2 {
		t.Fatalf("reloaded %v rows, peers %v: %v", len(tab.Rows), tab.Meta.Peers, err)
	}
	var labels []string
	for _, s := range plots.TEPS(tab).Series {
		labels = append(labels, s.Label)
	}
	if !slices.Equal(labels, []string{"CPU direction-optimizing", "peer: gapbs-bfs", "peer: mst"}) {
		t.Errorf("chart curves %q", labels)
	}
	code, stdout, stderr = runCLI("bench", "-from", p("a.json"), "-png", p("a.png"), "-baseline", "peer: gapbs-bfs")
	if code != 0 || !strings.Contains(stdout, "peer: mst") || !strings.Contains(stdout, "speedup") {
		t.Errorf("-from with peers: exit %d, %s\n%s", code, stderr, stdout)
	}
	if st, err := os.Stat(p("a.png")); err != nil || st.Size() < 1000 {
		t.Errorf("chart: %v", err)
	}

	code, _, stderr = runCLI("bench", "bfs", "rmat", "-scales", "5", "-roots", "2", "-variants", "cpu/do", "-quiet",
		"-o", p("b.json"), "-peer", "gapbs-x="+fake+"fail", "-peer-timeout", "30s")
	if code != 1 || !strings.Contains(stderr, "peer gapbs-x on rmat:5:16") || !strings.Contains(stderr, "segmentation fault (pretend)") ||
		!strings.Contains(stderr, "b.json") {
		t.Errorf("failing peer: exit %d, %q", code, stderr)
	}
	if tab, err := bench.LoadFile(p("b.json")); err != nil || len(tab.Rows) != 1 || len(tab.Meta.PeerErrors) != 1 {
		t.Errorf("failing peer: the sweep's rows were not written (%v)", err)
	}
}

// Peers are checked before the sweep runs, and cannot go with -from.
func TestBenchPeerUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"bench", "bfs", "rmat", "-scales", "5", "-peer", "gunrock=./bfs"}, `unknown kind ""`},
		{[]string{"bench", "bfs", "rmat", "-scales", "5", "-peer", "gapbs-bfs"}, "NAME=COMMAND"},
		{[]string{"bench", "-from", "../../docs/results/bfs-rmat-h100.json", "-peer", "gapbs=x"}, "not with -from"},
	} {
		if code, _, stderr := runCLI(c.args...); code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q (want 2 and %q)", c.args, code, stderr, c.want)
		}
	}
}

// Result files written before peers existed still reload and chart.
func TestBenchFromOldResultFile(t *testing.T) {
	png := filepath.Join(t.TempDir(), "old.png")
	code, stdout, stderr := runCLI("bench", "-from", "../../docs/results/sssp-rmat-h100.json", "-png", png)
	if code != 0 || !strings.Contains(stdout, "2^24") || strings.Contains(stdout, "peer") {
		t.Fatalf("exit %d: %s\n%.400s", code, stderr, stdout)
	}
	if st, err := os.Stat(png); err != nil || st.Size() < 1000 {
		t.Errorf("chart: %v", err)
	}
}
