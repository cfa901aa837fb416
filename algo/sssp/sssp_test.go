package sssp

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	gonum "gonum.org/v1/gonum/graph"
	"gonum.org/v1/gonum/graph/path"
	"gonum.org/v1/gonum/graph/simple"

	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/graph/gen"
	tg "github.com/graphnb/graphnb/internal/testgraphs"
)

var inf = math.Inf(1)

// algorithms under test; all must return the same distances, bit for bit.
var algorithms = []struct {
	name string
	run  func(g *graph.CSR, src int32) (*Result, error)
}{
	{"Dijkstra", Dijkstra},
	{"DeltaStepping/default", func(g *graph.CSR, s int32) (*Result, error) { return DeltaStepping(g, s, 0) }},
	// Δ at the limit of MaxBucketSpan: many buckets, nearly all arcs heavy.
	{"DeltaStepping/narrow", func(g *graph.CSR, s int32) (*Result, error) {
		if g == nil {
			return DeltaStepping(g, s, 1)
		}
		ws, err := scanWeights(g)
		if err != nil {
			return nil, err
		}
		return DeltaStepping(g, s, max(ws.maxFinite/MaxBucketSpan, 1e-300))
	}},
	// Δ beyond every path: one bucket, all arcs light (label-correcting).
	{"DeltaStepping/wide", func(g *graph.CSR, s int32) (*Result, error) { return DeltaStepping(g, s, 1e12) }},
	{"BellmanFord", BellmanFord},
}

// TestSmallGraphs runs every algorithm on the shared table of small graphs
// with known distances.
func TestSmallGraphs(t *testing.T) {
	for _, c := range tg.ShortestPaths() {
		g := c.Graph(t)
		for _, a := range algorithms {
			t.Run(c.Name+"/"+a.name, func(t *testing.T) {
				r, err := a.run(g, c.Source)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(r.Dist, c.Dist) {
					t.Fatalf("dist = %v, want %v", r.Dist, c.Dist)
				}
				if err := Check(g, r); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

// gonumGraph copies g into a gonum weighted graph with the same float64
// weights the algorithms add.
func gonumGraph(g *graph.CSR) interface {
	gonum.Weighted
	From(int64) gonum.Nodes
	Edge(uid, vid int64) gonum.Edge
} {
	n := g.NumVertices()
	if g.Directed {
		d := simple.NewWeightedDirectedGraph(0, inf)
		for v := range n {
			d.AddNode(simple.Node(v))
		}
		for u := range int32(n) {
			for k := g.Offsets[u]; k < g.Offsets[u+1]; k++ {
				d.SetWeightedEdge(simple.WeightedEdge{F: simple.Node(u), T: simple.Node(g.Adj[k]), W: g.ArcWeight(k)})
			}
		}
		return d
	}
	d := simple.NewWeightedUndirectedGraph(0, inf)
	for v := range n {
		d.AddNode(simple.Node(v))
	}
	for u := range int32(n) {
		for k := g.Offsets[u]; k < g.Offsets[u+1]; k++ {
			if v := g.Adj[k]; u < v {
				d.SetWeightedEdge(simple.WeightedEdge{F: simple.Node(u), T: simple.Node(v), W: g.ArcWeight(k)})
			}
		}
	}
	return d
}

func close9(a, b float64) bool {
	if a == b {
		return true
	}
	return math.Abs(a-b) <= 1e-9*max(math.Abs(a), math.Abs(b))
}

func TestOracleRandomGraphs(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	weightKinds := []struct {
		name string
		kind tg.Weights
		w    func(*rand.Rand) float64
	}{
		{"uniform", tg.Float32, func(r *rand.Rand) float64 { return float64(r.Float32()) }},
		// a quarter of the weights exactly zero: ties and zero cycles
		{"quantised", tg.Float32, func(r *rand.Rand) float64 { return float64(r.IntN(4)) / 4 }},
		{"integer", tg.Float64, func(r *rand.Rand) float64 { return float64(1 + r.IntN(100)) }},
		{"unweighted", tg.Unweighted, func(*rand.Rand) float64 { return 1 }},
	}
	for i := range 160 {
		n := 1 + r.IntN(50)
		m := r.IntN(4 * n)
		directed := i%2 == 1
		wk := weightKinds[i/2%len(weightKinds)]
		g := tg.Build(t, n, directed, wk.kind, tg.Random(r, n, m, wk.w)...)
		src := int32(r.IntN(n))
		want := path.DijkstraFrom(simple.Node(src), gonumGraph(g))
		var first []float64
		for _, a := range algorithms {
			res, err := a.run(g, src)
			if err != nil {
				t.Fatalf("graph %d (%v, %s) %s: %v", i, g, wk.name, a.name, err)
			}
			for v, d := range res.Dist {
				if w := want.WeightTo(int64(v)); !close9(d, w) {
					t.Fatalf("graph %d (%v, %s) from %d, %s: Dist[%d] = %g, gonum %g", i, g, wk.name, src, a.name, v, d, w)
				}
			}
			if first == nil {
				first = res.Dist
			} else if !slices.Equal(first, res.Dist) {
				t.Fatalf("graph %d: %s distances differ from Dijkstra's in the last bits", i, a.name)
			}
			if err := Check(g, res); err != nil {
				t.Fatalf("graph %d (%v, %s) %s: %v", i, g, wk.name, a.name, err)
			}
		}
	}
}

// TestOracleNegativeWeights compares BellmanFord with gonum's on directed
// graphs with some negative arcs, negative cycles included.
func TestOracleNegativeWeights(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 1))
	var cycles, fine int
	for i := range 120 {
		n := 2 + r.IntN(30)
		m := r.IntN(3 * n)
		g := tg.Build(t, n, true, tg.Float64, tg.Random(r, n, m, func(r *rand.Rand) float64 {
			return float64(r.IntN(40) - 6) // about one arc in seven negative
		})...)
		src := int32(r.IntN(n))
		want, ok := path.BellmanFordFrom(simple.Node(src), gonumGraph(g))
		res, err := BellmanFord(g, src)
		if !ok {
			cycles++
			if err == nil || !strings.Contains(err.Error(), "negative cycle") {
				t.Fatalf("graph %d: gonum finds a negative cycle, BellmanFord says %v", i, err)
			}
			continue
		}
		fine++
		if err != nil {
			t.Fatalf("graph %d (%v): %v", i, g, err)
		}
		for v, d := range res.Dist {
			if w := want.WeightTo(int64(v)); !close9(d, w) {
				t.Fatalf("graph %d from %d: Dist[%d] = %g, gonum %g", i, src, v, d, w)
			}
		}
		if err := Check(g, res); err != nil {
			t.Fatalf("graph %d: %v", i, err)
		}
	}
	if cycles < 10 || fine < 10 {
		t.Errorf("weak sample: %d graphs with negative cycles, %d without", cycles, fine)
	}
}

// TestRMAT runs the parallel paths on R-MAT graphs of every weight kind and
// compares all algorithms bit for bit.
func TestRMAT(t *testing.T) {
	for _, tc := range []struct {
		name  string
		scale int
		opts  []gen.Option
	}{
		{"uniform", 12, nil},
		{"float64", 11, []gen.Option{gen.Float64(), gen.PermuteVertices(true)}},
		{"integer", 11, []gen.Option{gen.Integer(255)}},
		{"unweighted", 10, []gen.Option{gen.Unweighted()}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := gen.RMAT(tc.scale, 16, tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			if tc.name == "uniform" {
				// quantise a copy so that a third of the arcs weigh zero
				q := *g
				q.Weights = make([]float32, len(g.Weights))
				for k, w := range g.Weights {
					q.Weights[k] = float32(math.Floor(float64(w)*3)) / 3
				}
				g = &q
			}
			dg := directedCopy(t, g)
			for _, src := range []int32{0, 100} {
				for _, gg := range []*graph.CSR{g, dg} {
					var ref *Result
					for _, a := range algorithms {
						r, err := a.run(gg, src)
						if err != nil {
							t.Fatalf("%s: %v", a.name, err)
						}
						if err := Check(gg, r); err != nil {
							t.Fatalf("%s from %d: %v", a.name, src, err)
						}
						if ref == nil {
							ref = r
						} else if !slices.Equal(ref.Dist, r.Dist) {
							t.Fatalf("%s from %d (directed %v): distances differ from Dijkstra's", a.name, src, gg.Directed)
						}
					}
				}
			}
		})
	}
}

// directedCopy keeps the arcs u→v with u < v of an undirected graph, plus
// every seventh arc the other way, as a directed graph.
func directedCopy(t *testing.T, g *graph.CSR) *graph.CSR {
	el := graph.EdgeList{N: g.NumVertices()}
	for u := range int32(g.NumVertices()) {
		for k := g.Offsets[u]; k < g.Offsets[u+1]; k++ {
			if v := g.Adj[k]; u < v || (u+v)%7 == 0 {
				el.Src = append(el.Src, u)
				el.Dst = append(el.Dst, v)
				switch {
				case g.Weights != nil:
					el.Weights = append(el.Weights, g.Weights[k])
				case g.Weights64 != nil:
					el.Weights64 = append(el.Weights64, g.Weights64[k])
				}
			}
		}
	}
	d, err := graph.Build(el, graph.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestNegativeWeights(t *testing.T) {
	// 0 → 1 → 2 with a negative arc 1→2, and a shortcut 0→2.
	dag := tg.Build(t, 3, true, tg.Float64, tg.Edge{0, 1, 2}, tg.Edge{1, 2, -1.5}, tg.Edge{0, 2, 1})
	for _, a := range algorithms[:4] {
		if _, err := a.run(dag, 0); err == nil || !strings.Contains(err.Error(), "non-negative") || !strings.Contains(err.Error(), "1→2") {
			t.Errorf("%s: err = %v, want a non-negative weight error naming arc 1→2", a.name, err)
		}
	}
	r, err := BellmanFord(dag, 0)
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{0, 2, 0.5}; !slices.Equal(r.Dist, want) || r.Parents[2] != 1 {
		t.Errorf("BellmanFord: dist %v parents %v, want %v with 2's parent 1", r.Dist, r.Parents, want)
	}
	if err := Check(dag, r); err != nil {
		t.Error(err)
	}

	und := tg.Build(t, 3, false, tg.Float32, tg.Edge{0, 1, 2}, tg.Edge{1, 2, -1})
	if _, err := BellmanFord(und, 0); err == nil || !strings.Contains(err.Error(), "negative cycle") {
		t.Errorf("undirected negative edge: err = %v, want a negative cycle error", err)
	}

	cyc := tg.Build(t, 4, true, tg.Float64, tg.Edge{0, 1, 1}, tg.Edge{1, 2, -1}, tg.Edge{2, 1, -1}, tg.Edge{2, 3, 1})
	if _, err := BellmanFord(cyc, 0); err == nil || !strings.Contains(err.Error(), "negative cycle") {
		t.Errorf("reachable negative cycle: err = %v", err)
	}
	if r, err := BellmanFord(cyc, 3); err != nil || r.Reached != 1 {
		t.Errorf("negative cycle out of reach: %v, %v", r, err)
	}

	minusInf := tg.Build(t, 3, true, tg.Float64, tg.Edge{0, 1, 1}, tg.Edge{1, 2, math.Inf(-1)})
	if _, err := BellmanFord(minusInf, 0); err == nil || !strings.Contains(err.Error(), "-Inf") {
		t.Errorf("-Inf weight: err = %v", err)
	}

	// Rounding makes the zero-weight cycle 1→2→1 negative: 1e-20 + 1 rounds
	// to 1, so vertex 1 drops from 1e-20 to 1 - 1 = 0, and no arc into
	// {1, 2} is tight from outside any more.
	round := tg.Build(t, 3, true, tg.Float64, tg.Edge{0, 1, 1e-20}, tg.Edge{1, 2, 1}, tg.Edge{2, 1, -1})
	if _, err := BellmanFord(round, 0); err == nil || !strings.Contains(err.Error(), "rounding") {
		t.Errorf("rounding cycle: err = %v, want a rounding error", err)
	}
}

func TestBadInput(t *testing.T) {
	g := tg.Build(t, 4, false, tg.Float32, tg.Path(4, nil)...)
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
	for _, d := range []float64{math.NaN(), inf, 1e-6} {
		if _, err := DeltaStepping(g, 0, d); err == nil {
			t.Errorf("Δ = %g: no error", d)
		}
	}
	if _, err := DeltaStepping(g, 0, 1.0/MaxBucketSpan); err != nil {
		t.Errorf("Δ = 1/MaxBucketSpan: %v", err)
	}
}

func TestCancel(t *testing.T) {
	defer cancel.Clear()
	g := tg.Build(t, 16, false, tg.Float32, tg.Grid(4, 4, 1, 0.5)...)
	dg := tg.Build(t, 16, true, tg.Float32, tg.Grid(4, 4, 1, 0.5)...)
	cancel.Request()
	for _, a := range algorithms {
		_, err := a.run(g, 0)
		if !errors.Is(err, cancel.ErrInterrupted) {
			t.Errorf("%s: err = %v, want cancel.ErrInterrupted", a.name, err)
		}
	}
	if _, err := BellmanFord(dg, 0); !errors.Is(err, cancel.ErrInterrupted) {
		t.Errorf("BellmanFord, directed: err = %v", err)
	}
	cancel.Clear()
	if _, err := Dijkstra(g, 0); err != nil {
		t.Errorf("after Clear: %v", err)
	}
}

func TestResult(t *testing.T) {
	g := tg.Build(t, 16, false, tg.Float32, tg.Grid(4, 4, 1, 0.5)...)
	for _, a := range algorithms {
		r, err := a.run(g, 5)
		if err != nil {
			t.Fatal(err)
		}
		s := r.String()
		for _, want := range []string{"cpu", "from 5", "reached 16 of 16", "iterations", "TEPS"} {
			if !strings.Contains(s, want) {
				t.Errorf("%s: String() = %q, missing %q", a.name, s, want)
			}
		}
		if r.Reached != 16 || r.ComponentEdges != 24 || r.Iterations < 1 {
			t.Errorf("%s: Reached %d, ComponentEdges %d, Iterations %d", a.name, r.Reached, r.ComponentEdges, r.Iterations)
		}
	}
	d, _ := Dijkstra(g, 5)
	b, _ := BellmanFord(g, 5)
	if d.Iterations != 16 {
		t.Errorf("Dijkstra settled %d vertices, want 16", d.Iterations)
	}
	// from the inner vertex 5 the farthest vertex is 4 hops away, so the
	// sweeps are at most 4 + 1
	if b.Iterations < 2 || b.Iterations > 5 {
		t.Errorf("Bellman-Ford took %d sweeps", b.Iterations)
	}
	if ds, _ := DeltaStepping(g, 5, 0.5); ds.Delta != 0.5 || !strings.Contains(ds.Algorithm, "Δ=0.5") {
		t.Errorf("Δ-stepping reports Δ %g in %q", ds.Delta, ds.Algorithm)
	}
	if ds, _ := DeltaStepping(g, 5, 0); ds.Delta <= 0 {
		t.Errorf("default Δ = %g", ds.Delta)
	}
}

// TestCheckRejects corrupts valid results, one rule at a time.
func TestCheckRejects(t *testing.T) {
	// directed path 0→1→2→3 (weights 1) plus an unreached vertex 4
	dpath := tg.Build(t, 5, true, tg.Float64, tg.Edge{0, 1, 1}, tg.Edge{1, 2, 1}, tg.Edge{2, 3, 1})
	// undirected, with the zero-weight edge 2–3
	zero := tg.Build(t, 4, false, tg.Float32, tg.Edge{0, 1, 1}, tg.Edge{1, 2, 0.5}, tg.Edge{2, 3, 0}, tg.Edge{1, 3, 0.5})
	// undirected triangle: 0–2 (weight 5) is longer than 0–1–2
	tri := tg.Build(t, 3, false, tg.Float64, tg.Edge{0, 1, 1}, tg.Edge{1, 2, 1}, tg.Edge{0, 2, 5})
	valid := func(g *graph.CSR) *Result {
		r, err := Dijkstra(g, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := Check(g, r); err != nil {
			t.Fatalf("uncorrupted result rejected: %v", err)
		}
		return r
	}
	cases := []struct {
		name    string
		g       *graph.CSR
		corrupt func(r *Result)
		want    string
	}{
		{"lower a distance", dpath, func(r *Result) { r.Dist[3] = 1.5 }, "parent arc"},
		{"raise a distance", dpath, func(r *Result) { r.Dist[3] = 3.5 }, "bound"},
		{"lower a distance below its children", dpath, func(r *Result) { r.Dist[1] = 0.5 }, "bound"},
		{"break a parent", dpath, func(r *Result) { r.Parents[3] = 1 }, "parent arc"},
		{"break a parent, undirected", zero, func(r *Result) { r.Parents[2] = 0 }, "parent arc"},
		{"parent arc of the wrong weight, undirected", tri, func(r *Result) { r.Parents[2] = 0 }, "parent arc"},
		{"parent cycle over zero weights", zero, func(r *Result) { r.Parents[2], r.Parents[3] = 3, 2 }, "parent tree"},
		{"parent self-loop", zero, func(r *Result) { r.Parents[3] = 3 }, "parent tree"},
		{"source distance", dpath, func(r *Result) { r.Dist[0] = 0.5 }, "source"},
		{"source parent", dpath, func(r *Result) { r.Parents[0] = 1 }, "source"},
		{"unreached with parent", dpath, func(r *Result) { r.Parents[4] = 3 }, "reach"},
		{"reached without parent", dpath, func(r *Result) { r.Parents[2] = -1 }, "reach"},
		{"parent out of range", dpath, func(r *Result) { r.Parents[2] = 9 }, "reach"},
		{"unreached parent", dpath, func(r *Result) { r.Parents[2] = 4 }, "reach"},
		{"NaN distance", dpath, func(r *Result) { r.Dist[2] = math.NaN() }, "reach"},
		{"unreached neighbour", dpath, func(r *Result) { r.Dist[3], r.Parents[3] = inf, -1 }, "bound"},
		{"reached count", dpath, func(r *Result) { r.Reached-- }, "Reached"},
		{"component edges", dpath, func(r *Result) { r.ComponentEdges++ }, "ComponentEdges"},
		{"short parents", dpath, func(r *Result) { r.Parents = r.Parents[:4] }, "parents"},
		{"source out of range", dpath, func(r *Result) { r.Source = 5 }, "source"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := valid(c.g)
			c.corrupt(r)
			err := Check(c.g, r)
			if err == nil {
				t.Fatal("corrupted result accepted")
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %q does not mention %q", err, c.want)
			}
		})
	}
	t.Run("tolerance", func(t *testing.T) {
		r := valid(dpath)
		r.Dist[3] += 1e-12 // within DefaultTolerance of 2 + 1
		if err := Check(dpath, r); err != nil {
			t.Errorf("rounding-sized error rejected: %v", err)
		}
		if err := CheckTolerance(dpath, r, 0); err == nil {
			t.Error("exact check accepted an inexact distance")
		}
		if err := CheckTolerance(dpath, r, -1); err == nil {
			t.Error("negative tolerance accepted")
		}
	})
	if Check(dpath, nil) == nil || Check(nil, valid(dpath)) == nil {
		t.Error("nil inputs accepted")
	}
}

func ExampleDijkstra() {
	// 0 -1- 1 -1- 2
	//  \         /
	//   ----3----        the direct edge 0–2 is longer than the detour
	el := graph.EdgeList{N: 3,
		Src:     []int32{0, 1, 0},
		Dst:     []int32{1, 2, 2},
		Weights: []float32{1, 1, 3}}
	g, _ := graph.Build(el, graph.BuildOptions{Symmetrize: true})
	r, err := Dijkstra(g, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("dist:", r.Dist)
	fmt.Println("parents:", r.Parents)
	fmt.Println("check:", Check(g, r))
	// Output:
	// dist: [0 1 2]
	// parents: [0 0 1]
	// check: <nil>
}

func ExampleDeltaStepping() {
	// a 1×5 strip with a heavy shortcut: Δ = 1 makes 0–4 (weight 3) heavy
	el := graph.EdgeList{N: 5,
		Src:     []int32{0, 1, 2, 3, 0},
		Dst:     []int32{1, 2, 3, 4, 4},
		Weights: []float32{0.5, 0.5, 0.5, 0.5, 3}}
	g, _ := graph.Build(el, graph.BuildOptions{Symmetrize: true})
	r, err := DeltaStepping(g, 0, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("dist:", r.Dist)
	fmt.Println("buckets settled:", r.Iterations)
	fmt.Println("check:", Check(g, r))
	// Output:
	// dist: [0 0.5 1 1.5 2]
	// buckets settled: 3
	// check: <nil>
}

func ExampleBellmanFord() {
	// a directed graph with a negative arc (no negative cycle)
	el := graph.EdgeList{N: 4,
		Src:       []int32{0, 0, 1, 2},
		Dst:       []int32{1, 2, 3, 1},
		Weights64: []float64{4, 1, 1, -2}}
	g, _ := graph.Build(el, graph.BuildOptions{})
	r, err := BellmanFord(g, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("dist:", r.Dist)
	fmt.Println("parents:", r.Parents)
	fmt.Println("check:", Check(g, r))

	// the same edges undirected: the negative edge is a negative cycle
	u, _ := graph.Build(el, graph.BuildOptions{Symmetrize: true})
	_, err = BellmanFord(u, 0)
	fmt.Println(err)
	// Output:
	// dist: [0 -1 1 0]
	// parents: [0 2 0 1]
	// check: <nil>
	// sssp: edge 1–2 of this undirected graph weighs -2: a negative edge is a negative cycle (there and back), so shortest paths are undefined
}

// TestParents checks the tree construction on zero-weight plateaus: the
// pull method with adoption rounds on undirected graphs, the tight-arc BFS
// on directed ones.
func TestParents(t *testing.T) {
	chain := []tg.Edge{{0, 1, 1}, {1, 2, 0}, {2, 3, 0}, {3, 4, 0}, {4, 5, 2}}
	for _, directed := range []bool{false, true} {
		g := tg.Build(t, 6, directed, tg.Float32, chain...)
		r, err := Dijkstra(g, 0)
		if err != nil {
			t.Fatal(err)
		}
		if want := []int32{0, 0, 1, 2, 3, 4}; !slices.Equal(r.Parents, want) {
			t.Errorf("directed %v: parents %v, want %v", directed, r.Parents, want)
		}
	}
	// a zero-weight triangle hanging off the source, and a zero-weight
	// star: every tight arc inside them would allow a cycle
	g := tg.Build(t, 8, false, tg.Float32,
		tg.Edge{0, 1, 1}, tg.Edge{1, 2, 0}, tg.Edge{2, 3, 0}, tg.Edge{3, 1, 0},
		tg.Edge{0, 4, 0.5}, tg.Edge{4, 5, 0}, tg.Edge{4, 6, 0}, tg.Edge{4, 7, 0}, tg.Edge{5, 6, 0})
	for _, a := range algorithms {
		r, err := a.run(g, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := Check(g, r); err != nil {
			t.Errorf("%s: %v (parents %v)", a.name, err, r.Parents)
		}
	}
}

// weightsOf is scanWeights for tests, which are never interrupted.
func weightsOf(g *graph.CSR) weightStats {
	ws, err := scanWeights(g)
	if err != nil {
		panic(err)
	}
	return ws
}
