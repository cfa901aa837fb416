package gpugen

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/graph/gen"
	"github.com/graphnb/graphnb/internal/cudasrc"
	"github.com/graphnb/graphnb/internal/fakegpu"
)

// The TestGPU* tests need a CUDA device and skip without one; TestFakeGPU
// runs the same comparisons on small graphs through the real Go path
// against package gpu's fake driver, gen.cu's kernels emulated on the
// CPU (testdata/fake_kernels.cpp). On the GPU machine:
//
//	PKGS=graph/gen/gpugen ops/gpu-test.sh build     (build machine)
//	PKGS=graph/gen/gpugen TESTRUN=GPU BENCH=GPURMAT ops/gpu-test.sh run

// rmatCase is one call of RMAT.
type rmatCase struct {
	scale, ef int
	name      string
	opts      []gen.Option
}

// optionSets are the option combinations every comparison covers: each
// weight kind in float32 and float64, with and without the permutation,
// noise and other probabilities.
func optionSets() []struct {
	name string
	opts []gen.Option
} {
	type set = struct {
		name string
		opts []gen.Option
	}
	var sets []set
	weights := []set{
		{"uniform", nil},
		{"int9", []gen.Option{gen.Integer(9)}},
		{"unweighted", []gen.Option{gen.Unweighted()}},
		{"uniform_f64", []gen.Option{gen.Float64()}},
		{"int1e12_f64", []gen.Option{gen.Integer(1e12), gen.Float64()}},
		{"int3e7", []gen.Option{gen.Integer(3e7)}}, // float32 rounds above 2^24
	}
	shapes := []set{
		{"plain", nil},
		{"permuted", []gen.Option{gen.PermuteVertices(true)}},
		{"noise_permuted_seed7", []gen.Option{gen.Noise(0.1), gen.PermuteVertices(true), gen.Seed(7)}},
		{"probs_seed3", []gen.Option{gen.Probabilities(0.45, 0.25, 0.15), gen.Seed(3)}},
	}
	for _, s := range shapes {
		for _, w := range weights {
			sets = append(sets, set{s.name + "_" + w.name, append(slices.Clone(s.opts), w.opts...)})
		}
	}
	return sets
}

// rmatCases crosses scales and edge factors with optionSets: on the
// emulator scales 4..10 (edge factors 1 and 16, the larger scales with
// fewer option sets), on a GPU scales 4..16.
func rmatCases(small bool) []rmatCase {
	var cases []rmatCase
	sets := optionSets()
	for scale := 4; scale <= 16; scale++ {
		if small && scale > 10 {
			break
		}
		for _, ef := range []int{1, 16} {
			for i, s := range sets {
				// The emulator is slow: every set at the small scales, a
				// rotating third of them at 9 and 10 with edge factor 16.
				if small && scale >= 9 && ef == 16 && i%3 != scale%3 {
					continue
				}
				cases = append(cases, rmatCase{scale, ef, fmt.Sprintf("s%d_ef%d_%s", scale, ef, s.name), s.opts})
			}
		}
	}
	return cases
}

// sameCSR fails t unless got and want are equal bit for bit.
func sameCSR(t *testing.T, name string, got, want *graph.CSR) {
	t.Helper()
	switch {
	case got.Directed != want.Directed:
		t.Fatalf("%s: directed %v, want %v", name, got.Directed, want.Directed)
	case !slices.Equal(got.Offsets, want.Offsets):
		t.Fatalf("%s: offsets differ (%d arcs, want %d)", name, got.Offsets[len(got.Offsets)-1], want.Offsets[len(want.Offsets)-1])
	case !slices.Equal(got.Adj, want.Adj):
		t.Fatalf("%s: adjacency differs", name)
	case (got.Weights == nil) != (want.Weights == nil) || (got.Weights64 == nil) != (want.Weights64 == nil):
		t.Fatalf("%s: weight kinds differ: float32 %v/%v, float64 %v/%v", name, got.Weights != nil, want.Weights != nil, got.Weights64 != nil, want.Weights64 != nil)
	}
	for i := range got.Weights {
		if math.Float32bits(got.Weights[i]) != math.Float32bits(want.Weights[i]) {
			t.Fatalf("%s: weight of arc %d is %v, want %v", name, i, got.Weights[i], want.Weights[i])
		}
	}
	for i := range got.Weights64 {
		if math.Float64bits(got.Weights64[i]) != math.Float64bits(want.Weights64[i]) {
			t.Fatalf("%s: weight of arc %d is %v, want %v", name, i, got.Weights64[i], want.Weights64[i])
		}
	}
}

// checkSameAsHost generates every case on dev and compares it with
// gen.RMAT.
func checkSameAsHost(t *testing.T, dev *gpu.Device, cases []rmatCase) {
	for _, c := range cases {
		compareWithHost(t, dev, c.name, func() (*graph.CSR, error) { return gen.RMAT(c.scale, c.ef, c.opts...) },
			func() (*gpu.Graph, error) { return RMAT(dev, c.scale, c.ef, c.opts...) })
	}
}

// compareWithHost runs a device generator and its host twin and compares
// their graphs bit for bit.
func compareWithHost(t *testing.T, dev *gpu.Device, name string, host func() (*graph.CSR, error), device func() (*gpu.Graph, error)) {
	t.Helper()
	want, err := host()
	if err != nil {
		t.Fatal(err)
	}
	g, err := device()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if g.HasHost() != dev.IsHost() {
		t.Errorf("%s: HasHost %v before Host was asked, on %v", name, g.HasHost(), dev)
	}
	if g.N != want.NumVertices() || g.Arcs != want.NumArcs() || g.Directed {
		t.Fatalf("%s: %d vertices, %d arcs, directed %v; want %d, %d, undirected", name, g.N, g.Arcs, g.Directed, want.NumVertices(), want.NumArcs())
	}
	got, err := g.Host()
	if err != nil {
		t.Fatal(err)
	}
	sameCSR(t, name, got, want)
	if err := g.Close(); err != nil {
		t.Error(err)
	}
}

// ssca2Sets are SSCA2's option combinations.
func ssca2Sets() []struct {
	name string
	opts []gen.Option
} {
	busy := gen.SSCA2Config{MaxCliqueSize: 8, ProbIntercliqueEdges: 0.5, MaxParallelEdges: 3, MaxIntWeight: 20}
	return []struct {
		name string
		opts []gen.Option
	}{
		{"default", nil},
		{"ordered", []gen.Option{gen.PermuteVertices(false)}},
		{"uniform_seed5", []gen.Option{gen.Uniform(), gen.Seed(5)}},
		{"unweighted", []gen.Option{gen.Unweighted()}},
		{"f64", []gen.Option{gen.Float64()}},
		{"uniform_f64_ordered", []gen.Option{gen.Uniform(), gen.Float64(), gen.PermuteVertices(false)}},
		{"busy", []gen.Option{gen.SSCA2Params(busy), gen.Seed(2)}},
		{"busy_int3_f64", []gen.Option{gen.SSCA2Params(busy), gen.Integer(3), gen.Float64()}},
		{"no_edges", []gen.Option{gen.SSCA2Params(gen.SSCA2Config{MaxCliqueSize: 1, MaxParallelEdges: 1})}},
	}
}

// checkSSCA2SameAsHost compares SSCA2 with gen.SSCA2 at scales lo..hi.
func checkSSCA2SameAsHost(t *testing.T, dev *gpu.Device, lo, hi int) {
	for scale := lo; scale <= hi; scale++ {
		for _, s := range ssca2Sets() {
			compareWithHost(t, dev, fmt.Sprintf("ssca2_s%d_%s", scale, s.name),
				func() (*graph.CSR, error) { return gen.SSCA2(scale, s.opts...) },
				func() (*gpu.Graph, error) { return SSCA2(dev, scale, s.opts...) })
		}
	}
}

// checkErrors: arguments are refused as gen.RMAT refuses them, and a
// graph over the device's free memory is refused before anything is
// allocated.
func checkErrors(t *testing.T, dev *gpu.Device) {
	for _, c := range []struct {
		name      string
		scale, ef int
		opts      []gen.Option
	}{
		{"scale0", 0, 16, nil},
		{"scale31", 31, 16, nil},
		{"ef0", 10, 0, nil},
		{"probabilities", 10, 16, []gen.Option{gen.Probabilities(0.6, 0.3, 0.3)}},
		{"noise", 10, 16, []gen.Option{gen.Noise(0.5)}},
		{"int0", 10, 16, []gen.Option{gen.Integer(0)}},
	} {
		_, want := gen.RMAT(c.scale, c.ef, c.opts...)
		_, err := RMAT(dev, c.scale, c.ef, c.opts...)
		if err == nil || want == nil || err.Error() != want.Error() {
			t.Errorf("%s: error %v, want gen.RMAT's %v", c.name, err, want)
		}
	}
	if _, err := RMAT(nil, 10, 16); err == nil || !strings.Contains(err.Error(), "nil device") {
		t.Errorf("nil device: %v", err)
	}
	if _, err := SSCA2(nil, 10); err == nil || !strings.Contains(err.Error(), "nil device") {
		t.Errorf("SSCA2, nil device: %v", err)
	}
	for _, c := range []struct {
		name  string
		scale int
		opts  []gen.Option
	}{
		{"scale0", 0, nil},
		{"clique", 4, []gen.Option{gen.SSCA2Params(gen.SSCA2Config{MaxCliqueSize: 17, MaxParallelEdges: 1})}},
		{"prob", 8, []gen.Option{gen.SSCA2Params(gen.SSCA2Config{MaxCliqueSize: 5, ProbIntercliqueEdges: 2, MaxParallelEdges: 1})}},
		{"int0", 8, []gen.Option{gen.Integer(0)}},
	} {
		_, want := gen.SSCA2(c.scale, c.opts...)
		_, err := SSCA2(dev, c.scale, c.opts...)
		if err == nil || want == nil || err.Error() != want.Error() {
			t.Errorf("SSCA2 %s: error %v, want gen.SSCA2's %v", c.name, err, want)
		}
	}
	if dev.IsHost() {
		return
	}
	used := dev.MemoryUsed()
	// 2^35 arcs, about 800 GiB at the peak: over any device's memory.
	if _, err := RMAT(dev, 30, 16); err == nil || !strings.Contains(err.Error(), "device memory") || !errors.Is(err, ErrTooBig) {
		t.Errorf("scale 30, edge factor 16: %v, want the memory error", err)
	}
	info, err := dev.Info()
	if err != nil {
		t.Fatal(err)
	}
	// The smallest edge factor at scale 27 whose need exceeds the free
	// memory (ef 31 needs about 260 GiB).
	refused := false
	for ef := 1; ef <= 31; ef++ {
		p, err := gen.PlanRMAT(27, ef, gen.Float64())
		if err != nil {
			t.Fatal(err)
		}
		if rmatBytes(p) <= info.FreeMemory {
			continue
		}
		_, err = RMAT(dev, 27, ef, gen.Float64())
		if err == nil || !strings.Contains(err.Error(), "device memory") || !strings.Contains(err.Error(), "free") || !errors.Is(err, ErrTooBig) {
			t.Errorf("scale 27, edge factor %d: %v, want the memory error", ef, err)
		}
		refused = true
		break
	}
	if !refused {
		t.Errorf("no scale-27 graph was refused for memory with %d bytes free", info.FreeMemory)
	}
	// SSCA#2 with cliques of up to 2^20 vertices: refused from the
	// expected count (about 2^24·(2^20-1)/3 edges).
	huge := gen.SSCA2Params(gen.SSCA2Config{MaxCliqueSize: 1 << 20, MaxParallelEdges: 1})
	if _, err := SSCA2(dev, 24, huge); err == nil || !strings.Contains(err.Error(), "device memory") {
		t.Errorf("SSCA2 with huge cliques: %v, want the memory error", err)
	}
	if got := dev.MemoryUsed(); got != used {
		t.Errorf("refused generations left %d bytes allocated", got-used)
	}
}

// checkCancel: an interrupt stops a generation with cancel's error and
// frees what it allocated; the next generation works.
func checkCancel(t *testing.T, dev *gpu.Device) {
	used := dev.MemoryUsed()
	cancel.Request()
	_, err := RMAT(dev, 8, 16)
	cancel.Clear()
	if !errors.Is(err, cancel.ErrInterrupted) {
		t.Errorf("RMAT after cancel.Request: %v, want cancel.ErrInterrupted", err)
	}
	if got := dev.MemoryUsed(); got != used {
		t.Errorf("an interrupted generation left %d bytes allocated", got-used)
	}
	checkSameAsHost(t, dev, []rmatCase{{6, 16, "after_cancel", nil}})
	cancel.Request()
	_, err = SSCA2(dev, 8)
	cancel.Clear()
	if !errors.Is(err, cancel.ErrInterrupted) {
		t.Errorf("SSCA2 after cancel.Request: %v, want cancel.ErrInterrupted", err)
	}
	if got := dev.MemoryUsed(); got != used {
		t.Errorf("an interrupted SSCA2 left %d bytes allocated", got-used)
	}
}

func TestHostDevice(t *testing.T) {
	dev := gpu.Host()
	checkSameAsHost(t, dev, []rmatCase{{8, 16, "s8", nil}, {7, 1, "s7_permuted_int", []gen.Option{gen.PermuteVertices(true), gen.Integer(5)}}})
	checkSSCA2SameAsHost(t, dev, 6, 6)
	checkErrors(t, dev)
}

func TestKernelSource(t *testing.T) {
	declared := cudasrc.Check(t, "gen.cu", kernelSource, 1000, kernelNames)
	if len(declared) != len(kernelNames) {
		t.Errorf("gen.cu declares %d kernels, rmat.go knows %d: %v", len(declared), len(kernelNames), declared)
	}
	defines := cudasrc.Defines(kernelSource)
	for name, want := range map[string]int{"GG_BLOCK": blockSize, "GG_SEG": segEdges,
		"GG_SCAN_ITEMS": scanItems, "GG_MAX_TABLES": maxTables, "GG_SSCA2_PART": ssca2Part, "GG_W_NONE": wNone, "GG_W_UNIFORM": wUniform, "GG_W_INT": wInt} {
		if got, ok := defines[name]; !ok || got != int64(want) {
			t.Errorf("gen.cu: #define %s %d (found %v), rmat.go says %d", name, got, ok, want)
		}
	}
	if p, _ := gen.PlanRMAT(30, 1); len(p.Tables)/tableWords > maxTables || p.ChunkEdges%segEdges != 0 {
		t.Errorf("scale 30 needs %d tables (kernel: %d); chunks of %d edges, segments of %d", len(p.Tables)/tableWords, maxTables, p.ChunkEdges, segEdges)
	}
}

// TestKernelSourceSyntax compiles gen.cu as C++ with the emulator's
// built-ins.
func TestKernelSourceSyntax(t *testing.T) {
	cudasrc.Syntax(t, "-I.", "-I"+fakegpu.IncludeDir(), filepath.Join("testdata", "fake_kernels.cpp"))
}

// TestFakeGPU runs the comparisons with gen.RMAT on the emulated GPU.
func TestFakeGPU(t *testing.T) {
	fakegpu.Run(t, "TestFakeGPUChild", 4*time.Minute, func(b *fakegpu.Builder) []string {
		return []string{b.CXX("testdata/fake_kernels.cpp"), b.CXX("../../../gpu/transform/testdata/fake_kernels.cpp")}
	})
}

// TestFakeGPUChild is TestFakeGPU's child process.
func TestFakeGPUChild(t *testing.T) {
	dev := fakegpu.Device(t)
	checkSameAsHost(t, dev, rmatCases(true))
	// Several chunks of 2^16 edges, the last one short.
	checkSameAsHost(t, dev, []rmatCase{
		{12, 17, "s12_ef17_permuted_int", []gen.Option{gen.PermuteVertices(true), gen.Integer(100)}},
		{11, 40, "s11_ef40_uniform_f64", []gen.Option{gen.Float64(), gen.Seed(9)}},
	})
	checkSSCA2SameAsHost(t, dev, 6, 8)
	compareWithHost(t, dev, "ssca2_s10", func() (*graph.CSR, error) { return gen.SSCA2(10) }, func() (*gpu.Graph, error) { return SSCA2(dev, 10) })
	// Two chunks of vertices, small cliques.
	small := gen.SSCA2Params(gen.SSCA2Config{MaxCliqueSize: 4, ProbIntercliqueEdges: 0.2, MaxParallelEdges: 2, MaxIntWeight: 1000})
	compareWithHost(t, dev, "ssca2_s13_small_cliques", func() (*graph.CSR, error) { return gen.SSCA2(13, small, gen.Seed(3)) },
		func() (*gpu.Graph, error) { return SSCA2(dev, 13, small, gen.Seed(3)) })
	checkPlacesPast32Bits(t, dev, placesCases(t, 8))
	checkErrors(t, dev)
	checkCancel(t, dev)
}

// gpuDevice returns the default device, skipping without a GPU.
func gpuDevice(t testing.TB) *gpu.Device {
	dev := gpu.Default()
	if dev.IsHost() {
		t.Skip("no CUDA device: " + gpu.DefaultReason())
	}
	return dev
}

// TestGPURMAT compares the device graphs with gen.RMAT on a GPU, scales
// 4..16 and every option set, then scale 20 with default options and
// integer weights, and logs the phases of scale 20.
func TestGPURMAT(t *testing.T) {
	dev := gpuDevice(t)
	checkSameAsHost(t, dev, rmatCases(false))
	checkSameAsHost(t, dev, []rmatCase{{20, 16, "s20", nil}, {20, 16, "s20_int", []gen.Option{gen.Integer(255), gen.PermuteVertices(true)}}})
	checkPlacesPast32Bits(t, dev, placesCases(t, 16))
	checkErrors(t, dev)
	checkCancel(t, dev)
}

// TestGPUSSCA2 compares the device SSCA#2 graphs with gen.SSCA2 on a GPU,
// scales 6..16 and every option set, then scale 20.
func TestGPUSSCA2(t *testing.T) {
	dev := gpuDevice(t)
	checkSSCA2SameAsHost(t, dev, 6, 16)
	compareWithHost(t, dev, "ssca2_s20", func() (*graph.CSR, error) { return gen.SSCA2(20) }, func() (*gpu.Graph, error) { return SSCA2(dev, 20) })
	checkCancel(t, dev)
}
