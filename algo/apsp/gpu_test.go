package apsp

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
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

// The GPU tests (TestGPU*) need a CUDA device and skip without one. On
// the GPU machine:
//
//	go test -c -o apsp.test ./algo/apsp        (build machine)
//	./apsp.test -test.v -test.run 'GPU'        (GPU machine)
//
// TestFakeGPU runs the same checks on small inputs through the real Go
// code against package gpu's fake driver, whose kernel launches run
// fw.cu's kernels on a CPU emulator (testdata/); it needs gcc and g++.

// ---- fixtures ----

type gpuCase struct {
	name string
	d    *graph.Dense
}

func mustDense(t testing.TB, integer bool) func(*graph.CSR, error) *graph.Dense {
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

// twoComponentsDense: two random strongly connected parts of n/2
// vertices with no edge between them, int32.
func twoComponentsDense(n int, seed uint64) *graph.Dense {
	rng := rand.New(rand.NewPCG(seed, 1))
	d := graph.NewDenseI32(n)
	h := n / 2
	for _, part := range [][2]int{{0, h}, {h, n}} {
		for i := part[0]; i < part[1]; i++ {
			next := i + 1
			if next == part[1] {
				next = part[0]
			}
			if next != i {
				d.I32[i*n+next] = int32(1 + rng.IntN(9)) // a ring keeps the part connected
			}
			for k := 0; k < 3; k++ {
				if j := part[0] + rng.IntN(part[1]-part[0]); j != i {
					d.I32[i*n+j] = int32(1 + rng.IntN(50))
				}
			}
		}
	}
	return d
}

// gpuCases returns the test matrices: small ones for the emulator, the
// sizes the GPU tests use otherwise. Every size is chosen so that some
// tile does not divide it.
func gpuCases(t testing.TB, small bool) []gpuCase {
	rs, ss, pn, sn, rn := 10, 9, 300, 200, 500
	if small {
		rs, ss, pn, sn, rn = 6, 6, 40, 30, 70
	}
	rng := rand.New(rand.NewPCG(21, 22))
	cases := []gpuCase{
		{fmt.Sprintf("rmat_s%d_int", rs), mustDense(t, true)(gen.RMAT(rs, 16, gen.Seed(1), gen.Integer(100)))},
		{fmt.Sprintf("rmat_s%d_float", rs), mustDense(t, false)(gen.RMAT(rs, 16, gen.Seed(2)))},
		{fmt.Sprintf("ssca2_s%d_int", ss), mustDense(t, true)(gen.SSCA2(ss, gen.Seed(3), gen.Integer(50)))},
		{fmt.Sprintf("path_%d", pn), mustDense(t, true)(gen.Path(pn, gen.Seed(4), gen.Integer(20)))},
		{fmt.Sprintf("star_%d", sn), mustDense(t, true)(gen.Star(sn, gen.Seed(5), gen.Integer(20)))},
		{"two_components", twoComponentsDense(pn+3, 6)},
		{fmt.Sprintf("random_%d_int", rn), randDense(rng, rn, 0.05, true, ints(1, 1000))},
		{fmt.Sprintf("random_%d_float", rn+1), randDense(rng, rn+1, 0.05, false, reals(0.01, 10))},
		{"single_vertex", graph.NewDenseI32(1)},
		{"no_vertices", graph.NewDenseF32(0)},
	}
	if !small {
		cases = append(cases,
			gpuCase{"rmat_s8_int", mustDense(t, true)(gen.RMAT(8, 16, gen.Seed(7), gen.Integer(100)))},
			gpuCase{"rmat_s11_int", mustDense(t, true)(gen.RMAT(11, 16, gen.Seed(8), gen.Integer(100)))},
			gpuCase{"rmat_s12_int", mustDense(t, true)(gen.RMAT(12, 16, gen.Seed(9), gen.Integer(1000)))},
			gpuCase{"ssca2_s12_float", mustDense(t, false)(gen.SSCA2(12, gen.Seed(10)))},
		)
	}
	return cases
}

// specialCases are the inputs that need the other kernel flavours: zero
// weights (zero-weight cycles: the hop tie-break), negative weights
// without a negative cycle (int32 clamping), both element types.
func specialCases(small bool) []gpuCase {
	n := 150
	if small {
		n = 45
	}
	rng := rand.New(rand.NewPCG(31, 32))
	zero := randDense(rng, n, 0.15, true, ints(0, 3))
	zeroF := randDense(rng, n+2, 0.15, false, ints(0, 3))
	negI := randDense(rng, n+1, 0.1, true, ints(0, 20))
	reweight(rng, negI, 25)
	negF := randDense(rng, n+3, 0.1, false, reals(0, 5))
	reweight(rng, negF, 7)
	return []gpuCase{{"zero_weights_int", zero}, {"zero_weights_float", zeroF}, {"negative_int", negI}, {"negative_float", negF}}
}

// cpuReference is Blocked's result, computed once per matrix.
var cpuReference sync.Map

func reference(t *testing.T, d *graph.Dense) *Result {
	t.Helper()
	if r, ok := cpuReference.Load(d); ok {
		return r.(*Result)
	}
	r, err := Blocked(d, 0)
	if err != nil {
		t.Fatalf("the CPU's Blocked: %v", err)
	}
	cpuReference.Store(d, r)
	return r
}

// sameDist reports the first entry where got and want differ (exactly).
func sameDist(got, want *graph.Dense) error {
	if got.N != want.N || got.IsInt() != want.IsInt() {
		return fmt.Errorf("%d vertices (int32 %v), want %d (int32 %v)", got.N, got.IsInt(), want.N, want.IsInt())
	}
	n := got.N
	for k := 0; k < n*n; k++ {
		var g, w float64
		if got.IsInt() {
			if got.I32[k] == want.I32[k] {
				continue
			}
			g, w = float64(got.I32[k]), float64(want.I32[k])
		} else {
			if math.Float32bits(got.F32[k]) == math.Float32bits(want.F32[k]) {
				continue
			}
			g, w = float64(got.F32[k]), float64(want.F32[k])
		}
		return fmt.Errorf("Dist[%d][%d] = %v, the CPU's Blocked says %v", k/n, k%n, g, w)
	}
	return nil
}

// gpuVariant is a variant with what the test expects of it.
type gpuVariant struct {
	Variant
	streamed bool   // out of core, streamed
	force    [2]int // q and G forced on the planner (0: the planner's own plan)
}

// variantsFor returns the variants a matrix of n vertices is checked
// with: the study's three, every tile of the blocked method, and out of
// core: in core (no cap), with the planner's plan for half the in-core
// memory, and with plans forced to 4×4 blocks (one per copy) and 5×5
// blocks (three per copy; for small n some blocks are all padding).
// tiles lists the tiles to use.
func variantsFor(n int, tiles []int) []gpuVariant {
	var out []gpuVariant
	plainTile := tiles[len(tiles)-1]
	out = append(out, gpuVariant{Variant: Variant{LabelPlain, Options{Method: PlainGPU, Tile: plainTile}}})
	for _, tile := range tiles {
		out = append(out, gpuVariant{Variant: Variant{fmt.Sprintf("%s, tile %d", LabelBlocked, tile), Options{Method: BlockedGPU, Tile: tile}}})
	}
	tile := tiles[0]
	ooc := func(label string, memCap int64) Variant {
		return Variant{fmt.Sprintf("%s, tile %d, %s", LabelOutOfCore, tile, label), Options{Method: OutOfCoreGPU, Tile: tile, MemoryCap: memCap}}
	}
	out = append(out, gpuVariant{Variant: ooc("fits", 0)})
	if n == 0 {
		return out
	}
	half := inCoreBytes(n, roundUp(n, tile), 2) / 2
	if _, err := planOOC(n, tile, 2, half); err == nil {
		out = append(out, gpuVariant{Variant: ooc("half the memory", half), streamed: true})
	}
	for _, qg := range [][2]int{{4, 1}, {5, 3}} {
		out = append(out, gpuVariant{Variant: ooc(fmt.Sprintf("q=%d g=%d", qg[0], qg[1]), 1), streamed: true, force: qg})
	}
	return out
}

// forcePlan makes Prepare plan q×q blocks, g per copy, until the
// returned function restores the planner.
func forcePlan(q, g int) func() {
	planFor = func(n, tile, planes int, _ int64) (oocPlan, error) {
		return oocPlan{K: roundUp((n+q-1)/q, tile), q: q, G: g}, nil
	}
	return func() { planFor = planOOC }
}

// checkGPUCase runs one variant on one matrix and checks it against the
// CPU: int32 Dist bit for bit, float32 within Check's tolerance, Check on
// every row (sampled rows for large n), a second run identical.
func checkGPUCase(t *testing.T, dev *gpu.Device, c gpuCase, v gpuVariant) {
	t.Helper()
	before := c.d.Clone()
	if v.force[0] > 0 {
		defer forcePlan(v.force[0], v.force[1])()
	}
	p, err := Prepare(dev, c.d, v.Options)
	if err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	defer p.Close()
	streamed, _, q, g := p.OutOfCore()
	if !dev.IsHost() && c.d.N > 0 && (streamed != v.streamed || v.force[0] > 0 && (q != v.force[0] || g != v.force[1])) {
		t.Errorf("Prepare planned streamed=%v, %d×%d blocks, %d per copy; want streamed=%v, forced %v", streamed, q, q, g, v.streamed, v.force)
	}
	if !dev.IsHost() && p.PrepTime() <= 0 {
		t.Errorf("PrepTime() = %v, want the preparation (> 0)", p.PrepTime())
	}
	prepared.SetPrepTime(&p.base, prepMark) // tells PrepTime() apart from what a run prepares
	r, err := p.Run()
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	madeFallback := p.fallback != nil
	if !dev.IsHost() {
		checkRunPrep(t, p, r, madeFallback)
	}
	n := c.d.N
	if r.Dist == nil || r.Dist.N != n || len(r.Parents) != n*n {
		t.Fatalf("%s: result of %v vertices, %d predecessors; want %d and %d", r.Algorithm, r.Dist, len(r.Parents), n, n*n)
	}
	if !slices.Equal(before.I32, c.d.I32) || !slices.Equal(before.F32, c.d.F32) {
		t.Fatal("the input matrix was modified")
	}
	if c.d.IsInt() {
		if err := sameDist(r.Dist, reference(t, c.d).Dist); err != nil {
			t.Fatalf("%s: %v", r.Algorithm, err)
		}
	}
	samples := n
	if n > 300 {
		samples = 24
	}
	if err := Check(c.d, r, samples, 7); err != nil {
		t.Fatalf("%s: %v", r.Algorithm, err)
	}
	if !dev.IsHost() && n > 0 && (r.Time <= 0 || r.CopyTime < 0) {
		t.Errorf("%s: Time %v, CopyTime %v", r.Algorithm, r.Time, r.CopyTime)
	}
	if !streamed && fakegpu.IsChild() {
		return // on the emulator, only the streamed runs are repeated (they reuse the most state)
	}
	// a second run on the same preparation: the same distances.
	r2, err := p.Run()
	if err != nil {
		t.Fatalf("second Run: %v", err)
	}
	if err := sameDist(r2.Dist, r.Dist); err != nil {
		t.Fatalf("%s: second run: %v", r.Algorithm, err)
	}
	if !dev.IsHost() {
		checkRunPrep(t, p, r2, false) // a fallback made by the first run is not prepared again
	}
}

// prepMark is what the tests set a Prepared's prep to before a run, so
// that a result's PrepTime that included PrepTime() would show.
const prepMark = 1000 * time.Hour

// checkRunPrep checks the PrepTime of a GPU Prepared.Run: only what that
// run prepared by itself, never PrepTime() (p.prep is prepMark). In core
// that is 0, out of core the host's packing (≥ 0); the run that made the
// hop tie-break's Prepared (madeFallback) adds its preparation.
func checkRunPrep(t *testing.T, p *Prepared, r *Result, madeFallback bool) {
	t.Helper()
	ran := p // the Prepared whose runOnce made r
	if p.fallback != nil {
		ran = p.fallback
	}
	var want time.Duration
	if madeFallback {
		want = p.fallback.PrepTime()
	}
	switch {
	case r.PrepTime >= prepMark:
		t.Errorf("%s: PrepTime %v includes PrepTime()", r.Algorithm, r.PrepTime)
	case ran.ooc == nil && r.PrepTime != want:
		t.Errorf("%s: PrepTime %v in core, want %v (the hop tie-break's preparation if this run made it, else 0)", r.Algorithm, r.PrepTime, want)
	case ran.ooc != nil && r.PrepTime < want:
		t.Errorf("%s: PrepTime %v out of core, want the packing plus %v", r.Algorithm, r.PrepTime, want)
	}
}

// checkGPUVariants runs every variant of variantsFor on every case.
func checkGPUVariants(t *testing.T, dev *gpu.Device, cases []gpuCase, tiles []int) {
	for _, c := range cases {
		for _, v := range variantsFor(c.d.N, tiles) {
			t.Run(c.name+"/"+v.Slug(), func(t *testing.T) { checkGPUCase(t, dev, c, v) })
		}
	}
}

// checkGPUSpecial runs the special cases (hop tie-break, negative
// weights), a negative cycle, and distances only, with one tile.
func checkGPUSpecial(t *testing.T, dev *gpu.Device, small bool, tile int) {
	for _, c := range specialCases(small) {
		for _, v := range variantsFor(c.d.N, []int{tile}) {
			t.Run(c.name+"/"+v.Slug(), func(t *testing.T) { checkGPUCase(t, dev, c, v) })
		}
	}
	t.Run("hop_tie_break", func(t *testing.T) {
		// the hop kernels for every input, whether or not a run needs them.
		for _, c := range specialCases(small) {
			for _, v := range variantsFor(c.d.N, []int{tile}) {
				t.Run(c.name+"/"+v.Slug(), func(t *testing.T) {
					if v.force[0] > 0 {
						defer forcePlan(v.force[0], v.force[1])()
					}
					p, err := Prepare(dev, c.d, v.Options)
					if err != nil {
						t.Fatal(err)
					}
					defer p.Close()
					fb, err := p.hopsFallback()
					if err != nil && strings.Contains(err.Error(), "too small") {
						// Run then rebuilds the predecessors on the host
						// (the zero-weight cases above cover it).
						t.Skipf("the hop counts do not fit under this cap: %v", err)
					}
					if err != nil {
						t.Fatal(err)
					}
					r, err := fb.runOnce(v.Options.Trace)
					if err != nil {
						t.Fatal(err)
					}
					if !strings.Contains(r.Algorithm, "hop count") {
						t.Errorf("Algorithm %q does not mention the tie-break", r.Algorithm)
					}
					if c.d.IsInt() {
						if err := sameDist(r.Dist, reference(t, c.d).Dist); err != nil {
							t.Fatalf("%s: %v", r.Algorithm, err)
						}
					}
					if err := Check(c.d, r, min(c.d.N, 40), 9); err != nil {
						t.Fatalf("%s: %v", r.Algorithm, err)
					}
				})
			}
		}
	})
	t.Run("negative_cycle", func(t *testing.T) {
		rng := rand.New(rand.NewPCG(41, 42))
		for _, integer := range []bool{true, false} {
			n := 4*tile + 5
			d := randDense(rng, n, 0.1, integer, ints(50, 60))
			cyc := []int{n - 2, 3, tile + 1}
			for k, v := range cyc {
				u := cyc[(k+1)%len(cyc)]
				if integer {
					d.I32[v*n+u] = -100
				} else {
					d.F32[v*n+u] = -100
				}
			}
			_, cpuErr := FloydWarshall(d)
			var want *NegativeCycleError
			if !errors.As(cpuErr, &want) {
				t.Fatalf("the CPU finds no negative cycle: %v", cpuErr)
			}
			for _, v := range variantsFor(n, []int{tile}) {
				restore := func() {}
				if v.force[0] > 0 {
					restore = forcePlan(v.force[0], v.force[1])
				}
				_, err := Run(dev, d, v.Options)
				restore()
				var got *NegativeCycleError
				if !errors.As(err, &got) || !errors.Is(err, ErrNegativeCycle) || got.Vertex != want.Vertex {
					t.Errorf("%s (int32 %v): err = %v, want the CPU's negative cycle through %d", v.Label, integer, err, want.Vertex)
				}
			}
		}
	})
	t.Run("distances_only", func(t *testing.T) {
		for _, c := range append(gpuCases(t, true)[:2], specialCases(true)[2]) {
			for _, v := range variantsFor(c.d.N, []int{tile}) {
				opts := v.Options
				opts.DistancesOnly = true
				restore := func() {}
				if v.force[0] > 0 {
					restore = forcePlan(v.force[0], v.force[1])
				}
				r, err := Run(dev, c.d, opts)
				restore()
				if err != nil {
					t.Fatalf("%s %s: %v", c.name, v.Label, err)
				}
				if r.Parents != nil {
					t.Errorf("%s %s: Parents kept with DistancesOnly", c.name, v.Label)
				}
				if err := agreeDist(c.d, r.Dist, reference(t, c.d).Dist); err != nil {
					t.Errorf("%s %s, distances only: %v", c.name, v.Label, err)
				}
			}
		}
	})
}

// checkGPUGeneric runs the int32 cases with the generic products on a
// device that has DPX (dpxOff): with predecessors and distances only, the
// blocked methods with one tile; int32 distances must equal the CPU's.
func checkGPUGeneric(t *testing.T, dev *gpu.Device, cases []gpuCase, tile int) {
	in, err := dev.Info()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases[:2] { // R-MAT int32 (DPX where the device has it) and float32 (never)
		r, err := Run(dev, c.d, Options{Method: BlockedGPU, Tile: tile})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(r.Algorithm, ", DPX"); got != (hasDPX(in) && c.d.IsInt()) {
			t.Errorf("%s on compute capability %d.%d: Algorithm %q", c.name, in.ComputeMajor, in.ComputeMinor, r.Algorithm)
		}
	}
	dpxOff = true
	defer func() { dpxOff = false }()
	for _, c := range cases {
		if !c.d.IsInt() || c.d.N == 0 {
			continue
		}
		for _, dOnly := range []bool{false, true} {
			o := Options{Method: BlockedGPU, Tile: tile, DistancesOnly: dOnly}
			t.Run(fmt.Sprintf("%s/distances_only_%v", c.name, dOnly), func(t *testing.T) {
				p, r := prepareRun(t, dev, c.d, o)
				if p.cfg.dpx {
					t.Fatalf("dpxOff set, but the configuration uses DPX: %+v", p.cfg)
				}
				if strings.Contains(r.Algorithm, "DPX") {
					t.Errorf("Algorithm %q names DPX", r.Algorithm)
				}
				if err := sameDist(r.Dist, reference(t, c.d).Dist); err != nil {
					t.Fatalf("%s: %v", r.Algorithm, err)
				}
				if !dOnly {
					if err := Check(c.d, r, min(c.d.N, 40), 9); err != nil {
						t.Fatalf("%s: %v", r.Algorithm, err)
					}
				}
			})
		}
	}
}

// agreeDist returns an error unless got equals the CPU's want bit for bit
// (int32 matrices of d) or agrees within the checker's tolerance
// (float32).
func agreeDist(d, got, want *graph.Dense) error {
	if d.IsInt() {
		return sameDist(got, want)
	}
	chk := &checker{d: d, n: d.N}
	for k := range got.F32 {
		if !chk.agree(float64(got.F32[k]), float64(want.F32[k])) {
			return fmt.Errorf("Dist[%d] = %v, CPU %v", k, got.F32[k], want.F32[k])
		}
	}
	return nil
}

// prepareRun prepares d on dev with o (closed when the test ends) and
// runs it once.
func prepareRun(t *testing.T, dev *gpu.Device, d *graph.Dense, o Options) (*Prepared, *Result) {
	t.Helper()
	p, err := Prepare(dev, d, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	r, err := p.Run()
	if err != nil {
		t.Fatal(err)
	}
	return p, r
}

// checkGPUTile64DistancesOnly runs distances-only blocked products with
// tile 64, whose k's the products load in one chunk: int32 distances
// equal the CPU's, float32 ones agree within the checker's tolerance.
func checkGPUTile64DistancesOnly(t *testing.T, dev *gpu.Device, cases []gpuCase) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, r := prepareRun(t, dev, c.d, Options{Method: BlockedGPU, Tile: 64, DistancesOnly: true})
			if err := agreeDist(c.d, r.Dist, reference(t, c.d).Dist); err != nil {
				t.Fatalf("%s: %v", r.Algorithm, err)
			}
		})
	}
}

// TestGPUTile64DistancesOnly: distances-only products with a tile's 64
// k's in one chunk.
func TestGPUTile64DistancesOnly(t *testing.T) {
	dev := requireGPU(t)
	checkGPUTile64DistancesOnly(t, dev, slices.Concat(gpuCases(t, false)[:8], specialCases(false)[2:]))
}

// checkGPUPaths rebuilds paths on a GPU result and adds up their edges.
func checkGPUPaths(t *testing.T, dev *gpu.Device, d *graph.Dense, opts Options) {
	r, err := Run(dev, d, opts)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(51, 52))
	n := d.N
	found := 0
	for range 200 {
		i, j := rng.IntN(n), rng.IntN(n)
		path, sum, ok := walkPath(t, d, r, i, j, r.Dist.At(i, j) == math.Inf(1))
		if !ok {
			continue
		}
		if path[0] != int32(i) || path[len(path)-1] != int32(j) || sum != r.Dist.At(i, j) {
			t.Fatalf("Path(%d, %d) = %v weighs %v, Dist says %v", i, j, path, sum, r.Dist.At(i, j))
		}
		found++
	}
	if found == 0 {
		t.Error("no reachable pair among 200: the test graph is wrong")
	}
}

// walkPath returns r's path from i to j and the sum of its arcs in d,
// ok false when j is unreachable from i (then Path must fail); it fails
// t when Path does not agree.
func walkPath(t *testing.T, d *graph.Dense, r *Result, i, j int, unreachable bool) (path []int32, sum float64, ok bool) {
	t.Helper()
	path, err := r.Path(i, j)
	if unreachable {
		if err == nil {
			t.Fatalf("Path(%d, %d) = %v, but %d is unreachable", i, j, path, j)
		}
		return nil, 0, false
	}
	if err != nil {
		t.Fatalf("Path(%d, %d): %v", i, j, err)
	}
	for k := 1; k < len(path); k++ {
		sum += d.At(int(path[k-1]), int(path[k]))
	}
	return path, sum, true
}

// checkGPUCancel: an interrupted run fails with cancel.ErrInterrupted
// and the next run works.
func checkGPUCancel(t *testing.T, dev *gpu.Device, d *graph.Dense, opts Options) {
	p, err := Prepare(dev, d, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	cancel.Request()
	_, err = p.Run()
	cancel.Clear()
	if !errors.Is(err, cancel.ErrInterrupted) {
		t.Fatalf("Run after cancel.Request: %v, want cancel.ErrInterrupted", err)
	}
	prepared.SetPrepTime(&p.base, prepMark)
	r, err := p.Run()
	if err != nil {
		t.Fatalf("Run after cancel.Clear: %v", err)
	}
	if err := Check(d, r, 8, 1); err != nil {
		t.Fatal(err)
	}
	checkRunPrep(t, p, r, false)
}

// checkGPUOneShot: the one-shot Run's and RunGraph's PrepTime include the
// preparation, which Prepared.Run leaves out.
func checkGPUOneShot(t *testing.T, dev *gpu.Device, g *graph.CSR, opts Options) {
	d, err := graphMatrix(g, opts.Float32)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		run  func() (*Result, error)
	}{
		{"Run", func() (*Result, error) { return Run(dev, d, opts) }},
		{"RunGraph", func() (*Result, error) { return RunGraph(dev, g, opts) }},
	} {
		name := c.name
		r, err := c.run()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := Check(d, r, 8, 1); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if r.PrepTime <= 0 {
			t.Errorf("%s: PrepTime %v, want the preparation (> 0)", name, r.PrepTime)
		}
	}
}

// ---- options, labels, plans: no device needed ----

func TestGPUOptionsAndLabels(t *testing.T) {
	seed := SeedVariants()
	want := []struct {
		label, slug string
		m           Method
	}{
		{"plain GPU", "plain_gpu", PlainGPU},
		{"blocked GPU", "blocked_gpu", BlockedGPU},
		{"out-of-core blocked GPU", "out-of-core_blocked_gpu", OutOfCoreGPU},
	}
	if len(seed) != len(want) {
		t.Fatalf("SeedVariants has %d variants, want %d", len(seed), len(want))
	}
	for i, w := range want {
		o := seed[i].Options
		if seed[i].Label != w.label || seed[i].String() != w.label || o.Label() != w.label || seed[i].Slug() != w.slug || o.Method != w.m {
			t.Errorf("variant %d: label %q (options say %q), slug %q, method %v; want %q, %q, %v",
				i, seed[i].Label, o.Label(), seed[i].Slug(), o.Method, w.label, w.slug, w.m)
		}
		if o.Tile != 0 || o.MemoryCap != 0 || o.DistancesOnly || o.Float32 {
			t.Errorf("%s: options %+v, want only the method", w.label, o)
		}
	}
	for _, c := range []struct {
		opts Options
		want string
	}{
		{Options{}, "plain GPU"},
		{Options{Tile: 32}, "plain GPU"}, // the tile does not apply to the plain method
		{Options{Method: BlockedGPU, Tile: 32}, "blocked GPU, tile 32"},
		{Options{Method: OutOfCoreGPU, MemoryCap: 64 << 20}, "out-of-core blocked GPU, cap 64.0 MiB"},
		{Options{Method: BlockedGPU, DistancesOnly: true, Float32: true}, "blocked GPU, distances only, float32"},
	} {
		if got := c.opts.Label(); got != c.want {
			t.Errorf("Label of %+v = %q, want %q", c.opts, got, c.want)
		}
	}
	if PlainGPU.String() != "plain" || BlockedGPU.String() != "blocked" || OutOfCoreGPU.String() != "out-of-core" || Method(9).String() != "Method(9)" {
		t.Error("Method names")
	}
	for _, c := range []struct {
		opts Options
		want string
	}{
		{Options{Tile: 48}, "tile size 48"},
		{Options{Tile: -1}, "tile size -1"},
		{Options{MemoryCap: -5}, "memory cap"},
		{Options{Method: Method(7)}, "unknown GPU method"},
	} {
		err := c.opts.check()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("check(%+v) = %v, want an error mentioning %q", c.opts, err, c.want)
		}
		// Prepare applies the same rules on every device.
		if _, err := Prepare(gpu.Host(), graph.NewDenseI32(3), c.opts); err == nil {
			t.Errorf("Prepare on the host with %+v: no error", c.opts)
		}
	}
}

func TestPlanOOC(t *testing.T) {
	for _, c := range []struct {
		n, tile, planes int
		frac            float64 // the cap, as a fraction of the in-core bytes
	}{
		{1000, 64, 2, 0.5}, {1000, 64, 2, 0.3}, {1000, 64, 3, 0.2}, {100, 16, 2, 0.6}, {3353, 32, 2, 0.25}, {65536, 64, 2, 0.1}, {65536, 16, 3, 0.01},
	} {
		capBytes := int64(float64(inCoreBytes(c.n, roundUp(c.n, c.tile), c.planes)) * c.frac)
		pl, err := planOOC(c.n, c.tile, c.planes, capBytes)
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		if pl.q < 2 || pl.G < 1 || pl.G > pl.q-1 || pl.K%c.tile != 0 || pl.K*pl.q < c.n || pl.K != roundUp((c.n+pl.q-1)/pl.q, c.tile) {
			t.Errorf("%+v: plan %+v", c, pl)
		}
		if b := oocBytes(pl.K, pl.q, pl.G, c.planes); b > capBytes {
			t.Errorf("%+v: plan %+v needs %d bytes, over the cap %d", c, pl, b, capBytes)
		}
		// the fewest rounds: no smaller q fits; the most blocks per copy.
		for q := 2; q < pl.q; q++ {
			if oocBytes(roundUp((c.n+q-1)/q, c.tile), q, 1, c.planes) <= capBytes {
				t.Errorf("%+v: plan %+v, but q = %d fits", c, pl, q)
			}
		}
		if pl.G < pl.q-1 && oocBytes(pl.K, pl.q, pl.G+1, c.planes) <= capBytes {
			t.Errorf("%+v: plan %+v, but G+1 blocks fit", c, pl)
		}
	}
	if _, err := planOOC(1000, 64, 2, 1<<10); err == nil || !strings.Contains(err.Error(), "too small") {
		t.Errorf("a 1 KiB cap: %v", err)
	}
	// the units of a round cover every block outside row and column r once.
	for _, c := range []struct{ q, r, g int }{{4, 0, 1}, {4, 3, 2}, {5, 2, 3}, {7, 3, 6}, {2, 1, 1}} {
		seen := map[[2]int]int{}
		for _, u := range oocUnits(c.q, c.r, c.g) {
			if u.cnt < 1 || u.cnt > c.g || u.I == c.r {
				t.Errorf("%+v: unit %+v", c, u)
			}
			for J := u.J0; J < u.J0+u.cnt; J++ {
				if J == c.r || J >= c.q {
					t.Errorf("%+v: unit %+v covers column %d", c, u, J)
				}
				seen[[2]int{u.I, J}]++
			}
		}
		if len(seen) != (c.q-1)*(c.q-1) {
			t.Errorf("%+v: %d blocks covered, want %d", c, len(seen), (c.q-1)*(c.q-1))
		}
		for b, k := range seen {
			if k != 1 {
				t.Errorf("%+v: block %v covered %d times", c, b, k)
			}
		}
	}
}

func TestPredCycleRow(t *testing.T) {
	n := 5
	good := []int32{ // row s: 0 → 1 → 2, 0 → 3; 4 unreachable
		0, 0, 1, 0, -1,
		1, 1, 1, 1, -1,
		1, 2, 2, 2, -1,
		3, 3, 3, 3, -1,
		4, 4, 4, 4, 4,
	}
	if r := predCycleRow(good, n); r != -1 {
		t.Errorf("a valid matrix: row %d", r)
	}
	bad := slices.Clone(good)
	bad[2*n+1], bad[2*n+3] = 3, 1 // row 2: 1 ← 3 ← 1
	if r := predCycleRow(bad, n); r != 2 {
		t.Errorf("a cycle in row 2: row %d", r)
	}
	bad[0*n+2] = 7 // row 0: not a vertex
	if r := predCycleRow(bad, n); r != 0 {
		t.Errorf("an out-of-range predecessor in row 0: row %d", r)
	}
	self := slices.Clone(good)
	self[3*n+4] = 4 // row 3: 4 ← 4
	if r := predCycleRow(self, n); r != 3 {
		t.Errorf("a self-loop in row 3: row %d", r)
	}
}

func TestScanMatrix(t *testing.T) {
	rng := rand.New(rand.NewPCG(61, 62))
	for _, c := range []struct {
		name          string
		d             *graph.Dense
		neg, mayCycle bool
	}{
		{"positive int", randDense(rng, 30, 0.2, true, ints(1, 9)), false, false},
		{"zero int", randDense(rng, 30, 0.5, true, ints(0, 2)), false, true},
		{"whole floats", randDense(rng, 30, 0.2, false, ints(1, 9)), false, false},
		{"real floats", randDense(rng, 30, 0.2, false, reals(0.5, 2)), false, true},
		{"edgeless", graph.NewDenseF32(4), false, false},
	} {
		info, err := scanMatrix(c.d, "test")
		if err != nil || info.neg != c.neg || info.mayCycle != c.mayCycle || info.n != c.d.N || info.f32 != !c.d.IsInt() {
			t.Errorf("%s: %+v, %v; want neg %v, mayCycle %v", c.name, info, err, c.neg, c.mayCycle)
		}
	}
	d := randDense(rng, 20, 0.3, true, ints(0, 9))
	reweight(rng, d, 5)
	if info, _ := scanMatrix(d, "test"); !info.neg || !info.mayCycle {
		t.Errorf("negative entries: %+v", info)
	}
	big := graph.NewDenseF32(3)
	big.F32[1] = 1 << 24 // whole, but sums may round
	if info, _ := scanMatrix(big, "test"); !info.mayCycle {
		t.Errorf("float32 entries of 2^24: %+v", info)
	}
}

// ---- the CUDA source ----

func TestKernelSource(t *testing.T) {
	names := kernelNames()
	cudasrc.Check(t, "fw.cu", kernelSource, 2000, names)
	if len(names) != 25 {
		t.Errorf("kernelNames lists %d kernels, want 25", len(names))
	}
	for _, def := range []string{"FW_TILE", "FW_PRED", "FW_HOPS", "FW_NEG"} {
		if !strings.Contains(kernelSource, "#ifndef "+def) {
			t.Errorf("fw.cu has no default for %s", def)
		}
	}
}

// ---- the host device ----

func TestHostDeviceRunsTheCPU(t *testing.T) {
	host := gpu.Host()
	cases := append(gpuCases(t, true)[:3], specialCases(true)[0])
	for _, c := range cases {
		for _, v := range SeedVariants() {
			t.Run(c.name+"/"+v.Slug(), func(t *testing.T) {
				p, err := Prepare(host, c.d, v.Options)
				if err != nil {
					t.Fatal(err)
				}
				defer p.Close()
				if p.Label() != v.Label || p.Bytes() != 0 || p.Device() != host || p.Matrix() != c.d || p.Options().Method != v.Options.Method {
					t.Errorf("Prepared: label %q, %d bytes", p.Label(), p.Bytes())
				}
				if streamed, _, _, _ := p.OutOfCore(); streamed {
					t.Error("the host streams")
				}
				prepared.SetPrepTime(&p.base, prepMark)
				r, err := p.Run()
				if err != nil {
					t.Fatal(err)
				}
				if r.PrepTime < 0 || r.PrepTime >= prepMark {
					t.Errorf("PrepTime %v: want the CPU algorithm's own (≥ 0), without PrepTime()", r.PrepTime)
				}
				if !strings.Contains(r.Algorithm, "host device") || !strings.Contains(r.Algorithm, v.Label) {
					t.Errorf("Algorithm %q does not say it ran on the host for %q", r.Algorithm, v.Label)
				}
				if err := Check(c.d, r, c.d.N, 3); err != nil {
					t.Fatal(err)
				}
				if c.d.IsInt() {
					if err := sameDist(r.Dist, reference(t, c.d).Dist); err != nil {
						t.Fatal(err)
					}
				}
				if !strings.Contains(p.String(), v.Label) || !strings.Contains(p.String(), "host") {
					t.Errorf("String() = %q", p.String())
				}
			})
		}
	}
	r, err := Run(host, cases[0].d, Options{Method: BlockedGPU, DistancesOnly: true})
	if err != nil || r.Parents != nil {
		t.Errorf("DistancesOnly on the host: Parents %v, %v", r.Parents != nil, err)
	}
	checkGPUOneShot(t, host, mustGraph(t)(gen.RMAT(6, 8, gen.Seed(1), gen.Integer(9))), Options{Method: BlockedGPU})
}

func TestHostDeviceErrors(t *testing.T) {
	host := gpu.Host()
	if _, err := Prepare(nil, graph.NewDenseI32(2), Options{}); err == nil || !strings.Contains(err.Error(), "nil device") {
		t.Errorf("nil device: %v", err)
	}
	if _, err := Prepare(host, nil, Options{}); err == nil {
		t.Error("nil matrix: no error")
	}
	if _, err := Prepare(host, &graph.Dense{N: 3, I32: make([]int32, 4)}, Options{}); err == nil || !strings.Contains(err.Error(), "N·N") {
		t.Errorf("short matrix: %v", err)
	}
	negDiag := graph.NewDenseI32(3)
	negDiag.I32[4] = -1
	if _, err := Prepare(host, negDiag, Options{}); !errors.Is(err, ErrNegativeCycle) {
		t.Errorf("negative diagonal: %v", err)
	}
	if _, err := PrepareGraph(host, nil, Options{}); err == nil || !strings.Contains(err.Error(), "no graph") {
		t.Errorf("nil graph: %v", err)
	}
	p, err := Prepare(host, graph.NewDenseI32(4), Options{Method: BlockedGPU})
	if err != nil {
		t.Fatal(err)
	}
	cancel.Request()
	_, err = p.Run()
	cancel.Clear()
	if !errors.Is(err, cancel.ErrInterrupted) {
		t.Errorf("Run after cancel.Request: %v", err)
	}
	if err := p.Close(); err != nil || p.Close() != nil {
		t.Errorf("Close: %v", err)
	}
	if _, err := p.Run(); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("Run after Close: %v", err)
	}
	var nilP *Prepared
	if nilP.Close() != nil {
		t.Error("Close of nil")
	}
}

func TestPrepareGraph(t *testing.T) {
	host := gpu.Host()
	whole := mustGraph(t)(gen.RMAT(6, 8, gen.Seed(1), gen.Integer(9)))
	real := mustGraph(t)(gen.RMAT(6, 8, gen.Seed(1)))
	for _, c := range []struct {
		name  string
		g     *graph.CSR
		opts  Options
		isInt bool
	}{
		{"whole weights", whole, Options{}, true},
		{"whole weights, float32 asked", whole, Options{Float32: true}, false},
		{"real weights", real, Options{}, false},
	} {
		p, err := PrepareGraph(host, c.g, c.opts)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if p.Matrix().IsInt() != c.isInt || p.Matrix().N != c.g.NumVertices() {
			t.Errorf("%s: int32 %v, want %v", c.name, p.Matrix().IsInt(), c.isInt)
		}
		r, err := p.Run()
		if err != nil || Check(p.Matrix(), r, 8, 1) != nil {
			t.Errorf("%s: %v", c.name, err)
		}
		r2, err := RunGraph(host, c.g, c.opts)
		if err != nil || sameDist(r2.Dist, r.Dist) != nil {
			t.Errorf("%s: RunGraph differs from PrepareGraph + Run: %v", c.name, err)
		}
	}
}

func mustGraph(t testing.TB) func(*graph.CSR, error) *graph.CSR {
	return func(g *graph.CSR, err error) *graph.CSR {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
}

func TestResultCopyTime(t *testing.T) {
	r := &Result{Algorithm: "gpu blocked Floyd-Warshall (tile 64)", Dist: graph.NewDenseI32(2), Parents: make([]int32, 4),
		Tile: 64, Time: 3 * time.Millisecond, CopyTime: 2 * time.Millisecond}
	if s := r.String(); !strings.Contains(s, "3ms + copies 2ms") {
		t.Errorf("String() = %q", s)
	}
	if h := r.HTML(); !strings.Contains(h, "copies") || !strings.Contains(h, "time with copies 5ms") {
		t.Errorf("HTML lacks the copy time: %s", h)
	}
}

// ---- the Go GPU path on a fake GPU ----

// fakeConfigs are the kernel configurations (tile, pred, hops, neg, dpx,
// traced) the emulator is built for: what TestFakeGPUChild's variants
// compile. The fake device has compute capability 9.0, so its modules
// use DPX but for the generic subtest (dpxOff). The traced builds are
// those of the trace subtest's in-core runs (tile 16: with
// predecessors, distances only for the rebuild, and the hop tie-break).
var fakeConfigs = [][6]int{
	{16, 1, 0, 0, 1, 0}, {16, 1, 1, 0, 1, 0}, {16, 1, 0, 1, 1, 0}, {16, 1, 1, 1, 1, 0}, {16, 0, 0, 0, 1, 0}, {16, 0, 0, 1, 1, 0},
	{32, 1, 0, 0, 1, 0}, {64, 1, 0, 0, 1, 0}, {32, 0, 0, 0, 1, 0}, {32, 1, 1, 0, 1, 0},
	{16, 1, 0, 0, 0, 0}, {16, 0, 0, 0, 0, 0},
	{64, 0, 0, 0, 1, 0}, {64, 0, 0, 1, 1, 0},
	{16, 1, 0, 0, 1, 1}, {16, 0, 0, 0, 1, 1}, {16, 1, 1, 0, 1, 1},
}

// TestFakeGPU runs the GPU checks on small inputs through the real Go GPU
// path (Prepare, Run: compile options, uploads and downloads, argument
// packing, launch loops, the out-of-core streams, events and pinned
// memory) against package gpu's fake CUDA driver and NVRTC
// (gpu/testdata), whose cuLaunchKernel is replaced by one that runs the
// named kernel of fw.cu, in the module's configuration, on a CPU
// emulator (testdata/). It runs them in a child process, where
// gpu.Default() is the fake device. Needs gcc and g++; skipped with
// -short.
func TestFakeGPU(t *testing.T) {
	fakegpu.Run(t, "TestFakeGPUChild", 5*time.Minute, func(b *fakegpu.Builder) []string {
		noExtern := strings.ReplaceAll(kernelSource, `extern "C" `, "")
		if err := os.WriteFile(filepath.Join(b.Dir, "fw_noextern.cu"), []byte(noExtern), 0o644); err != nil {
			t.Fatal(err)
		}
		objs := make([]string, 1+len(fakeConfigs))
		objs[0] = b.CXX("testdata/fake_kernels.cpp")
		var wg sync.WaitGroup
		sem := make(chan struct{}, 2) // two compilers at a time
		for i, c := range fakeConfigs {
			key := fmt.Sprintf("%d_%d_%d_%d_%d_%d", c[0], c[1], c[2], c[3], c[4], c[5])
			wg.Add(1)
			go func() {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				objs[i+1] = b.CXX("testdata/fake_cfg.cpp",
					fmt.Sprintf("-DFW_TILE=%d", c[0]), fmt.Sprintf("-DFW_PRED=%d", c[1]), fmt.Sprintf("-DFW_HOPS=%d", c[2]), fmt.Sprintf("-DFW_NEG=%d", c[3]), fmt.Sprintf("-DFW_DPX=%d", c[4]), fmt.Sprintf("-DFW_TRACED=%d", c[5]),
					"-DCFG_NS=cfg_"+key, `-DCFG_KEY="`+key+`"`)
			}()
		}
		wg.Wait()
		return objs
	})
}

// TestFakeGPUChild is TestFakeGPU's child process.
func TestFakeGPUChild(t *testing.T) {
	dev := fakegpu.Device(t)
	cases := gpuCases(t, true)
	t.Run("variants", func(t *testing.T) { checkGPUVariants(t, dev, cases, []int{16, 32, 64}) })
	t.Run("special", func(t *testing.T) { checkGPUSpecial(t, dev, true, 16) })
	t.Run("generic", func(t *testing.T) { checkGPUGeneric(t, dev, cases, 16) })
	t.Run("tile64_distances_only", func(t *testing.T) {
		checkGPUTile64DistancesOnly(t, dev, slices.Concat(cases[:2], specialCases(true)[2:]))
	})
	t.Run("paths", func(t *testing.T) {
		defer forcePlan(4, 2)()
		checkGPUPaths(t, dev, cases[0].d, Options{Method: OutOfCoreGPU, Tile: 16, MemoryCap: 1})
	})
	t.Run("cancel", func(t *testing.T) {
		checkGPUCancel(t, dev, cases[0].d, Options{Method: BlockedGPU, Tile: 16})
		defer forcePlan(4, 1)()
		checkGPUCancel(t, dev, cases[0].d, Options{Method: OutOfCoreGPU, Tile: 16, MemoryCap: 1})
	})
	t.Run("one_shot", func(t *testing.T) {
		g := mustGraph(t)(gen.RMAT(5, 8, gen.Seed(1), gen.Integer(9)))
		checkGPUOneShot(t, dev, g, Options{Method: BlockedGPU, Tile: 16})
		defer forcePlan(4, 1)()
		checkGPUOneShot(t, dev, g, Options{Method: OutOfCoreGPU, Tile: 16, MemoryCap: 1})
	})
	t.Run("cap_errors", func(t *testing.T) {
		d := cases[0].d
		for _, m := range []Method{PlainGPU, BlockedGPU} {
			_, err := Prepare(dev, d, Options{Method: m, Tile: 16, MemoryCap: 1 << 12})
			if err == nil || !strings.Contains(err.Error(), "OutOfCoreGPU") || !strings.Contains(err.Error(), "memory cap") {
				t.Errorf("%v with a 4 KiB cap: %v", m, err)
			}
		}
		if _, err := Prepare(dev, d, Options{Method: OutOfCoreGPU, Tile: 16, MemoryCap: 1 << 10}); err == nil || !strings.Contains(err.Error(), "too small") {
			t.Errorf("out of core with a 1 KiB cap: %v", err)
		}
	})
	t.Run("trace", func(t *testing.T) {
		checkTraceOn(t, dev, traceMatrices(true), traceVariants(16))
		checkTraceOn(t, dev, plainBlockMatrices(), traceVariants(16)[:1])
		checkTraceFlip(t, dev, flipCases(true), flipVariants(16))
		checkBenchTrace(t, dev)
	})
	t.Run("rebuild", func(t *testing.T) {
		cases := rebuildCases(160)
		checkRebuild(t, dev, cases, 16)
		checkRebuild(t, dev, cases, 0)
		checkRebuildKernels(t, dev, cases, 16)
	})
	checkOneShotFreeError(t, dev)
}

// checkOneShotFreeError checks that the one-shot Run reports a failed free
// of device memory (the first of its Close) instead of dropping it.
func checkOneShotFreeError(t *testing.T, dev *gpu.Device) {
	t.Run("one_shot_free_error", func(t *testing.T) {
		d := twoComponentsDense(6, 1)
		fakegpu.FailFrees(t, 1)
		r, err := Run(dev, d, Options{})
		if r != nil || err == nil || !strings.Contains(err.Error(), "apsp: freeing the device memory of ") || !strings.Contains(err.Error(), "cuMemFree_v2") {
			t.Errorf("Run(dev, d) with a failing free: %v, %v; want the free's error", r, err)
		}
	})
}

// ---- the GPU ----

func requireGPU(t *testing.T) *gpu.Device {
	t.Helper()
	dev := gpu.Default()
	if dev.IsHost() {
		t.Skip(gpu.DefaultReason())
	}
	return dev
}

// TestGPUVariants: every variant (plain, blocked with tiles 16, 32 and
// 64, out of core in core and with caps forcing 4×4 and 5×5 blocks) on
// R-MAT, SSCA#2, path, star, disconnected, random int32 and float32
// matrices, a single vertex and none, sizes no tile divides: int32
// distances equal the CPU's Blocked bit for bit, and every result passes
// Check.
func TestGPUVariants(t *testing.T) {
	dev := requireGPU(t)
	checkGPUVariants(t, dev, gpuCases(t, false), GPUTiles)
}

// TestGPUSpecial: zero weights (the hop tie-break), negative weights, a
// negative cycle (the CPU's vertex), distances only.
func TestGPUSpecial(t *testing.T) {
	dev := requireGPU(t)
	for _, tile := range GPUTiles {
		t.Run(fmt.Sprintf("tile%d", tile), func(t *testing.T) { checkGPUSpecial(t, dev, false, tile) })
	}
}

// TestGPURome99 runs the study's road graph (3353 vertices, 8870 arcs,
// int32 metres) with every seed variant and an out-of-core cap: distances
// equal the CPU's, Check passes on sampled rows, paths add up.
func TestGPURome99(t *testing.T) {
	dev := requireGPU(t)
	d, err := readDIMACS(rome99)
	if err != nil {
		t.Fatalf("%s: %v", rome99, err)
	}
	c := gpuCase{"rome99", d}
	vs := []gpuVariant{}
	for _, v := range SeedVariants() {
		vs = append(vs, gpuVariant{Variant: v})
	}
	for _, tile := range []int{32, 64} {
		vs = append(vs, gpuVariant{Variant: Variant{fmt.Sprintf("blocked tile %d", tile), Options{Method: BlockedGPU, Tile: tile}}})
		vs = append(vs, gpuVariant{Variant: Variant{fmt.Sprintf("out of core tile %d", tile),
			Options{Method: OutOfCoreGPU, Tile: tile, MemoryCap: inCoreBytes(d.N, roundUp(d.N, tile), 2) / 3}}, streamed: true})
	}
	for _, v := range vs {
		t.Run(v.Slug(), func(t *testing.T) { checkGPUCase(t, dev, c, v) })
	}
	checkGPUPaths(t, dev, d, Options{Method: BlockedGPU})
}

// TestGPUGeneric: on a device with DPX, the generic int32 products
// (dpxOff) still give the CPU's distances and valid predecessors.
func TestGPUGeneric(t *testing.T) {
	dev := requireGPU(t)
	checkGPUGeneric(t, dev, gpuCases(t, false), DefaultGPUTile)
}

// TestGPUCancel: an interrupted run fails with cancel.ErrInterrupted; the
// next one works.
func TestGPUCancel(t *testing.T) {
	dev := requireGPU(t)
	d := gpuCases(t, false)[0].d
	checkGPUCancel(t, dev, d, Options{Method: PlainGPU})
	checkGPUCancel(t, dev, d, Options{Method: BlockedGPU})
	checkGPUCancel(t, dev, d, Options{Method: OutOfCoreGPU, MemoryCap: inCoreBytes(d.N, roundUp(d.N, DefaultGPUTile), 2) / 3})
}

// TestGPUOneShot: the one-shot Run's and RunGraph's PrepTime include the
// preparation.
func TestGPUOneShot(t *testing.T) {
	dev := requireGPU(t)
	g := mustGraph(t)(gen.RMAT(9, 8, gen.Seed(1), gen.Integer(9)))
	for _, v := range SeedVariants() {
		t.Run(v.Slug(), func(t *testing.T) { checkGPUOneShot(t, dev, g, v.Options) })
	}
}
