package densebf

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
)

// ---- fixtures shared by the host, fake-GPU and GPU tests ----

type gpuCase struct {
	name string
	d    *graph.Dense
	srcs []int32
}

// denseOf returns g's matrix (int32 or float32) or stops the test.
func denseOf(t testing.TB, integer bool) func(*graph.CSR, error) *graph.Dense {
	return func(g *graph.CSR, err error) *graph.Dense {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		d, err := g.Dense(integer)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
}

// toF32 returns the float32 copy of an int32 matrix (InfI32 and above: +Inf).
func toF32(d *graph.Dense) *graph.Dense {
	f := graph.NewDenseF32(d.N)
	for k, w := range d.I32 {
		if w < graph.InfI32 {
			f.F32[k] = float32(w)
		} else {
			f.F32[k] = float32(math.Inf(1))
		}
	}
	return f
}

// twoBlocks is a matrix of two strongly connected random parts, 0..h-1 and
// h..n-1, with arcs only from the first to the second, and a last vertex
// with no arc at all.
func twoBlocks(t testing.TB, n int, integer bool) *graph.Dense {
	a := mustRandom(t, n, 0.3, 20, 11, true)
	h := n / 2
	for i := range n {
		for j := range n {
			switch {
			case i == j:
			case i == n-1 || j == n-1:
				a.I32[i*n+j] = graph.InfI32
			case i >= h && j < h:
				a.I32[i*n+j] = graph.InfI32
			}
		}
	}
	if !integer {
		return toF32(a)
	}
	return a
}

// oddEntries is an int32 matrix with entries above InfI32 (no edge:
// MaxInt32 would overflow a sum), positive diagonal entries, and a
// negative self-loop no path from 0 reaches.
func oddEntries(t testing.TB) *graph.Dense {
	d := mustRandom(t, 45, 0.15, 30, 12, true)
	n := d.N
	for k := range d.I32 {
		if d.I32[k] == graph.InfI32 && k%3 == 0 {
			d.I32[k] = math.MaxInt32
		}
	}
	for v := range n {
		d.I32[v*n+v] = int32(v % 4)
	}
	// vertex 44: no in-arcs but its own loop of weight -3
	for u := range n {
		d.I32[u*n+44] = math.MaxInt32
	}
	d.I32[44*n+44] = -3
	return d
}

// negative reweights a random matrix with potentials: negative entries,
// no negative cycle.
func negative(t testing.TB, n int, seed uint64, integer bool) *graph.Dense {
	d := mustRandom(t, n, 0.2, 20, seed, integer)
	reweight(rand.New(rand.NewPCG(seed, 9)), d, 15)
	return d
}

// gpuCases returns the test matrices: small ones for the host and the
// emulator (small), the sizes the GPU tests use otherwise. Each covers
// N not a multiple of 4 (scalar loads for ReduceCoarse), a multiple of 4
// (16-byte loads), many equal weights (ties), negative weights, entries
// above InfI32, unreachable parts, and R-MAT, SSCA#2, path and star graphs.
func gpuCases(t testing.TB, small bool) []gpuCase {
	var cases []gpuCase
	add := func(name string, d *graph.Dense, srcs ...int32) {
		cases = append(cases, gpuCase{name: name, d: d, srcs: srcs})
	}
	single := graph.NewDenseI32(1)
	add("single_vertex_i32", single, 0)
	add("single_vertex_f32", toF32(single), 0)
	if small {
		add("random_n7_i32", mustRandom(t, 7, 0.4, 9, 1, true), 0, 6)
		add("random_n33_f32", mustRandom(t, 33, 0.2, 50, 2, false), 0, 17)
		add("random_n64_i32_ties", mustRandom(t, 64, 0.1, 2, 3, true), 5)
		add("random_n36_f32_reals", mustRandom(t, 36, 0.15, 1000, 4, false), 1)
		add("negative_n40_i32", negative(t, 40, 5, true), 0, 39)
		add("negative_n44_f32", negative(t, 44, 6, false), 3)
		add("two_blocks_n30_i32", twoBlocks(t, 30, true), 0, 20)
		add("odd_entries_n45_i32", oddEntries(t), 0, 10)
		add("rmat_s6_i32", denseOf(t, true)(gen.RMAT(6, 8, gen.Seed(1), gen.Integer(20))), 0, 9)
		add("rmat_s5_f32", denseOf(t, false)(gen.RMAT(5, 8, gen.Seed(2))), 0)
		add("ssca2_s6_i32", denseOf(t, true)(gen.SSCA2(6, gen.Seed(3), gen.Integer(10))), 1)
		add("path_24_f32", denseOf(t, false)(gen.Path(24, gen.Seed(4))), 0, 23)
		add("star_37_i32", denseOf(t, true)(gen.Star(37, gen.Seed(5), gen.Integer(9))), 0, 36)
		return cases
	}
	add("random_n100_i32", mustRandom(t, 100, 0.1, 100, 1, true), 0, 57)
	add("random_n257_f32", mustRandom(t, 257, 0.05, 100, 2, false), 0, 200)
	add("random_n1024_i32_ties", mustRandom(t, 1024, 0.01, 2, 3, true), 5)
	add("random_n1000_f32_reals", mustRandom(t, 1000, 0.02, 1000, 4, false), 1)
	add("random_n4096_f32", mustRandom(t, 4096, 0.1, 100, 13, false), 7)
	add("negative_n300_i32", negative(t, 300, 5, true), 0, 299)
	add("negative_n512_f32", negative(t, 512, 6, false), 3)
	add("two_blocks_n301_i32", twoBlocks(t, 301, true), 0, 200)
	add("two_blocks_n300_f32", twoBlocks(t, 300, false), 0, 200)
	add("odd_entries_n45_i32", oddEntries(t), 0, 10)
	for s := 8; s <= 12; s++ {
		add(fmt.Sprintf("rmat_s%d_i32", s), denseOf(t, true)(gen.RMAT(s, 16, gen.Seed(uint64(s)), gen.Integer(100))), 0, 9)
		add(fmt.Sprintf("rmat_s%d_f32", s), denseOf(t, false)(gen.RMAT(s, 16, gen.Seed(uint64(s)))), 0)
	}
	add("ssca2_s8_i32", denseOf(t, true)(gen.SSCA2(8, gen.Seed(3), gen.Integer(10))), 1)
	add("ssca2_s10_f32", denseOf(t, false)(gen.SSCA2(10, gen.Seed(3))), 1)
	add("path_300_f32", denseOf(t, false)(gen.Path(300, gen.Seed(4))), 0, 299)
	add("star_513_i32", denseOf(t, true)(gen.Star(513, gen.Seed(5), gen.Integer(9))), 0, 512)
	return cases
}

// sameResult reports the first difference between a GPU result and the
// CPU's: Dist (exactly), Parents, Iterations.
func sameResult(got, want *Result) error {
	if len(got.Dist) != len(want.Dist) || len(got.Parents) != len(want.Parents) {
		return fmt.Errorf("%d distances and %d predecessors, the CPU has %d and %d", len(got.Dist), len(got.Parents), len(want.Dist), len(want.Parents))
	}
	for v := range want.Dist {
		if got.Dist[v] != want.Dist[v] {
			return fmt.Errorf("Dist[%d] = %v (%x), the CPU's Run says %v (%x)", v, got.Dist[v], math.Float64bits(got.Dist[v]), want.Dist[v], math.Float64bits(want.Dist[v]))
		}
	}
	for v := range want.Parents {
		if got.Parents[v] != want.Parents[v] {
			return fmt.Errorf("Parents[%d] = %d, the CPU's Run says %d (Dist %v)", v, got.Parents[v], want.Parents[v], want.Dist[v])
		}
	}
	if got.Iterations != want.Iterations {
		return fmt.Errorf("%d iterations, the CPU's Run made %d", got.Iterations, want.Iterations)
	}
	return nil
}

// testVariants: the study's three and the switches, with group sizes that
// put several groups in a block (32, 64) or are no power of two (96).
// heavy adds the largest groups (too slow for the emulator).
func testVariants(heavy bool) []Variant {
	vs := SeedVariants()
	for _, o := range []Options{
		{Method: Reduce, GroupSize: 32},
		{Method: Reduce, GroupSize: 96},
		{Method: ReduceCoarse, GroupSize: 32},
		{Method: ReduceCoarse, GroupSize: 64, ScalarLoads: true},
		{Method: ReduceCoarse, FlagInterval: 3},
		{Method: Naive, FlagInterval: 4},
		{Method: Reduce, FlagInterval: 1}, // the study's host loop: a flag read after every iteration
		{Method: ReduceCoarse, FlagInterval: 1},
	} {
		vs = append(vs, Variant{o.Label(), o})
	}
	if heavy {
		for _, o := range []Options{
			{Method: Reduce, GroupSize: 1024},
			{Method: ReduceCoarse, GroupSize: 512},
			{Method: ReduceCoarse, GroupSize: 1024, ScalarLoads: true},
		} {
			vs = append(vs, Variant{o.Label(), o})
		}
	}
	return vs
}

// ---- options, labels, variants ----

func TestOptionsAndLabels(t *testing.T) {
	seed := SeedVariants()
	want := []struct {
		label, slug string
		method      Method
	}{
		{"BF_Naive", "bf_naive", Naive},
		{"BF_Reduce", "bf_reduce", Reduce},
		{"BF_Reduce_Coarse", "bf_reduce_coarse", ReduceCoarse},
	}
	if len(seed) != len(want) {
		t.Fatalf("SeedVariants has %d variants, want %d", len(seed), len(want))
	}
	for i, w := range want {
		v := seed[i]
		o := v.Options
		if v.Label != w.label || v.String() != w.label || v.Slug() != w.slug || o.Label() != w.label {
			t.Errorf("variant %d: label %q slug %q Options.Label %q, want %q %q", i, v.Label, v.Slug(), o.Label(), w.label, w.slug)
		}
		if o != (Options{Method: w.method}) {
			t.Errorf("%s: options %+v, want the defaults of %v", w.label, o, w.method)
		}
		if w.method.String() != w.label {
			t.Errorf("Method %d String() = %q", int(w.method), w.method.String())
		}
	}
	for _, c := range []struct {
		opts Options
		want string
	}{
		{Options{}, "BF_Naive"},
		{Options{Method: Reduce, GroupSize: 64}, "BF_Reduce, M=64"},
		{Options{GroupSize: 64}, "BF_Naive"}, // M matters only with groups
		{Options{Method: ReduceCoarse, ScalarLoads: true, FlagInterval: 5}, "BF_Reduce_Coarse, scalar loads, flag every 5"},
		{Options{Method: Reduce, ScalarLoads: true, FlagInterval: 1}, "BF_Reduce, flag every iteration"}, // only Coarse has vector loads
		{Options{Method: Reduce, FlagInterval: DefaultFlagInterval}, "BF_Reduce"},                        // the default, named or not
	} {
		if got := c.opts.Label(); got != c.want {
			t.Errorf("Label of %+v = %q, want %q", c.opts, got, c.want)
		}
	}
	if s := (Variant{Label: "BF_Reduce_Coarse, M=64, scalar loads"}).Slug(); s != "bf_reduce_coarse_m64_scalar_loads" {
		t.Errorf("Slug = %q", s)
	}
	if Method(7).String() != "Method(7)" {
		t.Errorf("Method(7) = %q", Method(7).String())
	}
}

func TestOptionsValidate(t *testing.T) {
	for _, c := range []struct {
		name string
		opts Options
		want string // "" = valid
	}{
		{"zero", Options{}, ""},
		{"M=32", Options{Method: Reduce, GroupSize: 32}, ""},
		{"M=1024", Options{Method: ReduceCoarse, GroupSize: 1024}, ""},
		{"M=96", Options{Method: Reduce, GroupSize: 96}, ""},
		{"M=16", Options{Method: Reduce, GroupSize: 16}, "multiple of 32"},
		{"M=33", Options{Method: Reduce, GroupSize: 33}, "group size M = 33"},
		{"M=2048", Options{Method: Reduce, GroupSize: 2048}, "between 32 and 1024"},
		{"M=-32", Options{Method: Reduce, GroupSize: -32}, "group size"},
		{"M checked for Naive too", Options{GroupSize: 7}, "group size"},
		{"unknown method", Options{Method: Method(3)}, "unknown method"},
		{"negative flag interval", Options{FlagInterval: -1}, "flag interval"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.opts.Validate()
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("error %v, want one mentioning %q", err, c.want)
			}
			// Prepare applies the same rules on every device.
			p, perr := Prepare(gpu.Host(), graph.NewDenseI32(3), c.opts)
			if (perr != nil) != (err != nil) {
				t.Fatalf("Prepare on the host: error %v, Validate: %v", perr, err)
			}
			p.Close()
		})
	}
}

// TestShapeFor checks the launch geometry: enough groups for every
// vertex, blocks of whole warps within CUDA's limit, 8 bytes of shared
// memory per thread, 16-byte loads only for ReduceCoarse with N % 4 == 0.
func TestShapeFor(t *testing.T) {
	for _, c := range []struct {
		opts                                 Options
		n                                    int
		group, perBlock, block, grid, shared int
		vec                                  bool
	}{
		{Options{}, 1, 0, 128, 128, 1, 0, false},
		{Options{}, 300, 0, 128, 128, 3, 0, false},
		{Options{Method: Reduce}, 1, 32, 4, 128, 1, 1024, false},
		{Options{Method: Reduce}, 100, 32, 4, 128, 25, 1024, false},
		{Options{Method: Reduce}, 2047, 32, 4, 128, 512, 1024, false},
		{Options{Method: Reduce}, 2048, 64, 8, 512, 256, 4096, false},
		{Options{Method: Reduce}, 8192, 64, 8, 512, 1024, 4096, false},
		{Options{Method: Reduce}, 16384, 64, 8, 512, 2048, 4096, false},
		{Options{Method: Reduce, GroupSize: 256}, 8192, 256, 2, 512, 4096, 4096, false},
		{Options{Method: Reduce, GroupSize: 32}, 10, 32, 4, 128, 3, 1024, false},
		{Options{Method: Reduce, GroupSize: 32}, 4096, 32, 16, 512, 256, 4096, false},
		{Options{Method: Reduce, GroupSize: 96}, 10, 96, 1, 96, 10, 768, false},
		{Options{Method: Reduce, GroupSize: 96}, 4096, 96, 5, 480, 820, 3840, false},
		{Options{Method: Reduce, GroupSize: 1024}, 10, 1024, 1, 1024, 10, 8192, false},
		{Options{Method: ReduceCoarse}, 256, 64, 2, 128, 128, 1024, true},
		{Options{Method: ReduceCoarse}, 8192, 256, 1, 256, 8192, 2048, true},
		{Options{Method: ReduceCoarse}, 16384, 256, 1, 256, 16384, 2048, true},
		{Options{Method: ReduceCoarse}, 257, 256, 1, 256, 257, 2048, false},
		{Options{Method: ReduceCoarse, ScalarLoads: true}, 256, 256, 1, 256, 256, 2048, false},
		{Options{Method: ReduceCoarse, GroupSize: 1024}, 65536, 1024, 1, 1024, 65536, 8192, true},
	} {
		o := c.opts
		s := shapeFor(o, c.n)
		want := shape{group: c.group, perBlock: c.perBlock, block: c.block, grid: c.grid, shared: c.shared, vec: c.vec}
		if s != want {
			t.Errorf("%s, n=%d: %+v, want %+v", o.Label(), c.n, s, want)
		}
	}
	// properties over many sizes and group sizes
	for _, m := range []Method{Naive, Reduce, ReduceCoarse} {
		for _, g := range []int{0, 32, 64, 96, 160, 256, 512, 1024} {
			for n := 1; n < 40000; n += 37 {
				s := shapeFor(Options{Method: m, GroupSize: g}, n)
				if s.grid*s.perBlock < n || (s.grid-1)*s.perBlock >= n || s.block > MaxGroupSize || s.block%32 != 0 {
					t.Fatalf("%v M=%d n=%d: %+v", m, g, n, s)
				}
				if m != Naive && (s.block != s.perBlock*s.group || s.shared != 8*s.block || s.group%32 != 0 || s.vec && n%4 != 0) {
					t.Fatalf("%v M=%d n=%d: %+v", m, g, n, s)
				}
			}
		}
	}
}

// TestDefaultGroupSize checks the rule of the default M (Options.GroupSize)
// at the edges of its steps: Reduce 32 below n = 2048, 64 from there;
// ReduceCoarse one load per thread, rounded up to a multiple of 32
// within [32, 256]; Naive none.
func TestDefaultGroupSize(t *testing.T) {
	for _, c := range []struct {
		m    Method
		n    int
		vec  bool
		want int
	}{
		{Naive, 8192, false, 0},
		{Reduce, 1, false, 32}, {Reduce, 256, false, 32}, {Reduce, 1024, false, 32}, {Reduce, 2047, false, 32},
		{Reduce, 2048, false, 64}, {Reduce, 8192, false, 64}, {Reduce, 16384, false, 64}, {Reduce, 1 << 20, false, 64},
		{ReduceCoarse, 1, false, 32}, {ReduceCoarse, 32, false, 32}, {ReduceCoarse, 33, false, 64},
		{ReduceCoarse, 255, false, 256}, {ReduceCoarse, 4096, false, 256},
		{ReduceCoarse, 4, true, 32}, {ReduceCoarse, 128, true, 32}, {ReduceCoarse, 132, true, 64},
		{ReduceCoarse, 1024, true, 256}, {ReduceCoarse, 8192, true, 256}, {ReduceCoarse, 16384, true, 256},
	} {
		if got := defaultGroupSize(c.m, c.n, c.vec); got != c.want {
			t.Errorf("defaultGroupSize(%v, %d, vec %v) = %d, want %d", c.m, c.n, c.vec, got, c.want)
		}
	}
	// Reduce's blocks: 128 threads (G = 4) below n = 2048, 512 (G = 8)
	// from there.
	for n := 1; n < 70000; n += 13 {
		s := shapeFor(Options{Method: Reduce}, n)
		if big := n >= 2048; s.group != map[bool]int{false: 32, true: 64}[big] || s.block != map[bool]int{false: 128, true: 512}[big] {
			t.Fatalf("Reduce, n = %d: %+v", n, s)
		}
	}
}

// ---- the CUDA source ----

func TestKernelSource(t *testing.T) {
	names := kernelNames()
	declared := cudasrc.Check(t, "densebf.cu", kernelSource, 1000, names)
	if len(names) != 10 {
		t.Errorf("kernelNames lists %d kernels, want 10 (init, naive, reduce, coarse, coarse_vec × int32, float32)", len(names))
	}
	if len(declared) != len(names) {
		t.Errorf("densebf.cu declares %d kernels, gpu.go knows %d", len(declared), len(names))
	}
	if v, ok := cudasrc.Defines(kernelSource)["PARITY_STRIDE"]; !ok || v != parityStride {
		t.Errorf("densebf.cu's PARITY_STRIDE is %d (found %v), gpu.go's parityStride %d", v, ok, parityStride)
	}
	if v, ok := cudasrc.Defines(kernelSource)["INF_I32"]; !ok || v != int64(graph.InfI32) {
		t.Errorf("densebf.cu's INF_I32 is %d (found %v), graph.InfI32 is %d", v, ok, graph.InfI32)
	}
}

// TestKernelSourceSyntax compiles densebf.cu as C++ against declarations
// of the CUDA built-ins it uses (testdata/cuda_shim.h): syntax, types and
// overloads, which NVRTC would otherwise first see on the GPU machine.
func TestKernelSourceSyntax(t *testing.T) {
	cudasrc.Syntax(t, "-Wextra", "-include", filepath.Join("testdata", "cuda_shim.h"), "-x", "c++", "densebf.cu")
}

// ---- the host device ----

func TestHostDeviceRunsTheCPU(t *testing.T) {
	host := gpu.Host()
	for _, c := range gpuCases(t, true) {
		for _, v := range testVariants(true) {
			t.Run(c.name+"/"+v.Slug(), func(t *testing.T) {
				p, err := Prepare(host, c.d, v.Options)
				if err != nil {
					t.Fatal(err)
				}
				defer p.Close()
				if p.Label() != v.Label || p.Bytes() != 0 || p.GroupSize() != 0 || p.VectorLoads() || p.Device() != host ||
					p.Matrix() != c.d || p.UploadTime() != 0 || p.PrepTime() <= 0 || !strings.Contains(p.String(), v.Label) {
					t.Errorf("Prepared: %v; label %q, bytes %d, M %d", p, p.Label(), p.Bytes(), p.GroupSize())
				}
				// a PrepTime() this large would show in the runs' PrepTime.
				prepared.SetPrepTime(&p.base, prepMark)
				for _, src := range c.srcs { // one preparation, several sources
					r, err := p.Run(src)
					if err != nil {
						t.Fatal(err)
					}
					cpu, err := Run(c.d, src)
					if err != nil {
						t.Fatal(err)
					}
					if err := sameResult(r, cpu); err != nil {
						t.Errorf("from %d: %v", src, err)
					}
					if err := Check(c.d, src, r); err != nil {
						t.Errorf("from %d: %v", src, err)
					}
					if !strings.Contains(r.Algorithm, "host device") || !strings.Contains(r.Algorithm, v.Label) {
						t.Errorf("Algorithm %q does not say it ran on the host for %q", r.Algorithm, v.Label)
					}
					if r.CopyTime != 0 || !hostRunPrep(r) {
						t.Errorf("times: %v, copies %v, prep %v (want the CPU Run's own, without PrepTime())", r.Time, r.CopyTime, r.PrepTime)
					}
				}
			})
		}
	}
}

// prepMark is what the tests set a Prepared's prep to before its runs, so
// that a result's PrepTime that included PrepTime() would show.
const prepMark = 1000 * time.Hour

// hostRunPrep reports whether a host-device Prepared.Run's PrepTime is
// the CPU Run's own (≥ 0) without PrepTime() (p.prep set to prepMark).
func hostRunPrep(r *Result) bool { return r.PrepTime >= 0 && r.PrepTime < prepMark }

// TestResultHTMLCopies: the card shows the time with copies of GPU runs
// only.
func TestResultHTMLCopies(t *testing.T) {
	r := &Result{Algorithm: "gpu dense Bellman-Ford (BF_Naive)", Dist: []float64{0}, Parents: []int32{0}, Iterations: 1,
		Time: 40 * time.Microsecond, CopyTime: 60 * time.Microsecond}
	if h := r.HTML(); !strings.Contains(h, ">time with copies<") || !strings.Contains(h, ">100µs<") {
		t.Errorf("GPU result HTML lacks the time with copies:\n%s", h)
	}
	r.CopyTime = 0
	if h := r.HTML(); strings.Contains(h, "with copies") {
		t.Errorf("CPU result HTML shows a time with copies:\n%s", h)
	}
}

func TestPrepareErrors(t *testing.T) {
	host := gpu.Host()
	nan := graph.NewDenseF32(2)
	nan.F32[1] = float32(math.NaN())
	for _, c := range []struct {
		name string
		d    *graph.Dense
		opts Options
		want string
	}{
		{"nil matrix", nil, Options{}, "nil"},
		{"no vertices", graph.NewDenseI32(0), Options{}, "no vertices"},
		{"NaN", nan, Options{}, "NaN"},
		{"length", &graph.Dense{N: 3, I32: make([]int32, 8)}, Options{}, "want N·N = 9"},
		{"bad M", graph.NewDenseI32(3), Options{Method: Reduce, GroupSize: 48}, "multiple of 32"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := Prepare(host, c.d, c.opts); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Prepare: %v, want an error containing %q", err, c.want)
			}
			if _, err := RunGPU(host, c.d, 0, c.opts); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("RunGPU: %v, want an error containing %q", err, c.want)
			}
		})
	}
	d := mustRandom(t, 20, 0.2, 9, 1, true)
	if _, err := Prepare(nil, d, Options{}); err == nil || !strings.Contains(err.Error(), "nil device") {
		t.Errorf("Prepare(nil device): %v", err)
	}
	for _, src := range []int32{-1, 20} {
		if _, err := RunGPU(host, d, src, Options{}); err == nil || !strings.Contains(err.Error(), "use 0..19") {
			t.Errorf("RunGPU from %d: %v", src, err)
		}
	}
	r, err := RunGPU(host, d, 3, Options{Method: ReduceCoarse})
	if err != nil || Check(d, 3, r) != nil {
		t.Fatalf("RunGPU on the host: %v", err)
	}
	if r.PrepTime <= 0 {
		t.Errorf("RunGPU on the host: PrepTime %v, want the preparation and the CPU Run's (> 0)", r.PrepTime)
	}
}

func TestHostDeviceRunErrorsAndCancel(t *testing.T) {
	checkRunErrorsAndCancel(t, gpu.Host())
}

// checkRunErrorsAndCancel: bad sources, cancellation (the preparation
// survives it), Close.
func checkRunErrorsAndCancel(t *testing.T, dev *gpu.Device) {
	d := mustRandom(t, 50, 0.1, 9, 1, true)
	want, err := Run(d, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range SeedVariants() {
		p, err := Prepare(dev, d, v.Options)
		if err != nil {
			t.Fatal(err)
		}
		for _, src := range []int32{-1, 50} {
			if _, err := p.Run(src); err == nil || !strings.Contains(err.Error(), "use 0..49") {
				t.Errorf("%s: Run from %d: %v", v.Label, src, err)
			}
		}
		cancel.Request()
		_, err = p.Run(0)
		cancel.Clear()
		if !errors.Is(err, cancel.ErrInterrupted) {
			t.Errorf("%s: Run after cancel.Request: %v, want cancel.ErrInterrupted", v.Label, err)
		}
		prepared.SetPrepTime(&p.base, prepMark)
		r, err := p.Run(0)
		if err != nil {
			t.Fatalf("%s: Run after cancel.Clear: %v", v.Label, err)
		}
		if err := sameResult(r, want); err != nil {
			t.Errorf("%s after an interrupt: %v", v.Label, err)
		}
		if dev.IsHost() && !hostRunPrep(r) || !dev.IsHost() && r.PrepTime != 0 {
			t.Errorf("%s: PrepTime %v, want 0 on a GPU, the CPU Run's own on the host (never PrepTime())", v.Label, r.PrepTime)
		}
		if err := p.Close(); err != nil {
			t.Error(err)
		}
		if err := p.Close(); err != nil {
			t.Errorf("second Close: %v", err)
		}
		if _, err := p.Run(0); err == nil || !strings.Contains(err.Error(), "closed") {
			t.Errorf("%s: Run after Close: %v", v.Label, err)
		}
	}
	var nilP *Prepared
	if err := nilP.Close(); err != nil {
		t.Errorf("Close of nil: %v", err)
	}
}

// ---- checks shared by the fake-GPU and GPU tests ----

// checkGPUVariants runs every variant on every case, preparing once and
// running from each source, and compares with the CPU's Run exactly.
func checkGPUVariants(t *testing.T, dev *gpu.Device, cases []gpuCase, variants []Variant) {
	for _, c := range cases {
		cpu := map[int32]*Result{}
		for _, src := range c.srcs {
			r, err := Run(c.d, src)
			if err != nil {
				t.Fatalf("%s: the CPU's Run from %d: %v", c.name, src, err)
			}
			cpu[src] = r
		}
		for _, v := range variants {
			t.Run(c.name+"/"+v.Slug(), func(t *testing.T) {
				p, err := Prepare(dev, c.d, v.Options)
				if err != nil {
					t.Fatal(err)
				}
				defer p.Close()
				o := p.Options()
				if want := int64(4*c.d.N*c.d.N + 12*c.d.N + 4 + 4*parityWords); p.Bytes() != want || p.PrepTime() <= 0 || p.UploadTime() < 0 {
					t.Errorf("Prepared: %d bytes (want %d), prep time %v, upload time %v", p.Bytes(), want, p.PrepTime(), p.UploadTime())
				}
				if (o.Method == Naive) != (p.GroupSize() == 0) || p.VectorLoads() != (o.Method == ReduceCoarse && !o.ScalarLoads && c.d.N%4 == 0) {
					t.Errorf("M = %d, 16-byte loads %v for %s on N = %d", p.GroupSize(), p.VectorLoads(), o.Label(), c.d.N)
				}
				for _, src := range c.srcs {
					r, err := p.Run(src)
					if err != nil {
						t.Fatalf("from %d: %v", src, err)
					}
					if err := sameResult(r, cpu[src]); err != nil {
						t.Errorf("%s from %d: %v", r.Algorithm, src, err)
					}
					if err := Check(c.d, src, r); err != nil {
						t.Errorf("%s from %d: %v", r.Algorithm, src, err)
					}
					if r.Time <= 0 || r.CopyTime < p.UploadTime() || r.PrepTime != 0 {
						t.Errorf("from %d: time %v, copies %v (upload %v), prep %v", src, r.Time, r.CopyTime, p.UploadTime(), r.PrepTime)
					}
					if !strings.HasPrefix(r.Algorithm, "gpu dense Bellman-Ford ("+v.Label) || r.Source != src {
						t.Errorf("Algorithm %q, source %d", r.Algorithm, r.Source)
					}
				}
			})
		}
	}
}

// plantedCycles returns matrices with one planted negative cycle (or
// negative self-loop) among heavy arcs, and a source; as TestNegativeCycle.
func plantedCycles(t testing.TB, count, maxN int) []gpuCase {
	rng := rand.New(rand.NewPCG(7, 8))
	var out []gpuCase
	for i := range count {
		n := 1 + rng.IntN(maxN)
		integer := i%2 == 0
		d := mustRandom(t, n, 0.15, 1, uint64(i), integer)
		for k := range n * n {
			if d.I32 != nil && d.I32[k] == 1 {
				d.I32[k] = 100
			}
			if d.F32 != nil && d.F32[k] == 1 {
				d.F32[k] = 100
			}
		}
		cyc := rng.Perm(n)[:1+rng.IntN(min(n, 5))]
		for k, v := range cyc {
			u := cyc[(k+1)%len(cyc)]
			w := -1 - rng.IntN(3)
			if integer {
				d.I32[v*n+u] = int32(w)
			} else {
				d.F32[v*n+u] = float32(w)
			}
		}
		out = append(out, gpuCase{name: fmt.Sprintf("cycle_%d_n%d", i, n), d: d, srcs: []int32{int32(rng.IntN(n))}})
	}
	return out
}

// checkNegativeCycles: the GPU reports the CPU's negative cycle (same
// vertex) or, when the cycle is unreachable, the CPU's result, whose
// PrepTime (the one-shot RunGPU's) includes the preparation.
func checkNegativeCycles(t *testing.T, dev *gpu.Device, cases []gpuCase, variants []Variant) {
	reported := 0
	for _, c := range cases {
		src := c.srcs[0]
		cpu, cpuErr := Run(c.d, src)
		for _, v := range variants {
			r, err := RunGPU(dev, c.d, src, v.Options)
			if cpuErr != nil {
				var want, got *NegativeCycleError
				errors.As(cpuErr, &want)
				if !errors.As(err, &got) || !errors.Is(err, ErrNegativeCycle) || *got != *want {
					t.Errorf("%s, %s from %d: err = %v, the CPU says %v", c.name, v.Label, src, err, cpuErr)
				}
				reported++
				continue
			}
			if err != nil {
				t.Errorf("%s, %s from %d: %v (the CPU found no reachable negative cycle)", c.name, v.Label, src, err)
				continue
			}
			if err := sameResult(r, cpu); err != nil {
				t.Errorf("%s, %s from %d: %v", c.name, v.Label, src, err)
			}
			if r.PrepTime <= 0 {
				t.Errorf("%s, %s from %d: RunGPU's PrepTime %v, want the preparation (> 0)", c.name, v.Label, src, r.PrepTime)
			}
		}
	}
	if reported == 0 {
		t.Error("no case had a reachable negative cycle: the test checks nothing")
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

// TestGPUVariants: every variant (the study's three, group sizes 32, 96,
// 512 and 1024, scalar loads, flag intervals) on every case equals the
// CPU's Run exactly and passes Check.
func TestGPUVariants(t *testing.T) {
	checkGPUVariants(t, gpuDevice(t), gpuCases(t, false), testVariants(true))
}

func TestGPUNegativeCycles(t *testing.T) {
	checkNegativeCycles(t, gpuDevice(t), plantedCycles(t, 60, 200), testVariants(true))
}

func TestGPURunErrorsAndCancel(t *testing.T) { checkRunErrorsAndCancel(t, gpuDevice(t)) }

// TestGPURounds: groups that settle several vertices per iteration
// (grids cut below a group per vertex) equal the CPU's Run.
func TestGPURounds(t *testing.T) {
	dev := gpuDevice(t)
	cases := append(roundsCases(t), gpuCase{name: "random_n1000_f32_reals", d: mustRandom(t, 1000, 0.02, 1000, 4, false), srcs: []int32{1}})
	checkRounds(t, dev, cases)
}

// TestGPULarge: the study's sizes, one source, the three methods (N up
// to 8192: 256 MiB matrices).
func TestGPULarge(t *testing.T) {
	dev := gpuDevice(t)
	if testing.Short() {
		t.Skip("large matrices")
	}
	var cases []gpuCase
	for _, n := range []int{2048, 8192} {
		cases = append(cases, gpuCase{name: fmt.Sprintf("random_n%d_f32", n), d: mustRandom(t, n, 0.1, 100, uint64(n), false), srcs: []int32{1}})
	}
	cases = append(cases, gpuCase{name: "random_n8192_i32", d: mustRandom(t, 8192, 0.1, 100, 3, true), srcs: []int32{2}})
	checkGPUVariants(t, dev, cases, SeedVariants())
}

// ---- the Go GPU path on a fake GPU ----

// TestFakeGPU runs the GPU tests' checks, on the small matrices, through
// the real Go GPU path (Prepare, Run: compile, uploads, argument packing,
// the iteration loop, copies, events) against package gpu's fake CUDA
// driver and fake NVRTC (gpu/testdata), whose cuLaunchKernel is replaced
// by one that checks the launch and runs the named kernel of densebf.cu
// on the CPU emulator (testdata/fake_kernels.cpp, internal/fakegpu). It
// runs them in a child process, where gpu.Default() is the fake device.
// Needs gcc and g++.
func TestFakeGPU(t *testing.T) {
	fakegpu.Run(t, "TestFakeGPUChild", 3*time.Minute, func(b *fakegpu.Builder) []string {
		return []string{b.CXX("testdata/fake_kernels.cpp", "-Wall")}
	})
}

// TestFakeGPUChild is TestFakeGPU's child process.
func TestFakeGPUChild(t *testing.T) {
	dev := fakegpu.Device(t)
	checkGPUVariants(t, dev, gpuCases(t, true), testVariants(false))
	checkNegativeCycles(t, dev, plantedCycles(t, 16, 12), SeedVariants())
	checkRunErrorsAndCancel(t, dev)
	checkRounds(t, dev, roundsCases(t))
	checkIdleLaunches(t, dev)
	t.Run("trace", func(t *testing.T) {
		checkTraceOn(t, dev, traceCases(t), testVariants(false))
		checkTraceNegativeCycle(t, dev, plantedCycles(t, 6, 12))
		checkTraceFlip(t, dev, traceCases(t), testVariants(false))
		checkBenchTrace(t, dev)
		t.Run("driver_calls", func(t *testing.T) { checkTraceDriverCalls(t, dev) })
	})
	checkOneShotFreeError(t, dev)
}

// checkIdleLaunches launches an iteration kernel of every method and
// build by hand after a run from a source: iteration c+2, where c is the
// run's last (it changed nothing, so the flag reads c-1), into a σ array
// filled with a sentinel. With check set it must write nothing (idle:
// densebf.cu); without check, or as iteration c (whose predecessor
// changed something), it must write σ, and the run's distances.
func checkIdleLaunches(t *testing.T, dev *gpu.Device) {
	t.Run("idle_launches", func(t *testing.T) {
		d := mustRandom(t, 40, 0.1, 100, 40, false)
		for _, v := range SeedVariants() {
			for _, traced := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/traced_%v", v.Slug(), traced), func(t *testing.T) {
					o := v.Options
					o.Trace = traced
					p, err := Prepare(dev, d, o)
					if err != nil {
						t.Fatal(err)
					}
					defer p.Close()
					r, err := p.Run(3)
					if err != nil {
						t.Fatal(err)
					}
					c := r.Iterations
					var log *gpu.LaunchLog // nil: untraced (NULL entries)
					var lowered any = uint64(0)
					if traced {
						if log, lowered, err = p.traceState(); err != nil {
							t.Fatal(err)
						}
						defer log.Drop()
					}
					// launch runs iteration it with check into a σ array
					// filled with the sentinel first and returns it.
					const sentinel = -7
					launch := func(it int, check bool) []float32 {
						t.Helper()
						out := p.sigF32[it%2]
						if err := out.Fill(sentinel); err != nil {
							t.Fatal(err)
						}
						k, err := p.kernelsFor(traced)
						if err != nil {
							t.Fatal(err)
						}
						err = p.Device().Exec(func(th *gpu.Thread) error {
							return log.LaunchOn(th, nil, it-1, k.step, gpu.D1(p.shape.grid), gpu.D1(p.shape.block), p.stepShared(), p.stepArgs(it, check, 1, lowered)...)
						})
						if err != nil {
							t.Fatal(err)
						}
						got := make([]float32, p.n)
						if err := out.Download(got); err != nil {
							t.Fatal(err)
						}
						return got
					}
					written := func(got []float32) bool { return !slices.Contains(got, sentinel) }
					if got := launch(c+2, true); slices.ContainsFunc(got, func(x float32) bool { return x != sentinel }) {
						t.Errorf("iteration %d with check, after iteration %d changed nothing: it wrote σ (%v), want an idle launch", c+2, c, got[:4])
					}
					if got := launch(c+2, false); !written(got) {
						t.Errorf("iteration %d without check wrote only part of σ: %v", c+2, got)
					}
					got := launch(c, true) // the flag reads c-1: iteration c-1 changed something
					if !written(got) {
						t.Fatalf("iteration %d with check, after iteration %d changed something: σ not written (%v)", c, c-1, got)
					}
					for i, x := range got {
						if float64(x) != r.Dist[i] {
							t.Fatalf("iteration %d wrote σ(%d) = %v; the run's distance is %v", c, i, x, r.Dist[i])
						}
					}
				})
			}
		}
	})
}

// checkOneShotFreeError checks that the one-shot RunGPU reports a failed
// free of device memory (the first of its Close) instead of dropping it.
func checkOneShotFreeError(t *testing.T, dev *gpu.Device) {
	t.Run("one_shot_free_error", func(t *testing.T) {
		d := denseOf(t, false)(gen.Path(6))
		fakegpu.FailFrees(t, 1)
		r, err := RunGPU(dev, d, 0, Options{})
		if r != nil || err == nil || !strings.Contains(err.Error(), "densebf: freeing the device memory of ") || !strings.Contains(err.Error(), "cuMemFree_v2") {
			t.Errorf("RunGPU(dev, d, 0) with a failing free: %v, %v; want the free's error", r, err)
		}
	})
}

// checkRounds runs BF_Reduce and BF_Reduce_Coarse (16-byte and scalar
// loads) with grids cut below a group per vertex, so that each group
// settles vertices in several rounds (densebf.cu, "Rounds"), M = 32 and
// 64 with one and two groups per block (ReduceCoarse's rows backwards in
// even iterations, or forwards in all), traced (the lowered counts of
// every round) and untraced, against the CPU's Run and its trace.
func checkRounds(t *testing.T, dev *gpu.Device, cases []gpuCase) {
	t.Run("rounds", func(t *testing.T) {
		for _, c := range cases {
			src := c.srcs[0]
			cpu, err := run(c.d, src, true)
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range []Options{{Method: Reduce}, {Method: ReduceCoarse}, {Method: ReduceCoarse, ScalarLoads: true}} {
				for _, traced := range []bool{false, true} {
					o.Trace = traced
					p, err := Prepare(dev, c.d, o)
					if err != nil {
						t.Fatal(err)
					}
					for i, m := range []int{32, 64} {
						for _, g := range []int{1, 2} {
							for _, grid := range []int{1, 2, 3} {
								p.shape = shape{group: m, perBlock: g, block: m * g, grid: grid, shared: m * g * sharedPerThread, vec: p.shape.vec}
								p.forwardOnly = i == 1 && g == 2 // ReduceCoarse: rows forwards in every iteration
								what := fmt.Sprintf("%s/%s traced=%v M=%d G=%d grid=%d forward=%v", c.name, o.Label(), traced, m, g, grid, p.forwardOnly)
								r, err := p.Run(src)
								if err != nil {
									t.Fatalf("%s: %v", what, err)
								}
								if err := sameResult(r, cpu); err != nil {
									t.Fatalf("%s: %v", what, err)
								}
								if traced && !slices.Equal(stepsLowered(r), stepsLowered(cpu)) {
									t.Fatalf("%s: lowered %v per iteration, the CPU %v", what, stepsLowered(r), stepsLowered(cpu))
								}
							}
						}
					}
					if err := p.Close(); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
	})
}

// roundsCases are small matrices for checkRounds: more vertices than a
// few blocks' groups, N a multiple of 4 and not, ties and negative
// weights.
func roundsCases(t testing.TB) []gpuCase {
	return []gpuCase{
		{name: "random_n64_i32_ties", d: mustRandom(t, 64, 0.1, 2, 3, true), srcs: []int32{5}},
		{name: "random_n33_f32", d: mustRandom(t, 33, 0.2, 50, 2, false), srcs: []int32{0}},
		{name: "negative_n40_i32", d: negative(t, 40, 5, true), srcs: []int32{39}},
	}
}

// TestGPUIdleLaunches is checkIdleLaunches on the GPU.
func TestGPUIdleLaunches(t *testing.T) { checkIdleLaunches(t, gpuDevice(t)) }
