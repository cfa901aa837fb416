package graph_test

import (
	"errors"
	"runtime"
	"testing"

	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/graph/gen"
	"github.com/graphnb/graphnb/internal/membudget"
)

// TestTooLargeIsRefused checks, under a fake budget of 16 MiB
// (GRAPHNB_MEMORY), that the allocations a user's sizes decide in
// package graph are refused before they start (issue 13, case 7c).
func TestTooLargeIsRefused(t *testing.T) {
	g, err := gen.RMAT(11, 16, gen.Seed(1))
	if err != nil {
		t.Fatal(err)
	}
	el, err := gen.RMATEdges(17, 16)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(membudget.EnvVar, "16MiB")
	refused := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, membudget.ErrTooLarge) {
			t.Errorf("%s: %v, want a membudget refusal", what, err)
		}
	}
	_, err = graph.NewDense(4096, false) // 64 MiB
	refused("NewDense", err)
	_, err = graph.Build(el, graph.BuildOptions{Symmetrize: true})
	refused("Build", err)
	func() {
		defer func() {
			r := recover()
			err, _ := r.(error)
			refused("NewDenseF32 (a panic)", err)
		}()
		graph.NewDenseF32(4096)
	}()
	if _, err := g.Dense(false); err != nil { // 2048² · 4 = 16 MiB: at the edge
		refused("Dense", err)
	}
	if d, err := graph.NewDense(512, true); err != nil || d.N != 512 {
		t.Errorf("a 512×512 matrix under the budget: %v", err)
	}
}

// TestRootsAreBoundedByTheGraph asks for 2^40 roots (issue 13, case 7b):
// Roots returns every vertex with an arc, at once, allocating in
// proportion to the graph, not to what was asked.
func TestRootsAreBoundedByTheGraph(t *testing.T) {
	g, err := gen.RMAT(10, 8, gen.Seed(1))
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	roots := g.Roots(1<<40, 1)
	runtime.ReadMemStats(&after)
	if len(roots) == 0 || len(roots) > g.NumVertices() {
		t.Fatalf("%d roots from a %d-vertex graph", len(roots), g.NumVertices())
	}
	if b := after.TotalAlloc - before.TotalAlloc; b > 1<<20 {
		t.Errorf("Roots(2^40) allocated %d bytes for a %d-vertex graph", b, g.NumVertices())
	}
	seen := map[int32]bool{}
	for _, r := range g.Roots(1<<40, 1) {
		if seen[r] || g.Degree(r) == 0 {
			t.Fatalf("root %d repeated or isolated", r)
		}
		seen[r] = true
	}
	if small := g.Roots(5, 1); len(small) != 5 {
		t.Fatalf("Roots(5) gave %d", len(small))
	}
}
