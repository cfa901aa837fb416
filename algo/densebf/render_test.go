package densebf_test

import (
	"github.com/graphnb/graphnb/internal/card/cardtest"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/graphnb/graphnb/algo/densebf"
	"github.com/graphnb/graphnb/graph"
)

func TestResultHTMLGolden(t *testing.T) {
	r := &densebf.Result{
		Algorithm:  "cpu Bellman-Ford (dense pull)",
		Source:     1,
		Dist:       []float64{2, 0, math.Inf(1), 7, 3},
		Parents:    []int32{4, 1, -1, 0, 1},
		Iterations: 3,
		Time:       20 * time.Microsecond,
		PrepTime:   6 * time.Microsecond,
	}
	h := r.HTML()
	cardtest.CheckHTML(t, h)
	cardtest.Golden(t, "result_small", h)
}

func TestResultHTML(t *testing.T) {
	d := graph.NewDenseF32(10)
	for i := 0; i < 8; i++ {
		d.F32[i*10+i+1] = 0.5 // a directed path 0→…→8; vertex 9 unreachable
	}
	r, err := densebf.Run(d, 0)
	if err != nil {
		t.Fatal(err)
	}
	h := r.HTML()
	cardtest.CheckHTML(t, h)
	for _, want := range []string{">Bellman-Ford (dense)<", r.Algorithm, "9 of 10 vertices (90.0%)", ">max distance<", ">4<",
		"first 8 of 10 vertices", ">predecessor<", ">3.5<", ">6<"} {
		if !strings.Contains(h, want) {
			t.Errorf("HTML lacks %q\n%s", want, h)
		}
	}
	if strings.Contains(h, "∞") { // vertex 9 lies beyond the rows shown
		t.Errorf("HTML shows vertex 9")
	}
	var nilResult *densebf.Result
	if h := nilResult.HTML(); !strings.Contains(h, "nil result") {
		t.Errorf("nil result HTML = %q", h)
	}
	if h := (&densebf.Result{}).HTML(); !strings.Contains(h, ">reached<") {
		t.Errorf("empty result HTML = %q", h)
	}
}
