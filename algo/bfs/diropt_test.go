package bfs

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/graph/gen"
)

// hubGraph is an undirected graph whose second BFS level from vertex 0
// hangs on a few hubs: 0 is joined to hubs 1..hubs, hub h to leaves
// leaves apart, and leaf i also to leaf i+7 (so that later levels have
// work too).
func hubGraph(t *testing.T, hubs, leaves int) *graph.CSR {
	n := 1 + hubs + hubs*leaves
	el := graph.EdgeList{N: n}
	add := func(u, v int) { el.Src, el.Dst = append(el.Src, int32(u)), append(el.Dst, int32(v)) }
	for h := 1; h <= hubs; h++ {
		add(0, h)
		for i := range leaves {
			add(h, 1+hubs+(h-1)*leaves+i)
		}
	}
	for l := 1 + hubs; l+7 < n; l++ {
		add(l, l+7)
	}
	g, err := graph.Build(el, graph.BuildOptions{Symmetrize: true})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestTopDownArcPieces runs top-down steps whose frontier is a few hubs
// (their lists cut into arc pieces shared by the workers, tdPieces) and
// large frontiers (cut by vertices), on several worker counts, and
// compares the levels with the sequential search's and checks the tree.
func TestTopDownArcPieces(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	g := hubGraph(t, 3, 30000)
	ref, err := TopDown(g, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, procs := range []int{1, 2, 5, 16} {
		runtime.GOMAXPROCS(procs)
		for _, c := range []struct {
			name string
			opt  Options
		}{
			{"top-down", Options{TopDownOnly: true}},
			{"default", Options{}},
			{"switch-back", Options{Alpha: 1 << 30, Beta: 1}},
		} {
			t.Run(fmt.Sprintf("procs%d/%s", procs, c.name), func(t *testing.T) {
				r, err := DirectionOptimizing(g, 0, c.opt)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(r.Levels, ref.Levels) {
					t.Fatalf("levels differ from the sequential search's")
				}
				if err := Check(g, r); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

// TestTDPiecesCoverArcs checks that tdSplit's pieces hold every arc of
// the frontier once, in order, for piece sizes around the lists' lengths.
func TestTDPiecesCoverArcs(t *testing.T) {
	g := hubGraph(t, 4, 100)
	frontier := []int32{0, 3, 1, 2, 4, 5, 6}
	var want [][2]int64
	var mf int64
	for _, u := range frontier {
		for k := g.Offsets[u]; k < g.Offsets[u+1]; k++ {
			want = append(want, [2]int64{int64(u), k})
		}
		mf += g.Offsets[u+1] - g.Offsets[u]
	}
	s := &search{g: g}
	for _, workers := range []int{1, 2, 3, 64} {
		sp := s.tdPieces(frontier, mf, workers)
		for _, piece := range []int64{sp.piece, 1, 7, 100, 101, mf} {
			if sp.cum != nil {
				sp.piece = piece
			}
			var got [][2]int64
			for p := range sp.count() {
				sp.each(p, func(u int32, lo, hi int64) {
					if lo >= hi {
						t.Fatalf("workers %d, piece %d: empty range [%d, %d) of %d", workers, piece, lo, hi, u)
					}
					for k := lo; k < hi; k++ {
						got = append(got, [2]int64{int64(u), k})
					}
				})
			}
			if !slices.Equal(got, want) {
				t.Fatalf("workers %d, piece %d: pieces cover %d arcs, want the frontier's %d in order", workers, piece, len(got), len(want))
			}
		}
	}
}

// TestSwitchDownNeedsGrowth checks the direction switch's rules on the
// CPU search from many roots of an R-MAT graph: a level goes bottom-up
// after a top-down one only when its frontier grew (turnsDown), so a
// search's tail, where m_u is small enough for m_f > m_u/α to hold on a
// few vertices, stays top-down; and every switch says why.
func TestSwitchDownNeedsGrowth(t *testing.T) {
	g, err := gen.RMAT(14, 16, gen.Seed(3), gen.Unweighted(), gen.PermuteVertices(true))
	if err != nil {
		t.Fatal(err)
	}
	tails := 0 // levels the rule kept top-down although m_f > m_u/α
	for _, src := range g.Roots(64, 1) {
		r, err := DirectionOptimizing(g, src, Options{Trace: true, Alpha: DefaultGPUAlpha})
		if err != nil {
			t.Fatal(err)
		}
		mu := g.NumArcs()
		for i, s := range r.Trace.Steps {
			mu -= s.FrontierArcs
			if i == 0 {
				continue
			}
			prev := r.Trace.Steps[i-1]
			down := r.Directions[i] == BottomUpStep && r.Directions[i-1] == TopDownStep
			if down && s.Frontier <= prev.Frontier {
				t.Fatalf("from %d: level %d went bottom-up with a frontier of %d after %d", src, i, s.Frontier, prev.Frontier)
			}
			if down != (s.Why != "" && strings.HasPrefix(s.Why, "m_f")) {
				t.Fatalf("from %d: level %d (%v after %v) says %q", src, i, r.Directions[i], r.Directions[i-1], s.Why)
			}
			if r.Directions[i] == TopDownStep && r.Directions[i-1] == TopDownStep && s.Frontier <= prev.Frontier && s.FrontierArcs > mu/DefaultGPUAlpha {
				tails++
			}
		}
	}
	if tails == 0 {
		t.Fatal("no root reached a shrinking top-down level with m_f > m_u/α: the test no longer checks the growth rule")
	}
	t.Logf("%d levels kept top-down by the growth rule", tails)
}
