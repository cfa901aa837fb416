// Package testgraphs holds the small graphs the algorithm packages' tests
// share, in the manner of gonum's graph/path/internal/testgraphs: the
// shapes of graph/gen (path, star, grid, complete) as edge lists with
// chosen weights and a direction, random edge lists, and ShortestPaths,
// a table of named graphs with their known answers from one source (hop
// counts for BFS, distances for SSSP).
package testgraphs

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/graph/gen"
)

// Edge is {u, v, w}: u–v (u→v in a directed graph) of weight w. An array,
// not a struct, so that tables of edges read as plain triples.
type Edge [3]float64

// U, V and W are the edge's ends and weight.
func (e Edge) U() int32   { return int32(e[0]) }
func (e Edge) V() int32   { return int32(e[1]) }
func (e Edge) W() float64 { return e[2] }

// Weights says how Build stores the edge weights.
type Weights int

const (
	Unweighted Weights = iota // no weights (W ignored)
	Float32                   // graph.EdgeList.Weights
	Float64                   // graph.EdgeList.Weights64
)

func (w Weights) String() string {
	switch w {
	case Unweighted:
		return "unweighted"
	case Float32:
		return "float32"
	case Float64:
		return "float64"
	}
	return fmt.Sprintf("Weights(%d)", int(w))
}

// Build makes a graph of n vertices from edges with graph.Build:
// symmetrized unless directed, weights stored as w says (a weighted graph
// even without edges). It fails t when Build refuses the edges.
func Build(t testing.TB, n int, directed bool, w Weights, edges ...Edge) *graph.CSR {
	t.Helper()
	el := graph.EdgeList{N: n}
	switch w {
	case Float32:
		el.Weights = []float32{}
	case Float64:
		el.Weights64 = []float64{}
	}
	for _, e := range edges {
		el.Src = append(el.Src, e.U())
		el.Dst = append(el.Dst, e.V())
		switch w {
		case Float32:
			el.Weights = append(el.Weights, float32(e.W()))
		case Float64:
			el.Weights64 = append(el.Weights64, e.W())
		}
	}
	g, err := graph.Build(el, graph.BuildOptions{Symmetrize: !directed})
	if err != nil {
		t.Fatalf("testgraphs.Build: %v", err)
	}
	return g
}

// shape returns a function of a graph/gen result that lists its edges
// u < v in the order of the CSR (by u, then v), each weighing w(u, v).
func shape(w func(u, v int32) float64) func(*graph.CSR, error) []Edge {
	return func(g *graph.CSR, err error) []Edge {
		if err != nil {
			panic(fmt.Sprintf("testgraphs: %v", err))
		}
		var out []Edge
		for u := range int32(g.NumVertices()) {
			for _, v := range g.Neighbors(u) {
				if v > u {
					out = append(out, Edge{float64(u), float64(v), w(u, v)})
				}
			}
		}
		return out
	}
}

// Path is gen.Path(n)'s edges i–i+1, weighing w(i) (nil: 1).
func Path(n int, w func(i int) float64) []Edge {
	return shape(func(u, _ int32) float64 { return or1(w, int(u)) })(gen.Path(n, gen.Unweighted()))
}

// Star is gen.Star(n)'s edges 0–i, weighing w(i) (nil: 1).
func Star(n int, w func(i int) float64) []Edge {
	return shape(func(_, v int32) float64 { return or1(w, int(v)) })(gen.Star(n, gen.Unweighted()))
}

// Grid is gen.Grid(rows, cols)'s edges (vertex i·cols+j): the horizontal
// ones weigh h, the vertical ones v.
func Grid(rows, cols int, h, v float64) []Edge {
	return shape(func(a, b int32) float64 {
		if int(b-a) == cols {
			return v
		}
		return h
	})(gen.Grid(rows, cols, gen.Unweighted()))
}

// Complete is gen.Complete(n)'s edges u–v (u < v), weighing w(u, v)
// (nil: 1).
func Complete(n int, w func(u, v int) float64) []Edge {
	return shape(func(u, v int32) float64 {
		if w == nil {
			return 1
		}
		return w(int(u), int(v))
	})(gen.Complete(n, gen.Unweighted()))
}

// Random is m random edges over n vertices (self-loops and duplicates
// included: Build drops them), weighing w(r) (nil: 1).
func Random(r *rand.Rand, n, m int, w func(*rand.Rand) float64) []Edge {
	e := make([]Edge, m)
	for i := range e {
		e[i] = Edge{float64(r.IntN(n)), float64(r.IntN(n)), 1}
		if w != nil {
			e[i][2] = w(r)
		}
	}
	return e
}

func or1(w func(int) float64, i int) float64 {
	if w == nil {
		return 1
	}
	return w(i)
}

// Case is a graph with its known shortest paths from one source.
type Case struct {
	Name     string
	N        int
	Directed bool
	Weights  Weights
	Edges    []Edge
	Source   int32
	// Hops are the BFS levels (edges on a fewest-edge path; -1:
	// unreachable), weights ignored.
	Hops []int32
	// Dist are the shortest distances (+Inf: unreachable); for an
	// unweighted case, Hops.
	Dist []float64
}

// Graph builds the case's graph.
func (c Case) Graph(t testing.TB) *graph.CSR { return Build(t, c.N, c.Directed, c.Weights, c.Edges...) }

var inf = math.Inf(1)

// half weighs edge i 1, 0.5, 0.25, 0.125, 1, …: sums of them are exact.
func half(i int) float64 { return 1 / float64(int(1)<<(i%4)) }

func squaredGap(u, v int) float64 { return float64((v - u) * (v - u)) }

// ShortestPaths returns the table of small graphs with known answers:
// paths, stars, grids and complete graphs, directed and not, from ends,
// middles, centres and leaves, and graphs that are disconnected, have
// zero or infinite weights, or a shortcut over more hops.
func ShortestPaths() []Case {
	cases := []Case{
		{"single vertex", 1, false, Float32, nil, 0, []int32{0}, []float64{0}},
		{"path/from end", 5, false, Unweighted, Path(5, nil), 0, []int32{0, 1, 2, 3, 4}, nil},
		{"path/from middle", 5, false, Float64, Path(5, half), 2, []int32{2, 1, 0, 1, 2}, []float64{1.5, 0.5, 0, 0.25, 0.375}},
		{"directed path/from middle", 5, true, Float32, Path(5, half), 2, []int32{-1, -1, 0, 1, 2}, []float64{inf, inf, 0, 0.25, 0.375}},
		{"star/centre", 6, false, Unweighted, Star(6, nil), 0, []int32{0, 1, 1, 1, 1, 1}, nil},
		{"star/leaf", 6, false, Unweighted, Star(6, nil), 3, []int32{1, 2, 2, 0, 2, 2}, nil},
		{"weighted star/leaf", 5, false, Float32, Star(5, half), 3, []int32{1, 2, 2, 0, 2}, []float64{0.125, 0.625, 0.375, 0, 1.125}},
		{"directed star/leaf", 6, true, Unweighted, Star(6, nil), 3, []int32{-1, -1, -1, 0, -1, -1}, nil},
		{"weighted directed star/leaf", 5, true, Float64, Star(5, half), 3, []int32{-1, -1, -1, 0, -1}, []float64{inf, inf, inf, 0, inf}},
		{"grid 3x4 h1 v2/corner", 12, false, Float32, Grid(3, 4, 1, 2), 0,
			[]int32{0, 1, 2, 3, 1, 2, 3, 4, 2, 3, 4, 5}, []float64{0, 1, 2, 3, 2, 3, 4, 5, 4, 5, 6, 7}},
		{"grid 3x4/inner", 12, false, Unweighted, Grid(3, 4, 1, 1), 5, []int32{2, 1, 2, 3, 1, 0, 1, 2, 2, 1, 2, 3}, nil},
		{"directed grid 3x4 h1 v2/inner", 12, true, Float64, Grid(3, 4, 1, 2), 5,
			[]int32{-1, -1, -1, -1, -1, 0, 1, 2, -1, 1, 2, 3}, []float64{inf, inf, inf, inf, inf, 0, 1, 2, inf, 2, 3, 4}},
		{"complete K6", 6, false, Unweighted, Complete(6, nil), 4, []int32{1, 1, 1, 1, 0, 1}, nil},
		{"directed complete K6", 6, true, Unweighted, Complete(6, nil), 4, []int32{-1, -1, -1, -1, 0, 1}, nil},
		{"complete K5 squared gaps", 5, false, Float64, Complete(5, squaredGap), 0, []int32{0, 1, 1, 1, 1}, []float64{0, 1, 2, 3, 4}},
		{"directed complete K5 squared gaps", 5, true, Float32, Complete(5, squaredGap), 2, []int32{-1, -1, 0, 1, 1}, []float64{inf, inf, 0, 1, 2}},
		{"complete K5", 5, false, Unweighted, Complete(5, nil), 3, []int32{1, 1, 1, 0, 1}, nil},
		{"disconnected", 7, false, Float32, []Edge{{0, 1, 2}, {1, 2, 3}, {3, 4, 0.5}, {4, 5, 0.25}}, 4,
			[]int32{-1, -1, -1, 1, 0, 1, -1}, []float64{inf, inf, inf, 0.5, 0, 0.25, inf}},
		{"isolated source", 4, false, Unweighted, []Edge{{0, 1, 1}, {1, 2, 1}}, 3, []int32{-1, -1, -1, 0}, nil},
		{"directed cycle", 4, true, Unweighted, []Edge{{0, 1, 1}, {1, 2, 1}, {2, 3, 1}, {3, 0, 1}}, 2, []int32{2, 3, 0, 1}, nil},
		{"zero weights", 6, false, Float32, []Edge{{0, 1, 0}, {1, 2, 0}, {2, 0, 0}, {2, 3, 1}, {3, 4, 0}, {4, 5, 0}, {5, 3, 0}}, 1,
			[]int32{1, 0, 1, 2, 3, 3}, []float64{0, 0, 0, 1, 1, 1}},
		// SSSP: vertices 2, 3, 4 find their parents in three adoption rounds.
		{"zero-weight chain", 6, false, Float64, []Edge{{0, 1, 1}, {1, 2, 0}, {2, 3, 0}, {3, 4, 0}, {4, 5, 2}}, 0,
			[]int32{0, 1, 2, 3, 4, 5}, []float64{0, 1, 1, 1, 1, 3}},
		{"infinite weight is no edge", 4, false, Float64, []Edge{{0, 1, 1}, {1, 2, inf}, {2, 3, 1}}, 0,
			[]int32{0, 1, 2, 3}, []float64{0, 1, inf, inf}},
		{"shortcut through more hops", 4, true, Float64, []Edge{{0, 3, 10}, {0, 1, 1}, {1, 2, 1}, {2, 3, 1}}, 0,
			[]int32{0, 1, 2, 1}, []float64{0, 1, 2, 3}},
	}
	for i, c := range cases {
		if c.Dist == nil {
			cases[i].Dist = make([]float64, len(c.Hops))
			for v, h := range c.Hops {
				cases[i].Dist[v] = float64(h)
				if h < 0 {
					cases[i].Dist[v] = inf
				}
			}
		}
	}
	return cases
}
