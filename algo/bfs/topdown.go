package bfs

import (
	"fmt"
	"time"

	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/graph"
)

// TopDown is the sequential textbook BFS: a FIFO queue processed level by
// level, each vertex claimed by the first frontier vertex that reaches it.
// It follows arcs in their direction, so it works on directed and
// undirected graphs alike, and its parents are deterministic (the
// lowest-queued frontier neighbour). It is the reference the parallel
// variants are compared with.
//
// Work is O(N + M) on one core; memory is 12 bytes per vertex (levels,
// parents, queue). It returns an error for a nil graph, a source outside
// [0, N) or cancellation (errors.Is(err, cancel.ErrInterrupted)).
func TopDown(g *graph.CSR, src int32) (_ *Result, err error) {
	defer cancel.Recover(&err) // from finish's ComponentEdges
	if err := checkInput(g, src); err != nil {
		return nil, err
	}
	n := g.NumVertices()
	r := &Result{Algorithm: "cpu top-down (sequential)", Source: src}
	start := time.Now()
	levels := make([]int32, n)
	parents := make([]int32, n)
	queue := make([]int32, n)
	for i := range levels {
		levels[i] = -1
		parents[i] = -1
	}
	off, adj := g.Offsets, g.Adj
	levels[src], parents[src] = 0, src
	queue[0] = src
	head, tail := 0, 1
	for depth := int32(0); head < tail; depth++ {
		if err := cancel.Check(); err != nil {
			return nil, fmt.Errorf("bfs: top-down from %d stopped at level %d: %w", src, depth, err)
		}
		r.FrontierSizes = append(r.FrontierSizes, int64(tail-head))
		r.Directions = append(r.Directions, TopDownStep)
		end := tail
		for ; head < end; head++ {
			if head&(1<<12-1) == 0 && cancel.Requested() {
				break // the level loop's check returns the error
			}
			u := queue[head]
			for _, v := range adj[off[u]:off[u+1]] {
				if levels[v] < 0 {
					levels[v] = depth + 1
					parents[v] = u
					queue[tail] = v
					tail++
				}
			}
		}
	}
	if err := cancel.Check(); err != nil {
		return nil, fmt.Errorf("bfs: top-down from %d: %w", src, err)
	}
	r.Time = time.Since(start)
	r.Levels, r.Parents = levels, parents
	r.finish(g)
	return r, nil
}
