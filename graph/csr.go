package graph

import (
	"fmt"
	"math"

	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/internal/card"
	"github.com/graphnb/graphnb/internal/par"
)

// CSR is a graph in compressed sparse row form.
//
// The arcs leaving vertex v are Adj[Offsets[v]:Offsets[v+1]], with weights
// at the same positions of Weights or Weights64. Graphs made by Build have
// each neighbour list sorted by vertex id, no self-loops and no duplicate
// arcs; SortByWeight reorders lists by weight instead.
//
// The zero CSR is not valid; use Build, a generator or a reader.
type CSR struct {
	// Offsets has NumVertices()+1 non-decreasing entries starting at 0.
	Offsets []int64
	// Adj holds the head (target) vertex of every arc.
	Adj []int32
	// Weights holds float32 arc weights parallel to Adj, or nil.
	Weights []float32
	// Weights64 holds float64 arc weights parallel to Adj, or nil.
	// At most one of Weights and Weights64 is non-nil.
	Weights64 []float64
	// Directed is false when every arc u→v has a reverse arc v→u of the
	// same weight (an undirected graph stored as both arcs).
	Directed bool
}

// NumVertices returns the number of vertices N.
func (g *CSR) NumVertices() int { return len(g.Offsets) - 1 }

// NumArcs returns the number of stored arcs (2·M for an undirected graph).
func (g *CSR) NumArcs() int64 { return int64(len(g.Adj)) }

// NumEdges returns the number of edges: arcs/2 for an undirected graph,
// arcs for a directed one.
func (g *CSR) NumEdges() int64 {
	if g.Directed {
		return g.NumArcs()
	}
	return g.NumArcs() / 2
}

// Degree returns the number of arcs leaving v. It panics with a
// *VertexError when v is not a vertex of g.
func (g *CSR) Degree(v int32) int {
	if uint64(uint32(v))+1 >= uint64(len(g.Offsets)) { // v < 0, v ≥ n, or no vertices
		panic(&VertexError{"Degree", v, len(g.Offsets) - 1})
	}
	return int(g.Offsets[v+1] - g.Offsets[v])
}

// Neighbors returns the heads of the arcs leaving v. The slice aliases Adj:
// do not modify it. It panics with a *VertexError when v is not a vertex
// of g.
func (g *CSR) Neighbors(v int32) []int32 {
	if uint64(uint32(v))+1 >= uint64(len(g.Offsets)) { // v < 0, v ≥ n, or no vertices
		panic(&VertexError{"Neighbors", v, len(g.Offsets) - 1})
	}
	return g.Adj[g.Offsets[v]:g.Offsets[v+1]]
}

// VertexError is the panic value of a CSR method called with a vertex
// the graph does not have; its message names the method, the argument and
// the valid range (an index-out-of-range panic would name none of them).
type VertexError struct {
	Method   string // "Neighbors", "Degree", "HasArc"
	Vertex   int32  // the argument
	Vertices int    // the graph's vertex count (≤ 0: none)
}

func (e *VertexError) Error() string {
	if e.Vertices <= 0 {
		return fmt.Sprintf("graph: %s(%d): the graph has no vertices", e.Method, e.Vertex)
	}
	return fmt.Sprintf("graph: %s(%d): %d is not a vertex; the graph's vertices are 0..%d", e.Method, e.Vertex, e.Vertex, e.Vertices-1)
}

// Weighted reports whether the graph carries weights.
func (g *CSR) Weighted() bool { return g.Weights != nil || g.Weights64 != nil }

// ArcWeight returns the weight of arc k (an index into Adj), or 1 for an
// unweighted graph.
func (g *CSR) ArcWeight(k int64) float64 {
	switch {
	case g.Weights != nil:
		return float64(g.Weights[k])
	case g.Weights64 != nil:
		return g.Weights64[k]
	}
	return 1
}

// HasArc reports whether the arc u→v exists. It binary-searches u's list,
// so it needs lists sorted by id (as Build makes them). Like Neighbors, it
// panics with a *VertexError when u is not a vertex; a v out of range is
// simply not there.
func (g *CSR) HasArc(u, v int32) bool {
	if uint64(uint32(u))+1 >= uint64(len(g.Offsets)) {
		panic(&VertexError{"HasArc", u, len(g.Offsets) - 1})
	}
	nb := g.Neighbors(u)
	lo, hi := 0, len(nb)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if nb[m] < v {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo < len(nb) && nb[lo] == v
}

// MemoryBytes returns the bytes held by the graph's arrays (capacity is
// not counted; struct headers are).
func (g *CSR) MemoryBytes() int64 {
	return int64(len(g.Offsets))*8 + int64(len(g.Adj))*4 +
		int64(len(g.Weights))*4 + int64(len(g.Weights64))*8 + 96
}

// Validate checks the structural invariants: offsets start at 0, do not
// decrease and end at len(Adj); every head is a vertex; weight slices match
// Adj; at most one weight slice is set; weights are not NaN. It does not
// check symmetry (see CheckSymmetric). It returns cancel's error when
// interrupted.
func (g *CSR) Validate() error {
	if len(g.Offsets) == 0 {
		return fmt.Errorf("graph: CSR has no offsets (need N+1 entries)")
	}
	n := g.NumVertices()
	if n > math.MaxInt32 {
		return fmt.Errorf("graph: %d vertices exceed the int32 id range", n)
	}
	if g.Offsets[0] != 0 {
		return fmt.Errorf("graph: Offsets[0] = %d, want 0", g.Offsets[0])
	}
	for v := 0; v < n; v++ {
		if par.Cancelled(v) {
			return interrupted("Validate")
		}
		if g.Offsets[v+1] < g.Offsets[v] {
			return fmt.Errorf("graph: Offsets decrease at vertex %d (%d > %d)", v, g.Offsets[v], g.Offsets[v+1])
		}
	}
	if g.Offsets[n] != int64(len(g.Adj)) {
		return fmt.Errorf("graph: Offsets[N] = %d but there are %d arcs", g.Offsets[n], len(g.Adj))
	}
	for k, h := range g.Adj {
		if par.Cancelled(k) {
			return interrupted("Validate")
		}
		if h < 0 || int(h) >= n {
			return fmt.Errorf("graph: arc %d points to vertex %d, outside [0,%d)", k, h, n)
		}
	}
	if g.Weights != nil && g.Weights64 != nil {
		return fmt.Errorf("graph: both Weights and Weights64 are set")
	}
	if g.Weights != nil && len(g.Weights) != len(g.Adj) {
		return fmt.Errorf("graph: %d float32 weights for %d arcs", len(g.Weights), len(g.Adj))
	}
	if g.Weights64 != nil && len(g.Weights64) != len(g.Adj) {
		return fmt.Errorf("graph: %d float64 weights for %d arcs", len(g.Weights64), len(g.Adj))
	}
	for k, w := range g.Weights {
		if par.Cancelled(k) {
			return interrupted("Validate")
		}
		if w != w {
			return fmt.Errorf("graph: weight of arc %d is NaN", k)
		}
	}
	for k, w := range g.Weights64 {
		if par.Cancelled(k) {
			return interrupted("Validate")
		}
		if w != w {
			return fmt.Errorf("graph: weight of arc %d is NaN", k)
		}
	}
	return nil
}

// CheckSymmetric reports an error naming the first arc u→v that has no
// reverse arc v→u of equal weight. Lists must be sorted by id. It returns
// cancel's error when interrupted.
func (g *CSR) CheckSymmetric() error {
	n := int32(g.NumVertices())
	for u := int32(0); u < n; u++ {
		for k := g.Offsets[u]; k < g.Offsets[u+1]; k++ {
			if par.Cancelled(int(k)) {
				return interrupted("CheckSymmetric")
			}
			v := g.Adj[k]
			r, ok := g.arcIndex(v, u)
			if !ok {
				return fmt.Errorf("graph: arc %d→%d has no reverse", u, v)
			}
			if g.ArcWeight(r) != g.ArcWeight(k) {
				return fmt.Errorf("graph: arc %d→%d weighs %g but its reverse %g", u, v, g.ArcWeight(k), g.ArcWeight(r))
			}
		}
	}
	return nil
}

// interrupted returns cancel's error for the operation op.
func interrupted(op string) error {
	return fmt.Errorf("graph: %s: %w", op, cancel.ErrInterrupted)
}

// arcIndex finds the index of arc u→v in a list sorted by id.
func (g *CSR) arcIndex(u, v int32) (int64, bool) {
	lo, hi := g.Offsets[u], g.Offsets[u+1]
	for lo < hi {
		m := int64(uint64(lo+hi) >> 1)
		if g.Adj[m] < v {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < g.Offsets[u+1] && g.Adj[lo] == v
}

// String summarises the graph in one line.
func (g *CSR) String() string {
	kind := "undirected"
	if g.Directed {
		kind = "directed"
	}
	w := "unweighted"
	switch {
	case g.Weights != nil:
		w = "float32 weights"
	case g.Weights64 != nil:
		w = "float64 weights"
	}
	return fmt.Sprintf("%s graph: %d vertices, %d edges (%d arcs), %s, %s",
		kind, g.NumVertices(), g.NumEdges(), g.NumArcs(), w, card.Bytes(g.MemoryBytes()))
}
