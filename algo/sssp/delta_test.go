package sssp

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/graph/gen"
)

// TestBucketEnd checks that bucketEnd(b) lies in a later bucket than b
// and that the float64 just below (b+1)·Δ does not, for widths whose
// reciprocal rounds either way.
func TestBucketEnd(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		delta := math.Ldexp(1+r.Float64(), r.IntN(40)-20)
		s := &dsState[float32]{delta: delta, inv: 1 / delta}
		b := r.Int64N(1 << 30)
		end := s.bucketEnd(b)
		if int64(end*s.inv) <= b {
			t.Fatalf("Δ=%g, bucket %d: end %g is in bucket %d", delta, b, end, int64(end*s.inv))
		}
		below := math.Nextafter(float64(b+1)*delta, 0)
		if below >= end && int64(below*s.inv) <= b {
			t.Fatalf("Δ=%g, bucket %d: %g of bucket %d is not below end %g", delta, b, below, int64(below*s.inv), end)
		}
	}
}

// TestDeltaSteppingSkipsExactly runs Δ-stepping where every heavy arc
// weighs barely more than Δ (the case in which a skipped relaxation into
// the current bucket could matter if bucketEnd were wrong), and on R-MAT
// graphs with integer weights at several Δ (most heavy arcs then lead to
// settled vertices and are skipped): the distances must equal
// Dijkstra's.
func TestDeltaSteppingSkipsExactly(t *testing.T) {
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
