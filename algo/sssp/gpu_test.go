package sssp

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/graphnb/graphnb/algo/internal/prepared"
	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/graph/gen"
	"github.com/graphnb/graphnb/internal/cudasrc"
	"github.com/graphnb/graphnb/internal/fakegpu"
	tg "github.com/graphnb/graphnb/internal/testgraphs"
)

// ---- fixtures shared by the host, emulated and GPU tests ----

type gpuCase struct {
	name string
	g    *graph.CSR
	srcs []int32
}

// mustGraph(t)(gen.RMAT(…)) returns the graph or stops the test.
func mustGraph(t testing.TB) func(*graph.CSR, error) *graph.CSR {
	return func(g *graph.CSR, err error) *graph.CSR {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
}

// twoComponents: two random components on 0..49 and 50..99 and the
// isolated vertex 100.
func twoComponents(t testing.TB) *graph.CSR {
	r := rand.New(rand.NewPCG(5, 6))
	unit := func(r *rand.Rand) float64 { return r.Float64() }
	var edges []tg.Edge
	for i := range 50 { // a path keeps each part connected
		if i+1 < 50 {
			edges = append(edges, tg.Edge{float64(i), float64(i + 1), unit(r)}, tg.Edge{float64(50 + i), float64(51 + i), unit(r)})
		}
	}
	edges = append(edges, tg.Random(r, 50, 150, unit)...)
	for _, e := range tg.Random(r, 50, 150, unit) {
		edges = append(edges, tg.Edge{e[0] + 50, e[1] + 50, e[2]})
	}
	return tg.Build(t, 101, false, tg.Float32, edges...)
}

// gpuCases returns the test graphs: small ones for the host and the
// emulator, the sizes the GPU tests ask for otherwise.
func gpuCases(t testing.TB, small bool) []gpuCase {
	rs, ss, pn, sn := 10, 10, 200, 300
	if small {
		rs, ss, pn, sn = 7, 6, 60, 70
	}
	cases := []gpuCase{
		{name: fmt.Sprintf("rmat_s%d", rs), g: mustGraph(t)(gen.RMAT(rs, 16, gen.Seed(1)))},
		{name: fmt.Sprintf("rmat_s%d_float64", rs), g: mustGraph(t)(gen.RMAT(rs, 16, gen.Seed(2), gen.Float64()))},
		{name: fmt.Sprintf("rmat_s%d_unweighted", rs), g: mustGraph(t)(gen.RMAT(rs, 16, gen.Seed(3), gen.Unweighted()))},
		{name: fmt.Sprintf("ssca2_s%d", ss), g: mustGraph(t)(gen.SSCA2(ss, gen.Seed(4)))},
		{name: fmt.Sprintf("path_%d", pn), g: mustGraph(t)(gen.Path(pn, gen.Seed(5)))},
		{name: fmt.Sprintf("star_%d", sn), g: mustGraph(t)(gen.Star(sn, gen.Seed(6)))},
		{name: "two_components", g: twoComponents(t), srcs: []int32{0, 100, 75}},
		{name: "single_vertex", g: tg.Build(t, 1, false, tg.Float32), srcs: []int32{0}},
		{name: "zero_weights", g: tg.Build(t, 6, false, tg.Float32,
			tg.Edge{0, 1, 0}, tg.Edge{1, 2, 0}, tg.Edge{2, 0, 0}, tg.Edge{2, 3, 1}, tg.Edge{3, 4, 0}, tg.Edge{4, 5, 0}, tg.Edge{5, 3, 0}), srcs: []int32{1}},
	}
	if !small {
		cases = append(cases, gpuCase{name: "rmat_s12", g: mustGraph(t)(gen.RMAT(12, 16, gen.Seed(7)))})
	}
	for i := range cases {
		c := &cases[i]
		if c.srcs == nil {
			c.srcs = append([]int32{0}, c.g.Roots(2, 9)...)
		}
	}
	return cases
}

// sameDist reports the first vertex where got and want differ (exactly).
func sameDist(got, want []float64) error {
	if len(got) != len(want) {
		return fmt.Errorf("%d distances, want %d", len(got), len(want))
	}
	for v := range got {
		if got[v] != want[v] && !(math.IsNaN(got[v]) && math.IsNaN(want[v])) {
			return fmt.Errorf("Dist[%d] = %v (%x), the CPU's BellmanFord says %v (%x)", v, got[v], math.Float64bits(got[v]), want[v], math.Float64bits(want[v]))
		}
	}
	return nil
}

// nearDist reports the first vertex where got differs from want by more
// than rel relative (plus rel absolute, for distances near 0), or where
// one is +Inf and the other not.
func nearDist(got, want []float64, rel float64) error {
	if len(got) != len(want) {
		return fmt.Errorf("%d distances, want %d", len(got), len(want))
	}
	for v := range got {
		g, w := got[v], want[v]
		if math.IsInf(g, 1) != math.IsInf(w, 1) || (!math.IsInf(w, 1) && math.Abs(g-w) > rel*(math.Abs(w)+1)) {
			return fmt.Errorf("Dist[%d] = %v, the CPU's float64 BellmanFord says %v (tolerance %g relative)", v, g, w, rel)
		}
	}
	return nil
}

// withParents32 completes a result holding float32 distances: parents in
// float32 arithmetic and the bookkeeping, as Prepared.Run does.
func withParents32(t *testing.T, g *graph.CSR, r *Result) {
	t.Helper()
	p, reached, err := tightParents32(g, r.Dist, r.Source)
	if err != nil {
		t.Fatal(err)
	}
	r.Parents, r.Reached = p, reached
	r.ComponentEdges = g.ComponentEdges(func(v int32) bool { return p[v] >= 0 })
}

// ---- options, labels, variants ----

func TestOptionsAndLabels(t *testing.T) {
	seed := SeedVariants()
	wantSeed := []struct {
		label             string
		permute, texCache bool
		slug              string
	}{
		{"cache && restrict on", true, true, "cache_and_restrict_on"},
		{"cache off", false, true, "cache_off"},
		{"restrict off", true, false, "restrict_off"},
		{"cache && restrict off", false, false, "cache_and_restrict_off"},
	}
	if len(seed) != len(wantSeed) {
		t.Fatalf("SeedVariants has %d variants, want %d", len(seed), len(wantSeed))
	}
	for i, w := range wantSeed {
		v := seed[i]
		o := v.Options
		if v.Label != w.label || v.String() != w.label {
			t.Errorf("variant %d: label %q, want %q", i, v.Label, w.label)
		}
		if o.Permute != w.permute || o.TextureCache != w.texCache || o.Method != EdgeSweep || o.Float32 || o.Parents || o.SegmentSize != 0 {
			t.Errorf("%s: options %+v, want Permute=%v TextureCache=%v, edge sweep, float64", w.label, o, w.permute, w.texCache)
		}
		if o.Label() != w.label {
			t.Errorf("%s: Options.Label() = %q", w.label, o.Label())
		}
		if v.Slug() != w.slug {
			t.Errorf("%s: Slug() = %q, want %q", w.label, v.Slug(), w.slug)
		}
	}
	modern := ModernVariants()
	wantModern := []struct {
		label, slug string
		method      Method
	}{
		{"near-far (Δ-stepping)", "near-far_delta-stepping", NearFar},
		{"frontier (work-efficient)", "frontier_work-efficient", Frontier},
	}
	if len(modern) != len(wantModern) {
		t.Fatalf("ModernVariants has %d variants, want %d", len(modern), len(wantModern))
	}
	for i, w := range wantModern {
		v, o := modern[i], modern[i].Options
		if v.Label != w.label || o.Method != w.method || o.Label() != w.label || v.Slug() != w.slug ||
			o.Delta != 0 || o.DeltaFactor != 0 || o.Float32 {
			t.Errorf("ModernVariants()[%d] = %q (%+v, slug %q), want %q, %v, slug %q, default Δ", i, v.Label, o, v.Slug(), w.label, w.method, w.slug)
		}
	}
	for _, c := range []struct {
		opts Options
		want string
	}{
		{Options{}, "cache && restrict off"},
		{Options{Permute: true, SegmentSize: 64}, "restrict off, P=64"},
		{Options{SegmentSize: 64}, "cache && restrict off"}, // P matters only with the permutation
		{Options{TextureCache: true, Float32: true}, "cache off, float32"},
		{Options{Method: Frontier, Permute: true, Float32: true}, "frontier (work-efficient), float32"},
		{Options{Method: Frontier, Delta: 0.5}, "frontier (work-efficient)"}, // Δ is near-far's
		{Options{Method: NearFar, Float32: true}, "near-far (Δ-stepping), float32"},
		{Options{Method: NearFar, Delta: 0.25, DeltaFactor: 4}, "near-far (Δ-stepping), Δ=0.25"},
		{Options{Method: NearFar, DeltaFactor: 4}, "near-far (Δ-stepping), Δ factor=4"},
	} {
		if got := c.opts.Label(); got != c.want {
			t.Errorf("Label of %+v = %q, want %q", c.opts, got, c.want)
		}
	}
	if EdgeSweep.String() != "edge sweep" || Frontier.String() != "frontier" || NearFar.String() != "near-far" || Method(7).String() != "Method(7)" {
		t.Errorf("Method names: %v %v %v %v", EdgeSweep, Frontier, NearFar, Method(7))
	}
	if s := (Variant{Label: Options{Method: NearFar, DeltaFactor: 4, Float32: true}.Label()}).Slug(); s != "near-far_delta-stepping_delta_factor4_float32" {
		t.Errorf("slug %q", s)
	}
}

// ---- the checks of the GPU path ----

func TestCheckGPUGraph(t *testing.T) {
	und := tg.Build(t, 3, false, tg.Float32, tg.Edge{0, 1, 1}, tg.Edge{1, 2, 2})
	dir := tg.Build(t, 3, true, tg.Float32, tg.Edge{0, 1, 1}, tg.Edge{1, 2, 2})
	neg := tg.Build(t, 3, false, tg.Float64, tg.Edge{0, 1, 1}, tg.Edge{1, 2, -2})
	// graph.Build refuses NaN weights; a CSR can still hold one.
	nan := &graph.CSR{Offsets: []int64{0, 1, 2, 2}, Adj: []int32{1, 2}, Weights: []float32{float32(math.NaN()), 2}, Directed: true}
	cases := []struct {
		name string
		g    *graph.CSR
		opts Options
		want string // "" = no error; else a substring of the error
	}{
		{"undirected", und, Options{}, ""},
		{"undirected frontier", und, Options{Method: Frontier}, ""},
		{"directed edge sweep", dir, Options{}, "symmetrize"},
		{"directed edge sweep names the fix", dir, Options{Permute: true}, "Undirected()"},
		{"directed frontier", dir, Options{Method: Frontier}, ""},
		{"directed near-far", dir, Options{Method: NearFar}, ""},
		{"directed edge sweep names near-far", dir, Options{}, "NearFar"},
		{"near-far Δ", und, Options{Method: NearFar, Delta: 0.1, DeltaFactor: 2}, ""},
		{"negative Δ", und, Options{Method: NearFar, Delta: -1}, "bucket width"},
		{"NaN Δ", und, Options{Method: NearFar, Delta: math.NaN()}, "bucket width"},
		{"infinite Δ", und, Options{Method: NearFar, Delta: math.Inf(1)}, "bucket width"},
		{"negative Δ factor", und, Options{Method: NearFar, DeltaFactor: -2}, "Δ factor"},
		{"infinite Δ factor", und, Options{Method: NearFar, DeltaFactor: math.Inf(1)}, "Δ factor"},
		{"negative weight near-far", neg, Options{Method: NearFar}, "non-negative"},
		{"negative weight", neg, Options{}, "non-negative"},
		{"negative weight frontier", neg, Options{Method: Frontier}, "non-negative"},
		{"NaN weight", nan, Options{Method: Frontier}, "NaN"},
		{"negative segment", und, Options{Permute: true, SegmentSize: -1}, "segment size"},
		{"unknown method", und, Options{Method: Method(9)}, "unknown method"},
		{"nil graph", nil, Options{}, "no graph"},
		{"no vertices", &graph.CSR{Offsets: []int64{0}}, Options{}, "no vertices"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := checkGPUGraph(c.g, c.opts)
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case c.want != "" && err == nil:
				t.Fatalf("no error, want one mentioning %q", c.want)
			case c.want != "" && !strings.Contains(err.Error(), c.want):
				t.Fatalf("error %q does not mention %q", err, c.want)
			}
			// Prepare applies the same rules on every device.
			p, perr := Prepare(gpu.Host(), c.g, c.opts)
			if (perr != nil) != (err != nil) {
				t.Fatalf("Prepare on the host: error %v, checkGPUGraph: %v", perr, err)
			}
			if p != nil {
				p.Close()
			}
		})
	}
	if _, err := Prepare(nil, und, Options{}); err == nil || !strings.Contains(err.Error(), "nil device") {
		t.Errorf("Prepare(nil device): %v", err)
	}
}

// ---- the near-far layout and Δ ----

// TestLightFirst: each vertex's arcs become its light arcs (weight < Δ)
// then its heavy ones, each run in the original order, lend ending the
// light run; offsets and arc multiset unchanged; unit weights untouched.
func TestLightFirst(t *testing.T) {
	cases := []struct {
		name  string
		g     *graph.CSR
		delta float64
	}{
		{"rmat float32", mustGraph(t)(gen.RMAT(8, 16, gen.Seed(3))), 0.2},
		{"rmat float64", mustGraph(t)(gen.RMAT(8, 16, gen.Seed(4), gen.Float64())), 0.05},
		{"all light", mustGraph(t)(gen.RMAT(6, 8, gen.Seed(5))), 2},
		{"all heavy", mustGraph(t)(gen.RMAT(6, 8, gen.Seed(6))), 1e-9},
		{"unweighted light", mustGraph(t)(gen.RMAT(6, 8, gen.Seed(7), gen.Unweighted())), 1.5},
		{"unweighted heavy", mustGraph(t)(gen.RMAT(6, 8, gen.Seed(7), gen.Unweighted())), 1},
		{"infinite weights", tg.Build(t, 3, true, tg.Float64, tg.Edge{0, 1, math.Inf(1)}, tg.Edge{0, 2, 0.5}, tg.Edge{1, 2, 0}), 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			lg, lend := lightFirst(c.g, c.delta)
			g := c.g
			if len(lend) != g.NumVertices() || &lg.Offsets[0] != &g.Offsets[0] || lg.Directed != g.Directed || lg.NumArcs() != g.NumArcs() {
				t.Fatalf("layout: %d ends for %d vertices, offsets shared %v, %d arcs of %d", len(lend), g.NumVertices(), &lg.Offsets[0] == &g.Offsets[0], lg.NumArcs(), g.NumArcs())
			}
			if (g.Weights == nil) != (lg.Weights == nil) || (g.Weights64 == nil) != (lg.Weights64 == nil) {
				t.Fatalf("the layout changed the weight type")
			}
			for v := range g.NumVertices() {
				o0, o1 := g.Offsets[v], g.Offsets[v+1]
				if lend[v] < o0 || lend[v] > o1 {
					t.Fatalf("vertex %d: lend %d outside [%d, %d]", v, lend[v], o0, o1)
				}
				var light, heavy []int64 // arc indices of g, in order
				for k := o0; k < o1; k++ {
					if g.ArcWeight(k) < c.delta {
						light = append(light, k)
					} else {
						heavy = append(heavy, k)
					}
				}
				if lend[v] != o0+int64(len(light)) {
					t.Fatalf("vertex %d: lend %d, want %d (%d light arcs)", v, lend[v], o0+int64(len(light)), len(light))
				}
				for i, k := range append(light, heavy...) {
					at := o0 + int64(i)
					if lg.Adj[at] != g.Adj[k] || lg.ArcWeight(at) != g.ArcWeight(k) {
						t.Fatalf("vertex %d: arc %d is %d (%g), want %d (%g), the light ones first, each run in order",
							v, at, lg.Adj[at], lg.ArcWeight(at), g.Adj[k], g.ArcWeight(k))
					}
				}
			}
		})
	}
}

func TestNearFarDelta(t *testing.T) {
	g := tg.Build(t, 4, false, tg.Float32, tg.Edge{0, 1, 0.5}, tg.Edge{1, 2, 1}, tg.Edge{2, 3, 0}) // 6 arcs, mean weight 0.5, mean degree 1.5
	zero := tg.Build(t, 3, false, tg.Float32, tg.Edge{0, 1, 0}, tg.Edge{1, 2, 0})
	empty := tg.Build(t, 3, false, tg.Float32)
	unit := mustGraph(t)(gen.RMAT(6, 8, gen.Seed(1), gen.Unweighted()))
	cases := []struct {
		name string
		g    *graph.CSR
		opts Options
		want float64
	}{
		{"default", g, Options{}, DefaultGPUDeltaFactor * 0.5 / 1.5},
		{"factor", g, Options{DeltaFactor: 3}, 3 * 0.5 / 1.5},
		{"explicit wins", g, Options{Delta: 0.125, DeltaFactor: 3}, 0.125},
		{"zero weights", zero, Options{}, 1},
		{"no arcs", empty, Options{}, 1},
		{"unit weights", unit, Options{}, DefaultGPUDeltaFactor / (float64(unit.NumArcs()) / float64(unit.NumVertices()))},
	}
	for _, c := range cases {
		o := c.opts
		o.Method = NearFar
		got := nearFarDelta(c.g.NumVertices(), c.g.NumArcs(), weightsOf(c.g), o)
		if math.Abs(got-c.want) > 1e-12*c.want {
			t.Errorf("%s: Δ = %v, want %v", c.name, got, c.want)
		}
		p, err := Prepare(gpu.Host(), c.g, o)
		if err != nil {
			t.Fatal(err)
		}
		if p.Delta() != got {
			t.Errorf("%s: Prepared.Delta() = %v, want %v", c.name, p.Delta(), got)
		}
		p.Close()
	}
	p, err := Prepare(gpu.Host(), g, Options{Method: Frontier, Delta: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsInf(p.Delta(), 1) {
		t.Errorf("frontier: Delta() = %v, want +Inf", p.Delta())
	}
}

// ---- the host device ----

// hostVariants: every variant of the figures, and float32 / small-P forms.
func allVariants() []Variant {
	vs := append(SeedVariants(), ModernVariants()...)
	vs = append(vs,
		Variant{"cache && restrict on, P=16", Options{Permute: true, TextureCache: true, SegmentSize: 16}},
		Variant{"cache && restrict on, float32", Options{Permute: true, TextureCache: true, Float32: true}},
		Variant{"frontier (work-efficient), float32", Options{Method: Frontier, Float32: true}},
		Variant{"near-far (Δ-stepping), Δ factor=1, float32", Options{Method: NearFar, DeltaFactor: 1, Float32: true}},
	)
	return vs
}

func TestHostDeviceRunsTheCPU(t *testing.T) {
	host := gpu.Host()
	for _, c := range gpuCases(t, true) {
		for _, v := range allVariants() {
			t.Run(c.name+"/"+v.Slug(), func(t *testing.T) {
				o := v.Options
				o.Parents = true
				p, err := Prepare(host, c.g, o)
				if err != nil {
					t.Fatal(err)
				}
				defer p.Close()
				if p.Label() != v.Label || p.Bytes() != 0 || p.SegmentSize() != 0 || p.Device() != host || p.Graph() != c.g {
					t.Errorf("Prepared: label %q bytes %d P %d", p.Label(), p.Bytes(), p.SegmentSize())
				}
				for _, src := range c.srcs { // one preparation, several roots
					r, err := p.Run(src)
					if err != nil {
						t.Fatal(err)
					}
					cpu, err := BellmanFord(c.g, src)
					if err != nil {
						t.Fatal(err)
					}
					if err := sameDist(r.Dist, cpu.Dist); err != nil {
						t.Errorf("from %d: %v", src, err)
					}
					if err := Check(c.g, r); err != nil {
						t.Errorf("from %d: %v", src, err)
					}
					if !strings.Contains(r.Algorithm, "host device") || !strings.Contains(r.Algorithm, v.Label) {
						t.Errorf("Algorithm %q does not say it ran on the host for %q", r.Algorithm, v.Label)
					}
					if r.Iterations <= 0 || r.Source != src {
						t.Errorf("from %d: iterations %d, source %d", src, r.Iterations, r.Source)
					}
				}
			})
		}
	}
}

// TestPrepTimeOnce: Prepared.Run does not charge the preparation to each
// run (PrepTime() reports it once); the package-level Run, which prepares
// for one run, does.
func TestPrepTimeOnce(t *testing.T) {
	g := mustGraph(t)(gen.RMAT(7, 8, gen.Seed(1)))
	for _, v := range append(SeedVariants()[:1], ModernVariants()...) {
		p, err := Prepare(gpu.Host(), g, v.Options)
		if err != nil {
			t.Fatal(err)
		}
		if p.PrepTime() <= 0 {
			t.Errorf("%s: PrepTime() = %v", v.Label, p.PrepTime())
		}
		prepared.SetPrepTime(&p.base, time.Hour) // as if the preparation had been long
		for _, src := range []int32{0, 1} {
			r, err := p.Run(src)
			if err != nil {
				t.Fatal(err)
			}
			if r.PrepTime >= time.Hour {
				t.Errorf("%s from %d: Result.PrepTime %v includes the preparation (%v), which PrepTime() reports once", v.Label, src, r.PrepTime, p.PrepTime())
			}
		}
		p.Close()
		r, err := Run(gpu.Host(), g, 0, v.Options)
		if err != nil {
			t.Fatal(err)
		}
		if r.PrepTime <= 0 {
			t.Errorf("%s: package-level Run: PrepTime %v, want the preparation's", v.Label, r.PrepTime)
		}
	}
}

func TestHostDeviceRunErrorsAndCancel(t *testing.T) {
	g := mustGraph(t)(gen.RMAT(8, 16, gen.Seed(1)))
	if _, err := Run(gpu.Host(), g, -1, Options{}); err == nil || !strings.Contains(err.Error(), "source") {
		t.Errorf("Run from -1: %v", err)
	}
	p, err := Prepare(gpu.Host(), g, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Run(int32(g.NumVertices())); err == nil {
		t.Errorf("Run from N: no error")
	}
	cancel.Request()
	_, err = p.Run(0)
	cancel.Clear()
	if !errors.Is(err, cancel.ErrInterrupted) {
		t.Errorf("Run after cancel.Request: %v, want cancel.ErrInterrupted", err)
	}
	if _, err := p.Run(0); err != nil {
		t.Errorf("Run after cancel.Clear: %v", err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := p.Run(0); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("Run after Close: %v", err)
	}
	var nilP *Prepared
	if err := nilP.Close(); err != nil {
		t.Errorf("Close of nil: %v", err)
	}
}

// float32BellmanFord is a sequential float32 Bellman-Ford: the fixed point
// the GPU's float32 kernels reach, for testing tightParents32.
func float32BellmanFord(g *graph.CSR, src int32) []float64 {
	n := g.NumVertices()
	d := make([]float32, n)
	for i := range d {
		d[i] = float32(math.Inf(1))
	}
	d[src] = 0
	for changed := true; changed; {
		changed = false
		for u := range n {
			for k := g.Offsets[u]; k < g.Offsets[u+1]; k++ {
				var w float32 = 1
				switch {
				case g.Weights != nil:
					w = g.Weights[k]
				case g.Weights64 != nil:
					w = float32(g.Weights64[k])
				}
				if nd := float32(d[u] + w); nd < d[g.Adj[k]] {
					d[g.Adj[k]] = nd
					changed = true
				}
			}
		}
	}
	out := make([]float64, n)
	for i, x := range d {
		out[i] = float64(x)
	}
	return out
}

func TestTightParents32(t *testing.T) {
	dir := tg.Build(t, 5, true, tg.Float64, tg.Edge{0, 1, 0.1}, tg.Edge{1, 2, 0}, tg.Edge{2, 1, 0}, tg.Edge{2, 3, 1e-9}, tg.Edge{0, 3, 0.3})
	cases := append(gpuCases(t, true), gpuCase{name: "directed_tiny_weights", g: dir, srcs: []int32{0}})
	for _, c := range cases {
		for _, src := range c.srcs {
			r := &Result{Source: src, Dist: float32BellmanFord(c.g, src)}
			withParents32(t, c.g, r)
			if err := CheckTolerance(c.g, r, 1e-5); err != nil {
				t.Errorf("%s from %d: %v", c.name, src, err)
			}
			if r.Parents[src] != src {
				t.Errorf("%s from %d: parent of the source is %d", c.name, src, r.Parents[src])
			}
		}
	}
	// Distances that are not the float32 fixed point: an error naming the vertex.
	g := tg.Build(t, 3, false, tg.Float32, tg.Edge{0, 1, 1}, tg.Edge{1, 2, 1})
	if _, _, err := tightParents32(g, []float64{0, 1, 5}, 0); err == nil || !strings.Contains(err.Error(), "vertex 2") {
		t.Errorf("tightParents32 of wrong distances: %v", err)
	}
}

// ---- the CUDA source ----

func TestKernelSource(t *testing.T) {
	names := kernelNames()
	declared := cudasrc.Check(t, "sssp.cu", kernelSource, 1000, names)
	if len(names) != 26 {
		t.Errorf("kernelNames lists %d kernels, want 26 (2 inits × 2 distance types, and the edge init's logged copy; 2 edge sweeps, their logged copies and a near-far step × 2 distance × 2 weight types)", len(names))
	}
	if len(declared) != len(names) {
		t.Errorf("sssp.cu declares %d kernels, gpu.go knows %d: %v", len(declared), len(names), declared)
	}
	// The control-word indices: sssp.cu's NF_* and gpu.go's nf* agree, and
	// the traced edge sweep's count slots.
	defs := cudasrc.Defines(kernelSource)
	for name, want := range map[string]int{"NF_Q0": nfQ0, "NF_SCNT": nfSCnt, "NF_FCNT": nfFCnt, "NF_PHASE": nfPhase,
		"NF_EPOCH": nfEpoch, "NF_THR": nfThr, "NF_FMIN": nfFMin, "NF_FKEEP": nfFKeep, "NF_DONE": nfDone,
		"NF_ROUNDS": nfRounds, "NF_SCANNED": nfScanned, "NF_LOWERED": nfLowered, "NF_WIDEN": nfWiden, "NF_PSCAN": nfPScan, "NF_CTL": nfCtlWords,
		"NF_TLOG": nfTLogWords, "NF_T_START": nfTStart, "NF_T_NEAR": nfTNear, "NF_T_SETTLE": nfTSettle, "NF_T_FAR": nfTFar,
		"NF_T_THR": nfTThr, "NF_T_PSCANNED": nfTPScanned, "NF_T_PLOWERED": nfTPLowered, "NF_T_ROUND": nfTRound, "NF_T_END": nfTEnd, "NF_T_ENDS": nfTEnds,
		"BF_COUNT_SLOTS": edgeCountSlots, "BF_COUNT_STRIDE": edgeCountStride} {
		if got, ok := defs[name]; !ok || got != int64(want) {
			t.Errorf("sssp.cu #define %s = %d (found %v), gpu.go says %d", name, got, ok, want)
		}
	}
}

// TestKernelSourceSyntax compiles sssp.cu as C++ against declarations of
// the CUDA built-ins it uses (testdata/cuda_shim.h), after the launch
// log's header as NVRTC gets it (gpu.PrependLaunchLog): syntax, types and
// overloads, which NVRTC would otherwise first see on the GPU machine.
func TestKernelSourceSyntax(t *testing.T) {
	cudasrc.Syntax(t, "-include", filepath.Join("testdata", "cuda_shim.h"),
		"-include", filepath.Join("..", "..", "gpu", "launchlog.cuh"), "-x", "c++", "sssp.cu")
}

// ---- the kernels, emulated on the CPU ----
//
// The emulator runs each CUDA thread as an OS thread, so it is slow: the
// graphs are the small ones.

type emuResult struct {
	iters   int
	scanned int64
	dist    []float64
}

// writeEmuInput renders a graph, its COO view (nil: directed), a source,
// the least slots per warp, the near-far Δ and the near-far layout (lg,
// with lend ending each vertex's light arcs), in emulate.cpp's input
// format.
func writeEmuInput(g *graph.CSR, coo *graph.COO, src int32, minSlots int, delta float64, lg *graph.CSR, lend []int64) []byte {
	var b bytes.Buffer
	w := bufio.NewWriter(&b)
	kind := 0
	switch {
	case g.Weights != nil:
		kind = 1
	case g.Weights64 != nil:
		kind = 2
	}
	directed := 0
	if g.Directed {
		directed = 1
	}
	fmt.Fprintf(w, "%d %d %d %d\n", g.NumVertices(), g.NumArcs(), kind, directed)
	ints := func(xs []int32) {
		for _, x := range xs {
			fmt.Fprintf(w, "%d ", x)
		}
		fmt.Fprintln(w)
	}
	floats := func(w32 []float32, w64 []float64) {
		for _, x := range w32 {
			fmt.Fprintf(w, "%s ", strconv.FormatFloat(float64(x), 'x', -1, 64))
		}
		for _, x := range w64 {
			fmt.Fprintf(w, "%s ", strconv.FormatFloat(x, 'x', -1, 64))
		}
		fmt.Fprintln(w)
	}
	for _, x := range g.Offsets {
		fmt.Fprintf(w, "%d ", x)
	}
	fmt.Fprintln(w)
	ints(g.Adj)
	floats(g.Weights, g.Weights64)
	if coo == nil {
		fmt.Fprintln(w, -1)
	} else {
		fmt.Fprintln(w, len(coo.Start))
		ints(coo.Start)
		ints(coo.End)
		floats(coo.Weights, coo.Weights64)
	}
	fmt.Fprintf(w, "%d %d\n", src, minSlots)
	fmt.Fprintln(w, strconv.FormatFloat(delta, 'x', -1, 64))
	for _, x := range lend {
		fmt.Fprintf(w, "%d ", x)
	}
	fmt.Fprintln(w)
	ints(lg.Adj)
	floats(lg.Weights, lg.Weights64)
	w.Flush()
	return b.Bytes()
}

func parseEmuOutput(out []byte) (map[string]emuResult, error) {
	res := map[string]emuResult{}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	for i := 0; i+1 < len(lines); i += 2 {
		var name string
		var r emuResult
		if _, err := fmt.Sscanf(lines[i], "variant %s %d %d", &name, &r.iters, &r.scanned); err != nil {
			return nil, fmt.Errorf("line %d %q: %v", i+1, lines[i], err)
		}
		for _, f := range strings.Fields(lines[i+1]) {
			x, err := strconv.ParseFloat(f, 64)
			if err != nil {
				return nil, fmt.Errorf("line %d: %v", i+2, err)
			}
			r.dist = append(r.dist, x)
		}
		res[name] = r
	}
	return res, nil
}

// TestKernelsEmulated runs every kernel of sssp.cu on the CPU, through
// the shared CUDA emulator (internal/fakegpu/testdata/cuda_emu.h, threads
// mode: an OS thread per CUDA thread, warp collectives at barriers), with host loops that mirror gpu.go's, and checks the results
// as the GPU tests do: float64 distances equal to BellmanFord's, float32
// ones within tolerance, with a valid parent tree. The near-far steps run
// on a 3-block grid of 6 warps (the grid-stride loops wrap, the last-block
// epilogue has several blocks to wait for, hubs span several warps'
// slot ranges and warps walk several windows of entries), with at least
// 32, the default and 256 slots per warp and Δ factors of 0.5, the
// default and 4 (from many phases, splits and settle steps to few). With the factor 4
// the "light" arcs are not the light ones but the first half of each
// vertex's list: the result must not depend on the split (sssp.cu), and
// settle steps then also push vertices to the near queue, and rounds
// to the far pile, paths the true split seldom takes. With
// GRAPHNB_SSSP_EMU_DUMP=dir each emulator input is also written to dir
// (run it with: testdata's emulate binary < file; stderr shows the
// counters).
func TestKernelsEmulated(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the kernel emulator (seconds)")
	}
	bin := filepath.Join(t.TempDir(), "emulate")
	gxx, err := exec.LookPath("g++")
	if err != nil {
		t.Skip("g++ not found: the kernels are tested on the GPU machine only")
	}
	cc := exec.Command(gxx, "-std=c++17", "-O1", "-pthread", "-I.", "-I"+fakegpu.IncludeDir(), "-o", bin, filepath.Join("testdata", "emulate.cpp"))
	if out, err := cc.CombinedOutput(); err != nil {
		t.Fatalf("building the kernel emulator: %v\n%s", err, out)
	}
	// TestFakeGPU runs all the small cases through the Go code; here the
	// ones whose hubs span several warps' slot ranges, and a directed
	// graph.
	var cases []gpuCase
	for _, c := range gpuCases(t, true) {
		switch c.name {
		case "rmat_s7", "rmat_s7_float64", "star_70", "two_components":
			cases = append(cases, c)
		}
	}
	cases = append(cases, gpuCase{name: "rmat_s7_directed", srcs: []int32{0, 5},
		g: func() *graph.CSR {
			el, err := gen.RMATEdges(7, 8, gen.Seed(8))
			if err != nil {
				t.Fatal(err)
			}
			g, err := graph.Build(el, graph.BuildOptions{})
			return mustGraph(t)(g, err)
		}()})
	for _, c := range cases {
		for i, src := range c.srcs {
			var coo *graph.COO
			permuted := ""
			if !c.g.Directed {
				var err error
				if coo, err = c.g.UndirectedCOO(); err != nil {
					t.Fatal(err)
				}
				if i%2 == 1 { // every other source: the permuted edge order, small P
					if coo, err = graph.PermuteCOO(coo, 5); err != nil {
						t.Fatal(err)
					}
					permuted = ", permuted P=5"
				}
			}
			minSlots, factor := []int{32, nearFarTuning.minSlots, 256}[i%3], []float64{0.5, 0, 4}[i%3]
			delta := nearFarDelta(c.g.NumVertices(), c.g.NumArcs(), weightsOf(c.g), Options{DeltaFactor: factor})
			name := fmt.Sprintf("%s/src_%d", c.name, src)
			t.Run(name, func(t *testing.T) {
				ctx, stop := context.WithTimeout(context.Background(), 2*time.Minute)
				defer stop()
				cmd := exec.CommandContext(ctx, bin)
				lg, lend := lightFirst(c.g, delta)
				if i%3 == 2 { // an arbitrary split: the first half of each list
					lg, lend = c.g, make([]int64, c.g.NumVertices())
					for v := range lend {
						lend[v] = (c.g.Offsets[v] + c.g.Offsets[v+1]) / 2
					}
				}
				in := writeEmuInput(c.g, coo, src, minSlots, delta, lg, lend)
				if d := os.Getenv("GRAPHNB_SSSP_EMU_DUMP"); d != "" { // to rerun the emulator by hand
					if err := os.WriteFile(filepath.Join(d, strings.ReplaceAll(name, "/", "_")+".in"), in, 0o644); err != nil {
						t.Log(err)
					}
				}
				cmd.Stdin = bytes.NewReader(in)
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				out, err := cmd.Output()
				if ctx.Err() != nil {
					t.Fatalf("the emulator timed out: a warp collective that not every lane reaches? %s", stderr.String())
				}
				if err != nil {
					t.Fatalf("emulator: %v: %s", err, stderr.String())
				}
				res, err := parseEmuOutput(out)
				if err != nil {
					t.Fatal(err)
				}
				cpu, err := BellmanFord(c.g, src)
				if err != nil {
					t.Fatal(err)
				}
				want := []string{"frontier_d64", "frontier_d32", "nearfar_d64", "nearfar_d32"}
				if !c.g.Directed {
					want = append(want, "edge_d64_plain", "edge_d64_restrict", "edge_d32_plain", "edge_d32_restrict")
				}
				if len(res) != len(want) {
					t.Fatalf("the emulator ran %d variants, want %d", len(res), len(want))
				}
				for _, v := range want {
					r, ok := res[v]
					if !ok {
						t.Errorf("%s missing", v)
						continue
					}
					if r.iters <= 0 {
						t.Errorf("%s%s: %d iterations", v, permuted, r.iters)
					}
					if c.g.Degree(src) > 0 && r.scanned <= 0 {
						t.Errorf("%s%s: %d arcs scanned", v, permuted, r.scanned)
					}
					what := v + permuted
					if strings.HasPrefix(v, "nearfar") {
						what = fmt.Sprintf("%s (Δ %.3g, at least %d slots per warp)", v, delta, minSlots)
						if i%3 == 2 {
							what += " with the first half of each list as light arcs"
						}
					}
					if strings.HasSuffix(v, "d64") || strings.Contains(v, "d64_") {
						if err := sameDist(r.dist, cpu.Dist); err != nil {
							t.Errorf("%s: %v\n%s", what, err, stderr.String())
						}
						continue
					}
					if err := nearDist(r.dist, cpu.Dist, 1e-4); err != nil {
						t.Errorf("%s: %v", what, err)
					}
					r32 := &Result{Source: src, Dist: r.dist}
					withParents32(t, c.g, r32)
					if err := CheckTolerance(c.g, r32, 1e-5); err != nil {
						t.Errorf("%s%s: %v", v, permuted, err)
					}
				}
			})
		}
	}
}

// ---- on a GPU (skipped without one) ----

func gpuDevice(t testing.TB) *gpu.Device {
	t.Helper()
	dev := gpu.Default()
	if dev.IsHost() {
		t.Skip(gpu.DefaultReason())
	}
	return dev
}

// checkGPUResult compares a GPU result with the CPU's BellmanFord and
// checks it.
func checkGPUResult(t *testing.T, g *graph.CSR, r *Result, opts Options) {
	t.Helper()
	cpu, err := BellmanFord(g, r.Source)
	if err != nil {
		t.Fatal(err)
	}
	if opts.Float32 {
		if err := nearDist(r.Dist, cpu.Dist, 1e-4); err != nil {
			t.Errorf("from %d: %v", r.Source, err)
		}
		if err := CheckTolerance(g, r, 1e-5); err != nil {
			t.Errorf("from %d: %v", r.Source, err)
		}
	} else {
		// Equal bit for bit: the same float64 additions reach the same
		// fixed point (see sssp.cu).
		if err := sameDist(r.Dist, cpu.Dist); err != nil {
			t.Errorf("from %d: %v", r.Source, err)
		}
		if err := Check(g, r); err != nil {
			t.Errorf("from %d: %v", r.Source, err)
		}
	}
	if r.Iterations <= 0 || r.Time <= 0 {
		t.Errorf("from %d: iterations %d, time %v: both must be positive", r.Source, r.Iterations, r.Time)
	}
	if r.PrepTime != 0 {
		t.Errorf("from %d: Prepared.Run's PrepTime %v, want 0 (the preparation is PrepTime(), once)", r.Source, r.PrepTime)
	}
	if opts.Method == NearFar {
		if !(r.Delta > 0) || r.Phases < 1 || r.Iterations < r.Phases-1 {
			t.Errorf("from %d: near-far with Δ %v, %d phases, %d iterations", r.Source, r.Delta, r.Phases, r.Iterations)
		}
	} else if r.Delta != 0 || r.Phases != 0 {
		t.Errorf("from %d: %s reports Δ %v and %d phases", r.Source, opts.Method, r.Delta, r.Phases)
	}
	if want := "gpu Bellman-Ford (" + opts.Label() + ")"; r.Algorithm != want {
		t.Errorf("Algorithm %q, want %q", r.Algorithm, want)
	}
	if r.Reached != cpu.Reached || r.ComponentEdges != cpu.ComponentEdges {
		t.Errorf("from %d: reached %d, component edges %d; the CPU: %d, %d", r.Source, r.Reached, r.ComponentEdges, cpu.Reached, cpu.ComponentEdges)
	}
}

func TestGPUVariants(t *testing.T) { checkGPUVariants(t, gpuDevice(t), gpuCases(t, false), nil) }

// extraVariants are the variants checkGPUVariants adds to the figures'
// ones: a small segment size; near-far with many phases, settle steps and
// splits; near-far with a Δ above every distance (all near, nothing
// settles late).
func extraVariants() []Variant {
	return []Variant{
		{"cache && restrict on, P=64", Options{Permute: true, TextureCache: true, SegmentSize: 64}},
		{"near-far (Δ-stepping), Δ factor=0.5", Options{Method: NearFar, DeltaFactor: 0.5}},
		{"near-far (Δ-stepping), Δ=1000", Options{Method: NearFar, Delta: 1000}},
	}
}

// checkGPUVariants runs every variant, with float64 and float32
// distances, on every case, preparing once and running from each source;
// the extra variants only on the cases extraOn names (nil: all).
func checkGPUVariants(t *testing.T, dev *gpu.Device, cases []gpuCase, extraOn map[string]bool) {
	for _, c := range cases {
		variants := append(SeedVariants(), ModernVariants()...)
		if extraOn == nil || extraOn[c.name] {
			variants = append(variants, extraVariants()...)
		}
		for _, v := range variants {
			for _, f32 := range []bool{false, true} {
				opts := v.Options
				opts.Float32, opts.Parents = f32, true
				o := opts
				t.Run(c.name+"/"+Variant{Label: o.Label()}.Slug(), func(t *testing.T) {
					p, err := Prepare(dev, c.g, opts)
					if err != nil {
						t.Fatal(err)
					}
					defer p.Close()
					if p.Bytes() <= 0 || p.PrepTime() <= 0 {
						t.Errorf("Prepared: %d bytes, prep time %v", p.Bytes(), p.PrepTime())
					}
					if o.Permute && o.Method == EdgeSweep && p.SegmentSize() <= 0 {
						t.Errorf("permuted, but SegmentSize() = %d", p.SegmentSize())
					}
					for _, src := range c.srcs { // Prepare once, run from several roots
						r, err := p.Run(src)
						if err != nil {
							t.Fatal(err)
						}
						checkGPUResult(t, c.g, r, o)
					}
				})
			}
		}
	}
}

// TestGPUWithoutParents: no parents unless asked, the rest filled.
func TestGPUWithoutParents(t *testing.T) {
	checkGPUWithoutParents(t, gpuDevice(t), mustGraph(t)(gen.RMAT(10, 16, gen.Seed(1))))
}

func checkGPUWithoutParents(t *testing.T, dev *gpu.Device, g *graph.CSR) {
	for _, v := range append(SeedVariants()[:1], ModernVariants()...) {
		r, err := Run(dev, g, 3, v.Options)
		if err != nil {
			t.Fatal(err)
		}
		cpu, _ := BellmanFord(g, 3)
		if r.Parents != nil || r.Reached != cpu.Reached || r.ComponentEdges != cpu.ComponentEdges || r.TEPS.Graph500 <= 0 || r.ArcsScanned <= 0 {
			t.Errorf("%s: parents %v, reached %d (want %d), component edges %d (want %d), TEPS %v, arcs scanned %d",
				v.Label, r.Parents != nil, r.Reached, cpu.Reached, r.ComponentEdges, cpu.ComponentEdges, r.TEPS, r.ArcsScanned)
		}
		if err := sameDist(r.Dist, cpu.Dist); err != nil {
			t.Errorf("%s: %v", v.Label, err)
		}
	}
}

// TestGPUDirectedFrontier: the frontier and near-far methods follow arcs.
func TestGPUDirectedFrontier(t *testing.T) { checkGPUDirectedFrontier(t, gpuDevice(t), 11) }

func checkGPUDirectedFrontier(t *testing.T, dev *gpu.Device, scale int) {
	el, err := gen.RMATEdges(scale, 8, gen.Seed(3))
	if err != nil {
		t.Fatal(err)
	}
	g, err := graph.Build(el, graph.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []Method{Frontier, NearFar} {
		for _, f32 := range []bool{false, true} {
			opts := Options{Method: m, Float32: f32, Parents: true}
			p, err := Prepare(dev, g, opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, src := range g.Roots(3, 1) {
				r, err := p.Run(src)
				if err != nil {
					t.Fatal(err)
				}
				checkGPUResult(t, g, r, opts)
			}
			p.Close()
		}
	}
	// The package-level Run charges its own preparation.
	if r, err := Run(dev, g, 0, Options{Method: NearFar}); err != nil {
		t.Error(err)
	} else if r.PrepTime <= 0 {
		t.Errorf("Run: prep time %v, want the preparation's", r.PrepTime)
	}
	if _, err := Run(dev, g, 0, Options{}); err == nil || !strings.Contains(err.Error(), "directed") {
		t.Errorf("edge sweep on a directed graph: %v", err)
	}
}

func TestGPUCancel(t *testing.T) {
	checkGPUCancel(t, gpuDevice(t), mustGraph(t)(gen.RMAT(10, 16, gen.Seed(1))))
}

func checkGPUCancel(t *testing.T, dev *gpu.Device, g *graph.CSR) {
	for _, v := range append(SeedVariants()[:1], ModernVariants()...) {
		p, err := Prepare(dev, g, v.Options)
		if err != nil {
			t.Fatal(err)
		}
		cancel.Request()
		_, err = p.Run(0)
		cancel.Clear()
		if !errors.Is(err, cancel.ErrInterrupted) {
			t.Errorf("%s: Run after cancel.Request: %v, want cancel.ErrInterrupted", v.Label, err)
		}
		r, err := p.Run(0) // the device and the preparation survive
		if err != nil {
			t.Fatalf("%s: Run after cancel.Clear: %v", v.Label, err)
		}
		cpu, _ := BellmanFord(g, 0)
		if err := sameDist(r.Dist, cpu.Dist); err != nil {
			t.Errorf("%s after an interrupt: %v", v.Label, err)
		}
		if err := p.Close(); err != nil {
			t.Error(err)
		}
		if _, err := p.Run(0); err == nil {
			t.Errorf("%s: Run after Close: no error", v.Label)
		}
	}
}

// ---- the Go GPU path on a fake GPU ----

// TestFakeGPU runs the GPU tests' checks, on the small graphs, through
// the real Go GPU path (Prepare, Run: compile, uploads, argument packing,
// launch loops, copies, events) against package gpu's fake CUDA driver
// and fake NVRTC (gpu/testdata), whose cuLaunchKernel is replaced by one
// that runs the named kernel of sssp.cu on the CPU emulator
// (testdata/fake_kernels.cpp). It runs them in a child process, where
// gpu.Default() is the fake device. Needs gcc and g++.
func TestFakeGPU(t *testing.T) {
	// 10 minutes: about 2 alone on CI's two cores, more beside the other
	// packages' tests; the limit only catches a hang.
	fakegpu.Run(t, "TestFakeGPUChild", 10*time.Minute, func(b *fakegpu.Builder) []string {
		return []string{b.CXX("testdata/fake_kernels.cpp"), b.CXX("testdata/fake_check.cpp"), b.CXX("testdata/fake_resident.cpp"),
			b.CXX("testdata/fake_tailcheck.cpp", tailRenames()...)}
	})
}

// TestFakeGPUChild is TestFakeGPU's child process.
func TestFakeGPUChild(t *testing.T) {
	dev := fakegpu.Device(t)
	// Fewer idle launches per run (each costs the emulator hundreds of
	// thread wake-ups); the loop is the same.
	nearFarTuning.batch = 3
	cases := gpuCases(t, true)
	checkGPUVariants(t, dev, cases, map[string]bool{"rmat_s7": true, "rmat_s7_unweighted": true, "two_components": true})
	checkGPUWithoutParents(t, dev, cases[0].g)
	checkGPUDirectedFrontier(t, dev, 7)
	checkGPUCancel(t, dev, cases[0].g)
	checkOneShotFreeError(t, dev)
	t.Run("device_check", func(t *testing.T) {
		checkDeviceAgrees(t, dev, deviceCheckCases(t, 20, true), fakeCheckVariants())
	})
	t.Run("device_check_mutations", func(t *testing.T) { checkDeviceMutations(t, dev, mutationGraph(t, 7), 0) })
	t.Run("trace", func(t *testing.T) { checkTraceOn(t, dev, traceGraph(t, 7)) })
	t.Run("bench_trace", func(t *testing.T) {
		checkBenchTrace(t, dev, traceGraph(t, 7), Options{Method: NearFar, Parents: true})
	})
	t.Run("edge_trace", func(t *testing.T) {
		if _, err := edgeRegisters(dev); err != nil {
			t.Fatal(err)
		}
		checkEdgeTraceRuns(t, dev, traceGraph(t, 7))
	})
	t.Run("tail_stamps", func(t *testing.T) { checkFakeTailStamps(t, dev) })
	// The same with the pointer jumping always run (no chase step) and
	// with it run past a cap of one flat vertex.
	for _, tune := range []struct{ cap, steps uint64 }{{4096, 0}, {1, 256}} {
		t.Run(fmt.Sprintf("device_check_jumping_cap%d_steps%d", tune.cap, tune.steps), func(t *testing.T) {
			defer func(old struct{ cap, steps uint64 }) { chaseTuning = old }(chaseTuning)
			chaseTuning = tune
			checkDeviceAgrees(t, dev, deviceCheckCases(t, 6, true), fakeCheckVariants()[:2])
			checkDeviceMutations(t, dev, mutationGraph(t, 7), 0)
		})
	}
}

// checkOneShotFreeError checks that the one-shot Run reports a failed free
// of device memory (the first of its Close) instead of dropping it.
func checkOneShotFreeError(t *testing.T, dev *gpu.Device) {
	t.Run("one_shot_free_error", func(t *testing.T) {
		g, err := gen.Path(6)
		if err != nil {
			t.Fatal(err)
		}
		fakegpu.FailFrees(t, 1)
		r, err := Run(dev, g, 0, Options{})
		if r != nil || err == nil || !strings.Contains(err.Error(), "sssp: freeing the device memory of ") || !strings.Contains(err.Error(), "cuMemFree_v2") {
			t.Errorf("Run(dev, g, 0) with a failing free: %v, %v; want the free's error", r, err)
		}
	})
}
