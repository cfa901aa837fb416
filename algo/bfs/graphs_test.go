package bfs

import (
	"math/rand/v2"
	"testing"

	"github.com/graphnb/graphnb/graph"
)

// Small fixtures built with graph.Build directly, so these tests depend on
// nothing but the graph package.

func build(t testing.TB, n int, directed bool, edges ...[2]int32) *graph.CSR {
	t.Helper()
	el := graph.EdgeList{N: n}
	for _, e := range edges {
		el.Src = append(el.Src, e[0])
		el.Dst = append(el.Dst, e[1])
	}
	g, err := graph.Build(el, graph.BuildOptions{Symmetrize: !directed})
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	return g
}

// pathEdges: 0-1-2-…-(n-1).
func pathEdges(n int) [][2]int32 {
	var e [][2]int32
	for i := int32(0); i+1 < int32(n); i++ {
		e = append(e, [2]int32{i, i + 1})
	}
	return e
}

// starEdges: centre 0 joined to 1..n-1.
func starEdges(n int) [][2]int32 {
	var e [][2]int32
	for i := int32(1); i < int32(n); i++ {
		e = append(e, [2]int32{0, i})
	}
	return e
}

// gridEdges: r×c grid, vertex i*c+j.
func gridEdges(r, c int) [][2]int32 {
	var e [][2]int32
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			v := int32(i*c + j)
			if j+1 < c {
				e = append(e, [2]int32{v, v + 1})
			}
			if i+1 < r {
				e = append(e, [2]int32{v, v + int32(c)})
			}
		}
	}
	return e
}

// completeEdges: every pair u<v.
func completeEdges(n int) [][2]int32 {
	var e [][2]int32
	for u := int32(0); u < int32(n); u++ {
		for v := u + 1; v < int32(n); v++ {
			e = append(e, [2]int32{u, v})
		}
	}
	return e
}

// randomGraph: n vertices, about m random edges (self-loops and
// duplicates removed by Build).
func randomGraph(t testing.TB, r *rand.Rand, n, m int, directed bool) *graph.CSR {
	t.Helper()
	e := make([][2]int32, m)
	for i := range e {
		e[i] = [2]int32{int32(r.IntN(n)), int32(r.IntN(n))}
	}
	return build(t, n, directed, e...)
}
