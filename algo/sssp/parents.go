package sssp

import (
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/internal/par"
)

// loadDist atomically reads a float64 distance.
func loadDist(p *float64) float64 {
	return math.Float64frombits(atomic.LoadUint64((*uint64)(unsafe.Pointer(p))))
}

// lowerDist atomically sets *p = x if x < *p and reports whether it did.
func lowerDist(p *float64, x float64) bool {
	_, ok := lowerDistFrom(p, x)
	return ok
}

// lowerDistFrom atomically sets *p = x if x < *p (a compare-and-swap loop
// on the float64 bits) and reports whether it did and the value it
// replaced.
func lowerDistFrom(p *float64, x float64) (old float64, ok bool) {
	u := (*uint64)(unsafe.Pointer(p))
	for {
		bits := atomic.LoadUint64(u)
		old = math.Float64frombits(bits)
		if !(x < old) {
			return old, false
		}
		if atomic.CompareAndSwapUint64(u, bits, math.Float64bits(x)) {
			return old, true
		}
	}
}

const (
	// treeChunk is the number of frontier vertices a worker takes at once.
	treeChunk = 64
	// treeBuf is a worker's local output buffer, flushed with one atomic add.
	treeBuf = 1024
	// serialFrontier: smaller frontiers run on the calling goroutine.
	serialFrontier = 256
)

// tightParents builds the parent tree of converged distances, on all
// cores, and returns the parents and the number of vertices in the tree.
// A parent arc u→v is always tight: dist[u] + w(u,v) == dist[v] exactly,
// in the float64 arithmetic of the algorithms.
//
// On an undirected graph every reached v ≠ src looks, in parallel, for the
// first arc u–v of its list that is tight with dist[u] < dist[v]: such
// parents strictly decrease in distance, so they cannot form a cycle, and
// the search stops early. A vertex with no such arc (an orphan: its tight
// arcs all come from vertices at the same distance, over zero weights or
// weights lost to rounding) then adopts, in rounds, a parent at its own
// distance that already has one (a BFS over equal-distance tight arcs
// from the settled vertices); parents then decrease in (distance, round),
// still without cycles. Should orphans be many (more than N/64), or some
// remain, tightParents falls back to the general method, the one for
// directed graphs: a level-synchronous BFS from src over tight arcs,
// claiming each vertex with a compare-and-swap on its parent.
//
// With non-negative weights every vertex of finite distance has a tight
// path from src (the arc that last lowered dist[v] stays tight, as
// dist[u]+w only decreases with dist[u] and convergence bounds it below
// by dist[v]), so the orphans' rounds always finish. With negative
// weights float64 rounding can, in contrived cases, leave a vertex whose
// only tight in-arcs come from a cycle that rounding made negative; that
// returns an error naming the vertex.
func tightParents[W weight](g *graph.CSR, ws []W, dist []float64, src int32) ([]int32, int64, error) {
	if !g.Directed {
		if parents, reached, ok := pullParents(g, ws, dist, src); ok {
			return parents, reached, nil
		}
	}
	return bfsParents(g, ws, dist, src)
}

// pullParents is the undirected fast path of tightParents; ok is false
// when it gives up for the general method.
func pullParents[W weight](g *graph.CSR, ws []W, dist []float64, src int32) (parents []int32, reached int64, ok bool) {
	n := g.NumVertices()
	parents = make([]int32, n)
	off, adj := g.Offsets, g.Adj
	var count atomic.Int64
	var mu sync.Mutex
	var orphans []int32
	maxOrphans := n/64 + 16
	err := par.ForWeighted(off, func(lo, hi int) {
		var c int64
		var local []int32
		for v := lo; v < hi; v++ {
			dv := dist[v]
			p := int32(-1)
			if dv <= math.MaxFloat64 {
				c++
				for k := off[v]; k < off[v+1]; k++ {
					// the reverse arc u→v weighs the same as v→u
					u := adj[k]
					if du := dist[u]; du < dv && du+arcWeight(ws, k) == dv {
						p = u
						break
					}
				}
				if p < 0 && int32(v) != src && len(local) <= maxOrphans {
					local = append(local, int32(v))
				}
			}
			parents[v] = p
		}
		count.Add(c)
		if len(local) > 0 {
			mu.Lock()
			orphans = append(orphans, local...)
			mu.Unlock()
		}
	})
	parents[src] = src
	if err != nil || len(orphans) > maxOrphans {
		return nil, 0, false // bfsParents returns an interrupt's error
	}
	// Adoption rounds; parents found in a round are applied after it.
	type adoption struct{ v, u int32 }
	var adopted []adoption
	for len(orphans) > 0 {
		adopted = adopted[:0]
		left := orphans[:0]
		for _, v := range orphans {
			dv, found := dist[v], false
			for k := off[v]; k < off[v+1]; k++ {
				u := adj[k]
				if du := dist[u]; du == dv && du+arcWeight(ws, k) == dv && parents[u] >= 0 {
					adopted = append(adopted, adoption{v, u})
					found = true
					break
				}
			}
			if !found {
				left = append(left, v)
			}
		}
		if len(adopted) == 0 {
			return nil, 0, false
		}
		for _, a := range adopted {
			parents[a.v] = a.u
		}
		orphans = left
	}
	return parents, count.Load(), true
}

// bfsParents is the general method of tightParents.
func bfsParents[W weight](g *graph.CSR, ws []W, dist []float64, src int32) ([]int32, int64, error) {
	n := g.NumVertices()
	parents := make([]int32, n)
	err := par.For(n, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			parents[i] = -1
		}
	})
	if err != nil {
		return nil, 0, fmt.Errorf("sssp: building the parent tree: %w", err)
	}
	off, adj := g.Offsets, g.Adj
	queue := make([]int32, n)
	parents[src] = src
	queue[0] = src
	head, tail := 0, 1
	workers := par.Workers()
	for head < tail {
		if err := cancel.Check(); err != nil {
			return nil, 0, fmt.Errorf("sssp: building the parent tree: %w", err)
		}
		frontier := queue[head:tail]
		var out, task atomic.Int64
		out.Store(int64(tail))
		nw := workers
		if len(frontier) < serialFrontier {
			nw = 1
		}
		par.Run(nw, func(int) {
			buf := make([]int32, 0, treeBuf)
			for {
				lo := int(task.Add(1)-1) * treeChunk
				if lo >= len(frontier) || cancel.Requested() {
					break // the level loop's check returns the error
				}
				for _, u := range frontier[lo:min(lo+treeChunk, len(frontier))] {
					du := dist[u]
					for k := off[u]; k < off[u+1]; k++ {
						v := adj[k]
						nd := du + arcWeight(ws, k)
						if nd != dist[v] || nd > math.MaxFloat64 ||
							atomic.LoadInt32(&parents[v]) >= 0 ||
							!atomic.CompareAndSwapInt32(&parents[v], -1, u) {
							continue
						}
						buf = append(buf, v)
						if len(buf) == treeBuf {
							at := out.Add(treeBuf) - treeBuf
							copy(queue[at:], buf)
							buf = buf[:0]
						}
					}
				}
			}
			if len(buf) > 0 {
				at := out.Add(int64(len(buf))) - int64(len(buf))
				copy(queue[at:], buf)
			}
		})
		head, tail = tail, int(out.Load())
	}
	reached := int64(tail)
	// Every vertex of finite distance must be in the tree.
	var missing atomic.Int64
	missing.Store(math.MaxInt64)
	err = par.For(n, func(lo, hi int) {
		for v := lo; v < hi; v++ {
			if parents[v] < 0 && !math.IsInf(dist[v], 1) {
				for {
					m := missing.Load()
					if int64(v) >= m || missing.CompareAndSwap(m, int64(v)) {
						break
					}
				}
				return
			}
		}
	})
	if err == nil {
		err = cancel.Check() // the last level may have stopped early
	}
	if err != nil {
		return nil, 0, fmt.Errorf("sssp: building the parent tree: %w", err)
	}
	if v := missing.Load(); v != math.MaxInt64 {
		return nil, 0, fmt.Errorf("sssp: vertex %d has distance %g but no path of tight arcs from the source: "+
			"float64 rounding made a cycle of negative weight (the weights are too far apart in magnitude for exact sums)", v, dist[v])
	}
	return parents, reached, nil
}
