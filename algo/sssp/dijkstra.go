package sssp

import (
	"fmt"
	"time"

	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/graph"
)

// Dijkstra computes shortest paths from src with Dijkstra's algorithm: a
// binary heap of (distance, vertex) entries with lazy deletion (an
// improved vertex is pushed again; stale entries are skipped when popped),
// on one core. Result.Iterations is the number of vertices settled.
//
// Work is O((N + M) log M); memory is 8 bytes per vertex plus 16 bytes per
// heap entry (at most one per successful relaxation). It returns an error
// for a nil graph, a source outside [0, N), a negative or NaN weight (use
// BellmanFord on a directed graph), or cancellation (polled every 1024
// settled vertices, errors.Is(err, cancel.ErrInterrupted)).
func Dijkstra(g *graph.CSR, src int32) (*Result, error) {
	if err := checkInput(g, src); err != nil {
		return nil, err
	}
	prep := time.Now()
	if ws, err := scanWeights(g); err != nil {
		return nil, err
	} else if ws.negArc >= 0 {
		return nil, negativeError(g, ws.negArc, "Dijkstra", " (use BellmanFord on a directed graph)")
	}
	r := &Result{Algorithm: "cpu Dijkstra (binary heap)", Source: src, PrepTime: time.Since(prep)}
	start := time.Now()
	var err error
	switch {
	case g.Weights64 != nil:
		r.Dist, r.Iterations, err = dijkstra(g, g.Weights64, src)
	default:
		r.Dist, r.Iterations, err = dijkstra(g, g.Weights, src)
	}
	r.Time = time.Since(start)
	if err != nil {
		return nil, err
	}
	if err := r.finish(g); err != nil {
		return nil, err
	}
	return r, nil
}

func dijkstra[W weight](g *graph.CSR, ws []W, src int32) ([]float64, int, error) {
	dist := newDist(g.NumVertices(), src)
	off, adj := g.Offsets, g.Adj
	h := heap{items: make([]heapItem, 0, 1024)}
	h.push(0, src)
	settled := 0
	for len(h.items) > 0 {
		top := h.pop()
		u, du := top.v, top.d
		if du > dist[u] {
			continue // stale: u was improved after this entry was pushed
		}
		if settled&1023 == 0 {
			if err := cancel.Check(); err != nil {
				return nil, 0, fmt.Errorf("sssp: Dijkstra from %d stopped after %d vertices: %w", src, settled, err)
			}
		}
		settled++
		for k := off[u]; k < off[u+1]; k++ {
			v := adj[k]
			if nd := du + arcWeight(ws, k); nd < dist[v] {
				dist[v] = nd
				h.push(nd, v)
			}
		}
	}
	return dist, settled, nil
}

// heapItem is a heap entry: a tentative distance and its vertex.
type heapItem struct {
	d float64
	v int32
}

// heap is a binary min-heap of heapItems ordered by d, with the sift loops
// written out (a hole moves instead of swapping pairs).
type heap struct{ items []heapItem }

func (h *heap) push(d float64, v int32) {
	a := append(h.items, heapItem{})
	i := len(a) - 1
	for i > 0 {
		p := (i - 1) / 2
		if a[p].d <= d {
			break
		}
		a[i] = a[p]
		i = p
	}
	a[i] = heapItem{d, v}
	h.items = a
}

func (h *heap) pop() heapItem {
	a := h.items
	top := a[0]
	last := a[len(a)-1]
	a = a[:len(a)-1]
	h.items = a
	n := len(a)
	if n == 0 {
		return top
	}
	i := 0
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && a[c+1].d < a[c].d {
			c++
		}
		if last.d <= a[c].d {
			break
		}
		a[i] = a[c]
		i = c
	}
	a[i] = last
	return top
}
