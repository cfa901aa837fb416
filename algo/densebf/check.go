package densebf

import (
	"fmt"
	"math"

	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/graph"
)

// Check validates r as the shortest distances from src over the matrix d
// and returns an error naming the first discrepancy:
//
//   - Dist is compared with an independent computation: dense Dijkstra
//     (O(N²)) when d has no negative entry, else plain Bellman-Ford
//     (O(N²) per pass). Int32 matrices compare exactly (true lengths
//     ≥ InfI32 count as unreachable). Non-negative float32 matrices compare
//     exactly too: Dijkstra runs in float32, and because x ↦ fl(x + w) is
//     monotone and never below x for w ≥ 0, every algorithm that relaxes
//     arcs to a fixed point in float32 reaches the same values (the
//     minimum over paths of their left-to-right float32 sums). With
//     negative float32 weights the reference runs in float64 and Dist must
//     agree within N·2⁻²²·(N−1)·max|entry| (the rounding of N-term sums).
//     Reachability always matches exactly.
//   - Parents: Parents[src] = src; -1 exactly for unreachable vertices; else
//     p = Parents[v] is a vertex with an arc p→v and Dist[v] equals
//     Dist[p] + w(p, v) computed in the matrix's arithmetic (exactly: a
//     converged Bellman-Ford satisfies it with equality); following Parents
//     from any vertex reaches src.
//
// A negative cycle reachable from src is an error (no result is valid).
func Check(d *graph.Dense, src int32, r *Result) error {
	neg, maxAbs, err := inspect(d, src, "Check")
	if err != nil {
		return err
	}
	n := d.N
	switch {
	case r == nil:
		return fmt.Errorf("densebf: Check: no result (nil)")
	case r.Source != src:
		return fmt.Errorf("densebf: result is from source %d, not %d", r.Source, src)
	case len(r.Dist) != n || len(r.Parents) != n:
		return fmt.Errorf("densebf: result has %d distances and %d predecessors, want %d of each", len(r.Dist), len(r.Parents), n)
	}
	want, err := reference(d, int(src), neg)
	if err != nil {
		return err
	}
	tol := 0.0
	if neg && !d.IsInt() {
		tol = float64(n) * 0x1p-22 * float64(n-1) * maxAbs
	}
	for v, g := range r.Dist {
		w := want[v]
		if math.IsInf(g, 1) != math.IsInf(w, 1) || !math.IsInf(w, 1) && !(math.Abs(g-w) <= tol) {
			return fmt.Errorf("densebf: Dist[%d] = %v, but the shortest distance from %d is %v", v, g, src, w)
		}
	}
	if r.Parents[src] != src {
		return fmt.Errorf("densebf: Parents[%d] = %d, want the source itself", src, r.Parents[src])
	}
	for v := 0; v < n; v++ {
		p := int(r.Parents[v])
		if v == int(src) {
			continue
		}
		if math.IsInf(r.Dist[v], 1) {
			if p != -1 {
				return fmt.Errorf("densebf: Parents[%d] = %d, but %d is unreachable (want -1)", v, p, v)
			}
			continue
		}
		if p < 0 || p >= n || p == v {
			return fmt.Errorf("densebf: Parents[%d] = %d is not a predecessor of %d", v, p, v)
		}
		if w := d.At(p, v); math.IsInf(w, 1) {
			return fmt.Errorf("densebf: Parents[%d] = %d, but there is no arc %d→%d", v, p, p, v)
		}
		var via float64
		if d.IsInt() {
			via = r.Dist[p] + d.At(p, v) // exact: whole numbers below 2^53
		} else {
			via = float64(float32(r.Dist[p]) + d.F32[p*n+v])
		}
		if via != r.Dist[v] {
			return fmt.Errorf("densebf: Parents[%d] = %d, but Dist[%d] + w(%d,%d) = %v ≠ Dist[%d] = %v", v, p, p, p, v, via, v, r.Dist[v])
		}
	}
	// every Parents chain reaches src: 0 unknown, 1 on the current walk, 2 good.
	state := make([]uint8, n)
	state[src] = 2
	var walk []int32
	for v := int32(0); v < int32(n); v++ {
		walk = walk[:0]
		x := v
		for r.Parents[x] >= 0 && state[x] == 0 {
			state[x] = 1
			walk = append(walk, x)
			x = r.Parents[x]
		}
		if r.Parents[x] >= 0 && state[x] == 1 {
			return fmt.Errorf("densebf: following Parents from %d loops through %d", v, x)
		}
		for _, y := range walk {
			state[y] = 2
		}
	}
	return nil
}

// reference computes shortest distances from src: float32 Dijkstra for
// non-negative float32 matrices, int64 Dijkstra for non-negative int32
// ones (lengths ≥ InfI32 become +Inf), else Bellman-Ford in float64 or
// int64. It returns an error for a negative cycle reachable from src.
func reference(d *graph.Dense, src int, neg bool) ([]float64, error) {
	n := d.N
	inf := math.Inf(1)
	out := make([]float64, n)
	switch {
	case !neg && !d.IsInt():
		dist := make([]float32, n)
		for v := range dist {
			dist[v] = float32(inf)
		}
		dist[src] = 0
		done := make([]bool, n)
		for i := range n {
			if i&63 == 0 && cancel.Requested() {
				return nil, fmt.Errorf("densebf: Check: %w", cancel.ErrInterrupted)
			}
			u := -1
			for v := 0; v < n; v++ {
				if !done[v] && (u < 0 || dist[v] < dist[u]) {
					u = v
				}
			}
			if math.IsInf(float64(dist[u]), 1) {
				break
			}
			done[u] = true
			for v := 0; v < n; v++ {
				if nd := dist[u] + d.F32[u*n+v]; v != u && nd < dist[v] {
					dist[v] = nd
				}
			}
		}
		for v, x := range dist {
			out[v] = float64(x)
		}
		return out, nil
	case !neg: // int32, exact in float64
		for v := range out {
			out[v] = inf
		}
		out[src] = 0
		done := make([]bool, n)
		for i := range n {
			if i&63 == 0 && cancel.Requested() {
				return nil, fmt.Errorf("densebf: Check: %w", cancel.ErrInterrupted)
			}
			u := -1
			for v := 0; v < n; v++ {
				if !done[v] && (u < 0 || out[v] < out[u]) {
					u = v
				}
			}
			if math.IsInf(out[u], 1) {
				break
			}
			done[u] = true
			for v := 0; v < n; v++ {
				if nd := out[u] + d.At(u, v); v != u && nd < out[v] {
					out[v] = nd
				}
			}
		}
	default: // Bellman-Ford, Gauss-Seidel sweeps over all arcs
		for v := range out {
			out[v] = inf
		}
		out[src] = 0
		for pass := 0; ; pass++ {
			changed := false
			for u := 0; u < n; u++ {
				if u&63 == 0 && cancel.Requested() {
					return nil, fmt.Errorf("densebf: Check: %w", cancel.ErrInterrupted)
				}
				if math.IsInf(out[u], 1) {
					continue
				}
				for v := 0; v < n; v++ {
					if nd := out[u] + d.At(u, v); nd < out[v] {
						out[v] = nd
						changed = true
					}
				}
			}
			if !changed {
				break
			}
			if pass == n {
				return nil, fmt.Errorf("densebf: a negative cycle is reachable from %d: no result can be valid", src)
			}
		}
	}
	if d.IsInt() {
		for v, x := range out {
			if x >= float64(graph.InfI32) {
				out[v] = inf
			}
		}
	}
	return out, nil
}
