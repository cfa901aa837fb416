package sssp_test

import (
	"github.com/graphnb/graphnb/internal/card/cardtest"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/graphnb/graphnb/algo/sssp"
	"github.com/graphnb/graphnb/graph"
)

func TestResultHTMLGolden(t *testing.T) {
	inf := math.Inf(1)
	r := &sssp.Result{
		Algorithm:      "cpu Δ-stepping (Δ=0.5)",
		Source:         0,
		Dist:           []float64{0, 1.5, 0.25, inf, 2.75, 1, 3, 4.5, 5, 6},
		Parents:        []int32{0, 2, 0, -1, 1, 0, 4, 6, 7, 8},
		Iterations:     7,
		Delta:          0.5,
		Reached:        9,
		ComponentEdges: 12,
		Time:           2 * time.Millisecond,
		PrepTime:       300 * time.Microsecond,
		TreeTime:       40 * time.Microsecond,
		TEPS:           graph.Rate(12, 24, 2*time.Millisecond),
	}
	h := r.HTML()
	cardtest.CheckHTML(t, h)
	cardtest.Golden(t, "result_delta", h)
}

func TestResultHTML(t *testing.T) {
	g, err := graph.Build(graph.EdgeList{N: 4, Src: []int32{0, 1, 0}, Dst: []int32{1, 2, 2},
		Weights: []float32{1, 2, 5}}, graph.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := sssp.Dijkstra(g, 0)
	if err != nil {
		t.Fatal(err)
	}
	h := r.HTML()
	cardtest.CheckHTML(t, h)
	for _, want := range []string{">SSSP<", r.Algorithm, "3 of 4 vertices (75.0%)", ">max distance<", ">3<",
		">Graph500 TEPS<", ">arcs/s<", ">parent tree<", ">distances<", ">∞<", ">-1<"} {
		if !strings.Contains(h, want) {
			t.Errorf("HTML lacks %q\n%s", want, h)
		}
	}
	if strings.Contains(h, "Δ") {
		t.Errorf("Dijkstra's card shows a Δ row")
	}
	var nilResult *sssp.Result
	if h := nilResult.HTML(); !strings.Contains(h, "nil result") {
		t.Errorf("nil result HTML = %q", h)
	}
}
