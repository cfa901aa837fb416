package gen_test

import (
	"fmt"

	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/graph/gen"
)

func ExampleRMAT() {
	g, err := gen.RMAT(10, 16, gen.Seed(1))
	if err != nil {
		fmt.Println(err)
		return
	}
	s := g.DegreeStats()
	fmt.Printf("%d vertices, %d edges (%d arcs), max degree %d\n",
		g.NumVertices(), g.NumEdges(), g.NumArcs(), s.Max)
	// Output:
	// 1024 vertices, 10559 edges (21118 arcs), max degree 483
}

func ExampleRMATEdges() {
	// The raw list keeps duplicates and self-loops; build it directed.
	el, err := gen.RMATEdges(10, 16, gen.Seed(1), gen.Unweighted())
	if err != nil {
		fmt.Println(err)
		return
	}
	g, err := graph.Build(el, graph.BuildOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d generated edges, %d distinct arcs\n", el.Len(), g.NumArcs())
	// Output:
	// 16384 generated edges, 12082 distinct arcs
}

func ExampleSSCA2() {
	g, err := gen.SSCA2(12, gen.Seed(1))
	if err != nil {
		fmt.Println(err)
		return
	}
	s := g.DegreeStats()
	fmt.Printf("%d vertices, %d edges, mean degree %.1f\n", g.NumVertices(), g.NumEdges(), s.Mean)
	// Output:
	// 4096 vertices, 69821 edges, mean degree 34.1
}

func ExampleSSCA2Params() {
	p := gen.DefaultSSCA2Config()
	p.MaxCliqueSize = 5
	g, err := gen.SSCA2(4, gen.SSCA2Params(p), gen.PermuteVertices(false), gen.Integer(9))
	if err != nil {
		fmt.Println(err)
		return
	}
	for v := range int32(4) {
		fmt.Println(v, g.Neighbors(v))
	}
	// Output:
	// 0 [1 2 3 4]
	// 1 [0 2 3 4]
	// 2 [0 1 3 4]
	// 3 [0 1 2 4 5]
}

func ExampleGrid() {
	g, err := gen.Grid(2, 3, gen.Integer(9), gen.Seed(3))
	if err != nil {
		fmt.Println(err)
		return
	}
	// 0 – 1 – 2
	// |   |   |
	// 3 – 4 – 5
	for v := range int32(g.NumVertices()) {
		fmt.Print(v, ":")
		for k := g.Offsets[v]; k < g.Offsets[v+1]; k++ {
			fmt.Printf(" %d(w%g)", g.Adj[k], g.ArcWeight(k))
		}
		fmt.Println()
	}
	// Output:
	// 0: 1(w8) 3(w8)
	// 1: 0(w8) 2(w1) 4(w1)
	// 2: 1(w1) 5(w9)
	// 3: 0(w8) 4(w2)
	// 4: 1(w1) 3(w2) 5(w1)
	// 5: 2(w9) 4(w1)
}

func ExampleErdosRenyi() {
	g, err := gen.ErdosRenyi(1000, 0.01, gen.Seed(1))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d edges (expected %.0f)\n", g.NumEdges(), 0.01*1000*999/2)
	// Output:
	// 5049 edges (expected 4995)
}

func ExampleComplete() {
	g, err := gen.Complete(5, gen.Unweighted())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(g.NumEdges(), g.Neighbors(0))
	// Output:
	// 10 [1 2 3 4]
}
