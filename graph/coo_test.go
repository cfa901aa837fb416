package graph

import (
	"strings"
	"testing"
)

func TestUndirectedCOOHoldsEachPairOnce(t *testing.T) {
	el := EdgeList{N: 5, Src: []int32{0, 1, 2, 3, 4, 1}, Dst: []int32{1, 2, 3, 4, 0, 0},
		Weights64: []float64{1, 2, 3, 4, 5, 0.5}}
	g, err := Build(el, BuildOptions{Symmetrize: true})
	if err != nil {
		t.Fatal(err)
	}
	c, err := g.UndirectedCOO()
	if err != nil {
		t.Fatal(err)
	}
	if c.NumEdges() != g.NumEdges() || c.N != 5 {
		t.Fatalf("COO has %d edges over %d vertices, graph %d edges", c.NumEdges(), c.N, g.NumEdges())
	}
	seen := map[[2]int32]bool{}
	for i := range c.Start {
		u, v := c.Start[i], c.End[i]
		if u >= v {
			t.Fatalf("edge %d is %d→%d, want start < end", i, u, v)
		}
		if seen[[2]int32{u, v}] {
			t.Fatalf("pair %d-%d appears twice", u, v)
		}
		seen[[2]int32{u, v}] = true
		k, ok := g.arcIndex(u, v)
		if !ok || g.Weights64[k] != c.Weights64[i] {
			t.Fatalf("edge %d-%d weight %g does not match the graph", u, v, c.Weights64[i])
		}
	}
	if c.Weights64[0] != 0.5 { // pair 0-1 merged: min(1, 0.5)
		t.Fatalf("first edge weighs %g, want the minimum 0.5", c.Weights64[0])
	}
	if want := int64(5*8 + 5*8 + 80); c.MemoryBytes() != want {
		t.Fatalf("MemoryBytes = %d, want %d", c.MemoryBytes(), want)
	}
}

func TestUndirectedCOORejectsDirected(t *testing.T) {
	g, _ := Build(EdgeList{N: 2, Src: []int32{0}, Dst: []int32{1}}, BuildOptions{})
	if _, err := g.UndirectedCOO(); err == nil || !strings.Contains(err.Error(), "directed") {
		t.Fatalf("err = %v, want a directed-graph error", err)
	}
}

func TestEdgeListRoundTrip(t *testing.T) {
	for _, sym := range []bool{false, true} {
		el := EdgeList{N: 6, Src: []int32{0, 1, 2, 5, 3, 3}, Dst: []int32{1, 2, 0, 4, 4, 0},
			Weights: []float32{1, 2, 3, 4, 5, 6}}
		g, _ := Build(el, BuildOptions{Symmetrize: sym})
		g2, err := Build(g.EdgeList(), BuildOptions{Symmetrize: sym})
		if err != nil {
			t.Fatal(err)
		}
		if g.String() != g2.String() || len(g.Adj) != len(g2.Adj) {
			t.Fatalf("round trip changed the graph: %v vs %v", g, g2)
		}
		for k := range g.Adj {
			if g.Adj[k] != g2.Adj[k] || g.Weights[k] != g2.Weights[k] {
				t.Fatalf("arc %d differs after the round trip", k)
			}
		}
	}
}

func TestUndirectedKeepsMinimumOfBothDirections(t *testing.T) {
	g, _ := Build(EdgeList{N: 2, Src: []int32{0, 1}, Dst: []int32{1, 0}, Weights: []float32{3, 2}}, BuildOptions{})
	u := g.Undirected()
	if u.Directed || u.NumArcs() != 2 || u.Weights[0] != 2 || u.Weights[1] != 2 {
		t.Fatalf("Undirected = %v with weights %v, want both arcs weighing 2", u, u.Weights)
	}
	if u.Undirected() != u {
		t.Fatal("Undirected of an undirected graph should return it unchanged")
	}
}

func TestWithFloat64Weights(t *testing.T) {
	g, _ := Build(EdgeList{N: 3, Src: []int32{0, 1}, Dst: []int32{1, 2}, Weights: []float32{0.1, 2}}, BuildOptions{Symmetrize: true})
	w := g.WithFloat64Weights()
	if w.Weights != nil || len(w.Weights64) != len(g.Adj) {
		t.Fatalf("WithFloat64Weights kept float32 weights or lost some")
	}
	for k := range g.Adj {
		if w.Weights64[k] != float64(g.Weights[k]) {
			t.Fatalf("arc %d: %g, want %g", k, w.Weights64[k], float64(g.Weights[k]))
		}
	}
	unweighted, _ := Build(EdgeList{N: 2, Src: []int32{0}, Dst: []int32{1}}, BuildOptions{})
	if uw := unweighted.WithFloat64Weights(); uw.Weights64[0] != 1 {
		t.Fatalf("unit weight expected, got %g", uw.Weights64[0])
	}
	if w.WithFloat64Weights() != w {
		t.Fatal("a float64 graph should be returned unchanged")
	}
}
