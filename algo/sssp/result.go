package sssp

import (
	"fmt"
	"math"
	"time"

	"github.com/graphnb/graphnb/algo/internal/rawmem"
	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/internal/par"
	"github.com/graphnb/graphnb/trace"
)

// Result is the outcome of one single-source shortest-path run. CPU and
// GPU variants fill the same fields; Check validates one against its
// graph.
type Result struct {
	// Algorithm names the implementation and variant, e.g.
	// "cpu Δ-stepping (Δ=0.0312)".
	Algorithm string
	// Source is the vertex the distances are measured from.
	Source int32
	// Dist[v] is the length of a shortest path from Source to v, +Inf when
	// v is unreached. Dist[Source] is 0.
	Dist []float64
	// Parents[v] is v's predecessor on a shortest path (a tight arc
	// Parents[v]→v), Parents[Source] = Source, -1 when v is unreached.
	Parents []int32
	// Iterations counts the algorithm's rounds: Bellman-Ford sweeps over
	// all edges (the last one changes nothing; the GPU kernel launches of
	// docs/studies.md §1), Δ-stepping buckets that settled a vertex, Dijkstra
	// vertices settled (equal to Reached); on a GPU, frontier rounds, or
	// near-far rounds, settle steps and splits (see Prepared.Run).
	Iterations int
	// Delta is the bucket width Δ-stepping (CPU, or GPU near-far) used;
	// 0 for the others.
	Delta float64
	// Reached is the number of vertices with a finite distance, Source
	// included.
	Reached int64
	// ComponentEdges is the Graph500 TEPS numerator: the input edges with
	// a reached endpoint (graph.CSR.ComponentEdges).
	ComponentEdges int64
	// Time is the distance computation only, excluding PrepTime and
	// TreeTime: what the studies time (on a GPU, measured with CUDA
	// events).
	Time time.Duration
	// PrepTime is the preparation excluded from Time: the weight scan
	// (negative weights, Δ's default) and, for Bellman-Ford on an
	// undirected graph, building the COO view. A GPU Prepared.Run
	// prepares nothing per run and reports 0; Prepare's time, spent once,
	// is Prepared.PrepTime, which the one-shot Run adds.
	PrepTime time.Duration
	// TreeTime is the parent computation after convergence, excluded from
	// Time.
	TreeTime time.Duration
	// TEPS is graph.Rate(ComponentEdges, stored arcs, Time).
	TEPS graph.TEPS
	// ArcsScanned counts the arc relaxations the GPU methods examined:
	// 2·edges per launch for the edge sweep, the arcs of every processed
	// queue entry for the frontier and near-far methods (see
	// Prepared.Run); 0 where not counted (the CPU algorithms).
	ArcsScanned int64
	// Phases counts the thresholds the GPU near-far method went through
	// (far-pile splits plus one); 0 for the other algorithms.
	Phases int
	// Trace is the run's record when Options.Trace, DijkstraTraced or
	// DeltaSteppingTraced asked for one (nil otherwise; the latter two
	// list their steps in their docs): for Bellman-Ford a step of kind
	// "sweep" per sweep, with Inspected the arcs it tested (every edge's
	// two arcs), Updated the distances it lowered (a write that a racing
	// one replaced counts too) and Frontier 0 (a sweep reads every edge,
	// active or not).
	Trace *trace.Trace
}

// String summarises the result in one line: algorithm, source, reached
// vertices, iterations, times and both TEPS conventions.
func (r *Result) String() string {
	if r == nil {
		return "sssp: <nil result>"
	}
	return fmt.Sprintf("%s from %d: reached %d of %d vertices, %d iterations, %v (prep %v, tree %v), %s",
		r.Algorithm, r.Source, r.Reached, len(r.Dist), r.Iterations,
		r.Time.Round(time.Microsecond), r.PrepTime.Round(time.Microsecond),
		r.TreeTime.Round(time.Microsecond), r.TEPS)
}

// weight is the element type of a CSR's weight slice. A nil slice means
// unit weights (an unweighted graph).
type weight interface{ float32 | float64 }

// arcWeight returns the weight of arc k as a float64, 1 for nil ws.
func arcWeight[W weight](ws []W, k int64) float64 {
	if ws == nil {
		return 1
	}
	return float64(ws[k])
}

// checkInput returns an error for a nil or empty graph or a source out of
// range.
func checkInput(g *graph.CSR, src int32) error {
	if g == nil || len(g.Offsets) == 0 {
		return fmt.Errorf("sssp: no graph (nil or without offsets)")
	}
	n := g.NumVertices()
	if n == 0 {
		return fmt.Errorf("sssp: the graph has no vertices, so no source")
	}
	if src < 0 || int(src) >= n {
		return fmt.Errorf("sssp: source %d is not a vertex of this %d-vertex graph (use 0..%d)", src, n, n-1)
	}
	return nil
}

// weightStats summarises a graph's arc weights for the algorithms'
// preconditions and Δ's default.
type weightStats struct {
	// negArc is the first arc (lowest index) with a negative or NaN
	// weight, or -1.
	negArc int64
	// maxFinite is the largest finite weight (0 if none).
	maxFinite float64
	// mean is the mean finite weight (0 if none).
	mean float64
}

// scanWeights computes weightStats on all cores; O(M). An interrupt
// returns cancel's error.
func scanWeights(g *graph.CSR) (weightStats, error) {
	switch {
	case g.Weights64 != nil:
		return scan(g.Weights64)
	case g.Weights != nil:
		return scan(g.Weights)
	}
	s := weightStats{negArc: -1}
	if g.NumArcs() > 0 {
		s.maxFinite, s.mean = 1, 1
	}
	return s, nil
}

// weightChunk is the number of weights scan (and PrepareResident's
// device scan) sums in order before adding the chunk's sum to the total.
// 2^14: enough chunks (7,300 at R-MAT s22) for one device thread each to
// keep the GPU's memory busy, few enough for one warp to fold in order
// (2^16 took 6.2 ms on the H100 at s22, 2^14 about 1).
const weightChunk = 1 << 14

// scan computes weightStats over fixed chunks of the weights, so the mean
// (and with it the default Δ) is the same on every machine.
func scan[W weight](ws []W) (weightStats, error) {
	const chunk = weightChunk
	type part struct {
		neg     int64
		mx, sum float64
		count   int64
	}
	parts := make([]part, (len(ws)+chunk-1)/chunk)
	err := par.ForChunks(len(ws), chunk, func(ci, lo, hi int) {
		p := part{neg: -1}
		for k, w := range ws[lo:hi] {
			x := float64(w)
			if !(x >= 0) && p.neg < 0 { // negative or NaN
				p.neg = int64(lo + k)
			}
			if x <= math.MaxFloat64 && x >= -math.MaxFloat64 {
				p.mx = max(p.mx, x)
				p.sum += x
				p.count++
			}
		}
		parts[ci] = p
	})
	if err != nil {
		return weightStats{}, fmt.Errorf("sssp: scanning the weights: %w", err)
	}
	s := weightStats{negArc: -1}
	var sum float64
	var count int64
	for _, p := range parts {
		if s.negArc < 0 {
			s.negArc = p.neg
		}
		s.maxFinite = max(s.maxFinite, p.mx)
		sum += p.sum
		count += p.count
	}
	if count > 0 {
		s.mean = sum / float64(count)
	}
	return s, nil
}

// arcTail returns the tail of arc k (binary search in Offsets).
func arcTail(g *graph.CSR, k int64) int32 {
	lo, hi := 0, g.NumVertices()
	for hi-lo > 1 {
		m := int(uint(lo+hi) >> 1)
		if g.Offsets[m] <= k {
			lo = m
		} else {
			hi = m
		}
	}
	return int32(lo)
}

// negativeError describes arc k's weight for the algorithms that cannot
// take it.
func negativeError(g *graph.CSR, k int64, algo, remedy string) error {
	return fmt.Errorf("sssp: %s needs non-negative weights, but arc %d→%d weighs %g%s",
		algo, arcTail(g, k), g.Adj[k], g.ArcWeight(k), remedy)
}

// newDist returns N distances set to +Inf except Dist[src] = 0 (filled
// in parallel, so not zeroed first: rawmem).
func newDist(n int, src int32) []float64 {
	dist := rawmem.Slice[float64](n)
	inf := math.Inf(1)
	par.For(n, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			dist[i] = inf
		}
	})
	dist[src] = 0
	return dist
}

// finish computes the parents from converged distances and fills the
// derived fields. Every algorithm ends with it, so it is where a result
// that an interrupt left incomplete (a parallel loop stops early then)
// is refused: it returns cancel's error.
func (r *Result) finish(g *graph.CSR) (err error) {
	defer cancel.Recover(&err) // from ComponentEdges
	start := time.Now()
	switch {
	case g.Weights64 != nil:
		r.Parents, r.Reached, err = tightParents(g, g.Weights64, r.Dist, r.Source)
	default:
		r.Parents, r.Reached, err = tightParents(g, g.Weights, r.Dist, r.Source)
	}
	r.TreeTime = time.Since(start)
	if err != nil {
		return err
	}
	parents := r.Parents
	r.ComponentEdges = g.ComponentEdges(func(v int32) bool { return parents[v] >= 0 })
	r.TEPS = graph.Rate(r.ComponentEdges, g.NumArcs(), r.Time)
	return cancel.Check()
}
