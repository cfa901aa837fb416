package graph_test

import (
	"sync"
	"testing"
	"time"

	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/graph/gen"
	"github.com/graphnb/graphnb/internal/canceltest"
)

var (
	bigOnce sync.Once
	bigEL   graph.EdgeList
	bigG    *graph.CSR
	bigErr  error
)

// big returns an R-MAT graph of scale 18 (4 M edges) and its edge list,
// made once: large enough that every transform takes well over the
// interrupt's delay on the CI machine (2 cores).
func big(t *testing.T) (graph.EdgeList, *graph.CSR) {
	t.Helper()
	bigOnce.Do(func() {
		if bigEL, bigErr = gen.RMATEdges(18, 16, gen.Seed(3)); bigErr == nil {
			bigG, bigErr = graph.Build(bigEL, graph.BuildOptions{Symmetrize: true})
		}
	})
	if bigErr != nil {
		t.Fatal(bigErr)
	}
	return bigEL, bigG
}

// TestLongPathsStopOnInterrupt interrupts every long path of package
// graph — CSR building and the transforms and checks — 20 ms after it
// starts, and checks that each returns cancel's error within
// canceltest.Bound (200 ms) with no worker left running (issue 13, case
// 7). A path without an error result panics with cancel's error, which
// cancel.Recover turns back into one.
func TestLongPathsStopOnInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 4 M-edge graph")
	}
	el, g := big(t)
	coo, err := g.UndirectedCOO()
	if err != nil {
		t.Fatal(err)
	}
	newID, _, err := graph.RCMOrder(g)
	if err != nil {
		t.Fatal(err)
	}
	paths := []struct {
		name string
		run  func() error
	}{
		{"Build", func() error {
			_, err := graph.Build(el, graph.BuildOptions{Symmetrize: true})
			return err
		}},
		{"PermuteCOO", func() error { _, err := graph.PermuteCOO(coo, 1024); return err }},
		{"RCMOrder", func() error { _, _, err := graph.RCMOrder(g); return err }},
		{"Renumber", func() error { _, err := g.Renumber(newID); return err }},
		{"SortByWeight", func() (err error) { defer cancel.Recover(&err); g.SortByWeight(); return nil }},
		{"WeightRanks", func() error { _, err := g.WeightRanks(); return err }},
		{"CheckSymmetric", g.CheckSymmetric},
		{"UndirectedCOO", func() error { _, err := g.UndirectedCOO(); return err }},
	}
	for _, p := range paths {
		t.Run(p.name, func(t *testing.T) {
			canceltest.Interrupt(t, 20*time.Millisecond, p.run)
		})
	}
}
