package sssp

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/graphnb/graphnb/algo/internal/prepared"
	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/graph/gen"
	"github.com/graphnb/graphnb/internal/cudasrc"
	"github.com/graphnb/graphnb/internal/fakegpu"
	tg "github.com/graphnb/graphnb/internal/testgraphs"
)

func TestResidentSource(t *testing.T) {
	cudasrc.Check(t, "resident.cu", residentSource, 1, residentKernelNames())
	defs := cudasrc.Defines(residentSource)
	for name, want := range map[string]int64{
		"RS_BLOCK": blockSize, "RS_REACHED": rsReached, "RS_DEGREES": rsDegrees, "RS_ADOPTED": rsAdopted,
		"RS_LEFT": rsLeft, "RS_LOWEST": rsLowest, "RS_SLOTS": rsSlots, "RS_BIGS": rsBigs, "RS_WORDS": rsWords,
		"RS_TILE": rsTile, "RS_BIG": rsBig,
	} {
		if got, ok := defs[name]; !ok || got != want {
			t.Errorf("resident.cu: #define %s = %d (found %v), the Go side uses %d", name, got, ok, want)
		}
	}
}

// On the host device RunOnDevice wraps the CPU's result, CheckDevice is
// the CPU check, and PrepareResident prepares the host copy.
func TestHostDeviceResident(t *testing.T) {
	g := twoComponents(t)
	dev := gpu.Host()
	dg, err := dev.Upload(g)
	if err != nil {
		t.Fatal(err)
	}
	defer dg.Close()
	for _, prep := range []func() (*Prepared, error){
		func() (*Prepared, error) { return Prepare(dev, g, Options{Method: NearFar, Parents: true}) },
		func() (*Prepared, error) { return PrepareResident(dg, Options{Method: NearFar, Parents: true}) },
	} {
		p, err := prep()
		if err != nil {
			t.Fatal(err)
		}
		dr, err := p.RunOnDevice(3)
		if err != nil {
			t.Fatal(err)
		}
		r, err := dr.Result()
		if err != nil {
			t.Fatal(err)
		}
		cpu, _ := BellmanFord(g, 3)
		if err := sameDist(r.Dist, cpu.Dist); err != nil || dr.Reached != cpu.Reached || dr.ComponentEdges != cpu.ComponentEdges {
			t.Errorf("host RunOnDevice: %v; reached %d (want %d), component edges %d (want %d)", err, dr.Reached, cpu.Reached, dr.ComponentEdges, cpu.ComponentEdges)
		}
		if err := p.CheckDevice(dr); err != nil {
			t.Error(err)
		}
		r.Dist[5] *= 2
		if err := p.CheckDevice(dr); err == nil {
			t.Error("a doubled distance passes the host device's CheckDevice")
		}
		checkResultLifecycle(t, p, dr)
	}
	if _, err := PrepareResident(nil, Options{}); err == nil {
		t.Error("PrepareResident(nil): no error")
	}
}

// checkResultLifecycle closes dr twice, then requires its Result to stay
// readable if it was read, CheckDevice to fail, and p's RunOnDevice to
// fail after p's Close.
func checkResultLifecycle(t *testing.T, p *Prepared, dr *DeviceResult) {
	t.Helper()
	if err := dr.Close(); err != nil {
		t.Fatal(err)
	}
	if err := dr.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := (*DeviceResult)(nil).Close(); err != nil {
		t.Errorf("nil Close: %v", err)
	}
	if _, err := dr.Result(); err != nil {
		t.Errorf("Result after Close of a result read before: %v", err)
	}
	if !p.Device().IsHost() {
		if err := p.CheckDevice(dr); err == nil || !strings.Contains(err.Error(), "closed") {
			t.Errorf("CheckDevice after Close: %v, want an error saying closed", err)
		}
	}
	unread, err := p.RunOnDevice(0)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := p.RunOnDevice(0); err == nil {
		t.Error("RunOnDevice after the Prepared's Close: no error")
	}
	if err := unread.Close(); err != nil {
		t.Errorf("Close of a result after its Prepared's Close: %v", err)
	}
	if _, err := unread.Result(); err == nil && !p.Device().IsHost() {
		t.Error("Result of a result closed unread: no error")
	}
}

// fakeResidentCases are the gpuCases the fake GPU's resident tests run
// (the emulator is slow): weighted and unweighted R-MAT, zero-weight
// cycles (adoption rounds), several components, a single vertex.
var fakeResidentCases = map[string]bool{"rmat_s7": true, "rmat_s7_float64": true, "rmat_s7_unweighted": true,
	"zero_weights": true, "two_components": true, "single_vertex": true}

// residentVariants are the variants the resident tests run: the edge
// sweep (COO, permuted), the frontier and near-far methods (CSR), float64
// and float32 distances; and, unless small (the fake GPU), near-far with
// many phases.
func residentVariants(small bool) []Options {
	v := []Options{
		{Parents: true, Permute: true, SegmentSize: 16},
		{Parents: true, Float32: true},
		{Method: Frontier, Parents: true},
		{Method: NearFar, Parents: true},
		{Method: NearFar, Parents: true, Float32: true},
	}
	if !small {
		v = append(v, Options{Method: NearFar, Parents: true, DeltaFactor: 0.5})
	}
	return v
}

// residentCases are graphs for the resident tests: gpuCases (on the
// fake GPU only those fakeResidentCases names, from two roots) and a
// star whose hub has more than rsBig arcs (the split's block path),
// float32 and float64 weights.
func residentCases(t *testing.T, small bool) []gpuCase {
	var cases []gpuCase
	for _, c := range gpuCases(t, small) {
		if small && !fakeResidentCases[c.name] {
			continue
		}
		if small {
			c.srcs = c.srcs[:min(2, len(c.srcs))]
		}
		cases = append(cases, c)
	}
	for i, o := range []gen.Option{gen.Seed(8), gen.Float64()} {
		g := mustGraph(t)(gen.Star(rsBig+300, gen.Seed(uint64(8+i)), o))
		cases = append(cases, gpuCase{name: "big_star", g: g, srcs: []int32{0, 7}})
	}
	return append(cases, hubCases(t)...)
}

// hubCases are graphs for the parent tree: vertex 0 joined by weight 1 to
// hubMiddles middle vertices, each joined by weight 1 to the hub (a
// vertex with more tight in-arcs from one distance than a warp tile
// holds, and vertex 0 too from the hub; every list reversed, so that
// the least tail comes last), then behind the hub a cycle of
// zero weights, hub+1 → hub+2 → hub+3 → hub+1, and hub+3 → hub+4 of
// weight 0.5: the cycle's vertices are orphans, adopted in two rounds
// (three when directed). Float32 and float64 weights, undirected and
// directed; from vertex 0, the hub and a middle vertex. And a graph whose
// arcs lie on both sides of a long run of vertices without arcs.
func hubCases(t testing.TB) []gpuCase {
	const hubMiddles = rsTile + 44
	hub := float64(hubMiddles + 1)
	var edges []tg.Edge
	for i := 1; i <= hubMiddles; i++ {
		edges = append(edges, tg.Edge{0, float64(i), 1}, tg.Edge{float64(i), hub, 1})
	}
	edges = append(edges, tg.Edge{hub, hub + 1, 0}, tg.Edge{hub + 1, hub + 2, 0}, tg.Edge{hub + 2, hub + 3, 0},
		tg.Edge{hub + 3, hub + 1, 0}, tg.Edge{hub + 3, hub + 4, 0.5})
	var cases []gpuCase
	for _, directed := range []bool{false, true} {
		for _, w := range []tg.Weights{tg.Float32, tg.Float64} {
			name := fmt.Sprintf("hub_w%d", map[tg.Weights]int{tg.Float32: 32, tg.Float64: 64}[w])
			if directed {
				name += "_directed"
			}
			g := tg.Build(t, hubMiddles+6, directed, w, edges...)
			reverseLists(g)
			cases = append(cases, gpuCase{name: name, g: g, srcs: []int32{0, int32(hub), 5}})
		}
		// Arcs on both sides of a long run of vertices without arcs: the
		// passes' tails advance past it by binary search.
		g := tg.Build(t, 1000, directed, tg.Float32, tg.Edge{0, 1, 0.5}, tg.Edge{1, 998, 0.25}, tg.Edge{998, 999, 0},
			tg.Edge{999, 1, 0.25}, tg.Edge{998, 2, 1})
		cases = append(cases, gpuCase{name: fmt.Sprintf("empty_run_directed_%v", directed), g: g, srcs: []int32{0, 998}})
	}
	return cases
}

// firstDiff returns the first index where a and b differ (the shorter's
// length when one is a prefix of the other), or -1 when they are equal.
func firstDiff(a, b []int32) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}

// reverseLists reverses each vertex's list of arcs (and weights) in g,
// so that the least tail of a hub's tight in-arcs comes last.
func reverseLists(g *graph.CSR) {
	for v := range g.NumVertices() {
		lo, hi := g.Offsets[v], g.Offsets[v+1]
		slices.Reverse(g.Adj[lo:hi])
		if g.Weights != nil {
			slices.Reverse(g.Weights[lo:hi])
		}
		if g.Weights64 != nil {
			slices.Reverse(g.Weights64[lo:hi])
		}
	}
}

// referenceTree is RunOnDevice's parent tree by its contract, on the host
// and from g's arcs as given: for each reached v but src the least u of
// the tight arcs u→v (Dist[u] + w == Dist[v] in float32 when f32, else
// float64) with Dist[u] < Dist[v]; then rounds adopting each vertex left
// by the least u of its tight arcs u→v with Dist[u] == Dist[v] and u
// holding a parent before the round.
func referenceTree(g *graph.CSR, dist []float64, src int32, f32 bool) ([]int32, error) {
	const orphan = math.MaxInt32
	n := g.NumVertices()
	par := make([]int32, n)
	for v := range par {
		switch {
		case int32(v) == src:
			par[v] = src
		case !math.IsInf(dist[v], 0) && !math.IsNaN(dist[v]):
			par[v] = orphan
		default:
			par[v] = -1
		}
	}
	// tight reports whether arc k, u→v, is tight, and with Dist[u] <
	// Dist[v] (strict) or Dist[u] == Dist[v] (flat).
	tight := func(k int64, u, v int32) (strict, flat bool) {
		w := 1.0
		if g.Weights != nil {
			w = float64(g.Weights[k])
		} else if g.Weights64 != nil {
			w = g.Weights64[k]
		}
		if f32 {
			du, dv := float32(dist[u]), float32(dist[v])
			if !(du <= dv) || float32(du+float32(w)) != dv {
				return false, false
			}
			return du < dv, du == dv
		}
		du, dv := dist[u], dist[v]
		if !(du <= dv) || du+w != dv {
			return false, false
		}
		return du < dv, du == dv
	}
	arcs := func(visit func(k int64, u, v int32)) {
		for u := range n {
			for k := g.Offsets[u]; k < g.Offsets[u+1]; k++ {
				visit(k, int32(u), g.Adj[k])
			}
		}
	}
	arcs(func(k int64, u, v int32) {
		if strict, _ := tight(k, u, v); strict && u < par[v] {
			par[v] = u
		}
	})
	for {
		cand := map[int32]int32{}
		arcs(func(k int64, u, v int32) {
			if _, flat := tight(k, u, v); flat && par[v] == orphan && par[u] != orphan && par[u] >= 0 {
				if c, ok := cand[v]; !ok || u < c {
					cand[v] = u
				}
			}
		})
		for v, c := range cand {
			par[v] = c
		}
		left := slices.Index(par, orphan)
		if left < 0 {
			return par, nil
		}
		if len(cand) == 0 {
			return nil, fmt.Errorf("vertex %d is left without a parent", left)
		}
	}
}

// checkResidentRuns runs every variant on every case, prepared by
// Prepare and by PrepareResident from the uploaded graph, and requires
// RunOnDevice's results to be the CPU's distances bit for bit (float64;
// float32: the same in both preparations), with parents that pass the CPU
// check, are identical in both preparations and runs, the device check,
// and the bookkeeping.
func checkResidentRuns(t *testing.T, dev *gpu.Device, cases []gpuCase, small bool) {
	for _, c := range cases {
		dg, err := dev.Upload(c.g)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range residentVariants(small) {
			if c.g.Directed && o.Method == EdgeSweep {
				continue
			}
			t.Run(c.name+"/"+Variant{Label: o.Label()}.Slug(), func(t *testing.T) {
				ph, err := Prepare(dev, c.g, o)
				if err != nil {
					t.Fatal(err)
				}
				defer ph.Close()
				pr, err := PrepareResident(dg, o)
				if err != nil {
					t.Fatal(err)
				}
				defer pr.Close()
				if ph.Delta() != pr.Delta() && !(math.IsInf(ph.Delta(), 1) && math.IsInf(pr.Delta(), 1)) {
					t.Errorf("Δ %v (Prepare) vs %v (PrepareResident)", ph.Delta(), pr.Delta())
				}
				for _, src := range c.srcs {
					var prev *Result
					for _, p := range []*Prepared{ph, pr} {
						r := runResident(t, p, src)
						checkGPUResult(t, c.g, r, o)
						if want, err := referenceTree(c.g, r.Dist, src, o.Float32); err != nil {
							t.Errorf("from %d: the reference tree: %v", src, err)
						} else if len(r.Parents) != len(want) {
							t.Errorf("from %d: %d parents, want %d", src, len(r.Parents), len(want))
						} else if i := firstDiff(r.Parents, want); i >= 0 {
							t.Errorf("from %d: Parents[%d] = %d, the contract's tree has %d", src, i, r.Parents[i], want[i])
						}
						if prev != nil {
							if err := sameDist(r.Dist, prev.Dist); err != nil {
								t.Errorf("from %d: the two runs differ: %v", src, err)
							}
							if !slices.Equal(r.Parents, prev.Parents) {
								t.Errorf("from %d: the parents of the two runs differ", src)
							}
						}
						prev = r
					}
				}
			})
		}
		dg.Close()
	}
}

// runResident runs p from src with RunOnDevice, checks the result on the
// device and its scalars against its Result, and returns the Result.
func runResident(t *testing.T, p *Prepared, src int32) *Result {
	t.Helper()
	dr, err := p.RunOnDevice(src)
	if err != nil {
		t.Fatal(err)
	}
	defer dr.Close()
	if err := p.CheckDevice(dr); err != nil {
		t.Errorf("from %d: CheckDevice: %v", src, err)
	}
	r, err := dr.Result()
	if err != nil {
		t.Fatal(err)
	}
	if r.Reached != dr.Reached || r.Source != src || len(r.Dist) != p.n || len(r.Parents) != p.n || dr.Time <= 0 || dr.TEPS.Graph500 < 0 {
		t.Errorf("from %d: Result %v vs DeviceResult %+v", src, r, dr)
	}
	return r
}

// checkPrepareResidentArrays requires PrepareResident's near-far layout
// (light-first arcs, weights, light ends) and Δ to equal Prepare's bit
// for bit, and its weight scan to equal scanWeights'.
func checkPrepareResidentArrays(t *testing.T, dev *gpu.Device, cases []gpuCase) {
	for _, c := range cases {
		dg, err := dev.Upload(c.g)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range []Options{{Method: NearFar}, {Method: NearFar, DeltaFactor: 0.5}, {Method: NearFar, Delta: 0.3}, {Method: NearFar, Delta: 1.5}} {
			ph, err := Prepare(dev, c.g, o)
			if err != nil {
				t.Fatal(err)
			}
			pr, err := PrepareResident(dg, o)
			if err != nil {
				t.Fatal(err)
			}
			if math.Float64bits(ph.Delta()) != math.Float64bits(pr.Delta()) {
				t.Errorf("%s, %s: Δ %v (Prepare) vs %v (PrepareResident)", c.name, o.Label(), ph.Delta(), pr.Delta())
			}
			if !sameDeviceArrays(t, ph.csr, pr.csr) || !sameBuffer(t, ph.lend, pr.lend) {
				t.Errorf("%s, %s: PrepareResident's light-first layout differs from Prepare's", c.name, o.Label())
			}
			fn, err := residentKernels(dev)
			if err != nil {
				t.Fatal(err)
			}
			got, err := pr.deviceWeightStats(fn, dg)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := scanWeights(c.g)
			if got.negArc != want.negArc || math.Float64bits(got.maxFinite) != math.Float64bits(want.maxFinite) ||
				math.Float64bits(got.mean) != math.Float64bits(want.mean) {
				t.Errorf("%s: device weight scan %+v, the host's %+v", c.name, got, want)
			}
			ph.Close()
			pr.Close()
		}
		dg.Close()
	}
}

// checkDeviceWeightScan compares the device weight scan with the host's
// on graphs of several chunks (float32 and float64 weights, a negative
// weight in the second chunk), bit for bit.
func checkDeviceWeightScan(t *testing.T, dev *gpu.Device) {
	f32 := mustGraph(t)(gen.RMAT(12, 16, gen.Seed(3)))
	f64 := mustGraph(t)(gen.RMAT(12, 16, gen.Seed(4), gen.Float64()))
	neg := *f32
	neg.Weights = slices.Clone(f32.Weights)
	neg.Weights[weightChunk+5], neg.Weights[weightChunk+9] = -1, float32(math.NaN())
	for _, g := range []*graph.CSR{f32, f64, &neg} {
		if g.NumArcs() <= weightChunk {
			t.Fatalf("%v: want more than one chunk of weights", g)
		}
		dg, err := dev.Upload(g)
		if err != nil {
			t.Fatal(err)
		}
		p := &Prepared{n: g.NumVertices(), m: g.NumArcs()}
		p.mem = prepared.Init(&p.base, "sssp", "test", dev)
		fn, err := residentKernels(dev)
		if err != nil {
			t.Fatal(err)
		}
		got, err := p.deviceWeightStats(fn, dg)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := scanWeights(g)
		if got.negArc != want.negArc || math.Float64bits(got.maxFinite) != math.Float64bits(want.maxFinite) ||
			math.Float64bits(got.mean) != math.Float64bits(want.mean) {
			t.Errorf("%v: device weight scan %+v, the host's %+v", g, got, want)
		}
		p.Close()
		dg.Close()
	}
}

// sameDeviceArrays compares the CSR arrays of two device graphs.
func sameDeviceArrays(t *testing.T, a, b *gpu.Graph) bool {
	t.Helper()
	return sameBuffer(t, a.Offsets, b.Offsets) && sameBuffer(t, a.Adj, b.Adj) &&
		(a.Weights == nil) == (b.Weights == nil) && (a.Weights64 == nil) == (b.Weights64 == nil) &&
		(a.Weights == nil || sameBuffer(t, a.Weights, b.Weights)) && (a.Weights64 == nil || sameBuffer(t, a.Weights64, b.Weights64))
}

// sameBuffer downloads two device buffers and compares them bit for bit.
func sameBuffer[B interface{ ToHost() ([]E, error) }, E comparable](t *testing.T, a, b B) bool {
	t.Helper()
	x, err := a.ToHost()
	if err != nil {
		t.Fatal(err)
	}
	y, err := b.ToHost()
	if err != nil {
		t.Fatal(err)
	}
	return slices.Equal(x, y)
}

// plant writes m's distances, parents and counts into dr, as if the run
// had produced them.
func plant(t *testing.T, dr *DeviceResult, m *Result) {
	t.Helper()
	if err := dr.bufs.dist.Upload(m.Dist); err != nil {
		t.Fatal(err)
	}
	if err := dr.bufs.parents.Upload(m.Parents); err != nil {
		t.Fatal(err)
	}
	dr.Reached, dr.ComponentEdges = m.Reached, m.ComponentEdges
}

// checkResidentErrors: PrepareResident refuses what Prepare refuses,
// with the same words; CheckDevice refuses a result without parents and
// one of another Prepared.
func checkResidentErrors(t *testing.T, dev *gpu.Device) {
	neg := tg.Build(t, 4, false, tg.Float32, tg.Edge{0, 1, 1}, tg.Edge{1, 2, -0.5}, tg.Edge{2, 3, 1})
	g := twoComponents(t)
	for _, c := range []struct {
		g *graph.CSR
		o Options
	}{
		{neg, Options{Method: NearFar}},
		{g, Options{Method: NearFar, Delta: -1}},
		{g, Options{Method: Method(9)}},
	} {
		dg, err := dev.Upload(c.g)
		if err != nil {
			t.Fatal(err)
		}
		_, want := Prepare(dev, c.g, c.o)
		_, got := PrepareResident(dg, c.o)
		if want == nil || got == nil || got.Error() != want.Error() {
			t.Errorf("PrepareResident: %v; Prepare: %v", got, want)
		}
		dg.Close()
	}
	p, err := Prepare(dev, g, Options{Method: NearFar})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	q, err := Prepare(dev, g, Options{Method: NearFar, Parents: true})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	dr, err := p.RunOnDevice(0)
	if err != nil {
		t.Fatal(err)
	}
	defer dr.Close()
	if err := p.CheckDevice(dr); err == nil || !strings.Contains(err.Error(), "parents need Options.Parents") {
		t.Errorf("CheckDevice without parents: %v", err)
	}
	if err := q.CheckDevice(dr); err == nil || !strings.Contains(err.Error(), "another Prepared") {
		t.Errorf("CheckDevice of another Prepared's result: %v", err)
	}
	if _, err := p.RunOnDevice(int32(g.NumVertices())); err == nil {
		t.Error("RunOnDevice from a source out of range: no error")
	}
	if r, err := dr.Result(); err != nil || r.Parents != nil || r.Reached != dr.Reached {
		t.Errorf("Result without parents: %v, %v", r, err)
	}
}

// checkResidentLifecycle is checkResultLifecycle on dev.
func checkResidentLifecycle(t *testing.T, dev *gpu.Device) {
	g := twoComponents(t)
	p, err := Prepare(dev, g, Options{Method: NearFar, Parents: true})
	if err != nil {
		t.Fatal(err)
	}
	dr, err := p.RunOnDevice(1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dr.Result(); err != nil {
		t.Fatal(err)
	}
	checkResultLifecycle(t, p, dr)
}

func TestGPUResident(t *testing.T) {
	dev := gpuDevice(t)
	checkResidentRuns(t, dev, residentCases(t, false), false)
	checkPrepareResidentArrays(t, dev, residentCases(t, false))
	checkResidentErrors(t, dev)
	checkDeviceWeightScan(t, dev)
	checkResidentLifecycle(t, dev)
}

// TestFakeGPUResident runs the resident tests (RunOnDevice, DeviceResult,
// CheckDevice, PrepareResident) on the small graphs against the fake GPU
// (see TestFakeGPU), in a child process of its own.
func TestFakeGPUResident(t *testing.T) {
	fakegpu.Run(t, "TestFakeGPUResidentChild", 5*time.Minute, func(b *fakegpu.Builder) []string {
		return []string{b.CXX("testdata/fake_kernels.cpp"), b.CXX("testdata/fake_check.cpp"), b.CXX("testdata/fake_resident.cpp"),
			b.CXX("../../gpu/transform/testdata/fake_kernels.cpp")}
	})
}

// TestFakeGPUResidentChild is TestFakeGPUResident's child process.
func TestFakeGPUResidentChild(t *testing.T) {
	dev := fakegpu.Device(t)
	nearFarTuning.batch = 3 // fewer idle launches (see TestFakeGPUChild)
	t.Run("runs", func(t *testing.T) { checkResidentRuns(t, dev, residentCases(t, true), true) })
	t.Run("arrays", func(t *testing.T) { checkPrepareResidentArrays(t, dev, residentCases(t, true)) })
	t.Run("errors", func(t *testing.T) { checkResidentErrors(t, dev) })
	t.Run("weight_scan", func(t *testing.T) { checkDeviceWeightScan(t, dev) })
	t.Run("lifecycle", func(t *testing.T) { checkResidentLifecycle(t, dev) })
	t.Run("no_host_copy", func(t *testing.T) { checkResidentNoHostCopy(t, dev) })
}

// checkResidentNoHostCopy prepares every resident variant on a graph
// made on the device (dev.NewGraph) and requires that none makes a host
// copy: the edge sweep's COO and permutation are made on the device.
func checkResidentNoHostCopy(t *testing.T, dev *gpu.Device) {
	g, err := gen.RMAT(8, 8, gen.Seed(5))
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range residentVariants(true) {
		off, err := dev.Int64sFrom(g.Offsets)
		if err != nil {
			t.Fatal(err)
		}
		adj, err := dev.Int32sFrom(g.Adj)
		if err != nil {
			t.Fatal(err)
		}
		w, err := dev.Float32sFrom(g.Weights)
		if err != nil {
			t.Fatal(err)
		}
		dg, err := dev.NewGraph(g.NumVertices(), false, off, adj, w, nil)
		if err != nil {
			t.Fatal(err)
		}
		p, err := PrepareResident(dg, o)
		if err != nil {
			t.Fatalf("%s: %v", o.Label(), err)
		}
		checkGPUResult(t, g, runResident(t, p, 0), o)
		if dg.HasHost() {
			t.Errorf("%s: PrepareResident or RunOnDevice made a host copy of a graph made on the device", o.Label())
		}
		p.Close()
		dg.Close()
	}
}

// The reference tree on the hub graphs: the least middle vertex for the
// hub, and the zero-weight cycle adopted in rounds.
func TestReferenceTree(t *testing.T) {
	for _, c := range hubCases(t) {
		if !strings.HasPrefix(c.name, "hub") {
			continue
		}
		hub := int32(rsTile + 45)
		r, err := Dijkstra(c.g, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, f32 := range []bool{false, true} {
			got, err := referenceTree(c.g, r.Dist, 0, f32)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			want := map[int32]int32{0: 0, 1: 0, 5: 0, hub: 1, hub + 1: hub, hub + 2: hub + 1, hub + 3: hub + 1, hub + 4: hub + 3}
			if c.g.Directed {
				want[hub+3] = hub + 2
			}
			for v, p := range want {
				if got[v] != p {
					t.Errorf("%s (f32 %v): parent of %d = %d, want %d", c.name, f32, v, got[v], p)
				}
			}
		}
	}
}
