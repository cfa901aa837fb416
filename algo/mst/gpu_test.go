package mst

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
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

// The TestGPU* tests need a CUDA device and skip without one. The others
// run everywhere: options and labels, the host device, the input
// transformations and the round logic (mirrored in Go), the CUDA source's
// shape, and TestFakeGPU, which runs boruvka.cu's kernels on a CPU
// emulator behind package gpu's fake driver, through the real Go code. On
// the GPU machine:
//
//	go test -c -o mst.test ./algo/mst        (build machine)
//	./mst.test -test.v -test.run 'GPU'       (GPU machine, in algo/mst)

// ---- fixtures ----

type gpuCase struct {
	name string
	g    *graph.CSR
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

// twoComponents: random components on 0..49 and 50..99 (each kept
// connected by a path) and the isolated vertex 100; float32 weights with
// ties.
func twoComponents(t testing.TB) *graph.CSR {
	r := rand.New(rand.NewPCG(5, 6))
	var edges []tg.Edge
	for i := 0; i+1 < 50; i++ {
		edges = append(edges, tg.Edge{float64(i), float64(i + 1), float64(r.IntN(20))},
			tg.Edge{float64(50 + i), float64(51 + i), float64(r.IntN(20))})
	}
	for range 150 {
		u, v := r.IntN(50), r.IntN(50)
		edges = append(edges, tg.Edge{float64(u), float64(v), float64(r.IntN(20))},
			tg.Edge{float64(50 + v), float64(50 + u), float64(r.IntN(20))})
	}
	return tg.Build(t, 101, false, tg.Float32, edges...)
}

// signedWeights has negative weights, both zeros, ties and +Inf weights
// (float64), the infinite ones outside the forest (Check cannot sum
// them).
func signedWeights(t testing.TB) *graph.CSR {
	negZero := math.Copysign(0, -1)
	return tg.Build(t, 8, false, tg.Float64, []tg.Edge{
		{0, 1, -2}, {1, 2, negZero}, {2, 3, 0}, {3, 0, negZero}, {0, 2, -2}, {4, 5, math.Inf(1)},
		{5, 6, 3}, {6, 4, 2}, {3, 4, 1e300}, {1, 7, -1e-300}, {2, 7, -1e-300}, {7, 5, math.Inf(1)},
	}...)
}

// band links i to i+1 and to i+500 (integer weights, many ties): each
// list spans up to 1000 ids, so the compressed ids use all ten bits even
// without renumbering.
func band(t testing.TB, n int) *graph.CSR {
	r := rand.New(rand.NewPCG(10, 11))
	var edges []tg.Edge
	for i := 0; i+1 < n; i++ {
		edges = append(edges, tg.Edge{float64(i), float64(i + 1), float64(r.IntN(5))})
		if i+500 < n {
			edges = append(edges, tg.Edge{float64(i), float64(i + 500), float64(r.IntN(5))})
		}
	}
	return tg.Build(t, n, false, tg.Float32, edges...)
}

// gpuCases returns the test graphs: small ones for the emulator, larger
// ones on a GPU.
func gpuCases(t testing.TB, small bool) []gpuCase {
	rs, ss, pn, sn := 11, 12, 5000, 3000
	if small {
		rs, ss, pn, sn = 7, 7, 70, 80
	}
	rm := mustGraph(t)(gen.RMAT(rs, 16, gen.Seed(1)))
	cases := []gpuCase{
		{fmt.Sprintf("rmat_s%d", rs), rm},
		{fmt.Sprintf("rmat_s%d_float64", rs), mustGraph(t)(gen.RMAT(rs, 16, gen.Seed(2), gen.Float64()))},
		{fmt.Sprintf("rmat_s%d_unweighted", rs), mustGraph(t)(gen.RMAT(rs, 8, gen.Seed(3), gen.Unweighted()))},
		{fmt.Sprintf("rmat_s%d_int4", rs), mustGraph(t)(gen.RMAT(rs, 16, gen.Seed(4), gen.Integer(4)))},
		{fmt.Sprintf("rmat_s%d_int4_float64", rs), mustGraph(t)(gen.RMAT(rs, 16, gen.Seed(8), gen.Integer(4), gen.Float64()))},
		{"band_1200", band(t, 1200)},
		{"grid_unit_float64", mustGraph(t)(gen.Grid(17, 23, gen.Integer(1), gen.Float64()))}, // all weights tie
		{"random_float64_ties", randomGraph(t, rand.New(rand.NewPCG(30, 31)), 56, 160, "float64")},
		{"random_int3", randomGraph(t, rand.New(rand.NewPCG(32, 33)), 80, 240, "int3")},
		{"random_float32_signed", randomGraph(t, rand.New(rand.NewPCG(34, 35)), 70, 200, "float32")},
		{fmt.Sprintf("ssca2_s%d", ss), mustGraph(t)(gen.SSCA2(ss, gen.Seed(5)))},
		{fmt.Sprintf("path_%d", pn), mustGraph(t)(gen.Path(pn, gen.Seed(6)))},
		{fmt.Sprintf("star_%d", sn), mustGraph(t)(gen.Star(sn, gen.Seed(7)))},
		{"complete_12_unit", mustGraph(t)(gen.Complete(12, gen.Unweighted()))},
		{"two_components", twoComponents(t)},
		{"signed_weights", signedWeights(t)},
		{"lists_by_weight", rm.SortByWeight()}, // not sorted by id
		{"single_vertex", tg.Build(t, 1, false, tg.Float64)},
		{"no_vertices", tg.Build(t, 0, false, tg.Float64)},
	}
	return cases
}

// testVariants are the variants the GPU tests run: the study's two and
// the switches one by one.
func testVariants() []Variant {
	v := SeedVariants()
	for _, opts := range []Options{
		{},
		{WeightRanks: true},
		{Renumber: true},
		{Renumber: true, Compress: true},
		{Compress: true},
		{WeightRanks: true, Hybrid: true, CPUShare: 0.5},
		{Renumber: true, Hybrid: true, CPUShare: 1},
	} {
		v = append(v, Variant{opts.Label(), opts})
	}
	return v
}

// checkResult compares a result with Kruskal's (the same forest, edge
// for edge, and the same weight bit for bit) and Boruvka's rounds, and
// runs Check. PrepTime is the callers' to check (0 from Prepared.Run on
// a GPU, the preparation from the one-shot Run).
func checkResult(t *testing.T, g *graph.CSR, r *Result, label string) {
	t.Helper()
	k, err := Kruskal(g)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Boruvka(g)
	if err != nil {
		t.Fatal(err)
	}
	if err := Check(g, r); err != nil {
		t.Errorf("Check: %v", err)
	}
	if !slices.Equal(r.Edges, k.Edges) {
		for i := range min(len(r.Edges), len(k.Edges)) {
			if r.Edges[i] != k.Edges[i] {
				t.Errorf("edge %d of %d is %v, Kruskal's is %v", i, len(r.Edges), r.Edges[i], k.Edges[i])
				break
			}
		}
		if len(r.Edges) != len(k.Edges) {
			t.Errorf("%d edges, Kruskal has %d", len(r.Edges), len(k.Edges))
		}
	}
	if r.Weight != k.Weight || r.Trees != k.Trees {
		t.Errorf("weight %v, trees %d; Kruskal: %v, %d", r.Weight, r.Trees, k.Weight, k.Trees)
	}
	if r.Iterations != b.Iterations {
		t.Errorf("%d rounds, the CPU Borůvka takes %d (the same merges, so the same rounds)", r.Iterations, b.Iterations)
	}
	if want := "gpu Borůvka (" + label + ")"; !strings.HasPrefix(r.Algorithm, want) {
		t.Errorf("Algorithm %q, want the prefix %q", r.Algorithm, want)
	}
	if g.NumEdges() > 0 && (r.Time <= 0 || r.TEPS.ArcsPerSecond <= 0 || r.TEPS.Graph500 <= 0) {
		t.Errorf("time %v, TEPS %+v: both must be positive", r.Time, r.TEPS)
	}
}

// ---- options, labels, variants ----

func TestOptionsAndLabels(t *testing.T) {
	seed := SeedVariants()
	if len(seed) != 2 {
		t.Fatalf("SeedVariants has %d variants, want 2", len(seed))
	}
	for i, w := range []struct {
		label, slug string
		hybrid      bool
	}{{"GPU+CPU", "gpu_cpu", true}, {"GPU", "gpu", false}} {
		v := seed[i]
		o := v.Options
		if v.Label != w.label || v.String() != w.label || o.Label() != w.label || v.Slug() != w.slug {
			t.Errorf("variant %d: label %q (options say %q), slug %q; want %q, %q", i, v.Label, o.Label(), v.Slug(), w.label, w.slug)
		}
		if !o.WeightRanks || !o.Renumber || !o.Compress || o.Hybrid != w.hybrid || o.CPUShare != 0 || o.MemoryCap != 0 {
			t.Errorf("%s: options %+v, want every transformation, hybrid %v, default share, no cap", w.label, o, w.hybrid)
		}
		if got := o.share(); (w.hybrid && got != DefaultCPUShare) || (!w.hybrid && got != 0) {
			t.Errorf("%s: host share %v", w.label, got)
		}
	}
	for _, c := range []struct {
		opts Options
		want string
	}{
		{Options{}, "GPU (ranks, renumber, compress off)"},
		{Options{WeightRanks: true, Renumber: true}, "GPU (compress off)"},
		{Options{Hybrid: true, WeightRanks: true, Renumber: true, Compress: true, CPUShare: 0.25}, "GPU+CPU, CPU share 0.25"},
		{Options{Hybrid: true, WeightRanks: true, Renumber: true, Compress: true, CPUShare: DefaultCPUShare}, "GPU+CPU"},
		{Options{CPUShare: 0.25}, "GPU (ranks, renumber, compress off)"}, // the share needs Hybrid
		{Options{Compress: true, MemoryCap: 64 << 20}, "GPU (ranks, renumber off), cap 64.0 MiB"},
	} {
		if got := c.opts.Label(); got != c.want {
			t.Errorf("Label of %+v = %q, want %q", c.opts, got, c.want)
		}
	}
	if s := (Variant{Label: "GPU (ranks, compress off), CPU share 0.5"}).Slug(); s != "gpu_ranks_compress_off_cpu_share_0.5" {
		t.Errorf("Slug = %q", s)
	}
}

func TestPrepareErrors(t *testing.T) {
	g := tg.Build(t, 3, false, tg.Float64, []tg.Edge{{0, 1, 1}, {1, 2, 2}}...)
	dir := mustGraph(t)(graph.Build(graph.EdgeList{N: 2, Src: []int32{0}, Dst: []int32{1}}, graph.BuildOptions{}))
	cases := []struct {
		name string
		g    *graph.CSR
		opts Options
		want string
	}{
		{"nil graph", nil, Options{}, "no graph"},
		{"no offsets", &graph.CSR{}, Options{}, "no graph"},
		{"directed", dir, Options{}, "symmetrize"},
		{"negative share", g, Options{Hybrid: true, CPUShare: -0.1}, "CPU share"},
		{"share above 1", g, Options{CPUShare: 1.5}, "[0, 1]"},
		{"NaN share", g, Options{CPUShare: math.NaN()}, "CPU share"},
		{"negative cap", g, Options{MemoryCap: -1}, "memory cap"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := Prepare(gpu.Host(), c.g, c.opts)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Prepare: %v, want an error mentioning %q", err, c.want)
			}
			if p != nil {
				t.Error("a Prepared came back with the error")
			}
			if _, err := Run(gpu.Host(), c.g, c.opts); err == nil {
				t.Error("Run succeeded")
			}
		})
	}
	if _, err := Prepare(nil, g, Options{}); err == nil || !strings.Contains(err.Error(), "nil device") {
		t.Errorf("Prepare(nil device): %v", err)
	}
}

func TestHostDeviceRunsTheCPU(t *testing.T) {
	g := mustGraph(t)(gen.RMAT(9, 8, gen.Seed(3), gen.Integer(5)))
	want, err := Boruvka(g)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range testVariants() {
		t.Run(v.Slug(), func(t *testing.T) {
			p, err := Prepare(gpu.Host(), g, v.Options)
			if err != nil {
				t.Fatal(err)
			}
			if p.Label() != v.Label || p.Options() != v.Options || p.Device() != gpu.Host() || p.Graph() != g {
				t.Errorf("accessors: %q %+v %v", p.Label(), p.Options(), p.Device())
			}
			if p.Bytes() != 0 || p.HostVertices() != 0 || p.Compressed() || p.HostTime() != 0 {
				t.Errorf("host device: %d bytes, %d host vertices, compressed %v", p.Bytes(), p.HostVertices(), p.Compressed())
			}
			// Run reports Boruvka's own per-run preparation, never
			// PrepTime(): make the latter huge to tell them apart.
			prepared.SetPrepTime(&p.base, time.Hour)
			r, err := p.Run()
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(r.Edges, want.Edges) || r.Weight != want.Weight || r.Iterations != want.Iterations {
				t.Errorf("host run differs from Boruvka")
			}
			if r.PrepTime < 0 || r.PrepTime >= p.PrepTime() {
				t.Errorf("host run's PrepTime %v: want Boruvka's own (≥ 0), without PrepTime() %v", r.PrepTime, p.PrepTime())
			}
			if !strings.Contains(r.Algorithm, "host device standing in for gpu Borůvka ("+v.Label+")") {
				t.Errorf("Algorithm %q", r.Algorithm)
			}
			if !strings.Contains(p.String(), v.Label) {
				t.Errorf("String() = %q", p.String())
			}
			if err := p.Close(); err != nil {
				t.Error(err)
			}
			if err := p.Close(); err != nil {
				t.Errorf("second Close: %v", err)
			}
			if _, err := p.Run(); err == nil || !strings.Contains(err.Error(), "closed") {
				t.Errorf("Run after Close: %v", err)
			}
		})
	}
	r, err := Run(gpu.Host(), g, Options{})
	if err != nil || !slices.Equal(r.Edges, want.Edges) {
		t.Fatalf("one-shot Run: %v", err)
	}
	if r.PrepTime <= 0 {
		t.Errorf("one-shot Run's PrepTime %v: want the preparation and Boruvka's (> 0)", r.PrepTime)
	}
	cancel.Request()
	_, err = Run(gpu.Host(), g, Options{})
	cancel.Clear()
	if !errors.Is(err, cancel.ErrInterrupted) {
		t.Errorf("Run after cancel.Request: %v", err)
	}
}

func ExampleRun() {
	// A square 0–1–2–3 with one diagonal, and a separate edge 4–5. The
	// host device runs the CPU's Borůvka; gpu.Default() would pick a GPU.
	g, err := graph.Build(graph.EdgeList{
		N:       6,
		Src:     []int32{0, 1, 2, 3, 0, 4},
		Dst:     []int32{1, 2, 3, 0, 2, 5},
		Weights: []float32{4, 1, 3, 2, 5, 7},
	}, graph.BuildOptions{Symmetrize: true})
	if err != nil {
		panic(err)
	}
	v := SeedVariants()[1] // "GPU": every transformation, GPU alone
	r, err := Run(gpu.Host(), g, v.Options)
	if err != nil {
		panic(err)
	}
	if err := Check(g, r); err != nil {
		panic(err)
	}
	fmt.Println(v.Label, "trees:", r.Trees, "weight:", r.Weight, "edges:", r.Edges)
	// Output:
	// GPU trees: 2 weight: 13 edges: [{1 2 1} {0 3 2} {2 3 3} {4 5 7}]
}

// ---- the input transformations (no device needed) ----

// hostPrepared is a Prepared for the host-side steps, without a device.
func hostPrepared(g *graph.CSR, o Options) *Prepared {
	return newPrepared(gpu.Host(), g, o)
}

// randomGraph has n vertices and about m random edges with weights from
// kind: "int3" (many ties), "float32", "float64", "unweighted".
func randomGraph(t testing.TB, r *rand.Rand, n, m int, kind string) *graph.CSR {
	el := graph.EdgeList{N: n}
	for range m {
		u, v := r.Int32N(int32(n)), r.Int32N(int32(n))
		el.Src, el.Dst = append(el.Src, u), append(el.Dst, v)
		switch kind {
		case "int3":
			el.Weights = append(el.Weights, float32(r.IntN(3)))
		case "float32":
			el.Weights = append(el.Weights, r.Float32()*2-1)
		case "float64":
			el.Weights64 = append(el.Weights64, float64(r.IntN(50))-25+float64(r.IntN(2))*0.5)
		}
	}
	if kind == "float64" && el.Weights64 == nil {
		el.Weights64 = []float64{}
	}
	if kind != "unweighted" && kind != "float64" && el.Weights == nil {
		el.Weights = []float32{}
	}
	return mustGraph(t)(graph.Build(el, graph.BuildOptions{Symmetrize: true}))
}

// arcKey is the key the kernels give arc k of the transformed graph, as
// (weight key, edge index).
func arcKey(p *Prepared, tr *transformed, k int64) [2]uint64 {
	e := uint64(tr.eidx[k])
	switch p.wkind {
	case wRank:
		return [2]uint64{uint64(tr.ranks[k]), e}
	case wF32:
		return [2]uint64{uint64(ordered32(tr.gs.Weights[k])), e}
	case wF64:
		return [2]uint64{ordered64(tr.gs.Weights64[k]), e}
	}
	return [2]uint64{0, e}
}

// TestTransform checks the prepared arrays on random graphs with every
// weight kind and switch: each list is sorted by the kernels' key, each
// edge index appears once per direction, the weight kind follows the
// switches, and compression decodes to the lists.
func TestTransform(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for iter := range 60 {
		kind := []string{"int3", "float32", "float64", "unweighted"}[iter%4]
		n := 1 + r.IntN(60)
		g := randomGraph(t, r, n, r.IntN(4*n+1), kind)
		for _, opts := range []Options{{}, {WeightRanks: true}, {Renumber: true, Compress: true}, {WeightRanks: true, Renumber: true}} {
			p := hostPrepared(g, opts)
			tr, err := p.transform()
			if err != nil {
				t.Fatalf("graph %d (%s): %v", iter, kind, err)
			}
			name := fmt.Sprintf("graph %d (%s, n=%d), %s", iter, kind, n, p.Label())
			wantKind := map[string]int{"int3": wF32, "float32": wF32, "float64": wF64, "unweighted": wNone}[kind]
			if p.opts.WeightRanks && kind != "unweighted" {
				wantKind = wRank
			}
			if p.wkind != wantKind || p.split() != (wantKind == wF64) {
				t.Fatalf("%s: weight kind %d, want %d", name, p.wkind, wantKind)
			}
			gs := tr.gs
			seen := make([]int, p.edges)
			for v := 0; v < n; v++ {
				for k := gs.Offsets[v]; k < gs.Offsets[v+1]; k++ {
					if tr.eidx[k] == noEdgeIdx {
						t.Fatalf("%s: arc %d of vertex %d has no edge index", name, k, v)
					}
					seen[tr.eidx[k]]++
					if k > gs.Offsets[v] {
						a, b := arcKey(p, tr, k-1), arcKey(p, tr, k)
						if a[0] > b[0] || a[0] == b[0] && a[1] >= b[1] {
							t.Fatalf("%s: vertex %d's arcs %d and %d are out of key order: %v, %v", name, v, k-1, k, a, b)
						}
					}
				}
			}
			for e, c := range seen {
				if c != 2 {
					t.Fatalf("%s: edge %d appears on %d arcs, want 2", name, e, c)
				}
			}
			if p.compressed {
				if !slices.Equal(tr.packed.Decompress(), gs.Adj) {
					t.Fatalf("%s: compressed ids do not decode to the lists", name)
				}
			} else if p.opts.Compress && p.noCompress == "" {
				t.Fatalf("%s: Compress asked for, not applied, and no note says why", name)
			}
		}
	}
}

func TestTransformErrors(t *testing.T) {
	nan := float32(math.NaN())
	cases := []struct {
		name string
		g    *graph.CSR
		want string
	}{
		{"missing reverse arc", &graph.CSR{Offsets: []int64{0, 1, 1, 2}, Adj: []int32{1, 0}}, "no reverse arc"},
		{"missing reverse of a lower arc", &graph.CSR{Offsets: []int64{0, 0, 1}, Adj: []int32{0}}, "1→0 has no reverse arc 0→1"},
		{"reverse of another weight", &graph.CSR{Offsets: []int64{0, 1, 2}, Adj: []int32{1, 0}, Weights: []float32{1, 2}}, "its reverse weighs 1"},
		{"repeated arc", &graph.CSR{Offsets: []int64{0, 2, 4}, Adj: []int32{1, 1, 0, 0}}, "vertex 0 has the arc to 1 twice"},
		{"repeated arc, unsorted", &graph.CSR{Offsets: []int64{0, 3, 5, 6}, Adj: []int32{2, 1, 2, 0, 0, 0}}, "twice"},
		{"NaN weight", &graph.CSR{Offsets: []int64{0, 1, 2}, Adj: []int32{1, 0}, Weights: []float32{nan, nan}}, "NaN"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := hostPrepared(c.g, Options{}).transform()
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("transform: %v, want an error mentioning %q", err, c.want)
			}
		})
	}
	// Unsorted lists and self-loops are fine.
	g := &graph.CSR{Offsets: []int64{0, 3, 5, 7}, Adj: []int32{2, 0, 1, 1, 0, 2, 0}, Weights: []float32{5, 9, 1, 9, 1, 9, 5}}
	r := mirrorRun(t, g, Options{})
	if want := []Edge{{0, 1, 1}, {0, 2, 5}}; !slices.Equal(r.Edges, want) {
		t.Errorf("unsorted lists with self-loops: %v, want %v", r.Edges, want)
	}
}

func TestOrderedBits(t *testing.T) {
	f64 := []float64{math.Inf(-1), -1e300, -2, -1, -1e-300, math.Copysign(0, -1), 0, 1e-300, 0.5, 1, 3, 1e300, math.Inf(1)}
	for i := 1; i < len(f64); i++ {
		a, b := ordered64(f64[i-1]), ordered64(f64[i])
		if f64[i-1] == f64[i] && a != b || f64[i-1] < f64[i] && a >= b {
			t.Errorf("ordered64(%v) = %x, ordered64(%v) = %x", f64[i-1], a, f64[i], b)
		}
		x, y := ordered32(float32(f64[i-1])), ordered32(float32(f64[i]))
		if float32(f64[i-1]) == float32(f64[i]) && x != y || float32(f64[i-1]) < float32(f64[i]) && x >= y {
			t.Errorf("ordered32(%v) = %x, ordered32(%v) = %x", f64[i-1], x, f64[i], y)
		}
	}
}

func TestPlan(t *testing.T) {
	g := mustGraph(t)(gen.RMAT(8, 8, gen.Seed(2)))
	p := hostPrepared(g, Options{})
	tr, err := p.transform()
	if err != nil {
		t.Fatal(err)
	}
	off := tr.gs.Offsets
	n, arcs := p.n, off[p.n]
	full := p.deviceBytes(n, arcs)
	for _, c := range []struct {
		name    string
		cap     int64
		hybrid  float64
		wantAll bool
	}{
		{"fits exactly", full, 0, true},
		{"one byte short", full - 1, 0, false},
		{"half", p.deviceBytes(0, 0) + (full-p.deviceBytes(0, 0))/2, 0, false},
		{"per-vertex arrays only", p.deviceBytes(0, 0), 0, false},
		{"hybrid 1/6", full, DefaultCPUShare, false},
		{"hybrid, everything on the host", full, 1, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			p.opts.MemoryCap, p.opts.Hybrid, p.opts.CPUShare = c.cap, c.hybrid > 0, c.hybrid
			if err := p.plan(off); err != nil {
				t.Fatal(err)
			}
			ng := p.hostFrom
			if (ng == n) != c.wantAll || ng < 0 || ng > n {
				t.Fatalf("hostFrom %d of %d", ng, n)
			}
			if got := p.deviceBytes(ng, off[ng]); got > c.cap {
				t.Errorf("the plan takes %d bytes, over the cap %d", got, c.cap)
			}
			if ng < n && c.hybrid == 0 && p.deviceBytes(ng+1, off[ng+1]) <= c.cap {
				t.Errorf("vertex %d would still fit", ng)
			}
			if c.hybrid > 0 && c.hybrid < 1 {
				target := int64(math.Round((1 - c.hybrid) * float64(arcs)))
				d := func(v int) int64 { return max(off[v]-target, target-off[v]) }
				if ng > 0 && d(ng-1) < d(ng) || ng < n && d(ng+1) < d(ng) {
					t.Errorf("hybrid split at vertex %d (arc %d), not the boundary nearest to arc %d", ng, off[ng], target)
				}
			}
			if c.hybrid == 1 && ng != 0 {
				t.Errorf("CPU share 1 leaves %d vertices to the GPU", ng)
			}
		})
	}
	p.opts = Options{MemoryCap: p.deviceBytes(0, 0) - 1}
	if err := p.plan(off); !errors.Is(err, gpu.ErrOutOfMemory) || !strings.Contains(err.Error(), "MemoryCap") {
		t.Errorf("a cap below the per-vertex arrays: %v, want gpu.ErrOutOfMemory naming MemoryCap", err)
	}
}

// ---- the round logic, mirrored in Go ----

// mirrorRun runs the transformations, the host's find-minimum step
// (hostFind, for every vertex) and a sequential Go copy of the kernels'
// tree steps (boruvka.cu: reset, min_edge, hook, cycles, jump, renumber,
// relabel), then collects the forest with forestEdges. It checks the
// algorithm and the Go code the GPU path shares, without a device.
func mirrorRun(t *testing.T, g *graph.CSR, opts Options) *Result {
	t.Helper()
	r, _ := mirrorRounds(t, g, opts)
	return r
}

// mirrorRounds is mirrorRun, which it returns with what each round's
// find-minimum step did (the arcs read and the candidates found, every
// vertex's: what a GPU round's kernels and host share do together).
func mirrorRounds(t *testing.T, g *graph.CSR, opts Options) (*Result, []hostWork) {
	t.Helper()
	var work []hostWork
	p := hostPrepared(g, opts)
	tr, err := p.transform()
	if err != nil {
		t.Fatal(err)
	}
	p.hostFrom = 0
	p.hostShare(tr.gs, tr.ranks, tr.eidx)
	n := p.n
	comp := p.hComp
	for v := range comp {
		comp[v] = int32(v)
	}
	words := make([]uint32, (p.edges+31)/32)
	trees, rounds := n, 0
	for trees > 1 {
		work = append(work, p.hostFind())
		best := make([]uint64, trees)
		bestE := make([]uint32, trees)
		parent := make([]int32, trees)
		for c := range best {
			best[c], bestE[c], parent[c] = noKey, noEdgeIdx, int32(c)
		}
		for v := 0; v < n; v++ {
			if k := p.hK[v]; k != noKey {
				best[comp[v]] = min(best[comp[v]], k)
			}
		}
		if p.split() {
			for v := 0; v < n; v++ {
				if k := p.hK[v]; k != noKey && k == best[comp[v]] {
					bestE[comp[v]] = min(bestE[comp[v]], p.hE[v])
				}
			}
		}
		for v := 0; v < n; v++ {
			c := comp[v]
			if k := p.hK[v]; k != noKey && k == best[c] && (!p.split() || p.hE[v] == bestE[c]) {
				parent[c] = p.hTo[v]
			}
		}
		for c := range parent {
			if x := parent[c]; x != int32(c) && int32(c) < x && parent[x] == int32(c) {
				parent[c] = int32(c)
			}
		}
		for c := range parent {
			if parent[c] == int32(c) {
				continue
			}
			e := uint32(best[c])
			if p.split() {
				e = bestE[c]
			}
			words[e/32] |= 1 << (e % 32)
			for r := parent[c]; ; r = parent[r] {
				if parent[r] == r {
					parent[c] = r
					break
				}
			}
		}
		ids := make([]int32, trees)
		next := 0
		for c := range parent {
			if parent[c] == int32(c) {
				ids[c] = int32(next)
				next++
			}
		}
		for v := range comp {
			comp[v] = ids[parent[comp[v]]]
		}
		if next == trees {
			break
		}
		rounds++
		trees = next
	}
	r := &Result{Algorithm: "mirror", Edges: p.forestEdges(words), Trees: trees, Iterations: rounds}
	r.finish(g)
	return r, work
}

// TestMirror runs the mirrored rounds on 200 random graphs (every weight
// kind, many ties) and the GPU tests' small graphs, with every switch
// that changes the host side, and compares with Kruskal and Boruvka.
func TestMirror(t *testing.T) {
	variants := []Options{{}, {WeightRanks: true}, {Renumber: true}, {WeightRanks: true, Renumber: true, Compress: true}}
	check := func(t *testing.T, g *graph.CSR, name string) {
		k, err := Kruskal(g)
		if err != nil {
			t.Fatal(err)
		}
		b, err := Boruvka(g)
		if err != nil {
			t.Fatal(err)
		}
		for _, opts := range variants {
			r := mirrorRun(t, g, opts)
			if !slices.Equal(r.Edges, k.Edges) || r.Weight != k.Weight || r.Trees != k.Trees || r.Iterations != b.Iterations {
				t.Fatalf("%s, %s: weight %v, %d trees, %d edges, %d rounds; Kruskal: %v, %d, %d; Borůvka %d rounds",
					name, opts.Label(), r.Weight, r.Trees, len(r.Edges), r.Iterations, k.Weight, k.Trees, len(k.Edges), b.Iterations)
			}
		}
	}
	r := rand.New(rand.NewPCG(8, 9))
	for iter := range 200 {
		kind := []string{"int3", "float32", "float64", "unweighted"}[iter%4]
		n := 1 + r.IntN(80)
		check(t, randomGraph(t, r, n, r.IntN(3*n+1), kind), fmt.Sprintf("random graph %d (%s, n=%d)", iter, kind, n))
	}
	for _, c := range gpuCases(t, true) {
		check(t, c.g, c.name)
	}
}

// ---- the CUDA source ----

func TestKernelSource(t *testing.T) {
	declared := cudasrc.Check(t, "boruvka.cu", kernelSource, 1000, kernelNames())
	if len(declared) != len(kernelNames()) {
		t.Errorf("boruvka.cu declares %d kernels, gpu.go knows %d: %v", len(declared), len(kernelNames()), declared)
	}
	// The constants both sides number.
	defines := cudasrc.Defines(kernelSource)
	for name, want := range map[string]int{"W_NONE": wNone, "W_RANK": wRank, "W_F32": wF32, "W_F64": wF64,
		"CNT_TREES": cntTrees, "CNT_LONG": cntLong, "CNT_BAD": cntBad, "CNT_TRACE": cntTrace, "CNT_WORDS": counterWords, "TR_SLOTS": trSlots,
		"TR_PROBE_ARCS": trProbeArcs, "TR_PROBE_CANDS": trProbeCands, "TR_SCAN_ARCS": trScanArcs, "TR_SCAN_CANDS": trScanCands} {
		if got, ok := defines[name]; !ok || got != int64(want) {
			t.Errorf("boruvka.cu: #define %s %d (found %v), gpu.go says %d", name, got, ok, want)
		}
	}
}

// TestKernelSourceSyntax compiles boruvka.cu as C++ with the emulator's
// built-ins (testdata/fake_kernels.cpp includes both): syntax, types and
// the kernels the fake GPU registers, which NVRTC would otherwise first
// see on the GPU machine.
func TestKernelSourceSyntax(t *testing.T) {
	cudasrc.Syntax(t, "-I.", "-I"+fakegpu.IncludeDir(), filepath.Join("testdata", "fake_kernels.cpp"))
}

// ---- the Go GPU path on a fake GPU ----

// TestFakeGPU runs the GPU tests' checks on the small graphs through the
// real Go GPU path (Prepare, Run: compile, uploads, argument packing, the
// round loop, the host's share, copies) against package gpu's fake CUDA
// driver and NVRTC (gpu/testdata), whose cuLaunchKernel is replaced by
// one that runs the named kernel of boruvka.cu on the CPU emulator
// (testdata/fake_kernels.cpp). The checks run in a child process, where
// gpu.Default() is the fake device. Needs gcc and g++.
func TestFakeGPU(t *testing.T) {
	fakegpu.Run(t, "TestFakeGPUChild", 4*time.Minute, func(b *fakegpu.Builder) []string {
		return []string{b.CXX("testdata/fake_kernels.cpp")}
	})
}

// TestFakeGPUChild is TestFakeGPU's child process.
func TestFakeGPUChild(t *testing.T) {
	dev := fakegpu.Device(t)
	cases := gpuCases(t, true)
	checkGPUVariants(t, dev, cases, testVariants())
	checkGPUProbeLengths(t, dev, cases[0].g)
	checkGPUMemoryCap(t, dev, cases[4].g)
	checkGPUCancel(t, dev, cases[0].g)
	checkGPURunOneShot(t, dev, cases[0].g)
	t.Run("trace", func(t *testing.T) { checkTraceOn(t, dev, traceGraph(t, 7)) })
	t.Run("trace_flip", func(t *testing.T) { checkTraceFlip(t, dev, traceGraph(t, 7)) })
	t.Run("trace_bytes", func(t *testing.T) { checkTraceBytes(t, dev) })
	checkOneShotFreeError(t, dev)
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
		r, err := Run(dev, g, Options{})
		if r != nil || err == nil || !strings.Contains(err.Error(), "mst: freeing the device memory of ") || !strings.Contains(err.Error(), "cuMemFree_v2") {
			t.Errorf("Run(dev, g) with a failing free: %v, %v; want the free's error", r, err)
		}
	})
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

func TestGPUVariants(t *testing.T) {
	checkGPUVariants(t, gpuDevice(t), gpuCases(t, false), testVariants())
}

// checkGPUVariants prepares every case with every variant, runs it twice
// (a second run must repeat the first) and checks the results.
func checkGPUVariants(t *testing.T, dev *gpu.Device, cases []gpuCase, variants []Variant) {
	for _, c := range cases {
		for _, v := range variants {
			t.Run(c.name+"/"+v.Slug(), func(t *testing.T) {
				p, err := Prepare(dev, c.g, v.Options)
				if err != nil {
					t.Fatal(err)
				}
				defer p.Close()
				checkPrepared(t, p)
				r, err := p.Run()
				if err != nil {
					t.Fatal(err)
				}
				checkResult(t, c.g, r, v.Label)
				checkRunPrep(t, p, r)
				again, err := p.Run()
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(again.Edges, r.Edges) || again.Iterations != r.Iterations || again.Trees != r.Trees {
					t.Errorf("a second run differs: %d edges, %d rounds, %d trees; first %d, %d, %d",
						len(again.Edges), again.Iterations, again.Trees, len(r.Edges), r.Iterations, r.Trees)
				}
				if o := p.Options(); o.Hybrid && c.g.NumVertices() > 1 && (p.HostVertices() == 0 || p.HostTime() <= 0) {
					t.Errorf("hybrid: %d host vertices, host time %v", p.HostVertices(), p.HostTime())
				}
			})
		}
	}
}

// checkRunPrep checks the PrepTime convention of a GPU Prepared.Run:
// nothing is prepared per run, so the result reports 0, and the
// preparation, spent once, is PrepTime() (> 0).
func checkRunPrep(t *testing.T, p *Prepared, r *Result) {
	t.Helper()
	if r.PrepTime != 0 || p.PrepTime() <= 0 {
		t.Errorf("Prepared.Run's PrepTime %v, want 0; PrepTime() %v, want > 0", r.PrepTime, p.PrepTime())
	}
}

// checkPrepared checks what a GPU preparation reports: the device memory
// equals the plan's model, the split and the compression follow the
// options.
func checkPrepared(t *testing.T, p *Prepared) {
	t.Helper()
	o := p.Options()
	arcs := int64(p.dEidx.Len())
	if got, want := p.Bytes(), p.deviceBytes(p.hostFrom, arcs); got != want {
		t.Errorf("Bytes() = %d, the plan's model says %d", got, want)
	}
	if hv := p.HostVertices(); !o.Hybrid && o.MemoryCap == 0 && hv != 0 {
		t.Errorf("%d vertices on the host without Hybrid or a cap", hv)
	}
	if o.Hybrid && o.share() == 1 && p.HostVertices() != p.n {
		t.Errorf("CPU share 1: %d of %d vertices on the host", p.HostVertices(), p.n)
	}
	if p.Compressed() && !o.Compress {
		t.Errorf("compressed without Compress")
	}
	if o.Compress && !p.Compressed() && p.noCompress == "" {
		t.Errorf("Compress asked for, not applied, and no note says why")
	}
}

func TestGPUProbeLengths(t *testing.T) {
	checkGPUProbeLengths(t, gpuDevice(t), mustGraph(t)(gen.RMAT(11, 16, gen.Seed(1), gen.Integer(3))))
}

// checkGPUProbeLengths runs with probe lengths 0 (every segment to the
// warp scan: the study's kernel), 1 and 64 (the probe does it all).
func checkGPUProbeLengths(t *testing.T, dev *gpu.Device, g *graph.CSR) {
	for _, v := range SeedVariants() {
		for _, probe := range []int{0, 1, 64} {
			t.Run(fmt.Sprintf("%s/probe_%d", v.Slug(), probe), func(t *testing.T) {
				p, err := Prepare(dev, g, v.Options)
				if err != nil {
					t.Fatal(err)
				}
				defer p.Close()
				p.probeLen = probe
				r, err := p.Run()
				if err != nil {
					t.Fatal(err)
				}
				checkResult(t, g, r, v.Label)
				checkRunPrep(t, p, r)
			})
		}
	}
}

func TestGPUMemoryCap(t *testing.T) {
	checkGPUMemoryCap(t, gpuDevice(t), mustGraph(t)(gen.SSCA2(12, gen.Seed(5))))
}

// checkGPUMemoryCap prepares g under caps that leave part of the
// neighbour lists, or all of them, to the host, and under one too small
// for the per-vertex arrays.
func checkGPUMemoryCap(t *testing.T, dev *gpu.Device, g *graph.CSR) {
	for _, v := range append(SeedVariants(), Variant{"GPU (ranks, renumber, compress off)", Options{}}) {
		full, err := Prepare(dev, g, v.Options)
		if err != nil {
			t.Fatal(err)
		}
		whole, vertexOnly := full.Bytes(), full.deviceBytes(0, 0)
		full.Close()
		for _, frac := range []float64{0.75, 0.3, 0} {
			limit := vertexOnly + int64(frac*float64(whole-vertexOnly))
			opts := v.Options
			opts.MemoryCap = limit
			label := opts.Label()
			t.Run(fmt.Sprintf("%s/cap_%.2f", v.Slug(), frac), func(t *testing.T) {
				p, err := Prepare(dev, g, opts)
				if err != nil {
					t.Fatal(err)
				}
				defer p.Close()
				checkPrepared(t, p)
				if p.Bytes() > limit || p.HostVertices() == 0 {
					t.Errorf("cap %d: %d bytes on the device, %d vertices on the host", limit, p.Bytes(), p.HostVertices())
				}
				r, err := p.Run()
				if err != nil {
					t.Fatal(err)
				}
				checkResult(t, g, r, label)
				checkRunPrep(t, p, r)
				if !strings.Contains(r.Algorithm, "found their minimum on the host") {
					t.Errorf("Algorithm %q does not say that the host took vertices", r.Algorithm)
				}
			})
		}
		tight := v.Options
		tight.MemoryCap = vertexOnly - 1
		if _, err := Prepare(dev, g, tight); !errors.Is(err, gpu.ErrOutOfMemory) {
			t.Errorf("%s: a cap below the per-vertex arrays: %v, want gpu.ErrOutOfMemory", v.Label, err)
		}
	}
}

func TestGPUCancel(t *testing.T) {
	checkGPUCancel(t, gpuDevice(t), mustGraph(t)(gen.RMAT(10, 16, gen.Seed(1))))
}

func checkGPUCancel(t *testing.T, dev *gpu.Device, g *graph.CSR) {
	for _, v := range SeedVariants() {
		p, err := Prepare(dev, g, v.Options)
		if err != nil {
			t.Fatal(err)
		}
		cancel.Request()
		_, err = p.Run()
		cancel.Clear()
		if !errors.Is(err, cancel.ErrInterrupted) {
			t.Errorf("%s: Run after cancel.Request: %v, want cancel.ErrInterrupted", v.Label, err)
		}
		r, err := p.Run() // the device and the preparation survive
		if err != nil {
			t.Fatalf("%s: Run after cancel.Clear: %v", v.Label, err)
		}
		checkResult(t, g, r, v.Label)
		checkRunPrep(t, p, r)
		if err := p.Close(); err != nil {
			t.Error(err)
		}
		if _, err := p.Run(); err == nil {
			t.Errorf("%s: Run after Close: no error", v.Label)
		}
	}
}

func TestGPURunOneShot(t *testing.T) {
	dev := gpuDevice(t)
	checkGPURunOneShot(t, dev, mustGraph(t)(gen.SSCA2(10, gen.Seed(2))))
	// GPU-only input checks.
	asym := &graph.CSR{Offsets: []int64{0, 1, 1}, Adj: []int32{1}}
	if _, err := Run(dev, asym, Options{}); err == nil || !strings.Contains(err.Error(), "no reverse arc") {
		t.Errorf("asymmetric graph: %v", err)
	}
}

// checkGPURunOneShot runs the one-shot Run with the seed variants: the
// result is checked, and its PrepTime is the preparation (> 0), which
// Prepared.Run leaves out.
func checkGPURunOneShot(t *testing.T, dev *gpu.Device, g *graph.CSR) {
	for _, v := range SeedVariants() {
		r, err := Run(dev, g, v.Options)
		if err != nil {
			t.Fatal(err)
		}
		checkResult(t, g, r, v.Label)
		if r.PrepTime <= 0 {
			t.Errorf("%s: one-shot Run's PrepTime %v, want the preparation (> 0)", v.Label, r.PrepTime)
		}
	}
}
