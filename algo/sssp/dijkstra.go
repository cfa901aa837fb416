package sssp

import (
	"fmt"
	"time"

	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/trace"
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
func Dijkstra(g *graph.CSR, src int32) (*Result, error) { return runDijkstra(g, src, false) }

// DijkstraTraced is Dijkstra with a Result.Trace: the run is cut into
// steps of equally many settled vertices, the chunk the power of two
// at least N/256 (so a run has at most 256 steps, one vertex a step on a
// graph of up to 256 vertices; the last step may settle fewer). Each
// step is of kind "settle", with
//
//   - Frontier: the heap's entries at the step's start (stale ones
//     included: a vertex pushed again after an improvement stays in the
//     heap until popped), FrontierArcs 0;
//   - Inspected: the arcs the step's settled vertices scanned (their
//     out-degrees: every arc of every reached vertex is scanned once, so
//     the steps' sum is the reached vertices' arcs);
//   - Updated: the decrease-keys, relaxations that lowered a distance
//     (each pushes an entry);
//   - Why: the settled vertices' ordinal range and the largest distance
//     settled ("vertices 1024–2047 settled, d ≤ 0.4375");
//   - Time: the step's wall time.
//
// The steps' times sum to at most Result.Time (the polls of cancellation
// between steps and the stale entries popped after the last are in no
// step). The trace costs two clock reads and a Why per step (and, with
// steps of fewer than 1024 vertices, a cancellation poll per step);
// the distances are Dijkstra's.
func DijkstraTraced(g *graph.CSR, src int32) (*Result, error) { return runDijkstra(g, src, true) }

// runDijkstra is Dijkstra, with traced a Result.Trace (DijkstraTraced).
func runDijkstra(g *graph.CSR, src int32, traced bool) (*Result, error) {
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
	var steps *[]trace.Step
	if traced {
		steps = new([]trace.Step)
	}
	start := time.Now()
	var err error
	switch {
	case g.Weights64 != nil:
		r.Dist, r.Iterations, err = dijkstra(g, g.Weights64, src, steps)
	default:
		r.Dist, r.Iterations, err = dijkstra(g, g.Weights, src, steps)
	}
	r.Time = time.Since(start)
	if err != nil {
		return nil, err
	}
	if traced {
		r.Trace = &trace.Trace{Algorithm: r.Algorithm, Arcs: g.NumArcs(), Steps: *steps, Time: r.Time}
	}
	if err := r.finish(g); err != nil {
		return nil, err
	}
	return r, nil
}

// dijkstraPoll is how many vertices Dijkstra settles between looks at
// cancel.Check. A power of two.
const dijkstraPoll = 1024

// dijkstraMaxSteps bounds a traced Dijkstra's steps.
const dijkstraMaxSteps = 256

// dijkstraTraceChunk is a traced Dijkstra's vertices per step on n
// vertices: the least power of two ≥ n/dijkstraMaxSteps.
func dijkstraTraceChunk(n int) int {
	c := 1
	for c*dijkstraMaxSteps < n {
		c *= 2
	}
	return c
}

// dijkstra settles vertices in blocks of dijkstraPoll (or of the trace's
// chunk, when smaller), polling cancellation between blocks. With steps
// not nil it appends a step each time a trace chunk is complete (a
// multiple of blocks) and when the heap runs out (DijkstraTraced), unless
// that last step settled nothing (its entries were all stale).
func dijkstra[W weight](g *graph.CSR, ws []W, src int32, steps *[]trace.Step) ([]float64, int, error) {
	n := g.NumVertices()
	dist := newDist(n, src)
	off, adj := g.Offsets, g.Adj
	h := heap{items: make([]heapItem, 0, 1024)}
	h.push(0, src)
	block, chunk := dijkstraPoll, 0
	if steps != nil {
		chunk = dijkstraTraceChunk(n)
		block = min(block, chunk)
	}
	settled := 0
	var step trace.Step // the open step's counts (traced)
	var stepStart time.Time
	stepFirst := 0 // the open step's first settled ordinal
	var scanned, lowered int64
	last := 0.0 // the last distance settled
	for len(h.items) > 0 {
		if err := cancel.Check(); err != nil {
			return nil, 0, fmt.Errorf("sssp: Dijkstra from %d stopped after %d vertices: %w", src, settled, err)
		}
		if steps != nil && settled == stepFirst {
			step = trace.Step{Kind: "settle", Frontier: int64(len(h.items))}
			stepStart = time.Now()
			scanned, lowered = 0, 0
		}
		for end := settled + block; settled < end && len(h.items) > 0; {
			top := h.pop()
			u, du := top.v, top.d
			if du > dist[u] {
				continue // stale: u was improved after this entry was pushed
			}
			settled++
			last = du
			scanned += off[u+1] - off[u]
			for k := off[u]; k < off[u+1]; k++ {
				v := adj[k]
				if nd := du + arcWeight(ws, k); nd < dist[v] {
					dist[v] = nd
					h.push(nd, v)
					lowered++
				}
			}
		}
		if steps != nil && (settled-stepFirst == chunk || len(h.items) == 0 && settled > stepFirst) {
			step.Inspected, step.Updated = scanned, lowered
			step.Why = fmt.Sprintf("vertices %d–%d settled, d ≤ %.4g", stepFirst, settled-1, last)
			step.Time = time.Since(stepStart)
			*steps = append(*steps, step)
			stepFirst = settled
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
