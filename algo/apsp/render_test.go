package apsp_test

import (
	"github.com/graphnb/graphnb/internal/card/cardtest"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/graphnb/graphnb/algo/apsp"
	"github.com/graphnb/graphnb/graph"
)

func TestResultHTMLGolden(t *testing.T) {
	inf := float32(math.Inf(1))
	r := &apsp.Result{
		Algorithm: "cpu blocked Floyd-Warshall",
		Dist:      &graph.Dense{N: 3, F32: []float32{0, 1.5, inf, 2, 0, inf, 3.25, 4.75, 0}},
		Parents:   []int32{0, 0, -1, 1, 1, -1, 2, 0, 2},
		Tile:      2,
		Time:      75 * time.Microsecond,
		PrepTime:  5 * time.Microsecond,
	}
	h := r.HTML()
	cardtest.CheckHTML(t, h)
	cardtest.Golden(t, "result_blocked", h)
}

func TestResultHTML(t *testing.T) {
	d := graph.NewDenseI32(8)
	for i := 0; i < 7; i++ {
		d.I32[i*8+i+1] = int32(i + 1) // a directed path 0→1→…→7
	}
	r, err := apsp.FloydWarshall(d)
	if err != nil {
		t.Fatal(err)
	}
	h := r.HTML()
	cardtest.CheckHTML(t, h)
	for _, want := range []string{">all-pairs shortest paths<", r.Algorithm, ">vertices<", ">8<", ">int32<",
		"none (plain Floyd-Warshall)", ">memory<", ">512 B<", "first 6 of 8 vertices", ">from \\ to<", ">∞<", ">15<"} {
		if !strings.Contains(h, want) {
			t.Errorf("HTML lacks %q\n%s", want, h)
		}
	}
	if strings.Contains(h, ">21<") { // distance 0→6, outside the corner
		t.Errorf("HTML shows entries beyond the corner")
	}
	for _, r := range []*apsp.Result{nil, {}} {
		if h := r.HTML(); !strings.Contains(h, "nil result") {
			t.Errorf("empty result HTML = %q", h)
		}
	}
	// A matrix shorter than N² (a hand-made result) shows no table.
	broken := &apsp.Result{Dist: &graph.Dense{N: 3, F32: []float32{0}}}
	if h := broken.HTML(); strings.Contains(h, "from \\ to") || !strings.Contains(h, ">vertices<") {
		t.Errorf("table drawn from a short matrix")
	}
}
