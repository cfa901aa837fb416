package graph

import (
	"fmt"
	"github.com/graphnb/graphnb/internal/card"
	"sync/atomic"
	"time"

	"github.com/graphnb/graphnb/internal/par"
)

// TEPS is a traversal rate in the two conventions graphnb always labels
// (README, "Measuring").
type TEPS struct {
	// Graph500 is undirected input edges within the traversed component per
	// second (Graph500's TEPS; averaged over roots with a harmonic mean).
	Graph500 float64
	// ArcsPerSecond is all stored arcs of the graph per second, the
	// studies' convention (averaged with an arithmetic mean).
	ArcsPerSecond float64
}

// Rate computes both conventions from the edges of the traversed
// component, the graph's stored arcs and the run time. A zero or negative
// duration gives zero rates.
func Rate(componentEdges, arcs int64, d time.Duration) TEPS {
	s := d.Seconds()
	if s <= 0 {
		return TEPS{}
	}
	return TEPS{Graph500: float64(componentEdges) / s, ArcsPerSecond: float64(arcs) / s}
}

// String renders both conventions with SI prefixes, e.g.
// "1.23 GTEPS (Graph500), 2.46 G arcs/s".
func (t TEPS) String() string {
	return fmt.Sprintf("%sTEPS (Graph500), %s arcs/s", SI(t.Graph500), SI(t.ArcsPerSecond))
}

// SI renders x with 3 significant digits, a space and a k/M/G/T prefix
// ("1.23 G"; "12 " below a thousand), ready to be followed by a unit.
func SI(x float64) string { return card.SI(x) }

// ComponentEdges returns the number of edges with a reached tail, the
// numerator of Graph500 TEPS: for an undirected graph, half the degree sum
// of the reached vertices (every edge of a reached vertex lies in its
// component); for a directed graph, the arcs leaving reached vertices.
// Duplicates and self-loops were removed by Build, so they do not count.
// It has no error result, so an interrupt (cancel.Request) makes it panic
// with an error wrapping cancel.ErrInterrupted.
func (g *CSR) ComponentEdges(reached func(v int32) bool) int64 {
	var total atomic.Int64
	err := par.For(g.NumVertices(), func(lo, hi int) {
		var s int64
		for v := lo; v < hi; v++ {
			// reached is not asked about a vertex without arcs, which
			// adds nothing (R-MAT leaves many).
			if d := g.Offsets[v+1] - g.Offsets[v]; d != 0 && reached(int32(v)) {
				s += d
			}
		}
		total.Add(s)
	})
	if err != nil {
		panic(fmt.Errorf("graph: ComponentEdges: %w", err))
	}
	if !g.Directed {
		return total.Load() / 2
	}
	return total.Load()
}
