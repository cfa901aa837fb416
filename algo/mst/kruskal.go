package mst

import (
	"fmt"
	"time"

	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/graph"
)

// Kruskal returns the minimum spanning forest of the undirected graph g by
// Kruskal's algorithm: sort the M edges by (weight, smaller endpoint,
// larger endpoint), then keep each edge that joins two different trees of
// a union-find (path compression, union by rank). The sort is a parallel
// radix sort, O(M) work; the union-find pass is sequential, O(M α(N));
// memory is 32 bytes per edge while sorting.
//
// It returns an error for a nil or directed graph (symmetrize it first)
// and, wrapped, cancel.ErrInterrupted when interrupted.
func Kruskal(g *graph.CSR) (*Result, error) {
	t0 := time.Now()
	edges, err := undirectedEdges(g, "Kruskal")
	if err != nil {
		return nil, err
	}
	r := &Result{Algorithm: "cpu Kruskal", PrepTime: time.Since(t0)}
	t1 := time.Now()
	if err := sortEdges(edges); err != nil {
		return nil, fmt.Errorf("mst: Kruskal: %w", err)
	}
	n := g.NumVertices()
	uf := newUnionFind(n)
	forest := make([]Edge, 0, max(n-1, 0))
	for i, e := range edges {
		if i&(1<<20-1) == 0 {
			if err := cancel.Check(); err != nil {
				return nil, fmt.Errorf("mst: Kruskal: %w", err)
			}
		}
		if uf.union(e.U, e.V) {
			forest = append(forest, e)
			if len(forest) == n-1 {
				break
			}
		}
	}
	r.Time = time.Since(t1)
	r.Edges = forest
	r.Trees = n - len(forest)
	r.finish(g)
	return r, nil
}
