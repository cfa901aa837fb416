package graph_test

import (
	"github.com/graphnb/graphnb/internal/card/cardtest"
	"strings"
	"testing"

	"github.com/graphnb/graphnb/graph"
)

// star5 is the undirected star with centre 0 and leaves 1..4, plus an
// isolated vertex 5, with float32 weights.
func star5(t *testing.T) *graph.CSR {
	t.Helper()
	g, err := graph.Build(graph.EdgeList{N: 6,
		Src: []int32{0, 0, 0, 0}, Dst: []int32{1, 2, 3, 4}, Weights: []float32{1, 2, 3, 4}},
		graph.BuildOptions{Symmetrize: true})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestCSRHTML(t *testing.T) {
	g := star5(t)
	h := g.HTML()
	cardtest.CheckHTML(t, h)
	cardtest.Golden(t, "csr_star", h)
	for _, want := range []string{"undirected graph", "<th", ">vertices<", ">6<", ">4<", ">8<", "float32",
		"min 0 · max 4 · mean 1.33", "<svg", "degree 4–7: 1 vertex<", "degree 1: 4 vertices<", "degree 0: 1 vertex<", "degree 2–3: 0 vertices<"} {
		if !strings.Contains(h, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
}

func TestCSRHTMLKinds(t *testing.T) {
	dir, err := graph.Build(graph.EdgeList{N: 3, Src: []int32{0, 1}, Dst: []int32{1, 2}}, graph.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w64 := star5(t).WithFloat64Weights()
	tests := []struct {
		name string
		g    *graph.CSR
		want []string
	}{
		{"directed unweighted", dir, []string{"directed graph", "none (unit weights)"}},
		{"float64", w64, []string{"undirected graph", "float64"}},
		{"nil", nil, []string{"empty graph"}},
		{"no offsets", &graph.CSR{}, []string{"empty graph"}},
		{"no vertices", &graph.CSR{Offsets: []int64{0}}, []string{"vertices", ">0<"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := tc.g.HTML()
			cardtest.CheckHTML(t, h)
			for _, w := range tc.want {
				if !strings.Contains(h, w) {
					t.Errorf("HTML lacks %q:\n%s", w, h)
				}
			}
		})
	}
}

func TestDegreeStatsHTML(t *testing.T) {
	h := star5(t).DegreeStats().HTML()
	cardtest.CheckHTML(t, h)
	cardtest.Golden(t, "degreestats_star", h)
}

// A graph with a huge degree range keeps its chart small.
func TestHistogramLarge(t *testing.T) {
	s := graph.DegreeStats{Vertices: 3, Arcs: 1 << 21, Max: 1 << 21, Histogram: make([]int64, 23)}
	s.Histogram[0], s.Histogram[1], s.Histogram[22] = 1_000_000, 7, 1
	h := s.HTML()
	cardtest.CheckHTML(t, h)
	for _, want := range []string{">1M<", ">2k<", ">0<", "degree 2097152–4194303: 1 vertex<", "1,000,000 vertices"} {
		if !strings.Contains(h, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
}
