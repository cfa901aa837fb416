package mst

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/graphnb/graphnb/algo/internal/tracecost"
	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/graph/gen"
	"github.com/graphnb/graphnb/internal/cudasrc"
	"github.com/graphnb/graphnb/internal/fakegpu"
	tg "github.com/graphnb/graphnb/internal/testgraphs"
)

// TestPrepareSource checks prepare.cu against the kernels resident.go
// launches and the constants both sides number.
func TestPrepareSource(t *testing.T) {
	cudasrc.Check(t, "prepare.cu", prepareSource, 1000, prepareKernelNames())
	d := cudasrc.Defines(prepareSource)
	for name, want := range map[string]int64{"MP_UNSORTED": mpUnsorted, "MP_BAD": mpBad, "MP_NO_EDGE": noEdgeIdx, "MP_SPAN": graph.CompressSpan} {
		if got, ok := d[name]; !ok || got != want {
			t.Errorf("prepare.cu: #define %s %d (found %v), Go says %d", name, got, ok, want)
		}
	}
}

// TestPrepareSourceSyntax compiles prepare.cu with the emulator's
// built-ins (testdata/fake_prepare.cpp includes both).
func TestPrepareSourceSyntax(t *testing.T) {
	cudasrc.Syntax(t, "-I.", "-I"+fakegpu.IncludeDir(), filepath.Join("testdata", "fake_prepare.cpp"))
}

// TestPrepareResidentHost checks PrepareResident on the host device (the
// host path on the graph's host copy) and its input errors.
func TestPrepareResidentHost(t *testing.T) {
	g := mustGraph(t)(gen.RMAT(6, 8, gen.Seed(1)))
	dg, err := gpu.Host().Upload(g)
	if err != nil {
		t.Fatal(err)
	}
	p, err := PrepareResident(dg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	r, err := p.Run()
	if err != nil {
		t.Fatal(err)
	}
	want, err := Run(gpu.Host(), g, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.Edges, want.Edges) || r.Algorithm != want.Algorithm {
		t.Errorf("PrepareResident on the host device: %d edges, %q; Run: %d edges, %q", len(r.Edges), r.Algorithm, len(want.Edges), want.Algorithm)
	}
	if _, err := PrepareResident(nil, Options{}); err == nil {
		t.Error("PrepareResident(nil): no error")
	}
}

// TestFakeGPUResident compares PrepareResident with Prepare on the fake
// GPU, prepared arrays bit for bit, on many graphs and every switch.
func TestFakeGPUResident(t *testing.T) {
	fakegpu.Run(t, "TestFakeGPUResidentChild", 5*time.Minute, func(b *fakegpu.Builder) []string {
		return []string{b.CXX("testdata/fake_kernels.cpp"), b.CXX("testdata/fake_prepare.cpp"),
			b.CXX("../../gpu/transform/testdata/fake_kernels.cpp"), b.CXX("../../gpu/reorder/testdata/fake_kernels.cpp")}
	})
}

// TestFakeGPUResidentChild is TestFakeGPUResident's child process.
func TestFakeGPUResidentChild(t *testing.T) {
	dev := fakegpu.Device(t)
	checkResident(t, dev, residentCases(t, true), residentVariants())
	checkResidentErrors(t, dev)
	checkDownloadEdges(t, dev)
	t.Run("bench_trace", func(t *testing.T) { checkBenchTrace(t, dev) })
}

// checkBenchTrace runs BenchmarkGPUTrace's body on a small graph (its
// checks included: the traced forests equal the untraced, the traces
// check) and requires its metrics, the wall's included.
func checkBenchTrace(t *testing.T, dev *gpu.Device) {
	g := traceGraph(t, 8)
	rg, err := dev.Upload(g)
	if err != nil {
		t.Fatal(err)
	}
	defer rg.Close()
	for _, o := range []Options{SeedVariants()[1].Options, SeedVariants()[0].Options} {
		res := tracecost.CheckBench(t, func(b *testing.B) { benchTrace(b, g, rg, o) }, tracecost.WallMetrics...)
		if res.N == 0 || res.Extra["ms-on/mst"] <= 0 || res.Extra["ms-off/mst"] <= 0 || res.Extra["launch_GBps"] <= 0 || res.Extra["rounds"] < 1 ||
			res.Extra["wall_ms"] <= 0 || res.Extra["wall_ms_traced"] <= 0 {
			t.Fatalf("%s: %d runs, metrics %v", o.Label(), res.N, res.Extra)
		}
	}
}

// TestGPUResident is the same comparison on a GPU (skipped without one),
// on larger graphs.
func TestGPUResident(t *testing.T) {
	checkResident(t, gpuDevice(t), residentCases(t, false), residentVariants())
	checkResidentErrors(t, gpuDevice(t))
	checkDownloadEdges(t, gpuDevice(t))
}

// residentCases are the GPU tests' graphs, more R-MAT scales, graphs
// with self-loops and one whose ids Compress cannot pack.
func residentCases(t *testing.T, small bool) []gpuCase {
	cases := gpuCases(t, small)
	scales := []int{4, 6, 8}
	if !small {
		scales = []int{10, 13, 15}
	}
	for i, s := range scales {
		cases = append(cases,
			gpuCase{fmt.Sprintf("rmat_s%d_seed%d", s, i), mustGraph(t)(gen.RMAT(s, 8, gen.Seed(uint64(40+i))))},
			gpuCase{fmt.Sprintf("rmat_s%d_int_float64", s), mustGraph(t)(gen.RMAT(s, 16, gen.Seed(uint64(50+i)), gen.Integer(8), gen.Float64()))})
	}
	r := rand.New(rand.NewPCG(60, 61))
	cases = append(cases,
		gpuCase{"self_loops_float32", withSelfLoops(randomGraph(t, r, 50, 150, "float32"))},
		gpuCase{"self_loops_float64", withSelfLoops(randomGraph(t, r, 50, 150, "float64"))},
		gpuCase{"self_loops_unweighted", withSelfLoops(mustGraph(t)(gen.RMAT(5, 4, gen.Seed(62), gen.Unweighted())))},
		gpuCase{"negative_zero", negativeZero(t)},
		gpuCase{"star_1100_not_compressible", mustGraph(t)(gen.Star(1100, gen.Seed(63)))}, // spans ≥ graph.CompressSpan ids
	)
	return cases
}

// withSelfLoops returns g with a self-loop of weight 0.5 (1 unweighted) on
// every third vertex, inserted in id order.
func withSelfLoops(g *graph.CSR) *graph.CSR {
	out := &graph.CSR{Offsets: []int64{0}, Adj: []int32{}}
	if g.Weights != nil {
		out.Weights = []float32{}
	}
	if g.Weights64 != nil {
		out.Weights64 = []float64{}
	}
	add := func(v int32, k int64) {
		out.Adj = append(out.Adj, v)
		if g.Weights != nil {
			w := float32(0.5)
			if k >= 0 {
				w = g.Weights[k]
			}
			out.Weights = append(out.Weights, w)
		}
		if g.Weights64 != nil {
			w := 0.5
			if k >= 0 {
				w = g.Weights64[k]
			}
			out.Weights64 = append(out.Weights64, w)
		}
	}
	for v := range int32(g.NumVertices()) {
		loop := v%3 == 0
		for k := g.Offsets[v]; k < g.Offsets[v+1]; k++ {
			if loop && g.Adj[k] > v {
				add(v, -1)
				loop = false
			}
			add(g.Adj[k], k)
		}
		if loop {
			add(v, -1)
		}
		out.Offsets = append(out.Offsets, int64(len(out.Adj)))
	}
	return out
}

// negativeZero is a float32 graph whose weights include −0 and +0 (they
// tie; SortByWeight stores +0).
func negativeZero(t *testing.T) *graph.CSR {
	nz := math.Copysign(0, -1)
	return tg.Build(t, 6, false, tg.Float32, tg.Edge{0, 1, nz}, tg.Edge{0, 2, 0}, tg.Edge{1, 2, nz}, tg.Edge{2, 3, -1},
		tg.Edge{3, 4, nz}, tg.Edge{4, 5, 0}, tg.Edge{1, 5, 2}, tg.Edge{0, 5, nz})
}

// residentVariants are every combination of the three transforms, and the
// GPU tests' variants (hybrid shares, the study's two), and a hybrid
// share with compressed ids in the input's numbering.
func residentVariants() []Variant {
	v := testVariants()
	for mask := range 8 {
		o := Options{WeightRanks: mask&1 != 0, Renumber: mask&2 != 0, Compress: mask&4 != 0}
		v = append(v, Variant{o.Label(), o})
	}
	v = append(v, Variant{"hybrid_compress", Options{Compress: true, Hybrid: true, CPUShare: 0.3}})
	v = append(v, Variant{"cap", Options{WeightRanks: true, MemoryCap: 1}}) // fails: per-vertex arrays over the cap
	return v
}

// capVariants are two variants of g under a memory cap half way between
// the per-vertex arrays and all the arrays (a host share the plan finds
// after the device-only split does not fit), plain and the study's "GPU".
func capVariants(t *testing.T, dev *gpu.Device, g *graph.CSR) []Variant {
	var v []Variant
	for _, o := range []Options{{}, SeedVariants()[1].Options} {
		full, err := Prepare(dev, g, o)
		if err != nil {
			continue // checkResident compares the errors of the other variants
		}
		whole, vertexOnly := full.Bytes(), full.deviceBytes(0, 0)
		full.Close()
		o.MemoryCap = vertexOnly + (whole-vertexOnly)/2
		v = append(v, Variant{"cap_half_" + o.Label(), o})
	}
	return v
}

// checkDownloadEdges checks that downloadEdges reads mprep_edge_gather's
// layout both ways (into the []Edge's bytes, and decoded).
func checkDownloadEdges(t *testing.T, dev *gpu.Device) {
	want := []Edge{{0, 1, 0.5}, {-1, math.MaxInt32, math.Inf(-1)}, {math.MinInt32, 7, math.Copysign(0, -1)}}
	words := make([]float64, 0, 2*len(want))
	for _, e := range want {
		words = append(words, math.Float64frombits(uint64(uint32(e.U))|uint64(uint32(e.V))<<32), e.W)
	}
	buf, err := dev.Float64sFrom(words)
	if err != nil {
		t.Fatal(err)
	}
	defer buf.Free()
	for _, direct := range []bool{false, edgeLayout} {
		got, err := downloadEdges(buf, len(want), direct)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) || math.Signbit(got[2].W) != true {
			t.Errorf("downloadEdges(direct %v) = %v, want %v", direct, got, want)
		}
	}
	if got, err := downloadEdges(buf, 0, true); err != nil || len(got) != 0 {
		t.Errorf("downloadEdges of no edge: %v, %v", got, err)
	}
}

// checkResident prepares every case with every variant both ways (and
// every other case under memory caps, capVariants) and compares the
// prepared state bit for bit, then one Run's result.
func checkResident(t *testing.T, dev *gpu.Device, cases []gpuCase, variants []Variant) {
	for ci, c := range cases {
		dg, err := dev.Upload(c.g)
		if err != nil {
			t.Fatal(err)
		}
		all := slices.Clip(variants)
		if ci%2 == 0 { // the memory caps on every other graph: the emulator is slow
			all = append(all, capVariants(t, dev, c.g)...)
		}
		for i, v := range all {
			t.Run(c.name+"/"+v.Slug()+fmt.Sprint(i), func(t *testing.T) {
				want, werr := Prepare(dev, c.g, v.Options)
				got, gerr := PrepareResident(dg, v.Options)
				if (werr == nil) != (gerr == nil) || werr != nil && !strings.Contains(gerr.Error(), strings.TrimPrefix(werr.Error(), "mst: ")) && werr.Error() != gerr.Error() {
					t.Fatalf("Prepare: %v; PrepareResident: %v", werr, gerr)
				}
				if werr != nil {
					return
				}
				defer want.Close()
				defer got.Close()
				comparePrepared(t, got, want)
				if strings.HasPrefix(v.Label, "cap_half") && got.n > 0 && got.HostVertices() == 0 {
					t.Errorf("%s: no host share", v.Label)
				}
				if i%3 != 0 { // runs are slow on the emulator: one variant in three
					return
				}
				wr, err := want.Run()
				if err != nil {
					t.Fatal(err)
				}
				gr, err := got.Run()
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(gr.Edges, wr.Edges) || gr.Iterations != wr.Iterations || gr.Trees != wr.Trees || gr.Algorithm != wr.Algorithm || gr.Weight != wr.Weight {
					t.Errorf("Run after PrepareResident: %d edges, %d rounds, %d trees, %q; after Prepare %d, %d, %d, %q",
						len(gr.Edges), gr.Iterations, gr.Trees, gr.Algorithm, len(wr.Edges), wr.Iterations, wr.Trees, wr.Algorithm)
				}
			})
		}
		dg.Close()
	}
}

// comparePrepared compares everything a preparation sets.
func comparePrepared(t *testing.T, got, want *Prepared) {
	t.Helper()
	scalars := func(p *Prepared) string {
		return fmt.Sprintf("n %d, edges %d, wkind %d, compressed %v (%q), hostFrom %d, compLo %d, bytes %d, host vertices %d",
			p.n, p.edges, p.wkind, p.compressed, p.noCompress, p.hostFrom, p.compLo, p.Bytes(), p.HostVertices())
	}
	if g, w := scalars(got), scalars(want); g != w {
		t.Fatalf("PrepareResident: %s\nPrepare:         %s", g, w)
	}
	same := func(name string, g, w any) {
		if fmt.Sprint(g) != fmt.Sprint(w) {
			t.Errorf("%s differs:\nPrepareResident %v\nPrepare         %v", name, trim(g), trim(w))
		}
	}
	if got.hostFrom < got.n || got.g != nil { // a host share, or the host path
		same("sufMin", got.sufMin, want.sufMin)
	} else if got.sufMin != nil {
		t.Errorf("PrepareResident made sufMin (%d entries) for a plan without a host share", len(got.sufMin))
	}
	same("offsets", dl(t, got.dOff), dl(t, want.dOff))
	same("ids", dl(t, got.dAdj), dl(t, want.dAdj))
	same("compressed bases", dl(t, got.dBase), dl(t, want.dBase))
	same("compressed low bytes", dl(t, got.dLo), dl(t, want.dLo))
	same("compressed high bits", dl(t, got.dHi), dl(t, want.dHi))
	same("ranks", dl(t, got.dW32), dl(t, want.dW32))
	same("float32 weights (bits)", bits32(dl(t, got.dWf)), bits32(dl(t, want.dWf)))
	same("float64 weights (bits)", bits64(dl(t, got.dWd)), bits64(dl(t, want.dWd)))
	same("edge indices", dl(t, got.dEidx), dl(t, want.dEidx))
	same("host offsets", got.hOff, want.hOff)
	same("host ids", got.hAdj, want.hAdj)
	same("host keys", got.hW32, want.hW32)
	same("host double keys", got.hW64, want.hW64)
	same("host edge indices", got.hEidx, want.hEidx)
}

// trim shortens a printed slice for an error message.
func trim(x any) string {
	s := fmt.Sprint(x)
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// dl downloads a device buffer (nil for a nil one).
func dl[T any](t *testing.T, b interface{ ToHost() ([]T, error) }) []T {
	t.Helper()
	if b == nil || fmt.Sprint(b) == "<nil>" {
		return nil
	}
	x, err := b.ToHost()
	if err != nil {
		t.Fatal(err)
	}
	return x
}

func bits32(w []float32) []uint32 {
	var b []uint32
	for _, x := range w {
		b = append(b, math.Float32bits(x))
	}
	return b
}

func bits64(w []float64) []uint64 {
	var b []uint64
	for _, x := range w {
		b = append(b, math.Float64bits(x))
	}
	return b
}

// checkResidentErrors checks that graphs the device checks reject take
// the host path: sorted when the lists are not, Prepare's error naming
// the problem otherwise.
func checkResidentErrors(t *testing.T, dev *gpu.Device) {
	asym := tg.Build(t, 4, true, tg.Float64, tg.Edge{0, 1, 1}, tg.Edge{1, 0, 1}, tg.Edge{1, 2, 1}, tg.Edge{2, 3, 2}, tg.Edge{3, 2, 3})
	asym.Directed = false
	nan := tg.Build(t, 3, false, tg.Float32, tg.Edge{0, 1, 1}, tg.Edge{1, 2, 1})
	nan.Weights[0] = float32(math.NaN())
	dup := &graph.CSR{Offsets: []int64{0, 2, 4}, Adj: []int32{1, 1, 0, 0}}
	// An arc without its reverse whose edge mprep_eidx would look up from
	// the missing side: 2→1 (1's arcs to larger ids outnumber 2's to
	// smaller), and 0→2 (they do not).
	lowerAlone := tg.Build(t, 5, true, tg.Float64, tg.Edge{0, 1, 1}, tg.Edge{1, 0, 1}, tg.Edge{1, 3, 2}, tg.Edge{3, 1, 2},
		tg.Edge{1, 4, 3}, tg.Edge{4, 1, 3}, tg.Edge{2, 1, 4})
	lowerAlone.Directed = false
	upperAlone := tg.Build(t, 3, true, tg.Float64, tg.Edge{0, 2, 1}, tg.Edge{1, 2, 2}, tg.Edge{2, 1, 2})
	upperAlone.Directed = false
	for name, g := range map[string]*graph.CSR{"asymmetric": asym, "nan": nan, "repeated_arc": dup,
		"lower_arc_alone": lowerAlone, "upper_arc_alone": upperAlone} {
		t.Run("errors/"+name, func(t *testing.T) {
			_, werr := Prepare(dev, g, Options{})
			dg, err := dev.Upload(g)
			if err != nil {
				t.Fatal(err)
			}
			defer dg.Close()
			_, gerr := PrepareResident(dg, Options{})
			if werr == nil || gerr == nil || werr.Error() != gerr.Error() {
				t.Errorf("Prepare: %v\nPrepareResident: %v; want the same error", werr, gerr)
			}
		})
	}
	dir := tg.Build(t, 3, true, tg.Float64, tg.Edge{0, 1, 1})
	dg, err := dev.Upload(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer dg.Close()
	if _, err := PrepareResident(dg, Options{}); err != errDirected {
		t.Errorf("PrepareResident of a directed graph: %v", err)
	}
}
