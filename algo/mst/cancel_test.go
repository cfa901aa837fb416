package mst

import (
	"testing"
	"time"

	"github.com/graphnb/graphnb/graph/gen"
	"github.com/graphnb/graphnb/internal/canceltest"
)

// TestLongPathsStopOnInterrupt interrupts the checker (which runs
// Kruskal), Borůvka and the host side of the GPU preparation (sorting,
// renumbering, weight ranks, compression) on a 2 M-edge graph 20 ms
// after they start, and checks that each returns cancel's error within
// canceltest.Bound with no worker left (issue 13, case 7).
func TestLongPathsStopOnInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("works on a 2 M-edge graph")
	}
	g, err := gen.RMAT(17, 16, gen.Seed(4))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Kruskal(g)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		run  func() error
	}{
		{"Check", func() error { return Check(g, r) }},
		{"Boruvka", func() error { _, err := Boruvka(g); return err }},
		{"GPU preparation", func() error {
			p := &Prepared{g: g, n: g.NumVertices(), opts: Options{Renumber: true, WeightRanks: true, Compress: true}}
			_, err := p.transform()
			return err
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			canceltest.Interrupt(t, 20*time.Millisecond, c.run)
		})
	}
}
