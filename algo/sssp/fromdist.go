package sssp

import (
	"fmt"
	"math"
	"time"

	"github.com/graphnb/graphnb/graph"
)

// FromDistances makes a Result from distances computed elsewhere — a
// kernel written in a notebook's %%cuda cell, say — so that Check can
// validate it and the bench harness can measure it like a built-in
// variant. dist holds one float64 per vertex (+Inf unreached, 0 at src);
// elapsed is the computation's time, iterations its rounds; algorithm
// names it (e.g. "my relax kernel").
//
// It builds the parents from the tight arcs (dist[u] + w(u,v) == dist[v],
// exactly, as the package's own algorithms do), fills Reached,
// ComponentEdges and both TEPS conventions, and keeps dist (not copied).
// It returns an error for a bad source or length, a NaN or negative
// distance, or a vertex of finite distance that no tight arc reaches —
// distances that are not shortest ones usually fail here or in Check.
// For float32 distances (tight only in float32 arithmetic) widen them and
// validate with CheckTolerance; parents may then be missing and the
// error says so.
func FromDistances(g *graph.CSR, src int32, dist []float64, elapsed time.Duration, iterations int, algorithm string) (*Result, error) {
	if err := checkInput(g, src); err != nil {
		return nil, err
	}
	if len(dist) != g.NumVertices() {
		return nil, fmt.Errorf("sssp: FromDistances: %d distances for a %d-vertex graph", len(dist), g.NumVertices())
	}
	for v, d := range dist {
		if math.IsNaN(d) || d < 0 {
			return nil, fmt.Errorf("sssp: FromDistances: vertex %d has distance %g (want ≥ 0, or +Inf when unreached)", v, d)
		}
	}
	if dist[src] != 0 {
		return nil, fmt.Errorf("sssp: FromDistances: the source %d has distance %g, want 0", src, dist[src])
	}
	if algorithm == "" {
		algorithm = "user code"
	}
	r := &Result{Algorithm: algorithm, Source: src, Dist: dist, Time: elapsed, Iterations: iterations}
	if err := r.finish(g); err != nil {
		return nil, fmt.Errorf("sssp: FromDistances (%s): %w", algorithm, err)
	}
	return r, nil
}
