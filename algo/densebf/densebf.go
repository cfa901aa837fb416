package densebf

import (
	"errors"
	"fmt"
	"math"
	"sync/atomic"
	"time"

	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/internal/membudget"
	"github.com/graphnb/graphnb/internal/par"
	"github.com/graphnb/graphnb/trace"
)

// Result is the outcome of one single-source run. CPU and GPU variants
// fill the same fields; Check validates one against its matrix.
type Result struct {
	// Algorithm names the implementation and variant, e.g.
	// "cpu Bellman-Ford (dense pull)".
	Algorithm string
	// Source is the start vertex.
	Source int32
	// Dist[v] is the shortest distance from Source to v, +Inf when v is
	// unreachable. Values were computed in the matrix's arithmetic
	// (float32 or int32) and then widened to float64 exactly.
	Dist []float64
	// Parents[v] is v's predecessor on a shortest path (the study's η), -1
	// when v is unreachable; Parents[Source] = Source.
	Parents []int32
	// Iterations is the number of sweeps over the matrix, the last one
	// (which changed nothing) included.
	Iterations int
	// Time is the iterations, excluding PrepTime and CopyTime: on a GPU,
	// the kernels (initialisation and iterations, with the flag reads
	// between them), measured with CUDA events.
	Time time.Duration
	// PrepTime is the preparation excluded from Time: validating and
	// transposing the matrix (so each vertex's in-edges are contiguous:
	// the study's BF_Reduce_Coarse layout). A GPU Prepared.Run prepares
	// nothing per run and reports 0 (on the host device, the CPU Run's
	// own); Prepare's time, spent once, is Prepared.PrepTime, which the
	// one-shot RunGPU adds.
	PrepTime time.Duration
	// CopyTime is what host↔device copies add to Time on a GPU: the
	// matrix upload (measured once, during Prepare) and this run's
	// download of the distances and parents. Time + CopyTime is the
	// study's measure, the time with copies. Zero on the CPU.
	CopyTime time.Duration
	// Trace is the run's record when Options.Trace asked for one (nil
	// otherwise, and always for the CPU's Run): Algorithm as above, Arcs
	// N² (the matrix's entries, each a possible arc, so WorkEfficiency
	// is the number of passes over the matrix, Iterations), Time the
	// run's Time, and one step of Kind "iteration" per iteration, in
	// order: Inspected the matrix entries it read (N²), Updated the
	// vertices whose distance it lowered (the same counts on the CPU and
	// the GPU, whose iterations compute the same distances; the last
	// step's is 0: the run stops after an iteration that lowers
	// nothing), Frontier and FrontierArcs 0 (every iteration reads every
	// entry), Time its time (GPU: its launch's, by the GPU's own clock
	// through gpu.LaunchLog — see Options.Trace; CPU: wall time). A GPU
	// trace's Launches are the
	// initialisation (step -1) and one launch per step; the idle
	// launches of a FlagInterval above 1 (launched after the last one,
	// before the flag read that ends the run) are not listed, but their
	// time, like the flag reads', is in the run's Time. Achieved
	// bandwidth of step i: BytesPerIteration(N, options) ÷
	// Steps[i].Time.
	Trace *trace.Trace
}

// String summarises the result in one line.
func (r *Result) String() string {
	if r == nil {
		return "densebf: <nil result>"
	}
	reached := 0
	for _, d := range r.Dist {
		if !math.IsInf(d, 1) {
			reached++
		}
	}
	return fmt.Sprintf("%s from %d: reached %d of %d vertices in %d iterations, %v (prep %v)",
		r.Algorithm, r.Source, reached, len(r.Dist), r.Iterations,
		r.Time.Round(time.Microsecond), r.PrepTime.Round(time.Microsecond))
}

// ErrNegativeCycle is matched (errors.Is) by every NegativeCycleError.
var ErrNegativeCycle = errors.New("negative cycle")

// NegativeCycleError reports a negative cycle reachable from the source:
// shortest distances are not defined. Vertex lies on the cycle.
type NegativeCycleError struct {
	Source, Vertex int32
}

func (e *NegativeCycleError) Error() string {
	return fmt.Sprintf("densebf: a negative cycle through vertex %d is reachable from %d, so shortest distances are undefined", e.Vertex, e.Source)
}

// Unwrap returns ErrNegativeCycle.
func (e *NegativeCycleError) Unwrap() error { return ErrNegativeCycle }

// inspect validates d (see graph.Dense.Inspect) and src, and reports
// whether d has a negative entry and the largest absolute finite entry.
func inspect(d *graph.Dense, src int32, who string) (neg bool, maxAbs float64, err error) {
	info, err := d.Inspect()
	if err != nil {
		return false, 0, fmt.Errorf("densebf: %s: %w", who, err)
	}
	if src < 0 || int(src) >= d.N {
		return false, 0, fmt.Errorf("densebf: %s: source %d is not a vertex of this %d-vertex matrix (use 0..%d)", who, src, d.N, d.N-1)
	}
	return info.Negative, info.MaxAbs, nil
}

// Run computes shortest distances from src over the matrix d by the
// study's dense pull Bellman-Ford (see the package doc): every iteration
// takes, for each vertex v in parallel, the minimum and argmin over j of
// σ(j) + edge[j→v] from the previous iteration's σ. It stops after an
// iteration that changes nothing; a change in iteration N means a
// negative cycle reachable from src, reported as a *NegativeCycleError
// naming a vertex on it (found by walking Parents N steps from a vertex
// that changed: a cycle of Parents always has negative weight). Diagonal
// entries ≥ 0 are ignored; a negative one is a negative self-loop.
//
// Work is O(N²) per iteration and at most N iterations (a shortest path
// has at most N−1 edges); memory is the transposed matrix (4·N² bytes)
// plus O(N). d is not modified. Run returns an error for a malformed
// matrix (not exactly one of F32/I32, length not N·N, NaN or −Inf
// entries, int32 entries ≤ −InfI32, negative int32 weights whose paths
// could leave (−InfI32, InfI32)), a source outside [0, N), and, wrapped,
// cancel.ErrInterrupted, polled every iteration.
func Run(d *graph.Dense, src int32) (*Result, error) { return run(d, src, false) }

// run is Run, with traced a Result.Trace of one step per iteration (the
// GPU's host stand-in, Options.Trace).
func run(d *graph.Dense, src int32, traced bool) (*Result, error) {
	t0 := time.Now()
	neg, _, err := inspect(d, src, "Run")
	if err != nil {
		return nil, err
	}
	n := d.N
	// The transposed copy of the matrix.
	if err := membudget.Check(fmt.Sprintf("densebf: Run on %d vertices", n), membudget.Bytes(int64(n)*int64(n), 4)); err != nil {
		return nil, err
	}
	r := &Result{Algorithm: "cpu Bellman-Ford (dense pull)", Source: src, Parents: make([]int32, n)}
	for v := range r.Parents {
		r.Parents[v] = -1
	}
	r.Parents[src] = src
	var sigma []float64
	var steps *[]trace.Step
	if traced {
		steps = new([]trace.Step)
	}
	if d.F32 != nil {
		t, terr := transpose(d.F32, n, float32(math.Inf(1)))
		if terr != nil {
			return nil, fmt.Errorf("densebf: Run: %w", terr)
		}
		r.PrepTime = time.Since(t0)
		t1 := time.Now()
		sigma, r.Iterations, err = iterateF32(t, n, src, r.Parents, steps)
		r.Time = time.Since(t1)
	} else {
		t, terr := transpose(d.I32, n, graph.InfI32)
		if terr != nil {
			return nil, fmt.Errorf("densebf: Run: %w", terr)
		}
		r.PrepTime = time.Since(t0)
		t1 := time.Now()
		sigma, r.Iterations, err = iterateI32(t, n, src, r.Parents, neg, steps)
		r.Time = time.Since(t1)
	}
	if err != nil {
		return nil, err
	}
	r.Dist = sigma
	if traced {
		r.Trace = &trace.Trace{Algorithm: r.Algorithm, Arcs: int64(n) * int64(n), Steps: *steps, Time: r.Time}
	}
	return r, nil
}

// transpose returns the transpose of the n×n row-major matrix m, so row v
// holds the weights of the arcs into v. Diagonal entries ≥ 0 become inf
// (a non-negative self-loop never shortens a path); entries above inf are
// clamped to inf. Tiles of 64×64 keep both sides in cache. It returns
// cancel's error when interrupted.
func transpose[T float32 | int32](m []T, n int, inf T) ([]T, error) {
	const b = 64
	t := make([]T, n*n)
	nb := (n + b - 1) / b
	err := par.ForChunks(nb, 1, func(bi, _, _ int) {
		for bj := 0; bj < nb; bj++ {
			for i := bi * b; i < min((bi+1)*b, n); i++ {
				for j := bj * b; j < min((bj+1)*b, n); j++ {
					t[j*n+i] = min(m[i*n+j], inf)
				}
			}
		}
	})
	if err != nil {
		return nil, err
	}
	for v := 0; v < n; v++ {
		if t[v*n+v] >= 0 {
			t[v*n+v] = inf
		}
	}
	return t, nil
}

// chunk is the number of vertices per parallel task: enough for 4 tasks
// per worker, at least 16K matrix entries each, at most about 2^20 (a
// millisecond or two) so that an interrupt is seen soon.
func chunk(n int) int {
	w := 4 * par.Workers()
	return max(1, (16384+n-1)/n, min((n+w-1)/w, (1<<20+n-1)/n))
}

// iterateF32 runs the iterations in float32 and returns σ widened to
// float64 and the number of iterations; with steps not nil it appends
// one per iteration (see iterate).
func iterateF32(t []float32, n int, src int32, pred []int32, steps *[]trace.Step) ([]float64, int, error) {
	inf := float32(math.Inf(1))
	sigma, next := make([]float32, n), make([]float32, n)
	for v := range sigma {
		sigma[v] = inf
	}
	sigma[src] = 0
	it, err := iterate(n, src, pred, steps, func(lo, hi int) int64 {
		var lowered int64
		for v := lo; v < hi; v++ {
			best, arg := pullF32(t[v*n:(v+1)*n], sigma)
			next[v] = sigma[v]
			if best < sigma[v] {
				next[v], pred[v] = best, arg
				lowered++
			}
		}
		return lowered
	}, func() { sigma, next = next, sigma }, func(v int) bool { return sigma[v] != next[v] })
	if err != nil {
		return nil, it, err
	}
	out := make([]float64, n)
	for v, s := range sigma {
		out[v] = float64(s)
	}
	return out, it, nil
}

// iterateI32 runs the iterations in int32 (InfI32: unreachable).
func iterateI32(t []int32, n int, src int32, pred []int32, neg bool, steps *[]trace.Step) ([]float64, int, error) {
	sigma, next := make([]int32, n), make([]int32, n)
	for v := range sigma {
		sigma[v] = graph.InfI32
	}
	sigma[src] = 0
	pull := pullI32
	if neg {
		pull = pullI32Neg
	}
	it, err := iterate(n, src, pred, steps, func(lo, hi int) int64 {
		var lowered int64
		for v := lo; v < hi; v++ {
			best, arg := pull(t[v*n:(v+1)*n], sigma)
			next[v] = sigma[v]
			if best < sigma[v] {
				next[v], pred[v] = best, arg
				lowered++
			}
		}
		return lowered
	}, func() { sigma, next = next, sigma }, func(v int) bool { return sigma[v] != next[v] })
	if err != nil {
		return nil, it, err
	}
	out := make([]float64, n)
	for v, s := range sigma {
		out[v] = float64(s)
		if s >= graph.InfI32 {
			out[v] = math.Inf(1)
		}
	}
	return out, it, nil
}

// iterate drives the sweeps: sweep(lo, hi) updates vertices [lo, hi) into
// the next σ and returns how many it lowered, swap makes the next σ
// current, and changedLast(v) (after a swap) tells whether v changed in
// the last sweep. With steps not nil it appends a trace.Step per sweep:
// Kind "iteration", Inspected N² (sweep reads every entry of the
// transposed matrix once), Updated the distances lowered, Time its wall
// time.
func iterate(n int, src int32, pred []int32, steps *[]trace.Step, sweep func(lo, hi int) int64, swap func(), changedLast func(v int) bool) (int, error) {
	size := chunk(n)
	for it := 1; it <= n; it++ {
		if err := cancel.Check(); err != nil {
			return it, fmt.Errorf("densebf: Run: %w", err)
		}
		t0 := time.Now()
		var lowered atomic.Int64
		err := par.ForChunks(n, size, func(_, lo, hi int) {
			if l := sweep(lo, hi); l > 0 {
				lowered.Add(l)
			}
		})
		if err != nil {
			return it, fmt.Errorf("densebf: Run: %w", err)
		}
		swap()
		if steps != nil {
			*steps = append(*steps, trace.Step{Kind: stepKind, Inspected: int64(n) * int64(n), Updated: lowered.Load(), Time: time.Since(t0)})
		}
		if lowered.Load() == 0 {
			return it, nil
		}
		if it == n {
			v := 0
			for v < n && !changedLast(v) {
				v++
			}
			return it, &NegativeCycleError{Source: src, Vertex: onPredCycle(pred, int32(v))}
		}
	}
	return 0, nil // n == 0 cannot happen: src is a vertex
}

// onPredCycle walks Parents N steps from v, which changed in iteration N;
// that walk cannot reach an unchanged source, so it ends on a cycle of
// Parents, whose weight is negative.
func onPredCycle(pred []int32, v int32) int32 {
	for range len(pred) {
		if pred[v] < 0 {
			break // cannot happen: every vertex on the walk is reachable
		}
		v = pred[v]
	}
	return v
}

// pullF32 returns the minimum over j of sigma[j] + in[j] and its smallest
// argmin (-1 if all are +Inf).
func pullF32(in []float32, sigma []float32) (float32, int32) {
	sigma = sigma[:len(in)]
	best, arg := float32(math.Inf(1)), int32(-1)
	for j, w := range in {
		if s := sigma[j] + w; s < best {
			best, arg = s, int32(j)
		}
	}
	return best, arg
}

// pullI32 is pullF32 for non-negative int32 matrices: every term is at
// most 2·InfI32 (no overflow), and a sum ≥ InfI32 never beats InfI32.
func pullI32(in []int32, sigma []int32) (int32, int32) {
	sigma = sigma[:len(in)]
	best, arg := graph.InfI32, int32(-1)
	for j, w := range in {
		if s := sigma[j] + w; s < best {
			best, arg = s, int32(j)
		}
	}
	return best, arg
}

// pullI32Neg is pullI32 when entries may be negative: unreachable j and
// missing edges are skipped explicitly (InfI32 plus a negative number
// would look finite). Validation keeps every sum within int32.
func pullI32Neg(in []int32, sigma []int32) (int32, int32) {
	sigma = sigma[:len(in)]
	best, arg := graph.InfI32, int32(-1)
	for j, w := range in {
		sj := sigma[j]
		if sj >= graph.InfI32 || w >= graph.InfI32 {
			continue
		}
		if s := sj + w; s < best {
			best, arg = s, int32(j)
		}
	}
	return best, arg
}
