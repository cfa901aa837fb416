package sssp

import (
	"fmt"
	"math"
	"sync"
	"sync/atomic"

	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/internal/par"
)

// tightParents32 is tightParents for float32 distances (the GPU's Float32
// option), given widened to float64: an arc u→v is tight when
// float32(dist[u]) + float32(w) == float32(dist[v]) in float32
// arithmetic, the addition the GPU made (float64 weights rounded to
// float32 first, as the kernels do). In float64 arithmetic such arcs are
// almost never exactly tight, so the float64 construction cannot be used.
//
// It builds the tree by a level-synchronous breadth-first search from src
// over tight arcs on all cores, each vertex claimed once with a
// compare-and-swap (the general method of tightParents), so zero-weight
// arcs and arcs absorbed by rounding cannot form a parent cycle. Every
// vertex of finite distance is reached when the distances are the GPU's
// fixed point (dist[v] ≤ dist[u] + w for every arc, in float32, and every
// distance the float32 length of some walk); a vertex left over is an
// error naming it. Work O(N + M), memory 8 bytes per vertex.
func tightParents32(g *graph.CSR, dist []float64, src int32) ([]int32, int64, error) {
	switch {
	case g.Weights64 != nil:
		return bfsParents32(g, g.Weights64, dist, src)
	default:
		return bfsParents32(g, g.Weights, dist, src)
	}
}

// weight32 returns arc k's weight as the kernels see it with float32
// distances: float32(w), 1 when ws is nil.
func weight32[W weight](ws []W, k int64) float32 {
	if ws == nil {
		return 1
	}
	return float32(ws[k])
}

func bfsParents32[W weight](g *graph.CSR, ws []W, dist []float64, src int32) ([]int32, int64, error) {
	n := g.NumVertices()
	d := make([]float32, n)
	parents := make([]int32, n)
	err := par.For(n, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			d[i] = float32(dist[i])
			parents[i] = -1
		}
	})
	if err != nil {
		return nil, 0, fmt.Errorf("sssp: building the parent tree: %w", err)
	}
	off, adj := g.Offsets, g.Adj
	parents[src] = src
	frontier := []int32{src}
	reached := int64(1)
	for len(frontier) > 0 {
		if err := cancel.Check(); err != nil {
			return nil, 0, fmt.Errorf("sssp: building the parent tree: %w", err)
		}
		var mu sync.Mutex
		var next []int32
		par.ForChunks(len(frontier), treeChunk, func(_, lo, hi int) {
			var local []int32
			for _, u := range frontier[lo:hi] {
				du := d[u]
				for k := off[u]; k < off[u+1]; k++ {
					v := adj[k]
					dv := d[v]
					if dv > math.MaxFloat32 || float32(du+weight32(ws, k)) != dv {
						continue
					}
					if atomic.LoadInt32(&parents[v]) < 0 && atomic.CompareAndSwapInt32(&parents[v], -1, u) {
						local = append(local, v)
					}
				}
			}
			if len(local) > 0 {
				mu.Lock()
				next = append(next, local...)
				mu.Unlock()
			}
		})
		reached += int64(len(next))
		frontier = next
	}
	if err := cancel.Check(); err != nil { // the last level may have stopped early
		return nil, 0, fmt.Errorf("sssp: building the parent tree: %w", err)
	}
	for v := range n {
		if parents[v] < 0 && !math.IsInf(dist[v], 1) {
			return nil, 0, fmt.Errorf("sssp: vertex %d has the float32 distance %g but no path of tight arcs (in float32) from the source %d: "+
				"the distances are not the float32 fixed point", v, dist[v], src)
		}
	}
	return parents, reached, nil
}
