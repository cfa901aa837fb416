package mst

import (
	"fmt"
	"math"

	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/internal/par"
)

// WeightTolerance is the relative tolerance of Check's weight
// comparisons: two totals a and b agree when |a−b| ≤ WeightTolerance·S,
// S being the sum of the absolute weights of the result's edges. It
// absorbs the rounding of float64 sums taken in different orders (a GPU
// reduction, say); a forest that is not minimal differs by at least the
// smallest gap between two weights, far more for the studies' graphs.
const WeightTolerance = 1e-9

// Check validates r as a minimum spanning forest of the undirected graph
// g, rule by rule, and returns an error naming the first rule broken:
//
//   - every edge has U < V, both vertices of g, and is an edge of g with
//     exactly weight W;
//   - the edges form a forest (no cycle, found with a union-find);
//   - it spans: r.Trees equals the number of connected components C of g
//     and len(r.Edges) equals N − C;
//   - r.Weight equals the sum of the edges' weights, and that sum equals
//     the weight of Kruskal's forest, both within WeightTolerance.
//
// Check costs O(M log M) (it runs Kruskal) and O(N + M) memory. An
// interrupt returns cancel's error.
func Check(g *graph.CSR, r *Result) error {
	if r == nil {
		return fmt.Errorf("mst: Check: no result (nil)")
	}
	ref, err := Kruskal(g)
	if err != nil {
		return fmt.Errorf("mst: Check: %w", err)
	}
	n := g.NumVertices()
	if err := checkEdgesExist(g, r.Edges); err != nil {
		return err
	}
	uf := newUnionFind(n)
	for i, e := range r.Edges {
		if !uf.union(e.U, e.V) {
			return fmt.Errorf("mst: forest edge %d (%d–%d) closes a cycle", i, e.U, e.V)
		}
	}
	comps := ref.Trees
	if r.Trees != comps {
		return fmt.Errorf("mst: result says %d trees, but the graph has %d connected components", r.Trees, comps)
	}
	if len(r.Edges) != n-comps {
		return fmt.Errorf("mst: forest has %d edges; spanning %d vertices in %d components takes %d: it does not span the graph",
			len(r.Edges), n, comps, n-comps)
	}
	var sum, abs float64
	for _, e := range r.Edges {
		sum += e.W
		abs += math.Abs(e.W)
	}
	tol := WeightTolerance * abs
	if !(math.Abs(r.Weight-sum) <= tol) {
		return fmt.Errorf("mst: result weight %.17g differs from the sum of its edges %.17g", r.Weight, sum)
	}
	if !(math.Abs(sum-ref.Weight) <= tol) {
		return fmt.Errorf("mst: forest weighs %.17g, but a minimum spanning forest weighs %.17g: it is not minimal", sum, ref.Weight)
	}
	return nil
}

// checkEdgesExist checks that every forest edge is an edge of g with its
// weight, in one pass over the arcs of the edges' smaller endpoints.
func checkEdgesExist(g *graph.CSR, edges []Edge) error {
	n := int32(g.NumVertices())
	// group the edges by U: first[u] .. via next (a linked list of indices)
	first := make([]int32, n)
	for i := range first {
		first[i] = -1
	}
	next := make([]int32, len(edges))
	for i, e := range edges {
		if e.U < 0 || e.V >= n || e.U >= e.V {
			return fmt.Errorf("mst: forest edge %d (%d–%d) must have 0 ≤ U < V < %d", i, e.U, e.V, n)
		}
		next[i] = first[e.U]
		first[e.U] = int32(i)
	}
	mark := make([]int32, n) // mark[v] = 1 + index of the edge (u, v) being looked for
	seen := make([]int8, len(edges))
	for u := int32(0); u < n; u++ {
		if par.Cancelled(int(u)) {
			return fmt.Errorf("mst: Check: %w", cancel.ErrInterrupted)
		}
		if first[u] < 0 {
			continue
		}
		for i := first[u]; i >= 0; i = next[i] {
			if mark[edges[i].V] != 0 {
				j := mark[edges[i].V] - 1
				return fmt.Errorf("mst: forest edges %d and %d are both %d–%d", j, i, u, edges[i].V)
			}
			mark[edges[i].V] = i + 1
		}
		for k := g.Offsets[u]; k < g.Offsets[u+1]; k++ {
			if i := mark[g.Adj[k]]; i != 0 {
				if g.ArcWeight(k) == edges[i-1].W {
					seen[i-1] = 2
				} else if seen[i-1] == 0 {
					seen[i-1] = 1
				}
			}
		}
		for i := first[u]; i >= 0; i = next[i] {
			mark[edges[i].V] = 0
			switch seen[i] {
			case 0:
				return fmt.Errorf("mst: forest edge %d (%d–%d) is not an edge of the graph", i, u, edges[i].V)
			case 1:
				return fmt.Errorf("mst: forest edge %d (%d–%d) weighs %g, but the graph's edge weighs %g",
					i, u, edges[i].V, edges[i].W, arcWeight(g, u, edges[i].V))
			}
		}
	}
	return nil
}

// arcWeight returns the weight of the first arc u→v (NaN if none).
func arcWeight(g *graph.CSR, u, v int32) float64 {
	for k := g.Offsets[u]; k < g.Offsets[u+1]; k++ {
		if g.Adj[k] == v {
			return g.ArcWeight(k)
		}
	}
	return math.NaN()
}
