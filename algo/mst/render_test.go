package mst_test

import (
	"github.com/graphnb/graphnb/internal/card/cardtest"
	"strings"
	"testing"
	"time"

	"github.com/graphnb/graphnb/algo/mst"
	"github.com/graphnb/graphnb/graph"
)

func TestResultHTMLGolden(t *testing.T) {
	r := &mst.Result{
		Algorithm:  "cpu Borůvka",
		Edges:      []mst.Edge{{1, 2, 1}, {0, 3, 2}, {2, 3, 3}, {4, 5, 7}},
		Weight:     13,
		Trees:      2,
		Iterations: 2,
		Time:       250 * time.Microsecond,
		PrepTime:   90 * time.Microsecond,
		TEPS:       graph.Rate(6, 12, 250*time.Microsecond),
	}
	h := r.HTML()
	cardtest.CheckHTML(t, h)
	cardtest.Golden(t, "result_boruvka", h)
}

func TestResultHTML(t *testing.T) {
	// A path 0–1–…–9 with weights 1..9: nine edges, more than the table lists.
	el := graph.EdgeList{N: 10}
	for v := int32(0); v < 9; v++ {
		el.Src, el.Dst, el.Weights = append(el.Src, v), append(el.Dst, v+1), append(el.Weights, float32(9-v))
	}
	g, err := graph.Build(el, graph.BuildOptions{Symmetrize: true})
	if err != nil {
		t.Fatal(err)
	}
	r, err := mst.Kruskal(g)
	if err != nil {
		t.Fatal(err)
	}
	h := r.HTML()
	cardtest.CheckHTML(t, h)
	for _, want := range []string{">minimum spanning forest<", r.Algorithm, ">weight<", ">45<", ">trees<", ">1<",
		">Graph500 TEPS<", ">arcs/s<", ">lightest edge<", ">8–9 (1)<", ">heaviest edge<", ">0–1 (9)<",
		"lightest 6 of 9 edges", ">3–4<"} {
		if !strings.Contains(h, want) {
			t.Errorf("HTML lacks %q\n%s", want, h)
		}
	}
	for _, absent := range []string{">rounds<", ">2–3<"} {
		if strings.Contains(h, absent) {
			t.Errorf("Kruskal's card shows %q", absent)
		}
	}
	var nilResult *mst.Result
	if h := nilResult.HTML(); !strings.Contains(h, "nil result") {
		t.Errorf("nil result HTML = %q", h)
	}
}
