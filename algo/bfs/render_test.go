package bfs_test

import (
	"github.com/graphnb/graphnb/internal/card/cardtest"
	"strings"
	"testing"
	"time"

	"github.com/graphnb/graphnb/algo/bfs"
	"github.com/graphnb/graphnb/graph"
)

func TestResultHTMLGolden(t *testing.T) {
	r := &bfs.Result{
		Algorithm:      "cpu direction-optimizing (α=15, β=18)",
		Source:         3,
		Levels:         []int32{1, 2, 2, 0, 2, 2, -1},
		FrontierSizes:  []int64{1, 1, 4},
		Directions:     []bfs.Direction{bfs.TopDownStep, bfs.BottomUpStep, bfs.TopDownStep},
		Iterations:     3,
		Reached:        6,
		ComponentEdges: 5,
		Time:           1500 * time.Microsecond,
		TEPS:           graph.Rate(5, 10, 1500*time.Microsecond),
	}
	h := r.HTML()
	cardtest.CheckHTML(t, h)
	cardtest.Golden(t, "result_star", h)
}

func TestResultHTML(t *testing.T) {
	var src, dst []int32
	for v := int32(0); v < 99; v++ { // a path: 100 levels
		src, dst = append(src, v), append(dst, v+1)
	}
	g, err := graph.Build(graph.EdgeList{N: 101, Src: src, Dst: dst}, graph.BuildOptions{Symmetrize: true})
	if err != nil {
		t.Fatal(err)
	}
	r, err := bfs.DirectionOptimizing(g, 0, bfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	h := r.HTML()
	cardtest.CheckHTML(t, h)
	for _, want := range []string{">BFS<", ">algorithm<", r.Algorithm, ">source<", ">0<",
		"100 of 101 vertices (99.0%)", ">levels<", ">100<", ">Graph500 TEPS<", ">arcs/s<",
		"frontier per level", ">expanded<", ">top-down<", ">15<", ">…<", ">97<", ">99<"} {
		if !strings.Contains(h, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	for _, absent := range []string{">16<", ">96<"} {
		if strings.Contains(h, absent) {
			t.Errorf("HTML of a 100-level search shows %q, want the middle elided", absent)
		}
	}
	// GPU variants may leave Directions nil: no direction column.
	r.Directions = nil
	if h := r.HTML(); strings.Contains(h, "expanded") {
		t.Errorf("direction column without directions")
	}
	var nilResult *bfs.Result
	if h := nilResult.HTML(); !strings.Contains(h, "nil result") {
		t.Errorf("nil result HTML = %q", h)
	}
}
