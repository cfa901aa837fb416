package graph_test

import (
	"fmt"

	"github.com/graphnb/graphnb/graph"
)

// A small weighted graph: a 6-cycle with one chord, ids scattered.
func exampleGraph() *graph.CSR {
	g, err := graph.Build(graph.EdgeList{
		N:       6,
		Src:     []int32{0, 5, 2, 4, 1, 3, 0},
		Dst:     []int32{5, 2, 4, 1, 3, 0, 4},
		Weights: []float32{0.5, 2, 0.25, 2, 1, 0.75, 3},
	}, graph.BuildOptions{Symmetrize: true})
	if err != nil {
		panic(err)
	}
	return g
}

func ExamplePermuteCOO() {
	c, _ := exampleGraph().UndirectedCOO()
	p := 2 // segments {0,1} {2,3} {4,5}
	out, _ := graph.PermuteCOO(c, p)
	for k := range out.Start {
		fmt.Printf("%d–%d tile (%d,%d)\n", out.Start[k], out.End[k], out.End[k]/int32(p), out.Start[k]/int32(p))
	}
	fmt.Println(graph.CheckSegmentOrder(out, p))
	// Output:
	// 0–3 tile (1,0)
	// 1–3 tile (1,0)
	// 0–4 tile (2,0)
	// 0–5 tile (2,0)
	// 1–4 tile (2,0)
	// 2–4 tile (2,1)
	// 2–5 tile (2,1)
	// <nil>
}

func ExampleSegmentsTouched() {
	c, _ := exampleGraph().UndirectedCOO()
	before, _ := graph.SegmentsTouched(c, 2, 2)
	out, _ := graph.PermuteCOO(c, 2)
	after, _ := graph.SegmentsTouched(out, 2, 2)
	fmt.Println(before)
	fmt.Println(after)
	// Output:
	// P=2 (4 segments), windows of 2 edges: 4 windows read 2.75 segments on average, at most 3; 100.0% read ≤ 3; 3 tiles in 5 runs
	// P=2 (4 segments), windows of 2 edges: 4 windows read 2.25 segments on average, at most 3; 100.0% read ≤ 3; 3 tiles in 3 runs
}

func ExampleSegmentSizeFor() {
	p, _ := graph.SegmentSizeFor(1536<<10, 8) // GTX Titan: 1.5 MiB L2, double distances
	fmt.Println(p)
	// Output: 65536
}

func ExampleRCMOrder() {
	// A path 0-1-…-7 with its ids scrambled.
	scrambled := []int32{3, 7, 0, 5, 1, 6, 2, 4}
	el := graph.EdgeList{N: 8}
	for i := 0; i+1 < 8; i++ {
		el.Src = append(el.Src, scrambled[i])
		el.Dst = append(el.Dst, scrambled[i+1])
	}
	g, _ := graph.Build(el, graph.BuildOptions{Symmetrize: true})
	newID, oldID, _ := graph.RCMOrder(g)
	h, _ := g.Renumber(newID)
	fmt.Println("bandwidth", g.Bandwidth(), "→", h.Bandwidth())
	fmt.Println("oldID", oldID)
	// Output:
	// bandwidth 7 → 1
	// oldID [4 2 6 1 5 0 7 3]
}

func ExampleCSR_SortByWeight() {
	g := exampleGraph().SortByWeight()
	for _, v := range []int32{0, 4} {
		fmt.Print(v, ":")
		for k := g.Offsets[v]; k < g.Offsets[v+1]; k++ {
			fmt.Printf(" %d(%g)", g.Adj[k], g.Weights[k])
		}
		fmt.Println()
	}
	// Output:
	// 0: 5(0.5) 3(0.75) 4(3)
	// 4: 2(0.25) 1(2) 0(3)
}

func ExampleRankWeights() {
	ranks, _ := graph.RankWeights([]float64{2.5, -1, 2.5, 1e9, 0})
	fmt.Println(ranks)
	// Output: [2 0 2 3 1]
}

func ExampleCSR_WeightRanks() {
	g := exampleGraph().SortByWeight()
	ranks, _ := g.WeightRanks()
	fmt.Println(ranks[g.Offsets[0]:g.Offsets[1]]) // vertex 0's arcs, by weight
	// Output: [1 2 5]
}

func ExampleCompress() {
	g := exampleGraph().SortByWeight()
	c, err := graph.Compress(g)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c.Neighbor(0, 0), c.Neighbor(0, 1), c.Neighbor(0, 2))
	fmt.Println(c.IDBytes(), "bytes of ids instead of", 4*g.NumArcs())
	// A hub whose neighbours span more than 1024 ids does not fit.
	star, _ := graph.Build(graph.EdgeList{N: 3000, Src: []int32{0, 0}, Dst: []int32{1, 2999}}, graph.BuildOptions{Symmetrize: true})
	_, err = graph.Compress(star)
	fmt.Println(err)
	// Output:
	// 5 3 4
	// 42 bytes of ids instead of 56
	// graph: Compress: vertex 0 has neighbours from 1 to 2999, 2998 ids apart; the encoding reaches 1024 ids from the smallest (renumber with RCMOrder first)
}
