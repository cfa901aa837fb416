package apsp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/internal/fakegpu"
)

// rebuiltNote is what Result.Algorithm says of a run that rebuilt the
// predecessors from the distances.
const rebuiltNote = "predecessors rebuilt from distances"

// rebuildCase is a matrix and whether a run with predecessors rebuilds
// them (sparse, every finite off-diagonal weight positive).
type rebuildCase struct {
	name    string
	d       *graph.Dense
	rebuild bool
}

// rebuildCases are sparse matrices (density below 1/32) of both element
// types, positive and with zero weights, and a dense one, of about n
// vertices (n ≥ 160). What they expect holds under the density limits
// of withRebuildLimits.
func rebuildCases(n int) []rebuildCase {
	rng := rand.New(rand.NewPCG(71, 72))
	return []rebuildCase{
		{"sparse_int", randDense(rng, n, 0.015, true, ints(1, 30)), true},
		{"sparse_float_whole", randDense(rng, n+1, 0.015, false, ints(1, 30)), true},
		{"sparse_float_real", randDense(rng, n+2, 0.015, false, reals(0.25, 9)), true},
		{"sparse_zero_weights_int", randDense(rng, n+3, 0.015, true, ints(0, 3)), false},
		{"dense_int", randDense(rng, n/4+5, 0.2, true, ints(1, 30)), false},
		{"untight_first_int", untightFirst(n, true), true},
		{"untight_first_float", untightFirst(n+1, false), true},
		{"ties_torus_int", tiedTorus(n, true), true},
		{"ties_torus_float", tiedTorus(n+1, false), true},
		{"hub_int", withHub(randDense(rng, n+4, 0.01, true, ints(1, 30)), rng), true},
		{"hub_float", withHub(randDense(rng, n+5, 0.01, false, reals(0.5, 2)), rng), true},
	}
}

// withHub gives vertex 3 of d an in-arc from every other vertex, of
// weight 1 to 3 (many equal sums): a column whose arcs fill several
// chunks of 32 of fw_rebuild_warp.
func withHub(d *graph.Dense, rng *rand.Rand) *graph.Dense {
	const hub = 3
	for k := range d.N {
		if k == hub {
			continue
		}
		w := 1 + rng.IntN(3)
		if d.I32 != nil {
			d.I32[k*d.N+hub] = int32(w)
		} else {
			d.F32[k*d.N+hub] = float32(w)
		}
	}
	return d
}

// tiedTorus is a directed torus of side ⌊√n⌋ (n is only a bound) with
// arcs of weight 1 to the right and downwards: every vertex not in the
// source's row or column has two tight in-arcs (from the left and from
// above) on shortest paths, so the rebuild's tie-break decides which is
// the predecessor (the first in tail order).
func tiedTorus(n int, integer bool) *graph.Dense {
	side := int(math.Sqrt(float64(n)))
	n = side * side
	d := graph.NewDenseI32(n)
	if !integer {
		d = graph.NewDenseF32(n)
	}
	for y := range side {
		for x := range side {
			v := y*side + x
			for _, u := range []int{y*side + (x+1)%side, (y+1)%side*side + x} {
				if integer {
					d.I32[v*n+u] = 1
				} else {
					d.F32[v*n+u] = 1
				}
			}
		}
	}
	return d
}

// rebuildOracle is what the rebuild must give for r's distances on d:
// Parents[i][i] = i, −1 where D[i][j] is infinite, else among the in-arcs
// k → j in tail order the one of least D[i][k] + W[k][j] (in the matrix's
// type, as fw.cu adds), the first among equals.
func rebuildOracle(d *graph.Dense, r *Result) []int32 {
	n := d.N
	out := make([]int32, n*n)
	for i := range n {
		for j := range n {
			out[i*n+j] = oracleParent(d, r.Dist, i, j)
		}
	}
	return out
}

// oracleParent is rebuildOracle's entry (i, j).
func oracleParent(d, dist *graph.Dense, i, j int) int32 {
	n := d.N
	if i == j {
		return int32(i)
	}
	best := int32(-1)
	if d.I32 != nil {
		least := graph.InfI32
		for k := range n {
			if w := d.I32[k*n+j]; k != j && w < graph.InfI32 {
				if s := dist.I32[i*n+k] + w; s < least {
					least, best = s, int32(k)
				}
			}
		}
		if dist.I32[i*n+j] >= graph.InfI32 {
			return -1
		}
		return best
	}
	least := float32(math.Inf(1))
	for k := range n {
		if w := d.F32[k*n+j]; k != j && !math.IsInf(float64(w), 1) {
			if s := dist.F32[i*n+k] + w; s < least {
				least, best = s, int32(k)
			}
		}
	}
	if math.IsInf(float64(dist.F32[i*n+j]), 1) {
		return -1
	}
	return best
}

// rebuildPlans are the rebuild's kernels the tests and benchmarks force:
// fw_rebuild, then each staged kernel with 1 to rebuildMaxRows rows.
func rebuildPlans() []rebuildPlan {
	out := []rebuildPlan{{rebuildGrid, -1}}
	for _, k := range []rebuildKernel{rebuildRows, rebuildWarp} {
		for rows := 1; rows <= rebuildMaxRows; rows++ {
			out = append(out, rebuildPlan{k, rows})
		}
	}
	return out
}

// checkRebuildKernels runs each rebuilding case of cases (tile, 0 for the
// default) with each of rebuildPlans (rebuildForce), and the staged
// kernels also with blocks of 64 threads (rebuildMaxBlock: a warp, a
// thread, takes several groups of columns, columns); each must take the
// plan rebuildPlanFor gives for the device and give rebuildOracle's
// predecessors for its distances, entry for entry (int32: the first tight
// in-arc; a float32 run that fell back to the hop tie-break aside).
func checkRebuildKernels(t *testing.T, dev *gpu.Device, cases []rebuildCase, tile int) {
	defer withRebuildLimits(1.0/32, 1.0/32)()
	in, err := dev.Info()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if !c.rebuild {
			continue
		}
		type run struct {
			force rebuildPlan
			block int // rebuildMaxBlock
		}
		var runs []run
		for _, f := range rebuildPlans() {
			runs = append(runs, run{f, rebuildMaxBlock})
			if f.kernel != rebuildGrid && f.rows == 3 {
				runs = append(runs, run{f, 64})
			}
		}
		for _, x := range runs {
			force, block := x.force, x.block
			t.Run(fmt.Sprintf("%s/tile%d/%v/block%d", c.name, tile, force, block), func(t *testing.T) {
				defer withRebuildPlan(force)()
				defer func(saved int) { rebuildMaxBlock = saved }(rebuildMaxBlock)
				rebuildMaxBlock = block
				p, r := prepareRun(t, dev, c.d, Options{Method: BlockedGPU, Tile: tile})
				if want := rebuildPlanFor(p.np, in.MaxSharedPerBlockOptin, force); !p.rebuild || p.rebuildPlan != want {
					t.Fatalf("rebuild %v with %v; want a rebuild with %v", p.rebuild, p.rebuildPlan, want)
				}
				if p.k.rebuildBlock > block {
					t.Fatalf("%v: blocks of %d threads, above the cap of %d", p.rebuildPlan, p.k.rebuildBlock, block)
				}
				if !strings.Contains(r.Algorithm, rebuiltNote) || p.fallback != nil {
					return // float32 sums closed a cycle: the hop tie-break's predecessors
				}
				want := rebuildOracle(c.d, r)
				for e, got := range r.Parents {
					if got != want[e] {
						t.Fatalf("%s, %v: Parents[%d][%d] = %d, want %d", r.Algorithm, p.rebuildPlan, e/c.d.N, e%c.d.N, got, want[e])
					}
				}
			})
		}
	}
}

// withRebuildPlan sets rebuildForce until the returned function restores
// it.
func withRebuildPlan(force rebuildPlan) func() {
	saved := rebuildForce
	rebuildForce = force
	return func() { rebuildForce = saved }
}

// TestRebuildPlanFor: the rebuild's kernel and rows by the padded side and
// the opt-in shared memory (an H100's 227 KiB), and the overrides.
func TestRebuildPlanFor(t *testing.T) {
	const h100 = 232448
	saved := rebuildAuto
	defer func() { rebuildAuto = saved }()
	rebuildAuto = rebuildPlan{rebuildWarp, 2}
	none := rebuildPlan{}
	for _, c := range []struct {
		np, smem    int
		force, want rebuildPlan
	}{
		{16384, h100, none, rebuildPlan{rebuildWarp, 2}},
		{16384, h100, rebuildPlan{rebuildRows, 4}, rebuildPlan{rebuildRows, 3}}, // 4 rows need 256 KiB
		{16384, h100, rebuildPlan{rebuildRows, 1}, rebuildPlan{rebuildRows, 1}},
		{16384, h100, rebuildPlan{rebuildGrid, -1}, none},
		{32768, h100, none, rebuildPlan{rebuildWarp, 1}},
		{58112, h100, none, rebuildPlan{rebuildWarp, 1}},
		{58176, h100, none, none}, // not one row fits: fw_rebuild
		{160, h100, rebuildPlan{rebuildWarp, 3}, rebuildPlan{rebuildWarp, 3}},
		{160, h100, rebuildPlan{rebuildRows, 9}, rebuildPlan{rebuildRows, rebuildMaxRows}},
		{160, 0, none, none}, // no shared memory known
		{0, h100, none, none},
	} {
		if got := rebuildPlanFor(c.np, c.smem, c.force); got != c.want {
			t.Errorf("rebuildPlanFor(%d, %d, %v) = %v, want %v", c.np, c.smem, c.force, got, c.want)
		}
	}
	for _, c := range []struct {
		p    rebuildPlan
		want string
	}{{none, "grid"}, {rebuildPlan{rebuildRows, 2}, "rows2"}, {rebuildPlan{rebuildWarp, 3}, "warp3"}} {
		if got := c.p.String(); got != c.want {
			t.Errorf("%#v.String() = %q, want %q", c.p, got, c.want)
		}
	}
}

// untightFirst is a matrix where the first and the last in-arc of every
// column j ≥ 2 (tails 0 and n−1, in tail order) are never tight: a path
// 0 → 1 → … → n−1 of weight-1 arcs, an arc n−1 → 0 of weight 1, and arcs
// 0 → j and n−1 → j of weight 2n + j. The only tight in-arc of j on a
// shortest path from 0 is j−1 → j, so Parents[0][j] = j−1. A rebuild that
// took an arc without checking it (the first, the last) fails.
func untightFirst(n int, integer bool) *graph.Dense {
	d := graph.NewDenseI32(n)
	if !integer {
		d = graph.NewDenseF32(n)
	}
	set := func(i, j, w int) {
		if integer {
			d.I32[i*n+j] = int32(w)
		} else {
			d.F32[i*n+j] = float32(w)
		}
	}
	for j := 1; j < n; j++ {
		set(j-1, j, 1)
	}
	set(n-1, 0, 1)
	for j := 2; j < n-1; j++ {
		set(0, j, 2*n+j)
		set(n-1, j, 2*n+j)
	}
	return d
}

// checkRebuild runs each case with predecessors (tile, 0 for the
// default) and with PredecessorsInProduct: the first rebuilds exactly
// when the case says so, and says so in Algorithm; the second never
// does; both give the CPU's int32 distances (float32 within Check's
// tolerance), pass Check on every row and Prepared.Check (on a GPU), and their paths
// weigh the CPU's distances.
func checkRebuild(t *testing.T, dev *gpu.Device, cases []rebuildCase, tile int) {
	defer withRebuildLimits(1.0/32, 1.0/32)()
	for _, c := range cases {
		for _, old := range []bool{false, true} {
			o := Options{Method: BlockedGPU, Tile: tile, PredecessorsInProduct: old}
			t.Run(fmt.Sprintf("%s/tile%d/predecessors_in_product_%v", c.name, tile, old), func(t *testing.T) {
				p, r := prepareRun(t, dev, c.d, o)
				want := c.rebuild && !old
				if p.rebuild != want || strings.Contains(r.Algorithm, rebuiltNote) != want {
					t.Fatalf("rebuild %v, Algorithm %q; want rebuild %v", p.rebuild, r.Algorithm, want)
				}
				if want && tile == 0 && r.Tile != DefaultDistancesTile {
					t.Errorf("a rebuilding run with the default tile used tile %d, want %d", r.Tile, DefaultDistancesTile)
				}
				if !want && tile == 0 && r.Tile != DefaultGPUTile {
					t.Errorf("the products with predecessors and the default tile used tile %d, want %d", r.Tile, DefaultGPUTile)
				}
				ref := reference(t, c.d)
				if err := agreeDist(c.d, r.Dist, ref.Dist); err != nil {
					t.Fatalf("%s: %v", r.Algorithm, err)
				}
				if err := Check(c.d, r, c.d.N, 5); err != nil {
					t.Fatalf("%s: %v", r.Algorithm, err)
				}
				if !fakegpu.IsChild() { // the fake GPU links check.cu in TestFakeGPUDeviceCheck only
					if err := p.Check(r, 8, 5); err != nil {
						t.Fatalf("%s: device check: %v", r.Algorithm, err)
					}
				}
				checkPathWeights(t, c.d, r, ref)
				if strings.HasPrefix(c.name, "untight_first") {
					for j := 2; j < c.d.N; j++ {
						if got := r.Parents[j]; got != int32(j-1) {
							t.Fatalf("%s: Parents[0][%d] = %d, want %d (the only tight in-arc)", r.Algorithm, j, got, j-1)
						}
					}
				}
			})
		}
	}
}

// checkPathWeights follows r's predecessors between every pair: the
// path's arcs add up to the CPU's distance (float32: within Check's
// tolerance), and unreachable pairs have no path.
func checkPathWeights(t *testing.T, d *graph.Dense, r, ref *Result) {
	t.Helper()
	n := d.N
	chk := &checker{d: d, n: n}
	for i := range n {
		for j := range n {
			want := ref.Dist.At(i, j)
			path, sum, ok := walkPath(t, d, r, i, j, math.IsInf(want, 1))
			if !ok {
				continue
			}
			if d.IsInt() && sum != want || !d.IsInt() && !chk.agree(sum, want) {
				t.Fatalf("Path(%d, %d) = %v weighs %v, the CPU's distance is %v", i, j, path, sum, want)
			}
		}
	}
}

// withRebuildLimits sets the density limits of the rebuild until the
// returned function restores them.
func withRebuildLimits(i32, f32 float64) func() {
	si, sf := rebuildMaxDensityI32, rebuildMaxDensityF32
	rebuildMaxDensityI32, rebuildMaxDensityF32 = i32, f32
	return func() { rebuildMaxDensityI32, rebuildMaxDensityF32 = si, sf }
}

// TestRebuildChoice: which preparations rebuild, without a device
// (rebuildCandidate and the options' tiles), and the density limits: a
// matrix at a limit rebuilds, one arc more does not.
func TestRebuildChoice(t *testing.T) {
	for _, f32 := range []bool{false, true} {
		limit := rebuildMaxDensityI32
		if f32 {
			limit = rebuildMaxDensityF32
		}
		const n = 1000
		atLimit := int64(limit * n * n)
		for _, c := range []struct {
			arcs int64
			want bool
		}{{atLimit, true}, {atLimit + 1, false}} {
			p := &Prepared{opts: Options{Method: BlockedGPU}, info: matrixInfo{n: n, f32: f32, arcs: c.arcs}}
			if got := p.rebuildCandidate(false); got != c.want {
				t.Errorf("float32 %v, %d arcs on %d vertices (limit %v): rebuild %v, want %v", f32, c.arcs, n, limit, got, c.want)
			}
		}
	}
	for _, small := range []bool{true, false} {
		// the traces' sparse matrix must take the rebuild (trace_test.go).
		d := traceMatrices(small)[2].d
		info, err := scanMatrix(d, "test")
		if p := (&Prepared{opts: Options{Method: BlockedGPU}, info: info}); err != nil || !p.rebuildCandidate(false) {
			t.Errorf("the traces' sparse matrix of %d vertices (%d arcs) does not rebuild: %v", d.N, info.arcs, err)
		}
	}
	defer withRebuildLimits(1.0/32, 1.0/32)()
	for _, c := range rebuildCases(160) {
		info, err := scanMatrix(c.d, "test")
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range []struct {
			opts Options
			want bool
		}{
			{Options{Method: BlockedGPU}, c.rebuild},
			{Options{Method: OutOfCoreGPU, Tile: 16}, c.rebuild},
			{Options{Method: PlainGPU}, false},
			{Options{Method: BlockedGPU, DistancesOnly: true}, false},
			{Options{Method: BlockedGPU, PredecessorsInProduct: true}, false},
		} {
			p := &Prepared{opts: o.opts, info: info}
			if got := p.rebuildCandidate(false); got != o.want {
				t.Errorf("%s, %+v: rebuild %v, want %v", c.name, o.opts, got, o.want)
			}
			if p.rebuildCandidate(true) {
				t.Errorf("%s, %+v: the hop tie-break rebuilds", c.name, o.opts)
			}
		}
	}
	for _, c := range []struct {
		opts Options
		pred bool
		want int
	}{
		{Options{Method: BlockedGPU}, true, DefaultGPUTile},
		{Options{Method: BlockedGPU}, false, DefaultDistancesTile},
		{Options{Method: OutOfCoreGPU}, false, DefaultDistancesTile},
		{Options{Method: PlainGPU}, false, DefaultGPUTile},
		{Options{Method: BlockedGPU, Tile: 16}, false, 16},
	} {
		if got := c.opts.productTile(c.pred); got != c.want {
			t.Errorf("%+v, predecessors %v: tile %d, want %d", c.opts, c.pred, got, c.want)
		}
	}
	if got := (Options{Method: BlockedGPU, PredecessorsInProduct: true}).Label(); got != "blocked GPU, predecessors in product" {
		t.Errorf("Label = %q", got)
	}
}

// TestGPURebuild: on a GPU, the rebuild against the products with
// predecessors on sparse, zero-weight and dense matrices, tiles 32 and
// the default, and each rebuild kernel against rebuildOracle.
func TestGPURebuild(t *testing.T) {
	dev := requireGPU(t)
	cases := rebuildCases(300)
	checkRebuild(t, dev, cases, 0)
	checkRebuild(t, dev, cases, 32)
	checkRebuildKernels(t, dev, cases, 0)
}
