package sssp

import (
	"math/rand/v2"
	"testing"

	"github.com/graphnb/graphnb/graph"
)

// Small fixtures built with graph.Build directly, so these tests depend on
// nothing but the graph package.

// edge is u–v (or u→v) with weight w.
type edge struct {
	u, v int32
	w    float64
}

// weights selects how build stores the edge weights.
type weights int

const (
	unweighted weights = iota
	float32W
	float64W
)

func (w weights) String() string {
	return [...]string{"unweighted", "float32", "float64"}[w]
}

func build(t testing.TB, n int, directed bool, kind weights, edges ...edge) *graph.CSR {
	t.Helper()
	el := graph.EdgeList{N: n}
	for _, e := range edges {
		el.Src = append(el.Src, e.u)
		el.Dst = append(el.Dst, e.v)
		switch kind {
		case float32W:
			el.Weights = append(el.Weights, float32(e.w))
		case float64W:
			el.Weights64 = append(el.Weights64, e.w)
		}
	}
	g, err := graph.Build(el, graph.BuildOptions{Symmetrize: !directed})
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	return g
}

// pathEdges: 0-1-…-(n-1), edge i–i+1 weighs w(i).
func pathEdges(n int, w func(i int) float64) []edge {
	var e []edge
	for i := 0; i+1 < n; i++ {
		e = append(e, edge{int32(i), int32(i + 1), w(i)})
	}
	return e
}

// star: centre 0 joined to 1..n-1, edge 0–i weighs w(i).
func star(n int, w func(i int) float64) []edge {
	var e []edge
	for i := 1; i < n; i++ {
		e = append(e, edge{0, int32(i), w(i)})
	}
	return e
}

// grid: r×c, vertex i*c+j; horizontal edges weigh h, vertical ones v.
func grid(r, c int, h, v float64) []edge {
	var e []edge
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			x := int32(i*c + j)
			if j+1 < c {
				e = append(e, edge{x, x + 1, h})
			}
			if i+1 < r {
				e = append(e, edge{x, x + int32(c), v})
			}
		}
	}
	return e
}

// complete: every pair u<v, weighing w(u, v).
func complete(n int, w func(u, v int) float64) []edge {
	var e []edge
	for u := 0; u < n; u++ {
		for v := u + 1; v < n; v++ {
			e = append(e, edge{int32(u), int32(v), w(u, v)})
		}
	}
	return e
}

func one(int) float64 { return 1 }

// randomEdges: about m random edges over n vertices with weights from
// weight(r).
func randomEdges(r *rand.Rand, n, m int, weight func(*rand.Rand) float64) []edge {
	e := make([]edge, m)
	for i := range e {
		e[i] = edge{int32(r.IntN(n)), int32(r.IntN(n)), weight(r)}
	}
	return e
}
