package sssp

import (
	"fmt"
	"math"
	"sync"

	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/internal/par"
)

// DefaultTolerance is the relative tolerance of Check: a distance may
// exceed dist[u]+w(u,v) by DefaultTolerance·(|dist[u]|+|w|), the scale of
// the rounding error of one float64 addition many times over. The CPU
// algorithms meet the rules exactly; the slack is for GPU variants that
// round differently (another summation order, fused operations).
const DefaultTolerance = 1e-9

// Check validates r as shortest paths in g from r.Source, with
// DefaultTolerance. See CheckTolerance.
func Check(g *graph.CSR, r *Result) error {
	return CheckTolerance(g, r, DefaultTolerance)
}

// CheckTolerance validates r as shortest paths in g from r.Source. With
// slack(u,v) = tol·(|Dist[u]|+|w(u,v)|) it checks the certificate of
// optimality:
//
//   - source: Dist[Source] = 0 and Parents[Source] = Source;
//   - reach: Dist[v] = +Inf ⇔ Parents[v] = -1 for v ≠ Source; no
//     distance is NaN or -Inf; parents are vertices with a finite distance;
//   - bound: every arc u→v with u reached has
//     Dist[v] ≤ Dist[u] + w(u,v) + slack (no arc can shorten a path);
//   - parent arc: every reached v ≠ Source has an arc Parents[v]→v with
//     |Dist[v] − (Dist[p] + w)| ≤ slack (every distance is a path length);
//   - parent tree: following parents from any reached vertex reaches
//     Source without a cycle (zero-weight cycles pass the arc rules, not
//     this one);
//
// and the bookkeeping: len(Dist) = len(Parents) = N, Source in range,
// Reached and ComponentEdges. Together the bound and parent rules prove
// the distances optimal: the parent path realises Dist[v], and summing
// the bound along any path shows no path is shorter. It does not look at
// Iterations, times or rates.
//
// Weights are read as Dijkstra reads them (float32 widened to float64,
// unit weights when unweighted). The error names the rule and the first
// offending vertex (lowest id) or arc. Work is O(N + M), the arc pass on
// all cores; memory is 2 bytes per vertex.
func CheckTolerance(g *graph.CSR, r *Result, tol float64) error {
	if g == nil || len(g.Offsets) == 0 {
		return fmt.Errorf("sssp: check: no graph")
	}
	if r == nil {
		return fmt.Errorf("sssp: check: no result")
	}
	if !(tol >= 0) {
		return fmt.Errorf("sssp: check: tolerance %g must be ≥ 0", tol)
	}
	n := g.NumVertices()
	if len(r.Dist) != n || len(r.Parents) != n {
		return fmt.Errorf("sssp: check: result has %d distances and %d parents for a %d-vertex graph", len(r.Dist), len(r.Parents), n)
	}
	src := r.Source
	if src < 0 || int(src) >= n {
		return fmt.Errorf("sssp: check: source %d is outside [0,%d)", src, n)
	}
	dist, parents := r.Dist, r.Parents
	if dist[src] != 0 {
		return fmt.Errorf("sssp: check: source: Dist[%d] = %g, want 0", src, dist[src])
	}
	if parents[src] != src {
		return fmt.Errorf("sssp: check: source: Parents[%d] = %d, want the source itself", src, parents[src])
	}

	// Per-vertex rules, in parallel; the error of the lowest vertex wins,
	// so the message does not depend on scheduling.
	var mu sync.Mutex // guards the per-worker sums merged below
	var bad par.FirstError
	report := func(v int32, err error) { bad.Report(int64(v), err) }
	var reached, degSum int64
	err := par.For(n, func(lo, hi int) {
		var reach, deg int64
		for v := int32(lo); v < int32(hi); v++ {
			d, p := dist[v], parents[v]
			var err error
			switch {
			case math.IsNaN(d) || math.IsInf(d, -1):
				err = fmt.Errorf("sssp: check: reach: Dist[%d] = %g", v, d)
			case math.IsInf(d, 1) && p != -1:
				err = fmt.Errorf("sssp: check: reach: vertex %d is unreached (Dist +Inf) but has parent %d", v, p)
			case math.IsInf(d, 1):
				continue
			case p < 0 || int(p) >= n:
				err = fmt.Errorf("sssp: check: reach: vertex %d has distance %g but parent %d (want a vertex)", v, d, p)
			case math.IsInf(dist[p], 1):
				err = fmt.Errorf("sssp: check: reach: vertex %d has distance %g but its parent %d is unreached", v, d, p)
			}
			if err != nil {
				report(v, err)
				return
			}
			reach++
			deg += g.Offsets[v+1] - g.Offsets[v]
		}
		mu.Lock()
		reached += reach
		degSum += deg
		mu.Unlock()
	})
	if err != nil {
		return fmt.Errorf("sssp: check: %w", err)
	}
	if err := bad.Err(); err != nil {
		return err
	}

	// Parent tree: parents lead every reached vertex back to the source.
	if err := graph.CheckTree(parents, src); err != nil {
		return fmt.Errorf("sssp: check: parent tree: %w", err)
	}

	// Bound and parent arcs, in one sweep over the reached vertices'
	// arcs. On an undirected graph the arc v→parent(v), of the same
	// weight, stands for parent(v)→v and is found while v's own list is
	// read; on a directed graph the worker owning u marks the children of
	// u whose parent arc it holds (the only one to mark them: no atomics).
	var parentArc []bool
	if g.Directed {
		parentArc = make([]bool, n)
	}
	err = par.ForWeighted(g.Offsets, func(lo, hi int) {
		for u := int32(lo); u < int32(hi); u++ {
			du := dist[u]
			if math.IsInf(du, 1) {
				continue
			}
			pu := parents[u]
			dp := dist[pu]
			hasParentArc := u == src
			for k := g.Offsets[u]; k < g.Offsets[u+1]; k++ {
				v := g.Adj[k]
				w := g.ArcWeight(k)
				if math.IsInf(w, 1) {
					continue // an arc of infinite weight bounds nothing
				}
				via := du + w
				slack := tol * (math.Abs(du) + math.Abs(w))
				if dist[v] > via+slack {
					report(u, fmt.Errorf("sssp: check: bound: arc %d→%d (weight %g) gives vertex %d the distance %g + %g = %g, shorter than Dist[%d] = %g",
						u, v, w, v, du, w, via, v, dist[v]))
					return
				}
				switch {
				case parentArc != nil:
					if parents[v] == u && v != src && math.Abs(dist[v]-via) <= slack {
						parentArc[v] = true
					}
				case v == pu && !hasParentArc:
					hasParentArc = math.Abs(du-(dp+w)) <= tol*(math.Abs(dp)+math.Abs(w))
				}
			}
			if parentArc == nil && !hasParentArc {
				report(u, parentArcError(u, pu, dist))
				return
			}
		}
	})
	if err != nil {
		return fmt.Errorf("sssp: check: %w", err)
	}
	if err := bad.Err(); err != nil {
		return err
	}
	for v := range int32(len(parentArc)) {
		if v != src && parents[v] >= 0 && !parentArc[v] {
			return parentArcError(v, parents[v], dist)
		}
	}

	if r.Reached != reached {
		return fmt.Errorf("sssp: check: Reached = %d but %d vertices have a finite distance", r.Reached, reached)
	}
	want := degSum
	if !g.Directed {
		want /= 2
	}
	if r.ComponentEdges != want {
		return fmt.Errorf("sssp: check: ComponentEdges = %d, want %d", r.ComponentEdges, want)
	}
	return nil
}

// parentArcError says that the graph lacks the arc p→v that the
// distances of v and its parent p need.
func parentArcError(v, p int32, dist []float64) error {
	return fmt.Errorf("sssp: check: parent arc: vertex %d has parent %d, but the graph has no arc %d→%d of weight Dist[%d] − Dist[%d] = %g",
		v, p, p, v, v, p, dist[v]-dist[p])
}
