package sssp

import (
	"fmt"
	"math"
	"sync/atomic"
	"time"

	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/internal/par"
	"github.com/graphnb/graphnb/trace"
)

// BellmanFord computes shortest paths from src with the edge-parallel
// Bellman-Ford of the SSSP study (docs/studies.md §1), on all cores.
//
// On an undirected graph it first builds the COO view (g.UndirectedCOO:
// every pair {u, v} once; counted in PrepTime), then sweeps: each sweep
// relaxes both directions of every edge, the edges split among the cores,
// and the sweeps repeat until one changes no distance. A sweep is one
// launch of the study's GPU kernel and loop index k is its thread k, with
// the kernel's test order (lower dist[start] through the edge, else lower
// dist[end]); where the GPU writes race benignly, the CPU lowers distances
// with an atomic minimum. On a directed graph a sweep relaxes every arc in
// its own direction, over the CSR. Result.Iterations is the number of
// sweeps, the final unchanged one included (the GPU's kernel launches).
//
// Negative weights: on a directed graph they are allowed, and a negative
// cycle reachable from src is reported as an error once N sweeps all
// changed something; on an undirected graph a negative edge is itself a
// negative cycle (u→v→u), an error. A -Inf or NaN weight is an error.
//
// Work is O(M) per sweep and at most N sweeps (R-MAT graphs take about 30);
// memory is 8 bytes per vertex plus the COO view (8 bytes per edge and the
// weights). It returns an error for a nil graph, a source outside [0, N),
// the weights above, or cancellation (polled at every sweep and every
// 65536 edges within one).
func BellmanFord(g *graph.CSR, src int32) (*Result, error) { return bellmanFord(g, src, false) }

// bellmanFord is BellmanFord, with traced a Result.Trace of one step per
// sweep (the GPU EdgeSweep's host stand-in, Options.Trace).
func bellmanFord(g *graph.CSR, src int32, traced bool) (*Result, error) {
	if err := checkInput(g, src); err != nil {
		return nil, err
	}
	prep := time.Now()
	ws, err := scanWeights(g)
	if err != nil {
		return nil, err
	}
	if ws.negArc >= 0 {
		k := ws.negArc
		w := g.ArcWeight(k)
		switch {
		case math.IsNaN(w) || math.IsInf(w, -1):
			return nil, fmt.Errorf("sssp: arc %d→%d weighs %g: Bellman-Ford needs finite or +Inf weights", arcTail(g, k), g.Adj[k], w)
		case !g.Directed:
			return nil, fmt.Errorf("sssp: edge %d–%d of this undirected graph weighs %g: a negative edge is a negative cycle (there and back), so shortest paths are undefined",
				arcTail(g, k), g.Adj[k], w)
		}
		// Directed with negative weights: allowed, but check for -Inf/NaN
		// beyond the first negative arc.
		if err := checkFinite(g); err != nil {
			return nil, err
		}
	}
	r := &Result{Source: src}
	var coo *graph.COO
	if g.Directed {
		r.Algorithm = "cpu Bellman-Ford (arc-parallel, directed)"
	} else {
		r.Algorithm = "cpu Bellman-Ford (edge-parallel over each edge once, the SSSP study's method)"
		var err error
		if coo, err = g.UndirectedCOO(); err != nil {
			return nil, fmt.Errorf("sssp: %w", err)
		}
	}
	r.PrepTime = time.Since(prep)

	start := time.Now()
	n := g.NumVertices()
	dist := newDist(n, src)
	var sweeps int
	var steps *[]trace.Step
	if traced {
		steps = new([]trace.Step)
	}
	switch {
	case coo != nil && coo.Weights64 != nil:
		sweeps, err = bellmanFordCOO(coo, coo.Weights64, dist, steps)
	case coo != nil:
		sweeps, err = bellmanFordCOO(coo, coo.Weights, dist, steps)
	case g.Weights64 != nil:
		sweeps, err = bellmanFordCSR(g, g.Weights64, dist, steps)
	default:
		sweeps, err = bellmanFordCSR(g, g.Weights, dist, steps)
	}
	r.Time = time.Since(start)
	if err != nil {
		return nil, fmt.Errorf("sssp: Bellman-Ford from %d: %w", src, err)
	}
	if traced {
		r.Trace = &trace.Trace{Algorithm: r.Algorithm, Arcs: g.NumArcs(), Steps: *steps, Time: r.Time}
	}
	r.Dist, r.Iterations = dist, sweeps
	if err := r.finish(g); err != nil {
		return nil, err
	}
	return r, nil
}

// checkFinite returns an error naming the first arc whose weight is NaN or
// -Inf.
func checkFinite(g *graph.CSR) error {
	for k := range g.NumArcs() {
		if w := g.ArcWeight(k); math.IsNaN(w) || math.IsInf(w, -1) {
			return fmt.Errorf("sssp: arc %d→%d weighs %g: Bellman-Ford needs finite or +Inf weights", arcTail(g, k), g.Adj[k], w)
		}
	}
	return nil
}

// pollEvery is how many edges a sweep worker relaxes between looks at
// cancel.Requested, so that a long sweep (hundreds of millions of edges)
// stops within a fraction of a second. A power of two.
const pollEvery = 1 << 16

// errNegativeCycle reports sweeps that never settle.
func errNegativeCycle(n int) error {
	return fmt.Errorf("distances still changed after %d sweeps (one per vertex): a negative cycle is reachable from the source", n)
}

// bellmanFordCOO is the study's host loop: one sweep per kernel launch
// until the modification flag stays clear.
//
// With steps not nil it appends one per sweep: its time, the arcs it
// tested (two per edge) and the distances it lowered.
func bellmanFordCOO[W weight](c *graph.COO, ws []W, dist []float64, steps *[]trace.Step) (int, error) {
	m := len(c.Start)
	for sweep := 1; ; sweep++ {
		if err := cancel.Check(); err != nil {
			return 0, fmt.Errorf("stopped at sweep %d: %w", sweep, err)
		}
		t0 := time.Now()
		var lowered atomic.Int64 // its zero is the kernel's modif[0] unset
		par.For(m, func(lo, hi int) {
			var low int64
			for k := lo; k < hi; k++ { // k = blockIdx.x*blockDim.x + threadIdx.x
				if k&(pollEvery-1) == 0 && cancel.Requested() {
					break // the sweep is abandoned; the loop reports it
				}
				w := arcWeight(ws, int64(k))
				st, en := c.Start[k], c.End[k]
				ds, de := loadDist(&dist[st]), loadDist(&dist[en])
				if ds > de+w { // if dist[st] > dist[en] + w: dist[st] = dist[en] + w
					if lowerDist(&dist[st], de+w) {
						low++
					}
				} else if de > ds+w { // elif dist[en] > dist[st] + w: dist[en] = dist[st] + w
					if lowerDist(&dist[en], ds+w) {
						low++
					}
				}
			}
			if low > 0 {
				lowered.Add(low)
			}
		})
		if err := cancel.Check(); err != nil {
			return 0, fmt.Errorf("stopped in sweep %d: %w", sweep, err)
		}
		if steps != nil {
			*steps = append(*steps, trace.Step{Kind: "sweep", Inspected: 2 * int64(m), Updated: lowered.Load(), Time: time.Since(t0)})
		}
		if lowered.Load() == 0 {
			return sweep, nil
		}
		if sweep >= c.N {
			return 0, errNegativeCycle(c.N)
		}
	}
}

// bellmanFordCSR sweeps over the arcs of a directed graph, each vertex's
// out-arcs relaxed from its current distance.
func bellmanFordCSR[W weight](g *graph.CSR, ws []W, dist []float64, steps *[]trace.Step) (int, error) {
	n := g.NumVertices()
	off, adj := g.Offsets, g.Adj
	for sweep := 1; ; sweep++ {
		if err := cancel.Check(); err != nil {
			return 0, fmt.Errorf("stopped at sweep %d: %w", sweep, err)
		}
		t0 := time.Now()
		var lowered, tested atomic.Int64
		par.ForWeighted(off, func(lo, hi int) {
			var low, test int64
			defer func() {
				lowered.Add(low)
				tested.Add(test)
			}()
			for u := lo; u < hi; u++ {
				if u&(pollEvery/32-1) == 0 && cancel.Requested() {
					break
				}
				du := loadDist(&dist[u])
				if du > math.MaxFloat64 {
					continue // unreached so far
				}
				test += off[u+1] - off[u]
				for k := off[u]; k < off[u+1]; k++ {
					v := adj[k]
					nd := du + arcWeight(ws, k)
					if nd < loadDist(&dist[v]) && lowerDist(&dist[v], nd) {
						low++
					}
				}
			}
		})
		if err := cancel.Check(); err != nil {
			return 0, fmt.Errorf("stopped in sweep %d: %w", sweep, err)
		}
		if steps != nil {
			*steps = append(*steps, trace.Step{Kind: "sweep", Inspected: tested.Load(), Updated: lowered.Load(), Time: time.Since(t0)})
		}
		if lowered.Load() == 0 {
			return sweep, nil
		}
		if sweep >= n {
			return 0, errNegativeCycle(n)
		}
	}
}
