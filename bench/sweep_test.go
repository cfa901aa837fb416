package bench

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/graphnb/graphnb/algo/sssp"
	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph"
)

// progressLog records the progress callback's calls.
type progressLog struct{ calls [][2]int64 }

func (p *progressLog) fn(done, total int64) { p.calls = append(p.calls, [2]int64{done, total}) }

// Every registered CPU variant runs a tiny sweep (scales 6-8, 2 roots or
// 2 repetitions), validated, with sensible rows and progress.
func TestEveryCPUVariantSweeps(t *testing.T) {
	for _, e := range Entries("") {
		if !strings.HasPrefix(e.Name, "cpu/") {
			continue
		}
		t.Run(e.Algo+"/"+e.Name, func(t *testing.T) {
			var pl progressLog
			tab, err := Sweep{Variants: []Variant{e.New()}, Family: "rmat", Scales: Scales(6, 8),
				Roots: 2, Repetitions: map[bool]int{true: 1, false: 2}[Rooted(e.Algo)]}.Run(gpu.Host(), pl.fn)
			if err != nil {
				t.Fatal(err)
			}
			if len(tab.Rows) != 3 {
				t.Fatalf("%d rows, want 3", len(tab.Rows))
			}
			for i, r := range tab.Rows {
				scale := 6 + i
				if r.Scale != scale || r.Vertices != 1<<scale || r.Arcs <= 0 || r.Graph != fmt.Sprintf("rmat:%d:16", scale) {
					t.Fatalf("row %d: scale %d, %d vertices, %d arcs, graph %q", i, r.Scale, r.Vertices, r.Arcs, r.Graph)
				}
				if r.NumRuns != 2 || r.NumValidated != 2 || len(r.Runs) != 2 {
					t.Fatalf("row %d: %d runs (%d validated, %d kept), want 2", i, r.NumRuns, r.NumValidated, len(r.Runs))
				}
				for k, run := range r.Runs {
					if !run.Validated || run.Time <= 0 {
						t.Fatalf("row %d run %d: %+v", i, k, run)
					}
					if Rooted(e.Algo) {
						if run.Root < 0 || run.Rep != 0 || run.ComponentEdges <= 0 {
							t.Fatalf("row %d run %d: rooted run %+v", i, k, run)
						}
					} else if run.Root != -1 || run.Rep != k {
						t.Fatalf("row %d run %d: unrooted run %+v, want root -1, rep %d", i, k, run, k)
					}
				}
				if e.Algo == "apsp" {
					if r.MeanArcsPerSecond != 0 || r.PrepTime <= 0 {
						t.Fatalf("apsp row %d: rate %g (want 0, time only), prep %v", i, r.MeanArcsPerSecond, r.PrepTime)
					}
				} else if !(r.MinArcsPerSecond > 0 && r.MinArcsPerSecond <= r.MeanArcsPerSecond && r.MeanArcsPerSecond <= r.MaxArcsPerSecond) ||
					!(r.MinTEPS > 0 && r.MinTEPS <= r.HarmonicMeanTEPS && r.HarmonicMeanTEPS <= r.MaxTEPS) {
					t.Fatalf("row %d: rates out of order: %+v", i, r.Stats)
				}
			}
			if first := pl.calls[0]; first != [2]int64{0, 6} {
				t.Fatalf("first progress call %v, want [0 6]", first)
			}
			if last := pl.calls[len(pl.calls)-1]; last != [2]int64{6, 6} {
				t.Fatalf("last progress call %v, want [6 6]", last)
			}
			m := tab.Meta
			if m.Algo != e.Algo || m.Device != gpu.Host().String() || !m.Validate || m.Stopped != "" ||
				m.GraphnbVersion == "" || m.GoVersion == "" || m.Host.Cores < 1 || len(m.Variants) != 1 {
				t.Fatalf("meta %+v", m)
			}
		})
	}
}

// All variants of a sweep see the same graph and the same roots, which is
// what makes per-root speedups meaningful.
func TestVariantsShareRoots(t *testing.T) {
	tab, err := Sweep{Variants: []Variant{SSSPDijkstra(), SSSPDeltaStepping(0)}, Family: "rmat",
		Scales: []int{7}, Roots: 4, Seed: 3}.Run(gpu.Host(), nil)
	if err != nil {
		t.Fatal(err)
	}
	roots := func(r Row) []int32 {
		var out []int32
		for _, x := range r.Runs {
			out = append(out, x.Root)
		}
		return out
	}
	if len(tab.Rows) != 2 || !slices.Equal(roots(tab.Rows[0]), roots(tab.Rows[1])) || len(roots(tab.Rows[0])) != 4 {
		t.Fatalf("rows %d, roots %v and %v", len(tab.Rows), roots(tab.Rows[0]), roots(tab.Rows[len(tab.Rows)-1]))
	}
	// Same graph, same source: Dijkstra and Δ-stepping reach the same
	// component, so the Graph500 numerators agree run by run.
	for k := range tab.Rows[0].Runs {
		if a, b := tab.Rows[0].Runs[k].ComponentEdges, tab.Rows[1].Runs[k].ComponentEdges; a != b {
			t.Fatalf("run %d: component edges %d vs %d", k, a, b)
		}
	}
	if tab.Meta.Weights != "uniform" || tab.Meta.Roots != 4 || tab.Meta.EdgeFactor != 16 || tab.Meta.Seed != 3 {
		t.Fatalf("meta defaults %+v", tab.Meta)
	}
}

func TestFamilies(t *testing.T) {
	cases := []struct {
		name   string
		sweep  Sweep
		graphs []string
		scales []int
	}{
		{"rmat", Sweep{Family: "rmat", Scales: []int{5, 6}, EdgeFactor: 4}, []string{"rmat:5:4", "rmat:6:4"}, []int{5, 6}},
		{"ssca2", Sweep{Family: "SSCA2", Scales: []int{6}}, []string{"ssca2:6"}, []int{6}},
		{"scale template", Sweep{Family: "rmat:{scale}:8", Scales: []int{5}}, []string{"rmat:5:8"}, []int{5}},
		{"size template", Sweep{Family: "er:{n}:0.2", Sizes: []int{30, 40}}, []string{"er:30:0.2", "er:40:0.2"}, []int{0, 0}},
		{"grid template", Sweep{Family: "grid:{n}x{n}", Sizes: []int{4}}, []string{"grid:4x4"}, []int{0}},
		{"one graph", Sweep{Family: "grid:5x6"}, []string{"grid:5x6"}, []int{0}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := c.sweep
			s.Variants = []Variant{BFSTopDown()}
			s.Roots = 1
			tab, err := s.Run(gpu.Host(), nil)
			if err != nil {
				t.Fatal(err)
			}
			var graphs []string
			var scales []int
			for _, r := range tab.Rows {
				graphs = append(graphs, r.Graph)
				scales = append(scales, r.Scale)
			}
			if !slices.Equal(graphs, c.graphs) || !slices.Equal(scales, c.scales) {
				t.Fatalf("graphs %q scales %v, want %q %v", graphs, scales, c.graphs, c.scales)
			}
			if tab.Meta.Weights != "none" {
				t.Fatalf("BFS sweep generated %q weights, want none", tab.Meta.Weights)
			}
		})
	}
}

func TestSweepErrors(t *testing.T) {
	ok := Sweep{Variants: []Variant{BFSTopDown()}, Family: "rmat", Scales: []int{5}}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	with := func(f func(*Sweep)) Sweep { s := ok; f(&s); return s }
	cases := []struct {
		name  string
		sweep Sweep
		want  string
	}{
		{"no variants", with(func(s *Sweep) { s.Variants = nil }), "no variants"},
		{"duplicate labels", with(func(s *Sweep) { s.Variants = []Variant{BFSTopDown(), BFSTopDown()} }), `two variants are labelled "CPU top-down"`},
		{"no label", with(func(s *Sweep) { s.Variants = []Variant{{Algo: "bfs", Prepare: BFSTopDown().Prepare}} }), "variant 0 has no label"},
		{"no prepare", with(func(s *Sweep) { s.Variants = []Variant{{Label: "x", Algo: "bfs"}} }), `"x" has no Prepare`},
		{"mixed algorithms", with(func(s *Sweep) { s.Variants = []Variant{BFSTopDown(), SSSPDijkstra()} }), `computes "sssp" but the sweep measures "bfs"`},
		{"algo mismatch", with(func(s *Sweep) { s.Algo = "mst" }), `computes "bfs" but the sweep measures "mst"`},
		{"no family", with(func(s *Sweep) { s.Family = "" }), "no graph family"},
		{"rmat without scales", with(func(s *Sweep) { s.Scales = nil }), "needs Scales"},
		{"rmat with sizes", with(func(s *Sweep) { s.Sizes = []int{5} }), "takes Scales, not Sizes"},
		{"size template with scales", with(func(s *Sweep) { s.Family = "path:{n}" }), "takes Sizes, not Scales"},
		{"both placeholders", with(func(s *Sweep) { s.Family = "rmat:{scale}:{n}" }), "both {scale} and {n}"},
		{"one graph with scales", with(func(s *Sweep) { s.Family = "grid:4x4" }), "is one graph"},
		{"bad spec", with(func(s *Sweep) { s.Family = "torus:{scale}" }), `unknown graph kind "torus"`},
		{"scale out of range", with(func(s *Sweep) { s.Scales = []int{40} }), "1..30"},
		{"bad weights", with(func(s *Sweep) { s.Weights = "heavy" }), `unknown weights "heavy"`},
		{"negative roots", with(func(s *Sweep) { s.Roots = -2 }), "-2 roots"},
		{"negative repetitions", with(func(s *Sweep) { s.Repetitions = -1 }), "-1 repetitions"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := c.sweep.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Validate: err = %v, want one containing %q", err, c.want)
			}
			tab, err := c.sweep.Run(gpu.Host(), nil)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want one containing %q", err, c.want)
			}
			if tab != nil {
				t.Fatalf("a malformed sweep returned a table")
			}
		})
	}
}

// A graph the sweep cannot make stops it with the file named.
func TestMissingFile(t *testing.T) {
	tab, err := Sweep{Variants: []Variant{BFSTopDown()}, Family: t.TempDir() + "/none.gr"}.Run(gpu.Host(), nil)
	if err == nil || !strings.Contains(err.Error(), "none.gr") || tab == nil || len(tab.Rows) != 0 || tab.Meta.Stopped == "" {
		t.Fatalf("err %v, table %+v", err, tab)
	}
}

func TestInterruptReturnsPartialTable(t *testing.T) {
	defer cancel.Clear()
	var calls int
	progress := func(done, total int64) {
		calls++
		if done == 3 {
			cancel.Request()
		}
	}
	tab, err := Sweep{Variants: []Variant{BFSTopDown(), BFSDirectionOptimizing()}, Family: "rmat",
		Scales: []int{6, 7}, Roots: 2}.Run(gpu.Host(), progress)
	if !errors.Is(err, cancel.ErrInterrupted) {
		t.Fatalf("err = %v, want ErrInterrupted", err)
	}
	if tab == nil {
		t.Fatal("no partial table")
	}
	runs := 0
	for _, r := range tab.Rows {
		runs += len(r.Runs)
		if r.NumRuns != len(r.Runs) {
			t.Fatalf("row stats count %d runs of %d", r.NumRuns, len(r.Runs))
		}
	}
	if runs != 3 || len(tab.Rows) != 2 || tab.Rows[1].NumRuns != 1 {
		t.Fatalf("partial table: %d rows, %d runs; want the 3 runs done before the interrupt in 2 rows", len(tab.Rows), runs)
	}
	if !strings.Contains(tab.Meta.Stopped, "interrupted") || !strings.Contains(err.Error(), "CPU direction-optimizing on rmat:6:16") {
		t.Fatalf("stopped %q, err %v", tab.Meta.Stopped, err)
	}
}

// fakeRunner is a Runner with scripted behaviour.
type fakeRunner struct {
	runs     int
	failRun  int // 1-based run that returns an error (0: none)
	closeErr error
	closed   *int
	checks   *int
	badCheck int // 1-based run whose Check fails
}

func (f *fakeRunner) Run(root int32) (Run, error) {
	f.runs++
	if f.runs == f.failRun {
		return Run{}, errors.New("device fault")
	}
	d := time.Duration(f.runs) * time.Millisecond
	return Run{Time: d, Iterations: 2, ComponentEdges: 10, TEPS: graph.Rate(10, 20, d)}, nil
}
func (f *fakeRunner) PrepTime() time.Duration { return 5 * time.Millisecond }
func (f *fakeRunner) Bytes() int64            { return 1 << 20 }
func (f *fakeRunner) Close() error {
	if f.closed != nil {
		*f.closed++
	}
	return f.closeErr
}

// checkingRunner adds Check.
type checkingRunner struct{ *fakeRunner }

func (c checkingRunner) Check() error {
	*c.checks++
	if c.runs == c.badCheck {
		return errors.New("level of vertex 3 is 2, want 1")
	}
	return nil
}

func fakeVariant(label string, r func() Runner, prepErr error) Variant {
	return Variant{Label: label, Algo: "sssp", Prepare: func(*gpu.Device, *graph.CSR) (Runner, error) {
		if prepErr != nil {
			return nil, prepErr
		}
		return r(), nil
	}}
}

func TestFailures(t *testing.T) {
	base := Sweep{Family: "rmat", Scales: []int{5, 6}, Roots: 3}
	cases := []struct {
		name    string
		runner  func(closed, checks *int) Runner
		prepErr error
		noVal   bool
		want    []string
		runs    int // runs kept in the partial table
		closed  int
	}{
		{"failed check", func(c, k *int) Runner { return checkingRunner{&fakeRunner{closed: c, checks: k, badCheck: 2}} }, nil, false,
			[]string{"fake on rmat:5:16, root ", "failed validation", "level of vertex 3"}, 1, 1},
		{"run error", func(c, k *int) Runner { return checkingRunner{&fakeRunner{closed: c, checks: k, failRun: 3}} }, nil, false,
			[]string{"fake on rmat:5:16, root ", "device fault"}, 2, 1},
		{"prepare error", nil, errors.New("out of memory"), false,
			[]string{"preparing fake on rmat:5:16", "out of memory"}, 0, 0},
		{"close error", func(c, k *int) Runner {
			return checkingRunner{&fakeRunner{closed: c, checks: k, closeErr: errors.New("leak")}}
		}, nil, false, []string{"closing fake on rmat:5:16", "leak"}, 3, 1},
		{"no checker", func(c, k *int) Runner { return &fakeRunner{closed: c} }, nil, false,
			[]string{`"fake" cannot validate`, "NoValidate"}, 0, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var closed, checks int
			s := base
			s.NoValidate = c.noVal
			s.Variants = []Variant{fakeVariant("fake", func() Runner { return c.runner(&closed, &checks) }, c.prepErr)}
			tab, err := s.Run(gpu.Host(), nil)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Fatalf("err %q lacks %q", err, w)
				}
			}
			runs := 0
			for _, r := range tab.Rows {
				runs += len(r.Runs)
			}
			if runs != c.runs || closed != c.closed || tab.Meta.Stopped != err.Error() {
				t.Fatalf("%d runs kept (want %d), closed %d times (want %d), stopped %q", runs, c.runs, closed, c.closed, tab.Meta.Stopped)
			}
		})
	}
}

// Without validation a Runner needs no Check, and runs are recorded as
// not validated; prep time and device bytes come from the Runner.
func TestNoValidate(t *testing.T) {
	var closed int
	tab, err := Sweep{Family: "rmat", Scales: []int{5}, Roots: 2, Repetitions: 2, NoValidate: true,
		Variants: []Variant{fakeVariant("fake", func() Runner { return &fakeRunner{closed: &closed} }, nil)}}.Run(gpu.Host(), nil)
	if err != nil {
		t.Fatal(err)
	}
	r := tab.Rows[0]
	if r.NumRuns != 4 || r.NumValidated != 0 || r.PrepTime != 5*time.Millisecond || r.DeviceBytes != 1<<20 || closed != 1 || tab.Meta.Validate {
		t.Fatalf("row %+v, closed %d, meta.Validate %v", r, closed, tab.Meta.Validate)
	}
	if reps := []int{r.Runs[0].Rep, r.Runs[1].Rep, r.Runs[2].Rep}; !slices.Equal(reps, []int{0, 1, 0}) || r.Runs[0].Root != r.Runs[1].Root {
		t.Fatalf("repetitions %v, roots %d %d", reps, r.Runs[0].Root, r.Runs[1].Root)
	}
	// times 1..4 ms over 20 arcs
	if want := (20e3 + 10e3 + 20e3/3 + 5e3) / 4; math.Abs(r.MeanArcsPerSecond-want) > 1e-9*want {
		t.Fatalf("mean arcs/s %g, want %g", r.MeanArcsPerSecond, want)
	}
}

// A validation failure in a real adapter: an SSSP result with a wrong
// distance is caught by sssp.Check.
func TestAdapterCatchesWrongDistances(t *testing.T) {
	wrong := Variant{Label: "broken", Algo: "sssp", Prepare: func(_ *gpu.Device, g *graph.CSR) (Runner, error) {
		return SSSPRunner(g, func(src int32) (*sssp.Result, error) {
			r, err := sssp.Dijkstra(g, src)
			if err == nil {
				for v := range r.Dist {
					if int32(v) != src && !math.IsInf(r.Dist[v], 1) {
						r.Dist[v] *= 2
						break
					}
				}
			}
			return r, err
		}, 0, 0, nil), nil
	}}
	_, err := Sweep{Variants: []Variant{wrong}, Family: "rmat", Scales: []int{6}, Roots: 2}.Run(gpu.Host(), nil)
	if err == nil || !strings.Contains(err.Error(), "broken on rmat:6:16, root") || !strings.Contains(err.Error(), "failed validation") {
		t.Fatalf("err = %v", err)
	}
}

func TestCheckBeforeRun(t *testing.T) {
	g, err := graph.Build(graph.EdgeList{N: 2, Src: []int32{0}, Dst: []int32{1}}, graph.BuildOptions{Symmetrize: true})
	if err != nil {
		t.Fatal(err)
	}
	r := SSSPRunner(g, func(int32) (*sssp.Result, error) { return nil, errors.New("x") }, 0, 0, nil)
	if err := r.(Checker).Check(); err == nil {
		t.Fatal("Check with no result passed")
	}
	if _, err := r.Run(0); err == nil {
		t.Fatal("Run error lost")
	}
	if err := r.(Checker).Check(); err == nil {
		t.Fatal("Check after a failed run passed")
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestParseScales(t *testing.T) {
	cases := []struct {
		in   string
		want []int
	}{
		{"14", []int{14}},
		{"10-13", []int{10, 11, 12, 13}},
		{"14-20:2", []int{14, 16, 18, 20}},
		{"8,10, 12", []int{8, 10, 12}},
		{"6-7,256", []int{6, 7, 256}},
	}
	for _, c := range cases {
		got, err := ParseScales(c.in)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("ParseScales(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "x", "12-10", "10-", "14:2", "10-12:0", "-3", "1,,2"} {
		if got, err := ParseScales(bad); err == nil {
			t.Errorf("ParseScales(%q) = %v, want an error", bad, got)
		}
	}
	// The errors say what is wrong, not only that something is.
	for in, want := range map[string]string{
		"20-10":    "the range 20-10 runs backwards; write the smaller number first (10-20)",
		"10-12:0":  "the step 0 must be at least 1",
		"10-12:-1": "the step -1 must be at least 1",
		"1-x":      `"1-x" is not a list of whole numbers`,
	} {
		if _, err := ParseScales(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseScales(%q): error %v, want one saying %q", in, err, want)
		}
	}
	if got := Scales(3, 5); !slices.Equal(got, []int{3, 4, 5}) || Scales(5, 4) != nil {
		t.Errorf("Scales(3,5) = %v, Scales(5,4) = %v", got, Scales(5, 4))
	}
}

// A graph with fewer usable roots than asked runs from all it has, and
// the progress total shrinks to match.
func TestFewerRootsThanAsked(t *testing.T) {
	var pl progressLog
	tab, err := Sweep{Variants: []Variant{BFSTopDown(), BFSDirectionOptimizing()}, Family: "path:3", Roots: 10}.Run(gpu.Host(), pl.fn)
	if err != nil {
		t.Fatal(err)
	}
	if tab.Rows[0].NumRuns != 3 || tab.Rows[1].NumRuns != 3 {
		t.Fatalf("runs %d and %d, want 3 each", tab.Rows[0].NumRuns, tab.Rows[1].NumRuns)
	}
	if first, last := pl.calls[0], pl.calls[len(pl.calls)-1]; first != [2]int64{0, 20} || last != [2]int64{6, 6} {
		t.Fatalf("progress from %v to %v, want [0 20] to [6 6]", first, last)
	}
}
