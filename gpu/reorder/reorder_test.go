package reorder

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/graph/gen"
	"github.com/graphnb/graphnb/graph/gen/gpugen"
	"github.com/graphnb/graphnb/internal/cudasrc"
	"github.com/graphnb/graphnb/internal/fakegpu"
	tg "github.com/graphnb/graphnb/internal/testgraphs"
)

// TestKernelSource checks reorder.cu against the kernels reorder.go
// launches and the constants both sides share.
func TestKernelSource(t *testing.T) {
	cudasrc.Check(t, "reorder.cu", kernelSource, 1000, kernelNames())
	cudasrc.CheckDefines(t, "reorder.cu", kernelSource, map[string]int64{"RCM_NONE": none, "RCM_CHUNK": chunk})
}

// TestKernelSourceSyntax compiles reorder.cu with the emulator's
// built-ins (testdata/fake_kernels.cpp includes both).
func TestKernelSourceSyntax(t *testing.T) {
	cudasrc.Syntax(t, "-I"+fakegpu.IncludeDir(), "testdata/fake_kernels.cpp")
}

// TestHostDevice checks the host device's path (graph.RCMOrder of the
// host copy) and the refusals that need no kernels.
func TestHostDevice(t *testing.T) {
	dev := gpu.Host()
	for name, g := range testGraphs(t, false) {
		dg, err := dev.Upload(g)
		if err != nil {
			t.Fatal(err)
		}
		compare(t, name, g, dg, RCMOrder)
	}
	checkRefusals(t, dev)
}

func TestFakeGPU(t *testing.T) {
	fakegpu.Run(t, "TestFakeGPUChild", 4*time.Minute, func(b *fakegpu.Builder) []string {
		return []string{b.CXX("testdata/fake_kernels.cpp"), b.CXX("../transform/testdata/fake_kernels.cpp")}
	})
}

// TestFakeGPUChild is TestFakeGPU's child process.
func TestFakeGPUChild(t *testing.T) {
	dev := fakegpu.Device(t)
	minSortLen = 64 // the small graphs' levels then sort in buffers of several lengths
	checkDevice(t, dev, testGraphs(t, false))
	checkPhases(t, dev)
}

// checkPhases checks the benchmark's phase report on a small graph: every
// phase once, in order, and the counts of a 6×7 grid (George and Liu:
// the search from a corner, one from the opposite corner that reaches no
// further; 11 levels each, and 11 Cuthill-McKee levels after the root).
func checkPhases(t *testing.T, dev *gpu.Device) {
	dg := uploadGrid(t, dev)
	defer dg.Close()
	var names []string
	for _, p := range phaseTimes(t, dg) {
		names = append(names, fmt.Sprintf("%s=%v", p.name, p.ms))
		if strings.HasSuffix(p.name, "_ms") {
			names[len(names)-1] = p.name
		}
	}
	want := "check_ms components_ms roots_ms levels_ms result_ms rounds=2 search_levels=22 number_levels=11"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("phases of a 6×7 grid: %s, want %s", got, want)
	}
}

// TestGPU runs the same checks on a real GPU, with larger graphs too
// (skipped without one).
func TestGPU(t *testing.T) {
	dev := gpu.Default()
	if dev.IsHost() {
		t.Skip(gpu.DefaultReason())
	}
	checkDevice(t, dev, testGraphs(t, true))
}

// checkDevice compares the device order with graph.RCMOrder on every
// graph, then checks the refusals, malformed input and an interrupt.
func checkDevice(t *testing.T, dev *gpu.Device, graphs map[string]*graph.CSR) {
	for _, name := range slices.Sorted(maps.Keys(graphs)) {
		g := graphs[name]
		dg, err := dev.Upload(g)
		if err != nil {
			t.Fatal(err)
		}
		compare(t, name, g, dg, RCMOrder)
		dg.Close()
	}
	checkRefusals(t, dev)
	checkMalformed(t, dev)
	checkInterrupt(t, dev)
}

// compare fails t unless order of dg equals graph.RCMOrder of g.
func compare(t *testing.T, name string, g *graph.CSR, dg *gpu.Graph, order func(*gpu.Graph) (*gpu.Int32s, *gpu.Int32s, error)) {
	t.Helper()
	wantNew, wantOld, err := graph.RCMOrder(g)
	if err != nil {
		t.Fatal(err)
	}
	newID, oldID, err := order(dg)
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return
	}
	defer newID.Free()
	defer oldID.Free()
	gotNew, err1 := newID.ToHost()
	gotOld, err2 := oldID.ToHost()
	if err := errors.Join(err1, err2); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(gotNew, wantNew) || !slices.Equal(gotOld, wantOld) {
		i := firstDifference(gotOld, wantOld)
		t.Errorf("%s (%d vertices, %d arcs): the device order differs from graph.RCMOrder from new id %d on: got old ids %v, want %v",
			name, g.NumVertices(), g.NumArcs(), i, window(gotOld, i), window(wantOld, i))
	}
}

func firstDifference(a, b []int32) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func window(x []int32, i int) []int32 { return x[min(i, len(x)):min(i+8, len(x))] }

// checkRefusals: a directed graph and no graph are refused clearly.
func checkRefusals(t *testing.T, dev *gpu.Device) {
	t.Helper()
	d, err := dev.Upload(tg.Build(t, 3, true, tg.Float64, tg.Edge{0, 1, 1}, tg.Edge{1, 2, 1}))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if _, _, err := RCMOrder(d); err == nil || !strings.Contains(err.Error(), "directed") {
		t.Errorf("RCMOrder of a directed graph: %v, want a refusal that says it is directed", err)
	}
	if _, _, err := RCMOrder(nil); err == nil {
		t.Error("RCMOrder(nil): no error")
	}
}

// checkMalformed: an arc to a vertex out of range and an "undirected"
// graph missing a reverse arc are errors on a device.
func checkMalformed(t *testing.T, dev *gpu.Device) {
	t.Helper()
	for _, c := range []struct {
		name string
		off  []int64
		adj  []int32
		want string
	}{
		{"out of range", []int64{0, 1, 2}, []int32{1, 7}, "outside"},
		{"asymmetric", []int64{0, 1, 1, 2}, []int32{1, 1}, "not reached"},
	} {
		g := &graph.CSR{Offsets: c.off, Adj: c.adj}
		dg, err := dev.Upload(g)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := RCMOrder(dg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("RCMOrder of a graph with an arc %s: %v, want an error that says %q", c.name, err, c.want)
		}
		dg.Close()
	}
}

// checkInterrupt: a pending interrupt stops the order with cancel's error.
func checkInterrupt(t *testing.T, dev *gpu.Device) {
	t.Helper()
	dg := uploadGrid(t, dev)
	defer dg.Close()
	cancel.Request()
	defer cancel.Clear()
	if _, _, err := RCMOrder(dg); !errors.Is(err, cancel.ErrInterrupted) {
		t.Errorf("RCMOrder after an interrupt: %v, want cancel.ErrInterrupted", err)
	}
}

// uploadGrid returns a 6×7 grid on dev.
func uploadGrid(t *testing.T, dev *gpu.Device) *gpu.Graph {
	t.Helper()
	g, err := gen.Grid(6, 7)
	if err != nil {
		t.Fatal(err)
	}
	dg, err := dev.Upload(g)
	if err != nil {
		t.Fatal(err)
	}
	return dg
}

// testGraphs are undirected graphs of every shape graph.RCMOrder meets:
// the shared test graphs, paths, stars, grids, trees, several components,
// isolated vertices, self-loops, duplicate arcs, R-MAT (permuted or not),
// SSCA#2, the empty graph; large adds bigger R-MAT and SSCA#2 graphs for
// the GPU.
func testGraphs(t *testing.T, large bool) map[string]*graph.CSR {
	must := func(g *graph.CSR, err error) *graph.CSR {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	r := rand.New(rand.NewPCG(7, 8))
	gs := map[string]*graph.CSR{
		"empty":        tg.Build(t, 0, false, tg.Float64),
		"one":          tg.Build(t, 1, false, tg.Float64),
		"isolated":     tg.Build(t, 5, false, tg.Float64),
		"path":         must(gen.Path(17)),
		"star":         must(gen.Star(9)),
		"grid":         must(gen.Grid(7, 9)),
		"complete":     must(gen.Complete(6)),
		"tree":         randomTree(t, r, 60),
		"forest":       union(t, randomTree(t, r, 20), must(gen.Path(6)), tg.Build(t, 4, false, tg.Float64), randomTree(t, r, 9), must(gen.Grid(3, 4))),
		"hubs":         union(t, must(gen.Star(600)), must(gen.Star(300)), randomTree(t, r, 40)), // lists of several chunks
		"sparse":       tg.Build(t, 200, false, tg.Float64, tg.Random(r, 200, 120, nil)...),
		"random":       tg.Build(t, 80, false, tg.Float32, tg.Random(r, 80, 300, nil)...),
		"loops":        withLoops(tg.Build(t, 50, false, tg.Float64, tg.Random(r, 50, 60, nil)...), 4),
		"loop_only":    withLoops(tg.Build(t, 3, false, tg.Float64), 1),
		"duplicates":   &graph.CSR{Offsets: []int64{0, 3, 5, 7, 8}, Adj: []int32{1, 1, 2, 0, 0, 0, 3, 2}},
		"rmat_s7":      must(gen.RMAT(7, 8, gen.Seed(1))),
		"rmat_s8_perm": must(gen.RMAT(8, 8, gen.Seed(2), gen.PermuteVertices(true))),
		"rmat_s9":      must(gen.RMAT(9, 4, gen.Seed(3), gen.Unweighted())),
		"ssca2_s6":     must(gen.SSCA2(6, gen.Seed(4))),
		"ssca2_s7_id":  must(gen.SSCA2(7, gen.Seed(5), gen.PermuteVertices(false))),
	}
	for _, c := range tg.ShortestPaths() {
		if !c.Directed {
			gs["testgraphs_"+c.Name] = c.Graph(t)
		}
	}
	if large {
		gs["rmat_s16"] = must(gen.RMAT(16, 16, gen.Seed(1)))
		gs["rmat_s17_perm"] = must(gen.RMAT(17, 16, gen.Seed(2), gen.PermuteVertices(true)))
		gs["ssca2_s16"] = must(gen.SSCA2(16, gen.Seed(3)))
		gs["grid_300x200"] = must(gen.Grid(300, 200))
		gs["sparse_100k"] = tg.Build(t, 100000, false, tg.Float64, tg.Random(r, 100000, 60000, nil)...)
	}
	return gs
}

// randomTree is a random tree of n vertices with shuffled ids.
func randomTree(t *testing.T, r *rand.Rand, n int) *graph.CSR {
	ids := r.Perm(n)
	var edges []tg.Edge
	for v := 1; v < n; v++ {
		edges = append(edges, tg.Edge{float64(ids[v]), float64(ids[r.IntN(v)]), 1})
	}
	return tg.Build(t, n, false, tg.Float64, edges...)
}

// union puts the graphs side by side (ids shifted) and shuffles the ids.
func union(t *testing.T, parts ...*graph.CSR) *graph.CSR {
	var edges []tg.Edge
	n := 0
	for _, p := range parts {
		for u := range int32(p.NumVertices()) {
			for _, v := range p.Neighbors(u) {
				if u < v {
					edges = append(edges, tg.Edge{float64(int(u) + n), float64(int(v) + n), 1})
				}
			}
		}
		n += p.NumVertices()
	}
	ids := rand.New(rand.NewPCG(uint64(n), 3)).Perm(n)
	for i, e := range edges {
		edges[i] = tg.Edge{float64(ids[int(e[0])]), float64(ids[int(e[1])]), 1}
	}
	return tg.Build(t, n, false, tg.Float64, edges...)
}

// withLoops adds a self-loop to every k-th vertex of g (unweighted: the
// order ignores weights).
func withLoops(g *graph.CSR, k int) *graph.CSR {
	out := &graph.CSR{Offsets: []int64{0}}
	for v := range int32(g.NumVertices()) {
		out.Adj = append(out.Adj, g.Neighbors(v)...)
		if int(v)%k == 0 {
			out.Adj = append(out.Adj, v)
		}
		out.Offsets = append(out.Offsets, int64(len(out.Adj)))
	}
	return out
}

// TestGPUGenerated compares the device order with graph.RCMOrder on
// larger graphs made on the device by gpugen, as a sweep makes them
// (SSCA#2's cliques and R-MAT's hubs, scales 17 to 20; skipped without a
// GPU).
func TestGPUGenerated(t *testing.T) {
	dev := gpu.Default()
	if dev.IsHost() {
		t.Skip(gpu.DefaultReason())
	}
	for scale := 17; scale <= 20; scale++ {
		for _, family := range []string{"ssca2", "rmat"} {
			var dg *gpu.Graph
			var err error
			if family == "ssca2" {
				dg, err = gpugen.SSCA2(dev, scale, gen.Seed(1))
			} else {
				dg, err = gpugen.RMAT(dev, scale, 16, gen.Seed(1))
			}
			if err != nil {
				t.Fatal(err)
			}
			g, err := dg.Host()
			if err != nil {
				t.Fatal(err)
			}
			compare(t, fmt.Sprintf("%s:%d", family, scale), g, dg, RCMOrder)
			dg.Close()
		}
	}
}
