package bfs

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/graph/simple"
	"gonum.org/v1/gonum/graph/traverse"

	gonum "gonum.org/v1/gonum/graph"

	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/graph/gen"
	tg "github.com/graphnb/graphnb/internal/testgraphs"
)

// algorithms under test; every one must give the reference levels.
var algorithms = []struct {
	name string
	run  func(g *graph.CSR, src int32) (*Result, error)
}{
	{"TopDown", TopDown},
	{"DirectionOptimizing", func(g *graph.CSR, s int32) (*Result, error) { return DirectionOptimizing(g, s, Options{}) }},
	// α huge, β huge: bottom-up from the first step on, to the end.
	{"DirectionOptimizing/bottom-up", func(g *graph.CSR, s int32) (*Result, error) {
		return DirectionOptimizing(g, s, Options{Alpha: 1 << 30, Beta: 1 << 30})
	}},
	// α huge, β=1: bottom-up at once, top-down again once it shrinks.
	{"DirectionOptimizing/switch-back", func(g *graph.CSR, s int32) (*Result, error) {
		return DirectionOptimizing(g, s, Options{Alpha: 1 << 30, Beta: 1})
	}},
	{"DirectionOptimizing/top-down-only", func(g *graph.CSR, s int32) (*Result, error) {
		return DirectionOptimizing(g, s, Options{TopDownOnly: true})
	}},
}

// TestSmallGraphs runs every algorithm on the shared table of small graphs
// with known hop counts (weights ignored).
func TestSmallGraphs(t *testing.T) {
	for _, c := range tg.ShortestPaths() {
		g := c.Graph(t)
		for _, a := range algorithms {
			t.Run(c.Name+"/"+a.name, func(t *testing.T) {
				r, err := a.run(g, c.Source)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(r.Levels, c.Hops) {
					t.Fatalf("levels = %v, want %v", r.Levels, c.Hops)
				}
				if err := Check(g, r); err != nil {
					t.Fatal(err)
				}
				if len(r.Directions) != len(r.FrontierSizes) || r.Iterations != len(r.FrontierSizes) {
					t.Fatalf("%d directions, %d iterations for %d levels", len(r.Directions), r.Iterations, len(r.FrontierSizes))
				}
			})
		}
	}
}

// TestDirections checks the heuristic's choices: forced bottom-up on an
// undirected graph, never bottom-up on a directed one.
func TestDirections(t *testing.T) {
	grid := tg.Grid(8, 8, 1, 1)
	und := tg.Build(t, 64, false, tg.Unweighted, grid...)
	dir := tg.Build(t, 64, true, tg.Unweighted, grid...)

	r, err := DirectionOptimizing(und, 0, Options{Alpha: 1 << 30, Beta: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(r.Directions, TopDownStep) {
		t.Errorf("α=β=2^30 on a grid: directions %v, want bottom-up only", r.Directions)
	}
	r, err = DirectionOptimizing(und, 0, Options{Alpha: 1 << 30, Beta: 1})
	if err != nil {
		t.Fatal(err)
	}
	if r.Directions[0] != BottomUpStep || r.Directions[len(r.Directions)-1] != TopDownStep {
		t.Errorf("α=2^30, β=1 on a grid: directions %v, want bottom-up first and top-down at the end", r.Directions)
	}
	r, err = DirectionOptimizing(und, 0, Options{TopDownOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(r.Directions, BottomUpStep) {
		t.Errorf("TopDownOnly: directions %v", r.Directions)
	}
	r, err = DirectionOptimizing(und, 0, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(r.Directions, BottomUpStep) || r.Directions[0] != TopDownStep {
		t.Errorf("defaults on an 8×8 grid: directions %v, want top-down first, then some bottom-up", r.Directions)
	}
	r, err = DirectionOptimizing(dir, 0, Options{Alpha: 1 << 30, Beta: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(r.Directions, BottomUpStep) {
		t.Errorf("directed graph: directions %v, want top-down only", r.Directions)
	}
	if !strings.Contains(r.Algorithm, "top-down only") {
		t.Errorf("directed graph: Algorithm %q does not say top-down only", r.Algorithm)
	}
	if tr := r.LevelTable(); !strings.Contains(tr, "top-down") || strings.Count(tr, "\n") != len(r.FrontierSizes)+1 {
		t.Errorf("Trace() =\n%s", tr)
	}
}

// gonumLevels is the oracle: gonum's breadth-first walk with its depth.
func gonumLevels(g *graph.CSR, src int32) []int32 {
	var gg traverse.Graph
	n := g.NumVertices()
	if g.Directed {
		d := simple.NewDirectedGraph()
		for v := range n {
			d.AddNode(simple.Node(v))
		}
		for u := range int32(n) {
			for _, v := range g.Neighbors(u) {
				d.SetEdge(simple.Edge{F: simple.Node(u), T: simple.Node(v)})
			}
		}
		gg = d
	} else {
		d := simple.NewUndirectedGraph()
		for v := range n {
			d.AddNode(simple.Node(v))
		}
		for u := range int32(n) {
			for _, v := range g.Neighbors(u) {
				d.SetEdge(simple.Edge{F: simple.Node(u), T: simple.Node(v)})
			}
		}
		gg = d
	}
	levels := make([]int32, n)
	for i := range levels {
		levels[i] = -1
	}
	var b traverse.BreadthFirst
	b.Walk(gg, simple.Node(src), func(x gonum.Node, d int) bool {
		levels[x.ID()] = int32(d)
		return false
	})
	return levels
}

func TestOracleRandomGraphs(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for i := range 120 {
		n := 1 + r.IntN(60)
		m := r.IntN(3 * n)
		directed := i%2 == 1
		g := tg.Build(t, n, directed, tg.Unweighted, tg.Random(r, n, m, nil)...)
		src := int32(r.IntN(n))
		want := gonumLevels(g, src)
		for _, a := range algorithms {
			res, err := a.run(g, src)
			if err != nil {
				t.Fatalf("graph %d (%v) %s: %v", i, g, a.name, err)
			}
			if !slices.Equal(res.Levels, want) {
				t.Fatalf("graph %d (%v) from %d, %s: levels %v, gonum %v", i, g, src, a.name, res.Levels, want)
			}
			if err := Check(g, res); err != nil {
				t.Fatalf("graph %d (%v) %s: %v", i, g, a.name, err)
			}
		}
	}
}

// TestRMAT runs the parallel paths (frontiers large enough to start
// workers) on R-MAT graphs and compares with the sequential reference.
func TestRMAT(t *testing.T) {
	for _, tc := range []struct {
		name  string
		scale int
		opts  []gen.Option
	}{
		{"s12_ef16", 12, nil},
		{"s14_ef16_permuted", 14, []gen.Option{gen.PermuteVertices(true), gen.Unweighted()}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := gen.RMAT(tc.scale, 16, tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			dg := directedCopy(t, g)
			for _, src := range []int32{0, 1, 17, int32(g.NumVertices() - 1)} {
				ref, err := TopDown(g, src)
				if err != nil {
					t.Fatal(err)
				}
				r, err := DirectionOptimizing(g, src, Options{})
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(r.Levels, ref.Levels) {
					t.Fatalf("source %d: direction-optimizing levels differ from top-down", src)
				}
				if err := Check(g, r); err != nil {
					t.Fatalf("source %d: %v", src, err)
				}
				if ref.Reached > 1000 && !slices.Contains(r.Directions, BottomUpStep) {
					t.Errorf("source %d: %d reached but no bottom-up step: %v", src, ref.Reached, r.Directions)
				}
				// a directed graph (half the arcs) goes top-down in parallel
				dr, err := DirectionOptimizing(dg, src, Options{})
				if err != nil {
					t.Fatal(err)
				}
				dref, err := TopDown(dg, src)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(dr.Levels, dref.Levels) {
					t.Fatalf("directed, source %d: levels differ from top-down", src)
				}
				if err := Check(dg, dr); err != nil {
					t.Fatalf("directed, source %d: %v", src, err)
				}
			}
		})
	}
}

// directedCopy keeps the arcs u→v with u < v of an undirected graph, plus
// every tenth arc the other way, as a directed graph.
func directedCopy(t *testing.T, g *graph.CSR) *graph.CSR {
	el := graph.EdgeList{N: g.NumVertices()}
	for u := range int32(g.NumVertices()) {
		for _, v := range g.Neighbors(u) {
			if u < v || (u+v)%10 == 0 {
				el.Src = append(el.Src, u)
				el.Dst = append(el.Dst, v)
			}
		}
	}
	d, err := graph.Build(el, graph.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestBadInput(t *testing.T) {
	g := tg.Build(t, 4, false, tg.Unweighted, tg.Path(4, nil)...)
	for _, a := range algorithms {
		for _, src := range []int32{-1, 4, 1 << 30} {
			if _, err := a.run(g, src); err == nil || !strings.Contains(err.Error(), "source") {
				t.Errorf("%s from %d: err = %v, want a source error", a.name, src, err)
			}
		}
		if _, err := a.run(nil, 0); err == nil {
			t.Errorf("%s on nil graph: no error", a.name)
		}
	}
	if _, err := DirectionOptimizing(g, 0, Options{Alpha: -1}); err == nil {
		t.Error("negative Alpha: no error")
	}
}

func TestCancel(t *testing.T) {
	defer cancel.Clear()
	g := tg.Build(t, 16, false, tg.Unweighted, tg.Grid(4, 4, 1, 1)...)
	cancel.Request()
	for _, a := range algorithms {
		_, err := a.run(g, 0)
		if !errors.Is(err, cancel.ErrInterrupted) {
			t.Errorf("%s: err = %v, want cancel.ErrInterrupted", a.name, err)
		}
	}
	cancel.Clear()
	if _, err := TopDown(g, 0); err != nil {
		t.Errorf("after Clear: %v", err)
	}
}

func TestResultString(t *testing.T) {
	g := tg.Build(t, 16, false, tg.Unweighted, tg.Grid(4, 4, 1, 1)...)
	r, err := DirectionOptimizing(g, 0, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := r.String()
	for _, want := range []string{"direction-optimizing", "from 0", "reached 16 of 16", "7 levels", "TEPS"} {
		if !strings.Contains(s, want) {
			t.Errorf("String() = %q, missing %q", s, want)
		}
	}
	if r.ComponentEdges != 24 || r.Reached != 16 {
		t.Errorf("ComponentEdges %d, Reached %d; want 24, 16", r.ComponentEdges, r.Reached)
	}
}

// TestCheckRejects corrupts valid results, one rule at a time.
func TestCheckRejects(t *testing.T) {
	grid := tg.Build(t, 9, false, tg.Unweighted, tg.Grid(3, 3, 1, 1)...) // levels from 0: 0 1 2 / 1 2 3 / 2 3 4
	k4 := tg.Build(t, 5, false, tg.Unweighted, tg.Complete(4, nil)...)   // plus isolated vertex 4
	tri := tg.Build(t, 3, false, tg.Unweighted, tg.Edge{0, 1, 1}, tg.Edge{1, 2, 1}, tg.Edge{0, 2, 1})
	dtri := tg.Build(t, 3, true, tg.Unweighted, tg.Edge{0, 1, 1}, tg.Edge{1, 2, 1}, tg.Edge{0, 2, 1})
	dsq := tg.Build(t, 4, true, tg.Unweighted, tg.Edge{0, 1, 1}, tg.Edge{0, 2, 1}, tg.Edge{1, 3, 1}, tg.Edge{3, 2, 1})
	valid := func(g *graph.CSR) *Result {
		r, err := TopDown(g, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := Check(g, r); err != nil {
			t.Fatalf("uncorrupted result rejected: %v", err)
		}
		return r
	}
	// fake builds a result with the given levels and parents and
	// consistent bookkeeping, so only the tree rules can fail.
	fake := func(g *graph.CSR, levels, parents []int32) *Result {
		r := &Result{Source: 0, Levels: levels, Parents: parents}
		for _, l := range levels {
			if l < 0 {
				continue
			}
			for int(l) >= len(r.FrontierSizes) {
				r.FrontierSizes = append(r.FrontierSizes, 0)
			}
			r.FrontierSizes[l]++
		}
		r.finish(g)
		return r
	}
	cases := []struct {
		name string
		g    *graph.CSR
		make func() *Result
		want string
	}{
		// A cycle cannot have parents one level closer all round: the
		// level rule catches it.
		{"rule 1: parent cycle", grid, func() *Result {
			r := valid(grid)
			r.Parents[1] = 2 // 2's parent is 1: 1→2→1
			r.Parents[2] = 1
			return r
		}, "rule 2"},
		{"rule 1: unreached parent", k4, func() *Result {
			r := valid(k4)
			r.Parents[2] = 4
			return r
		}, "rule 1"},
		{"rule 1: reached without parent", grid, func() *Result {
			r := valid(grid)
			r.Parents[4] = -1
			return r
		}, "rule 1"},
		{"rule 1: source parent", grid, func() *Result {
			r := valid(grid)
			r.Parents[0] = 1
			return r
		}, "rule 1"},
		{"rule 2: flipped level", grid, func() *Result {
			r := valid(grid)
			r.Levels[8]++ // a leaf: its parent is two levels up now
			return r
		}, "rule 2"},
		{"rule 2: parent on the same level", k4, func() *Result {
			r := valid(k4)
			r.Parents[2] = 1 // levels 1 and 1, arc exists
			return r
		}, "rule 2"},
		{"rule 3: edge spans two levels", tri, func() *Result {
			return fake(tri, []int32{0, 1, 2}, []int32{0, 0, 1})
		}, "rule 3"},
		{"rule 3: directed arc spans two levels", dtri, func() *Result {
			return fake(dtri, []int32{0, 1, 2}, []int32{0, 0, 1})
		}, "rule 3"},
		{"rule 4: unreached neighbour", grid, func() *Result {
			return fake(grid, []int32{0, 1, 2, 1, 2, 3, 2, 3, -1}, []int32{0, 0, 1, 0, 1, 2, 3, 4, -1})
		}, "rule 4"},
		{"rule 5: parent not adjacent", grid, func() *Result {
			r := valid(grid)
			r.Parents[2] = 3 // level 1, but no edge 3-2
			return r
		}, "rule 5"},
		// 3→2 exists but 2→3 does not: a directed parent arc must not be
		// taken from the child's own list.
		{"rule 5: directed, only the reverse arc", dsq, func() *Result {
			r := valid(dsq)
			r.Parents[3] = 2
			return r
		}, "rule 5"},
		{"unreached vertex with parent", k4, func() *Result {
			r := valid(k4)
			r.Parents[4] = 0
			return r
		}, "unreached"},
		{"bad level", grid, func() *Result {
			r := valid(grid)
			r.Levels[3] = -5
			return r
		}, "level -5"},
		{"frontier sizes", grid, func() *Result {
			r := valid(grid)
			r.FrontierSizes[2]--
			return r
		}, "FrontierSizes[2]"},
		{"missing level", grid, func() *Result {
			r := valid(grid)
			r.FrontierSizes = r.FrontierSizes[:4]
			return r
		}, "frontier sizes"},
		{"reached count", grid, func() *Result {
			r := valid(grid)
			r.Reached++
			return r
		}, "Reached"},
		{"component edges", grid, func() *Result {
			r := valid(grid)
			r.ComponentEdges *= 2
			return r
		}, "ComponentEdges"},
		{"short levels", grid, func() *Result {
			r := valid(grid)
			r.Levels = r.Levels[:8]
			return r
		}, "levels"},
		{"source out of range", grid, func() *Result {
			r := valid(grid)
			r.Source = 9
			return r
		}, "source"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := Check(c.g, c.make())
			if err == nil {
				t.Fatal("corrupted result accepted")
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %q does not mention %q", err, c.want)
			}
		})
	}
	if Check(grid, nil) == nil || Check(nil, valid(grid)) == nil {
		t.Error("nil inputs accepted")
	}
}

func ExampleTopDown() {
	// 0 - 1 - 2     a 2×3 grid
	// |   |   |
	// 3 - 4 - 5
	el := graph.EdgeList{N: 6,
		Src: []int32{0, 1, 0, 1, 2, 3, 4},
		Dst: []int32{1, 2, 3, 4, 5, 4, 5}}
	g, _ := graph.Build(el, graph.BuildOptions{Symmetrize: true})
	r, _ := TopDown(g, 0)
	fmt.Println("levels:", r.Levels)
	fmt.Println("parents:", r.Parents)
	fmt.Println("frontiers:", r.FrontierSizes)
	fmt.Println("check:", Check(g, r))
	// Output:
	// levels: [0 1 2 1 2 3]
	// parents: [0 0 1 0 1 2]
	// frontiers: [1 2 2 1]
	// check: <nil>
}

func ExampleDirectionOptimizing() {
	// a 6×6 grid, searched from a corner: the frontier grows along the
	// anti-diagonals, so the search turns bottom-up in the middle levels
	// and top-down again for the last, small frontier.
	const side = 6
	var el graph.EdgeList
	el.N = side * side
	for i := int32(0); i < side; i++ {
		for j := int32(0); j < side; j++ {
			v := i*side + j
			if j+1 < side {
				el.Src, el.Dst = append(el.Src, v), append(el.Dst, v+1)
			}
			if i+1 < side {
				el.Src, el.Dst = append(el.Src, v), append(el.Dst, v+side)
			}
		}
	}
	g, _ := graph.Build(el, graph.BuildOptions{Symmetrize: true})
	r, err := DirectionOptimizing(g, 0, Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("reached:", r.Reached, "component edges:", r.ComponentEdges)
	fmt.Println("farthest corner at level", r.Levels[side*side-1])
	fmt.Println("check:", Check(g, r))
	fmt.Print(r.LevelTable())
	// Output:
	// reached: 36 component edges: 60
	// farthest corner at level 10
	// check: <nil>
	// level   frontier  expanded
	//     0          1  top-down
	//     1          2  top-down
	//     2          3  bottom-up
	//     3          4  bottom-up
	//     4          5  bottom-up
	//     5          6  bottom-up
	//     6          5  bottom-up
	//     7          4  bottom-up
	//     8          3  bottom-up
	//     9          2  bottom-up
	//    10          1  top-down
}

// TestCheckHalfScanAgrees corrupts BFS results on random undirected
// graphs (half of them with lists in random order) — leaves cut off (rule 4), leaves pushed a level deeper under a
// deeper parent (rule 3) — and requires the check, which reads each edge
// from its lower end only, to fail with the message of the arc-by-arc
// check (the same graph flagged directed, whose arcs are then all read).
func TestCheckHalfScanAgrees(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 17))
	failures := 0
	for i := range 300 {
		n := 2 + r.IntN(80)
		g := tg.Build(t, n, false, tg.Unweighted, tg.Random(r, n, 1+r.IntN(4*n), nil)...)
		if i%2 == 1 { // lists in any order: the check reads them whole
			g = shuffledLists(r, g)
		}
		asDirected := *g
		asDirected.Directed = true
		res, err := TopDown(g, int32(r.IntN(n)))
		if err != nil {
			t.Fatal(err)
		}
		children := make([]int, n)
		for v, p := range res.Parents {
			if p >= 0 && int32(v) != res.Source {
				children[p]++
			}
		}
		for range 1 + r.IntN(3) {
			v := int32(r.IntN(n))
			if v == res.Source || res.Levels[v] < 0 || children[v] > 0 {
				continue
			}
			if r.IntN(2) == 0 { // cut the leaf off
				children[res.Parents[v]]--
				res.Levels[v], res.Parents[v] = -1, -1
				continue
			}
			for _, w := range g.Neighbors(v) { // hang it under a neighbour of its level
				if res.Levels[w] == res.Levels[v] {
					children[res.Parents[v]]--
					res.Parents[v], res.Levels[v] = w, res.Levels[w]+1
					children[w]++
					break
				}
			}
		}
		res.FrontierSizes = nil
		for _, l := range res.Levels {
			if l >= 0 {
				for int(l) >= len(res.FrontierSizes) {
					res.FrontierSizes = append(res.FrontierSizes, 0)
				}
				res.FrontierSizes[l]++
			}
		}
		res.Reached = 0
		res.finish(g)
		arcByArc := *res // the directed count of the component: both arcs
		arcByArc.ComponentEdges *= 2
		got, want := Check(g, res), Check(&asDirected, &arcByArc)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("graph %d (%v) from %d: check says %v, the arc-by-arc check %v", i, g, res.Source, got, want)
		}
		if got != nil {
			failures++
		}
	}
	if failures < 50 {
		t.Fatalf("only %d of 300 corrupted results failed: the corruption is too weak to test anything", failures)
	}
}

// shuffledLists returns a copy of g with every neighbour list in a random
// order (the same graph; Build would have sorted them by id).
func shuffledLists(r *rand.Rand, g *graph.CSR) *graph.CSR {
	out := *g
	out.Adj = slices.Clone(g.Adj)
	for v := range g.NumVertices() {
		list := out.Adj[g.Offsets[v]:g.Offsets[v+1]]
		r.Shuffle(len(list), func(i, j int) { list[i], list[j] = list[j], list[i] })
	}
	return &out
}

// TestCheckDeepSearches runs the check's wider level copies: paths whose
// depth needs 16 and 32 bits, valid and with the far end cut off.
func TestCheckDeepSearches(t *testing.T) {
	for _, n := range []int{300, 70_000} {
		g := tg.Build(t, n, false, tg.Unweighted, tg.Path(n, nil)...)
		r, err := TopDown(g, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := Check(g, r); err != nil {
			t.Fatalf("path of %d: valid search rejected: %v", n, err)
		}
		r.Levels[n-1], r.Parents[n-1] = -1, -1
		r.FrontierSizes = r.FrontierSizes[:n-1]
		r.Reached, r.ComponentEdges = int64(n-1), int64(n-2)
		want := fmt.Sprintf("rule 4 (spanning): vertex %d is unreached but has an arc from reached vertex %d", n-1, n-2)
		if err := Check(g, r); err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("path of %d, far end cut: %v, want %q", n, err, want)
		}
	}
}

// TestCheckSelfLoopsReadWhole gives the check undirected graphs with
// self-loops, which leave the arcs read below their vertex short of half
// the arcs, so the check reads every list whole: valid results still
// pass, and a wrong level gets the arc-by-arc check's message.
func TestCheckSelfLoopsReadWhole(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 23))
	for i := range 60 {
		n := 2 + r.IntN(60)
		g0 := tg.Build(t, n, false, tg.Unweighted, tg.Random(r, n, 1+r.IntN(4*n), nil)...)
		g := &graph.CSR{Offsets: make([]int64, n+1)}
		for v := range int32(n) { // a self-loop at every third vertex, sorted in
			list := slices.Clone(g0.Neighbors(v))
			if v%3 == 0 {
				list = append(list, v)
				slices.Sort(list)
			}
			g.Adj = append(g.Adj, list...)
			g.Offsets[v+1] = int64(len(g.Adj))
		}
		res, err := TopDown(g, int32(r.IntN(n)))
		if err != nil {
			t.Fatal(err)
		}
		if err := Check(g, res); err != nil {
			t.Fatalf("graph %d: valid search rejected: %v", i, err)
		}
		v := int32(r.IntN(n))
		if v == res.Source || res.Levels[v] < 0 {
			continue
		}
		res.Levels[v] += 2
		asDirected := *g
		asDirected.Directed = true
		arcByArc := *res
		arcByArc.ComponentEdges *= 2
		got, want := Check(g, res), Check(&asDirected, &arcByArc)
		if got == nil || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("graph %d: level of %d raised by 2: check says %v, the arc-by-arc check %v", i, v, got, want)
		}
	}
}
