package densebf

import (
	_ "embed"
	"fmt"
	"math"
	"math/bits"

	"github.com/graphnb/graphnb/algo/internal/devcheck"
	"github.com/graphnb/graphnb/algo/internal/prepared"
	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph"
)

// checkBody is the device check (check.cu), a module of its own: it
// shares no code with the iterations of densebf.cu.
//
//go:embed check.cu
var checkBody string

// checkSource is what NVRTC compiles: the shared helpers of
// algo/internal/devcheck (check.cuh), then check.cu.
var checkSource = devcheck.Source(checkBody)

var checkModule = gpu.ModuleCache{Name: "densebf_check.cu", Source: checkSource}

// Kernel names, sizes and control words of check.cu (a test compares them).
const (
	kCkVerticesI32 = "dbfck_vertices_i32"
	kCkVerticesF32 = "dbfck_vertices_f32"
	kCkJump        = "dbfck_jump"
	kCkFinal       = "dbfck_final"
	kCkBoundI32    = "dbfck_bound_i32"
	kCkBoundF32    = "dbfck_bound_f32"

	ckBlock = 256              // CK_BLOCK
	ckTile  = 256              // CK_TILE
	ckErr   = devcheck.ErrWord // CK_ERR
	ckWords = 1                // CK_WORDS
	ckNone  = devcheck.None
)

var checkKernelNames = []string{kCkVerticesI32, kCkVerticesF32, kCkJump, kCkFinal, kCkBoundI32, kCkBoundF32}

// Rules of check.cu, in the order they are reported.
const (
	ruleSource = 1 + iota
	ruleReach
	ruleTree
	ruleParentArc
	ruleBound
)

// checkState is the device memory of Check, allocated by the first Check
// of a Prepared and kept with it: the result's distances and parents, the
// pointer-jumping ancestors and the control word.
type checkState struct {
	fn      map[string]*gpu.Function
	dist    *gpu.Float64s
	parents *gpu.Int32s
	anc     *gpu.Int32s
	ctl     *gpu.Uint64s
}

// Checker names the checker Check runs on this Prepared: "device" on a
// GPU, "cpu" on the host device (where Check is the package's Check).
func (p *Prepared) Checker() string { return devcheck.Checker(p.Device().IsHost()) }

// Check validates r, a result of p's matrix, on the device that holds the
// matrix, by the shortest-path certificate — a different method from the
// iterations that computed it, tested in full (no sampling): every
// vertex and every one of the N² entries once.
//
//   - source: Dist[src] = 0 and Parents[src] = src;
//   - reach: every other distance is +Inf with parent -1, or a value of
//     the matrix's type (a float32 value; an integer in (−InfI32,
//     InfI32)) whose parent p ≠ v is a vertex with such a distance;
//   - parent tree: following Parents from every reached vertex leads to
//     src (pointer jumping, ⌈log₂ N⌉+1 rounds);
//   - parent arc: w(p, v) is an edge and Dist[v] = Dist[p] + w(p, v)
//     exactly, summed in the matrix's arithmetic (one float32 addition,
//     or exact integers);
//   - bound: no entry can still shorten a distance: Dist[v] ≤ Dist[u] +
//     w(u, v) for every edge u→v (u ≠ v) from a reached u, in the same
//     arithmetic (an int32 sum ≥ InfI32 bounds nothing).
//
// Together they prove Dist exact: each distance is the float32 (or
// integer) sum along its parent path, and no path sums lower, because
// x ↦ fl(x + w) is monotone. They are the rules Check's reference
// comparison and parent rules imply, so both checkers accept the results
// Run computes; with negative float32 weights, where Check compares with
// a float64 reference within a tolerance, the device check is exact and
// may reject a distance Check's tolerance accepts.
//
// The result's Dist and Parents are uploaded (12 bytes per vertex) and
// checked against the matrix already on the device; nothing comes back
// but one control word. The first check allocates 16 bytes per vertex,
// kept until Close. A failure is an error naming the rule and the lowest
// offending vertex or entry (u, v) of the first rule broken, in the order
// above, e.g. "densebf: device check: bound: edge 3→7 (weight 0.5) gives
// vertex 7 the distance 1 + 0.5 = 1.5, shorter than Dist[7] = 2". On the
// host device it is Check(d, r.Source, r). It is serialised with Run.
func (p *Prepared) Check(r *Result) error {
	if p.Device().IsHost() {
		if r == nil {
			return fmt.Errorf("densebf: Check: no result (nil)")
		}
		return Check(p.d, r.Source, r)
	}
	n := p.n
	switch {
	case r == nil:
		return fmt.Errorf("densebf: device check: no result")
	case len(r.Dist) != n || len(r.Parents) != n:
		return fmt.Errorf("densebf: device check: result has %d distances and %d predecessors, want %d of each", len(r.Dist), len(r.Parents), n)
	case r.Source < 0 || int(r.Source) >= n:
		return fmt.Errorf("densebf: device check: source %d is not a vertex of this %d-vertex matrix", r.Source, n)
	}
	prepared.Lock(&p.base)
	defer prepared.Unlock(&p.base)
	if err := prepared.Open(&p.base); err != nil {
		return err
	}
	ck, err := p.checkState()
	if err != nil {
		return fmt.Errorf("densebf: device check: %w", err)
	}
	key, err := p.checkDevice(ck, r)
	if err != nil {
		return fmt.Errorf("densebf: device check of %s from %d: %w", p.Label(), r.Source, err)
	}
	if key != ckNone {
		return checkFailure(p.d, r, key)
	}
	return nil
}

// checkState returns the check's buffers, allocating them on first use.
func (p *Prepared) checkState() (*checkState, error) {
	if p.ck != nil {
		return p.ck, nil
	}
	fn, err := checkModule.Functions(p.Device(), checkKernelNames)
	if err != nil {
		return nil, err
	}
	ck := &checkState{fn: fn}
	mem, n := p.mem, p.n
	if ck.dist, err = mem.AllocFloat64s(n); err != nil {
		return nil, err
	}
	for _, b := range []**gpu.Int32s{&ck.parents, &ck.anc} {
		if *b, err = mem.AllocInt32s(n); err != nil {
			return nil, err
		}
	}
	if ck.ctl, err = mem.AllocUint64s(ckWords); err != nil {
		return nil, err
	}
	p.ck = ck
	return ck, nil
}

// checkGrid is the grid of a grid-stride check kernel over items.
func checkGrid(items int64) gpu.Dim {
	return gpu.D1(int(max(1, min((items+ckBlock-1)/ckBlock, 4096))))
}

// checkDevice uploads r and runs check.cu; it returns the failure key
// (ckNone: none).
func (p *Prepared) checkDevice(ck *checkState, r *Result) (uint64, error) {
	n, src, fn := int64(p.n), r.Source, ck.fn
	var trans int32
	if p.opts.Method == ReduceCoarse {
		trans = 1
	}
	vertices, bound := fn[kCkVerticesI32], fn[kCkBoundI32]
	if p.f32 {
		vertices, bound = fn[kCkVerticesF32], fn[kCkBoundF32]
	}
	tiles := ((n + ckBlock - 1) / ckBlock) * ((n + ckTile - 1) / ckTile)
	block := gpu.D1(ckBlock)
	ctl := devcheck.Initial(ckWords)
	err := p.Device().Exec(func(t *gpu.Thread) error {
		if err := ck.dist.Upload(r.Dist); err != nil {
			return err
		}
		if err := ck.parents.Upload(r.Parents); err != nil {
			return err
		}
		if err := ck.ctl.Upload(ctl); err != nil {
			return err
		}
		vgrid := checkGrid(n)
		if err := t.Launch(vertices, vgrid, block, 0, p.matrixArg(), trans, n, src, ck.dist, ck.parents, ck.anc, ck.ctl); err != nil {
			return err
		}
		if err := t.Launch(bound, gpu.D1(int(min(tiles, 1<<16))), block, 0, p.matrixArg(), trans, n, ck.dist, ck.ctl); err != nil {
			return err
		}
		for range bits.Len(uint(n)) + 1 {
			if err := t.Launch(fn[kCkJump], vgrid, block, 0, ck.anc, n); err != nil {
				return err
			}
		}
		if err := t.Launch(fn[kCkFinal], vgrid, block, 0, ck.dist, ck.anc, n, src, ck.ctl); err != nil {
			return err
		}
		return ck.ctl.Download(ctl)
	})
	return ctl[0], err
}

// checkFailure words the failure key of check.cu from the matrix and the
// result on the host.
func checkFailure(d *graph.Dense, r *Result, key uint64) error {
	rule, idx := devcheck.Rule(key), int(devcheck.Index(key))
	n := d.N
	dist := func(v int) float64 {
		if v < 0 || v >= n {
			return math.NaN()
		}
		return r.Dist[v]
	}
	var msg string
	switch rule {
	case ruleSource:
		msg = fmt.Sprintf("source: Dist[%d] = %v and Parents[%d] = %d, want 0 and the source itself", idx, r.Dist[idx], idx, r.Parents[idx])
	case ruleReach:
		p := int(r.Parents[idx])
		msg = fmt.Sprintf("reach: vertex %d has distance %v and parent %d (of distance %v): want +Inf and -1, or a %s distance and a reached parent other than %d",
			idx, r.Dist[idx], p, dist(p), elemType(d), idx)
	case ruleTree:
		msg = fmt.Sprintf("parent tree: following Parents from vertex %d (parent %d) does not reach source %d (a cycle)", idx, r.Parents[idx], r.Source)
	case ruleParentArc:
		p := int(r.Parents[idx])
		w := d.At(p, idx)
		if math.IsInf(w, 1) {
			msg = fmt.Sprintf("parent arc: vertex %d has parent %d, but the matrix has no edge %d→%d", idx, p, p, idx)
		} else {
			msg = fmt.Sprintf("parent arc: vertex %d has parent %d, but Dist[%d] + w(%d,%d) = %v + %v = %v ≠ Dist[%d] = %v",
				idx, p, p, p, idx, r.Dist[p], w, sum(d, r.Dist[p], w), idx, r.Dist[idx])
		}
	case ruleBound:
		u, v := idx/n, idx%n
		w := d.At(u, v)
		msg = fmt.Sprintf("bound: edge %d→%d (weight %v) gives vertex %d the distance %v + %v = %v, shorter than Dist[%d] = %v",
			u, v, w, v, r.Dist[u], w, sum(d, r.Dist[u], w), v, r.Dist[v])
	default:
		msg = fmt.Sprintf("unknown failure %#x", key)
	}
	return fmt.Errorf("densebf: device check: %s", msg)
}

// elemType names the matrix's element type.
func elemType(d *graph.Dense) string {
	if d.IsInt() {
		return "int32"
	}
	return "float32"
}

// sum is a + w in the matrix's arithmetic, as check.cu adds.
func sum(d *graph.Dense, a, w float64) float64 {
	if d.IsInt() {
		return a + w
	}
	return float64(float32(a) + float32(w))
}
