package apsp

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/internal/membudget"
	"github.com/graphnb/graphnb/internal/par"
	"github.com/graphnb/graphnb/trace"
)

// Result holds all-pairs shortest-path distances and predecessors.
type Result struct {
	// Algorithm names the implementation and variant, e.g.
	// "cpu blocked Floyd-Warshall".
	Algorithm string
	// Dist[i][j] is the length of a shortest i→j path: same element type
	// as the input, +Inf or graph.InfI32 where j is unreachable from i.
	Dist *graph.Dense
	// Parents[i*N+j] is the vertex before j on a shortest i→j path, -1 if
	// there is none; Parents[i*N+i] = i.
	Parents []int32
	// Tile is the tile size of the blocked algorithm (0 for the plain one).
	Tile int
	// Time is the computation (the k loop or the tile rounds), excluding
	// PrepTime and CopyTime (on a GPU, measured with CUDA events).
	Time time.Duration
	// PrepTime is the preparation excluded from Time: validating and
	// copying the input and initialising Parents. A GPU Prepared.Run
	// reports only what that run prepared: 0 in core, the host's packing
	// of the blocks out of core (on the host device, the CPU algorithm's
	// own); Prepare's time, spent once, is Prepared.PrepTime, which the
	// one-shot Run and RunGraph add.
	PrepTime time.Duration
	// CopyTime is what host↔device copies add to Time on a GPU (the
	// upload of the input and the download of the result; out of core,
	// the streamed run beyond its kernels): Time + CopyTime is the time
	// with copies. Zero on the CPU.
	CopyTime time.Duration
	// Trace is the run's record when Options.Trace asked for one (nil
	// otherwise): its steps, kinds and counts are Options.Trace's.
	Trace *trace.Trace
}

// String summarises the result in one line.
func (r *Result) String() string {
	if r == nil || r.Dist == nil {
		return "apsp: <nil result>"
	}
	kind := "float32"
	if r.Dist.IsInt() {
		kind = "int32"
	}
	tile := ""
	if r.Tile > 0 {
		tile = fmt.Sprintf(", tile %d", r.Tile)
	}
	copies := ""
	if r.CopyTime > 0 {
		copies = fmt.Sprintf(" + copies %v", r.CopyTime.Round(time.Microsecond))
	}
	return fmt.Sprintf("%s: %d vertices, %s%s, %v%s (prep %v)", r.Algorithm, r.Dist.N, kind, tile,
		r.Time.Round(time.Microsecond), copies, r.PrepTime.Round(time.Microsecond))
}

// ErrNegativeCycle is matched (errors.Is) by every NegativeCycleError.
var ErrNegativeCycle = errors.New("negative cycle")

// NegativeCycleError reports a negative cycle: shortest paths are not
// defined. Vertex lies on the cycle.
type NegativeCycleError struct {
	Vertex int
}

func (e *NegativeCycleError) Error() string {
	return fmt.Sprintf("apsp: the graph has a negative cycle through vertex %d, so shortest paths are undefined", e.Vertex)
}

// Unwrap returns ErrNegativeCycle.
func (e *NegativeCycleError) Unwrap() error { return ErrNegativeCycle }

// Path returns the vertices of a shortest i→j path, i first and j last,
// by following Parents back from j (O(path length)). It returns an error for
// a vertex outside [0, N), for j unreachable from i, and for a Parents matrix that
// does not lead back to i.
func (r *Result) Path(i, j int) ([]int32, error) {
	if r == nil || r.Dist == nil {
		return nil, fmt.Errorf("apsp: Path on an empty result")
	}
	n := r.Dist.N
	if i < 0 || i >= n || j < 0 || j >= n {
		return nil, fmt.Errorf("apsp: Path(%d, %d): vertices must lie in [0, %d)", i, j, n)
	}
	if len(r.Parents) != n*n {
		return nil, fmt.Errorf("apsp: Parents has %d entries, want N·N = %d", len(r.Parents), n*n)
	}
	if math.IsInf(r.Dist.At(i, j), 1) {
		return nil, fmt.Errorf("apsp: there is no path from %d to %d", i, j)
	}
	path := []int32{int32(j)}
	for v := j; v != i; {
		p := int(r.Parents[i*n+v])
		if p < 0 || p >= n {
			return nil, fmt.Errorf("apsp: Parents[%d][%d] = %d is not a vertex: the path from %d to %d is broken", i, v, p, i, j)
		}
		if len(path) > n {
			return nil, fmt.Errorf("apsp: following Parents from %d back towards %d loops", j, i)
		}
		path = append(path, int32(p))
		v = p
	}
	for a, b := 0, len(path)-1; a < b; a, b = a+1, b-1 {
		path[a], path[b] = path[b], path[a]
	}
	return path, nil
}

// input is a validated copy of a matrix, ready for Floyd-Warshall.
type input struct {
	n    int
	f32  []float32 // exactly one of f32, i32
	i32  []int32
	pred []int32
	hops []int32 // edges on the path Parents describes (tie-break only)
	neg  bool    // some entry is negative
}

// inspect validates d (see graph.Dense.Inspect) and returns whether it
// has negative entries and the largest absolute finite entry. A negative
// diagonal entry is a negative cycle.
func inspect(d *graph.Dense, who string) (neg bool, maxAbs float64, err error) {
	info, err := d.Inspect()
	if err != nil {
		return false, 0, fmt.Errorf("apsp: %s: %w", who, err)
	}
	for i := 0; i < d.N; i++ {
		if d.At(i, i) < 0 {
			return false, 0, &NegativeCycleError{Vertex: i}
		}
	}
	return info.Negative, info.MaxAbs, nil
}

// CPUBytes returns about how many bytes FloydWarshall (blocked false) or
// Blocked (blocked true) allocate for an n-vertex matrix besides the
// matrix itself: the working copy, the predecessors and the hop counts
// (12 bytes per entry), and for Blocked their tiled copy (12 more). Both
// refuse a matrix whose CPUBytes exceed the memory available, before
// allocating anything.
func CPUBytes(n int, blocked bool) int64 {
	per := int64(12)
	if blocked {
		per = 24
	}
	return membudget.Bytes(int64(n)*int64(n), per)
}

// CheckCPUMemory refuses, with an error that gives the need and the
// memory available, a CPU run on an n-vertex matrix that does not fit:
// CPUBytes, plus with matrix the 4n² bytes of the matrix itself (for a
// caller that has still to make it, such as a sweep that builds it from a
// graph).
func CheckCPUMemory(n int, blocked, matrix bool) error {
	need := CPUBytes(n, blocked)
	what := "Floyd-Warshall"
	if blocked {
		what = "blocked Floyd-Warshall"
	}
	if matrix {
		need = membudget.Bytes(need, 1, int64(n)*int64(n), 4)
		what += " with its matrix"
	}
	return membudget.Check(fmt.Sprintf("apsp: %s on %d vertices", what, n), need)
}

// prepare validates d and returns the working copy: diagonal 0 (a
// positive diagonal entry is a self-loop no shortest path uses), int32
// entries ≥ InfI32 set to InfI32, and the initial predecessors. It
// returns cancel's error when interrupted.
func prepare(d *graph.Dense, who string) (*input, error) {
	neg, _, err := inspect(d, who)
	if err != nil {
		return nil, err
	}
	n := d.N
	in := &input{n: n, neg: neg, pred: make([]int32, n*n), hops: make([]int32, n*n)}
	if d.F32 != nil {
		in.f32 = make([]float32, n*n)
	} else {
		in.i32 = make([]int32, n*n)
	}
	// Row by row on all cores: a matrix of 16K vertices has 2^28 entries.
	err = par.For(n, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			row := i * n
			for k := row; k < row+n; k++ {
				var inf bool
				if d.F32 != nil {
					w := d.F32[k]
					in.f32[k] = w
					inf = math.IsInf(float64(w), 1)
				} else {
					w := min(d.I32[k], graph.InfI32)
					in.i32[k] = w
					inf = w >= graph.InfI32
				}
				in.pred[k], in.hops[k] = int32(i), 1
				if inf {
					in.pred[k] = -1
				}
			}
			// The diagonal: distance 0, its own predecessor, no hops.
			if d.F32 != nil {
				in.f32[row+i] = 0
			} else {
				in.i32[row+i] = 0
			}
			in.pred[row+i], in.hops[row+i] = int32(i), 0
		}
	})
	if err != nil {
		return nil, fmt.Errorf("apsp: %s: %w", who, err)
	}
	return in, nil
}

// result wraps the working copy as a Result.
func (in *input) result(alg string, tile int, prep, run time.Duration) *Result {
	return &Result{
		Algorithm: alg,
		Dist:      &graph.Dense{N: in.n, F32: in.f32, I32: in.i32},
		Parents:   in.pred,
		Tile:      tile,
		Time:      run,
		PrepTime:  prep,
	}
}
