package bench

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestRegistry(t *testing.T) {
	want := map[string][]string{
		"bfs":  {"cpu/do", "cpu/ptd", "cpu/td"},
		"sssp": {"cpu/dijkstra", "cpu/delta", "cpu/bf"},
		"mst":  {"cpu/boruvka", "cpu/kruskal"},
		"apsp": {"cpu/fw", "cpu/blocked"},
	}
	for algo, names := range want {
		got := Names(algo)
		for _, n := range names {
			if !slices.Contains(got, n) {
				t.Errorf("Names(%q) = %v lacks %q", algo, got, n)
			}
			v, err := Lookup(algo, strings.ToUpper(n))
			if err != nil || v.Algo != algo || v.Label == "" || v.Prepare == nil {
				t.Errorf("Lookup(%q, %q) = %+v, %v", algo, n, v, err)
			}
		}
	}
	for _, a := range []string{"bfs", "sssp", "mst", "apsp"} {
		if !slices.Contains(Algos(), a) {
			t.Errorf("Algos() = %v lacks %q", Algos(), a)
		}
	}
	if _, err := Lookup("sssp", "cpu/do"); err == nil || !strings.Contains(err.Error(), `unknown sssp variant "cpu/do"`) ||
		!strings.Contains(err.Error(), "cpu/dijkstra") {
		t.Errorf("wrong-algorithm lookup: %v", err)
	}
	if _, err := Lookup("dfs", "cpu/x"); err == nil || !strings.Contains(err.Error(), `no variants for algorithm "dfs"`) {
		t.Errorf("unknown algorithm: %v", err)
	}
	all, err := LookupAll("mst")
	if want := len(Names("mst")) - len(groupNames("mst")); err != nil || len(all) != want || want < 1 {
		t.Errorf("LookupAll(mst) = %d variants, %v; want the %d that run on one device", len(all), err, want)
	}
	if _, err := LookupAll("bfs", "cpu/do", "cpu/nope"); err == nil {
		t.Error("LookupAll accepted an unknown name")
	}
}

func TestRegister(t *testing.T) {
	e := Entry{Name: "test/td-again", Algo: "bfs", Doc: "for the test", New: BFSTopDown}
	Register(e)
	if v, err := Lookup("bfs", "test/td-again"); err != nil || v.Label != "CPU top-down" {
		t.Fatalf("registered entry: %+v, %v", v, err)
	}
	mustPanic := func(name string, f func()) {
		t.Helper()
		defer func() {
			if r := recover(); r == nil || !strings.HasPrefix(r.(string), "bench: ") {
				t.Errorf("%s: recovered %v, want a bench: panic", name, r)
			}
		}()
		f()
	}
	mustPanic("duplicate", func() { Register(e) })
	mustPanic("no New", func() { Register(Entry{Name: "x", Algo: "bfs"}) })
	mustPanic("no name", func() { Register(Entry{Algo: "bfs", New: BFSTopDown}) })
	// the same name for another algorithm is fine
	Register(Entry{Name: "test/td-again", Algo: "sssp", New: SSSPDijkstra})
}

func TestSlug(t *testing.T) {
	cases := map[string]string{
		"cache && restrict on":  "cache-restrict-on",
		"  Dynamic parallelism": "dynamic-parallelism",
		"CPU Δ-stepping (Δ=2)":  "cpu-delta-stepping-delta-2",
		"GPU+CPU":               "gpu-cpu",
	}
	for in, want := range cases {
		if got := slug(in); got != want {
			t.Errorf("slug(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSpec(t *testing.T) {
	sp, err := ParseSpec(strings.NewReader(`{"algo": "sssp", "family": "rmat", "scales": [5, 6],
		"variants": ["cpu/dijkstra", "cpu/delta"], "roots": 2, "seed": 9, "weights": "int:10"}`))
	if err != nil {
		t.Fatal(err)
	}
	s, err := sp.Sweep()
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Variants) != 2 || s.Variants[0].Label != "CPU Dijkstra" || s.Roots != 2 || s.Seed != 9 || !slices.Equal(s.Scales, []int{5, 6}) {
		t.Fatalf("sweep %+v", s)
	}
	tab, err := s.Run(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.Rows) != 4 || tab.Meta.Weights != "int:10" {
		t.Fatalf("%d rows, weights %q", len(tab.Rows), tab.Meta.Weights)
	}

	for _, c := range []struct{ in, want string }{
		{`{"algo": "sssp", "family": "rmat", "scale": [5]}`, `unknown field "scale"`},
		{`{"algo": "sssp", "family": "rmat", "variants": ["cpu/x"]}`, `unknown sssp variant "cpu/x"`},
		{`{"family": "rmat"}`, "names no algorithm"},
		{`[1, 2]`, "reading a sweep spec"},
	} {
		sp, err := ParseSpec(strings.NewReader(c.in))
		if err == nil {
			_, err = sp.Sweep()
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want %q", c.in, err, c.want)
		}
	}
	if _, err := ReadSpecFile(t.TempDir() + "/none.json"); err == nil || !strings.Contains(err.Error(), "none.json") {
		t.Errorf("ReadSpecFile: %v", err)
	}
}

// A YAML spec reads like the JSON one; scales and sizes may be written in
// the command line's syntax, variants as one comma-separated string.
func TestSpecYAMLAndShorthands(t *testing.T) {
	yamlSpec := `# the SSSP study's sweep, small
algo: sssp
family: rmat
scales: 5-9:2
variants: cpu/dijkstra, cpu/delta
roots: 2
seed: 9
weights: int:10
`
	sp, err := ParseSpec(strings.NewReader(yamlSpec))
	if err != nil {
		t.Fatal(err)
	}
	want := Spec{Algo: "sssp", Family: "rmat", Scales: Numbers{5, 7, 9}, Variants: VariantNames{"cpu/dijkstra", "cpu/delta"},
		Roots: 2, Seed: 9, Weights: "int:10"}
	if !reflect.DeepEqual(sp, want) {
		t.Fatalf("YAML spec\n got %+v\nwant %+v", sp, want)
	}
	for in, want := range map[string]Numbers{
		`{"algo": "apsp", "family": "er:{n}:0.1", "sizes": 64}`:            {64},
		`{"algo": "apsp", "family": "er:{n}:0.1", "sizes": "16,32-48:16"}`: {16, 32, 48},
		"algo: apsp\nfamily: er:{n}:0.1\nsizes: [16, 32]\n":                {16, 32},
	} {
		sp, err := ParseSpec(strings.NewReader(in))
		if err != nil || !reflect.DeepEqual(sp.Sizes, want) {
			t.Errorf("%s: sizes %v, err %v; want %v", in, sp.Sizes, err, want)
		}
	}
	for _, c := range []struct{ in, want string }{
		{"algo: sssp\nfamily: rmat\nscale: [5]\n", `unknown field "scale"`},
		{"algo: sssp\nfamily: rmat\nscales: 9-5\n", `"9-5": the range 9-5 runs backwards; write the smaller number first (5-9)`},
		{"algo: sssp\nfamily: rmat\nscales: [a, b]\n", "is not a list of whole numbers"},
		{"algo: sssp\nfamily: rmat\nvariants: {a: 1}\n", "is not a list of variant names"},
		{"algo: sssp\n  family: [rmat\n", "reading a YAML sweep spec"},
		{"  \n", "the sweep spec is empty"},
	} {
		if _, err := ParseSpec(strings.NewReader(c.in)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err %v, want %q", c.in, err, c.want)
		}
	}
	path := filepath.Join(t.TempDir(), "sweep.yaml")
	if err := os.WriteFile(path, []byte("algo: bfs\nfamily: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadSpecFile(path); err == nil || !strings.Contains(err.Error(), "sweep.yaml") {
		t.Errorf("ReadSpecFile: %v", err)
	}
}

// TestSpecPermuteConvention: a spec that says nothing of permute follows
// Graph500's rules (bfs and sssp on rmat permuted, everything else not);
// an explicit permute, true or false, in JSON or YAML, wins.
func TestSpecPermuteConvention(t *testing.T) {
	for _, c := range []struct {
		in   string
		want bool
	}{
		{`{"algo": "bfs", "family": "rmat"}`, true},
		{`{"algo": "sssp", "family": "RMAT"}`, true},
		{`{"algo": "bfs", "family": "rmat", "permute": false}`, false},
		{"algo: sssp\nfamily: rmat\npermute: false\n", false},
		{`{"algo": "mst", "family": "rmat"}`, false},
		{`{"algo": "mst", "family": "rmat", "permute": true}`, true},
		{`{"algo": "bfs", "family": "ssca2"}`, false},
		{`{"algo": "densebf", "family": "er:{n}:0.1"}`, false},
	} {
		sp, err := ParseSpec(strings.NewReader(c.in))
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		s, err := sp.Sweep()
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		if s.Permute != c.want {
			t.Errorf("%q: Permute %v, want %v", c.in, s.Permute, c.want)
		}
	}
}

// TestTableSaysUnpermuted: a Graph500-convention table that kept the
// generator's labels says so; other tables say nothing of it.
func TestTableSaysUnpermuted(t *testing.T) {
	for _, c := range []struct {
		m    Meta
		want string
	}{
		{Meta{Algo: "bfs", Family: "rmat", Permute: true}, ", permuted"},
		{Meta{Algo: "bfs", Family: "rmat"}, ", unpermuted (the generator's labels; Graph500 permutes them)"},
		{Meta{Algo: "mst", Family: "rmat"}, ""},
	} {
		text := (&Table{Meta: c.m}).String()
		has := strings.Contains(text, "permuted")
		if c.want == "" && has || c.want != "" && !strings.Contains(text, c.want) {
			t.Errorf("%+v: the table's text %q, want %q", c.m, text, c.want)
		}
	}
}
