package mst

import (
	"fmt"
	"math"
	"sync/atomic"
	"time"

	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/internal/par"
	"github.com/graphnb/graphnb/trace"
)

// Edge is an undirected edge {U, V} of a spanning forest, U < V, with its
// weight W.
type Edge struct {
	U, V int32
	W    float64
}

// Result is a minimum spanning forest and how it was computed. CPU and GPU
// implementations fill the same fields; Check validates one against its
// graph.
type Result struct {
	// Algorithm names the implementation and variant, e.g. "cpu Borůvka".
	Algorithm string
	// Edges are the forest's edges sorted by (W, U, V) ascending.
	Edges []Edge
	// Weight is the total weight of Edges, summed in their order.
	Weight float64
	// Trees is the number of trees of the spanning forest, isolated
	// vertices included: the number of connected components of the graph.
	Trees int
	// Iterations is the number of Borůvka rounds that merged trees (0 for
	// Kruskal).
	Iterations int
	// Time is the computation proper, in the study's sense, excluding
	// PrepTime: for Kruskal the sort and the union-find pass, for Borůvka
	// its rounds (on a GPU, measured with CUDA events).
	Time time.Duration
	// PrepTime is input preparation excluded from Time: extracting each
	// edge once (both), plus ranking the edges by weight and building the
	// rank-sorted neighbour lists for Borůvka (the study's "local sort"
	// and "weights → integers" transforms, which it does not time). A
	// GPU Prepared.Run prepares nothing per run and reports 0 (on the
	// host device, Boruvka's own); Prepare's time, spent once, is
	// Prepared.PrepTime, which the one-shot Run adds.
	PrepTime time.Duration
	// TEPS is graph.Rate(NumEdges, NumArcs, Time): ArcsPerSecond (stored
	// arcs per second) is the study's MTEPS, Graph500 counts every
	// undirected edge once.
	TEPS graph.TEPS
	// Trace is the run's record when Options.Trace asked for one (nil
	// otherwise): a step of kind "round" per Borůvka round, with Frontier
	// the trees at its start, Inspected the arcs its find-minimum step
	// read (those passed inside a tree and each candidate), Updated the
	// edges it added (0 in a last round that found no tree with an
	// outgoing edge) and, in hybrid mode, HostTime the host's share; on a
	// GPU its launches (reset, probe, scan, merge, hook, cycles, jump,
	// renumber, relabel) give each part of the round its time and the
	// bytes it moves (Options.Trace).
	Trace *trace.Trace
}

// String summarises the result in one line.
func (r *Result) String() string {
	if r == nil {
		return "mst: <nil result>"
	}
	it := ""
	if r.Iterations > 0 {
		it = fmt.Sprintf(", %d rounds", r.Iterations)
	}
	return fmt.Sprintf("%s: spanning forest of %d tree(s), %d edges, weight %.6g%s, %v (prep %v), %sTEPS (arcs/s)",
		r.Algorithm, r.Trees, len(r.Edges), r.Weight, it,
		r.Time.Round(time.Microsecond), r.PrepTime.Round(time.Microsecond), graph.SI(r.TEPS.ArcsPerSecond))
}

// less reports whether edge a precedes edge b in the total order
// (W, U, V) shared by every algorithm of the package.
func less(a, b Edge) bool {
	if a.W != b.W {
		return a.W < b.W
	}
	if a.U != b.U {
		return a.U < b.U
	}
	return a.V < b.V
}

// compare is less as a three-way comparison for slices.SortFunc.
func compare(a, b Edge) int {
	switch {
	case less(a, b):
		return -1
	case less(b, a):
		return 1
	}
	return 0
}

// undirectedEdges returns every edge of g once (U < V) with its weight
// (1 for an unweighted graph), or an error for a nil or directed graph.
func undirectedEdges(g *graph.CSR, who string) ([]Edge, error) {
	if g == nil || len(g.Offsets) == 0 {
		return nil, fmt.Errorf("mst: %s: no graph (nil or without offsets)", who)
	}
	if g.Directed {
		return nil, fmt.Errorf("mst: %s needs an undirected graph but this one is directed: symmetrize it first (g.Undirected(), or graph.Build with BuildOptions{Symmetrize: true})", who)
	}
	c, err := g.UndirectedCOO()
	if err != nil {
		return nil, fmt.Errorf("mst: %s: %w", who, err)
	}
	e := make([]Edge, len(c.Start))
	var nan atomic.Bool
	err = par.For(len(e), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			w := 1.0
			switch {
			case c.Weights != nil:
				w = float64(c.Weights[i])
			case c.Weights64 != nil:
				w = c.Weights64[i]
			}
			if w != w {
				nan.Store(true)
			}
			e[i] = Edge{U: c.Start[i], V: c.End[i], W: w}
		}
	})
	if err != nil {
		return nil, fmt.Errorf("mst: %s: %w", who, err)
	}
	if nan.Load() {
		for _, x := range e {
			if math.IsNaN(x.W) {
				return nil, fmt.Errorf("mst: %s: edge %d–%d has a NaN weight", who, x.U, x.V)
			}
		}
	}
	return e, nil
}

// finish fills Weight and TEPS from Edges and Time.
func (r *Result) finish(g *graph.CSR) { r.finishCounts(g.NumEdges(), g.NumArcs()) }

// finishCounts is finish for a graph of edges edges and arcs arcs.
func (r *Result) finishCounts(edges, arcs int64) {
	r.Weight = sumWeights(r.Edges)
	r.TEPS = graph.Rate(edges, arcs, r.Time)
}

// sumChunk is the edges sumWeights adds per parallel task.
const sumChunk = 1 << 16

// sumWeights returns the sum of the edges' weights added in order, bit
// for bit. When every weight is whole and their magnitudes sum to less
// than 2^53, every partial sum in any order is exact, so chunks of the
// edges are summed in parallel and the chunk sums added; otherwise (and
// for fewer than 4 chunks, or when interrupted) one loop adds them in
// order (a float sum depends on the order).
func sumWeights(edges []Edge) float64 {
	if len(edges) >= 4*sumChunk {
		chunks := (len(edges) + sumChunk - 1) / sumChunk
		sums, mags := make([]float64, chunks), make([]float64, chunks)
		whole := make([]bool, chunks)
		err := par.ForChunks(len(edges), sumChunk, func(c, lo, hi int) {
			var s, a float64
			ok := true
			for _, e := range edges[lo:hi] {
				s += e.W
				a += math.Abs(e.W)
				ok = ok && e.W == math.Trunc(e.W)
			}
			sums[c], mags[c], whole[c] = s, a, ok
		})
		var s, a float64
		exact := err == nil
		for c := range chunks {
			s += sums[c]
			a += mags[c] // exact below 2^53, and at least 2^53 once the true sum is
			exact = exact && whole[c]
		}
		if exact && a < 1<<53 {
			return s
		}
	}
	var w float64
	for _, e := range edges {
		w += e.W
	}
	return w
}
