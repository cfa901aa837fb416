package sssp

import (
	"math"
	"slices"
	"testing"

	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/graph/gen"
)

// TestDeltaSteppingExact runs Δ-stepping where every heavy arc weighs
// barely more than Δ (rounding of d/Δ may then send a heavy arc's head
// into the current bucket), and on R-MAT graphs with integer weights at
// several Δ (many vertices lowered several times within one later
// bucket, queued once: lower): the distances must equal Dijkstra's.
func TestDeltaSteppingExact(t *testing.T) {
	unit, err := gen.RMAT(12, 8, gen.Seed(3), gen.Unweighted())
	if err != nil {
		t.Fatal(err)
	}
	ints, err := gen.RMAT(12, 16, gen.Seed(4), gen.Integer(255))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		g     *graph.CSR
		delta float64
	}{
		{"unit weights, Δ just below 1", unit, math.Nextafter(1, 0)},
		{"unit weights, Δ=1", unit, 1},
		{"weights 1..255, Δ=2", ints, 2},
		{"weights 1..255, Δ=8.5", ints, 8.5},
		{"weights 1..255, Δ just below 17", ints, math.Nextafter(17, 0)},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, src := range c.g.Roots(4, 5) {
				want, err := Dijkstra(c.g, src)
				if err != nil {
					t.Fatal(err)
				}
				got, err := DeltaStepping(c.g, src, c.delta)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got.Dist, want.Dist) {
					t.Fatalf("source %d: distances differ from Dijkstra's", src)
				}
			}
		})
	}
}
