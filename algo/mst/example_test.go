package mst_test

import (
	"fmt"

	"github.com/graphnb/graphnb/algo/mst"
	"github.com/graphnb/graphnb/graph"
)

func Example() {
	// A square 0–1–2–3 with one diagonal, and a separate edge 4–5.
	el := graph.EdgeList{
		N:       6,
		Src:     []int32{0, 1, 2, 3, 0, 4},
		Dst:     []int32{1, 2, 3, 0, 2, 5},
		Weights: []float32{4, 1, 3, 2, 5, 7},
	}
	g, err := graph.Build(el, graph.BuildOptions{Symmetrize: true})
	if err != nil {
		panic(err)
	}
	r, err := mst.Boruvka(g)
	if err != nil {
		panic(err)
	}
	if err := mst.Check(g, r); err != nil {
		panic(err)
	}
	fmt.Println("trees:", r.Trees, "weight:", r.Weight)
	for _, e := range r.Edges {
		fmt.Printf("%d–%d %g\n", e.U, e.V, e.W)
	}
	// Output:
	// trees: 2 weight: 13
	// 1–2 1
	// 0–3 2
	// 2–3 3
	// 4–5 7
}
