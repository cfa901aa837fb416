package apsp

import (
	"fmt"
	"time"

	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/internal/par"
	"github.com/graphnb/graphnb/trace"
)

// FloydWarshall returns all-pairs shortest paths of the matrix d by the
// plain Floyd-Warshall algorithm: for k = 0..N-1, every row i ≠ k takes
// D[i][j] = min(D[i][j], D[i][k] + D[k][j]), rows in parallel. Among
// equally short paths Parents describes one with the fewest edges (exactly so
// for int32; see the hop tie-break in kernel.go). Θ(N³) time; Dist, Parents and a hop count take
// 12·N² bytes; d is not modified.
//
// It returns a *NegativeCycleError (errors.Is ErrNegativeCycle) as soon as
// a diagonal entry turns negative after step k: k then lies on a negative
// cycle (the closed walk i⇝k⇝i that made D[i][i] negative uses only
// vertices below k besides i and k, and every cycle among those is
// non-negative or an earlier step would have stopped). It returns an
// error for a malformed matrix (see Blocked) and, wrapped,
// cancel.ErrInterrupted, polled every k.
func FloydWarshall(d *graph.Dense) (*Result, error) { return runPlain(d, false) }

// runPlain is FloydWarshall, with traced a Result.Trace of a "k-block"
// step per traceKBlock k's, each its wall time (the host device's
// stand-in for PlainGPU, Options.Trace; on a GPU the same steps, each
// timed by one launch log entry that stands for its k's launches).
func runPlain(d *graph.Dense, traced bool) (*Result, error) {
	t0 := time.Now()
	if d != nil {
		if err := CheckCPUMemory(d.N, false, false); err != nil {
			return nil, err
		}
	}
	in, err := prepare(d, "FloydWarshall")
	if err != nil {
		return nil, err
	}
	prep := time.Since(t0)
	var steps *[]trace.Step
	if traced {
		steps = new([]trace.Step)
	}
	t1 := time.Now()
	if err := in.plain(steps); err != nil {
		return nil, err
	}
	r := in.result("cpu Floyd-Warshall", 0, prep, time.Since(t1))
	if traced {
		r.Trace = newTrace(r, in.n, *steps)
	}
	return r, nil
}

// plain runs the k loop on in; with steps not nil it appends a
// "k-block" step per traceKBlock k's.
func (in *input) plain(steps *[]trace.Step) error {
	n := in.n
	rows := rowChunk(n)
	var block time.Time
	for k := 0; k < n; k++ {
		if steps != nil && k%traceKBlock == 0 {
			block = time.Now()
		}
		if err := cancel.Check(); err != nil {
			return fmt.Errorf("apsp: FloydWarshall: %w", err)
		}
		err := par.ForChunks(n, rows, func(_, lo, hi int) {
			in.tileUpdate(k, k+1, lo, hi, 0, n)
		})
		if err != nil {
			return fmt.Errorf("apsp: FloydWarshall: %w", err)
		}
		if in.negativeDiagonal() >= 0 {
			return &NegativeCycleError{Vertex: k}
		}
		if steps != nil && (k%traceKBlock == traceKBlock-1 || k == n-1) {
			ks := k%traceKBlock + 1
			*steps = append(*steps, trace.Step{Kind: kindKBlock, Inspected: relaxations(ks, n), Time: time.Since(block)})
		}
	}
	return nil
}

// rowChunk is the number of rows per parallel task of the plain
// algorithm: enough rows for 4 tasks per worker, but at least 16K entries
// per task so small matrices do not drown in scheduling, and at most
// about 2^20 entries, a millisecond or two of work, so that the k step of
// a large matrix sees an interrupt soon.
func rowChunk(n int) int {
	if n == 0 {
		return 1
	}
	w := 4 * par.Workers()
	return max(1, (16384+n-1)/n, min((n+w-1)/w, (1<<20+n-1)/n))
}
