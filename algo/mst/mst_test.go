package mst

import (
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/graph/path"
	"gonum.org/v1/gonum/graph/simple"

	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/graph/gen"
	tg "github.com/graphnb/graphnb/internal/testgraphs"
)

// both runs Kruskal and Boruvka, checks each result and that they agree.
func both(t *testing.T, g *graph.CSR) (*Result, *Result) {
	t.Helper()
	k, err := Kruskal(g)
	if err != nil {
		t.Fatalf("Kruskal: %v", err)
	}
	b, err := Boruvka(g)
	if err != nil {
		t.Fatalf("Boruvka: %v", err)
	}
	for _, r := range []*Result{k, b} {
		if err := Check(g, r); err != nil {
			t.Fatalf("%s: Check: %v", r.Algorithm, err)
		}
	}
	if !slices.Equal(k.Edges, b.Edges) {
		t.Fatalf("Kruskal and Borůvka forests differ:\n%v\n%v", k.Edges, b.Edges)
	}
	if k.Weight != b.Weight || k.Trees != b.Trees {
		t.Fatalf("Kruskal weight %v trees %d, Borůvka weight %v trees %d", k.Weight, k.Trees, b.Weight, b.Trees)
	}
	return k, b
}

func TestTable(t *testing.T) {
	tests := []struct {
		name   string
		n      int
		edges  []tg.Edge
		weight float64
		trees  int
		rounds int // Borůvka rounds
		forest []Edge
	}{
		{name: "empty graph", n: 0, trees: 0},
		{name: "single vertex", n: 1, trees: 1},
		{name: "edgeless", n: 5, trees: 5},
		{name: "one edge", n: 2, edges: []tg.Edge{{0, 1, 2.5}}, weight: 2.5, trees: 1, rounds: 1,
			forest: []Edge{{0, 1, 2.5}}},
		{name: "triangle", n: 3, edges: []tg.Edge{{0, 1, 1}, {1, 2, 2}, {0, 2, 3}}, weight: 3, trees: 1, rounds: 1,
			forest: []Edge{{0, 1, 1}, {1, 2, 2}}},
		// ties everywhere: (w, U, V) order keeps 0–1, 0–2, 0–3 of K4.
		{name: "K4 equal weights", n: 4, edges: []tg.Edge{{0, 1, 1}, {0, 2, 1}, {0, 3, 1}, {1, 2, 1}, {1, 3, 1}, {2, 3, 1}},
			weight: 3, trees: 1, rounds: 1, forest: []Edge{{0, 1, 1}, {0, 2, 1}, {0, 3, 1}}},
		{name: "disconnected", n: 7,
			edges:  []tg.Edge{{0, 1, 4}, {1, 2, 1}, {0, 2, 2}, {3, 4, 5}, {4, 5, 6}, {3, 5, 7}},
			weight: 14, trees: 2 + 1, rounds: 1,
			forest: []Edge{{1, 2, 1}, {0, 2, 2}, {3, 4, 5}, {4, 5, 6}}},
		{name: "negative weights", n: 4, edges: []tg.Edge{{0, 1, -1}, {1, 2, -3}, {2, 3, 2}, {0, 3, -0.5}, {0, 2, 0}},
			weight: -4.5, trees: 1, rounds: 1, forest: []Edge{{1, 2, -3}, {0, 1, -1}, {0, 3, -0.5}}},
		// a path whose weights rise to the middle needs two rounds.
		{name: "path two rounds", n: 5, edges: []tg.Edge{{0, 1, 1}, {1, 2, 3}, {2, 3, 4}, {3, 4, 2}},
			weight: 10, trees: 1, rounds: 2, forest: []Edge{{0, 1, 1}, {3, 4, 2}, {1, 2, 3}, {2, 3, 4}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := tg.Build(t, tc.n, false, tg.Float64, tc.edges...)
			k, b := both(t, g)
			if k.Weight != tc.weight || k.Trees != tc.trees {
				t.Errorf("weight %v trees %d, want %v and %d", k.Weight, k.Trees, tc.weight, tc.trees)
			}
			if !slices.Equal(k.Edges, tc.forest) && (len(k.Edges) > 0 || len(tc.forest) > 0) {
				t.Errorf("forest %v, want %v", k.Edges, tc.forest)
			}
			if b.Iterations != tc.rounds || k.Iterations != 0 {
				t.Errorf("Borůvka %d rounds (Kruskal %d), want %d (0)", b.Iterations, k.Iterations, tc.rounds)
			}
		})
	}
}

func TestUnweightedAndFloat32(t *testing.T) {
	unw, err := gen.RMAT(8, 4, gen.Unweighted(), gen.Seed(3))
	if err != nil {
		t.Fatal(err)
	}
	k, _ := both(t, unw)
	if k.Weight != float64(len(k.Edges)) {
		t.Errorf("unweighted forest weighs %v, want %d unit edges", k.Weight, len(k.Edges))
	}
	f32, err := gen.RMAT(10, 8, gen.Seed(4))
	if err != nil {
		t.Fatal(err)
	}
	k, b := both(t, f32)
	if k.Trees != f32.NumVertices()-len(k.Edges) || b.Iterations < 1 {
		t.Errorf("trees %d edges %d rounds %d", k.Trees, len(k.Edges), b.Iterations)
	}
}

// gonumWeights returns the MST weight by gonum's Kruskal and Prim.
func gonumWeights(g *graph.CSR) (kruskal, prim float64) {
	src := simple.NewWeightedUndirectedGraph(0, math.Inf(1))
	for v := 0; v < g.NumVertices(); v++ {
		src.AddNode(simple.Node(v))
	}
	c, _ := g.UndirectedCOO()
	for i := range c.Start {
		src.SetWeightedEdge(simple.WeightedEdge{F: simple.Node(c.Start[i]), T: simple.Node(c.End[i]), W: c.Weights64[i]})
	}
	kruskal = path.Kruskal(simple.NewWeightedUndirectedGraph(0, math.Inf(1)), src)
	prim = path.Prim(simple.NewWeightedUndirectedGraph(0, math.Inf(1)), src)
	return kruskal, prim
}

// TestGonumOracle compares the forest weight with gonum's Kruskal and
// Prim on 300 small random graphs: sparse and dense, connected or not,
// with many ties (small integer weights) or real weights.
func TestGonumOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for iter := 0; iter < 300; iter++ {
		n := 1 + rng.IntN(40)
		m := rng.IntN(3*n + 1)
		var edges []tg.Edge
		for range m {
			w := rng.Float64()*10 - 2
			if iter%2 == 0 {
				w = float64(rng.IntN(4))
			}
			edges = append(edges, tg.Edge{float64(rng.IntN(n)), float64(rng.IntN(n)), w})
		}
		g := tg.Build(t, n, false, tg.Float64, edges...)
		k, _ := both(t, g)
		gk, gp := gonumWeights(g)
		tol := 1e-9 * (1 + math.Abs(gk))
		if math.Abs(k.Weight-gk) > tol || math.Abs(k.Weight-gp) > tol {
			t.Fatalf("graph %d (n=%d, m=%d): weight %v, gonum Kruskal %v, Prim %v", iter, n, m, k.Weight, gk, gp)
		}
	}
}

func TestDeterministicAcrossCores(t *testing.T) {
	g, err := gen.RMAT(12, 16, gen.Seed(9), gen.Integer(8)) // many ties
	if err != nil {
		t.Fatal(err)
	}
	b, err := Boruvka(g)
	if err != nil {
		t.Fatal(err)
	}
	if err := Check(g, b); err != nil {
		t.Fatal(err)
	}
	prev := runtime.GOMAXPROCS(1)
	one, err := Boruvka(g)
	runtime.GOMAXPROCS(prev)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(b.Edges, one.Edges) || b.Iterations != one.Iterations || b.Trees != one.Trees {
		t.Errorf("Borůvka on 1 core differs from %d cores", prev)
	}
	k, err := Kruskal(g)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(b.Edges, k.Edges) {
		t.Errorf("Borůvka and Kruskal differ on R-MAT with tied weights")
	}
}

func TestSortEdgesParallel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	e := make([]Edge, 100_003)
	for i := range e {
		u, v := rng.Int32N(1000), rng.Int32N(1000)
		w := float64(rng.IntN(50)) - 20
		if w == 0 && i%2 == 0 {
			w = math.Copysign(0, -1) // −0 sorts as +0
		}
		e[i] = Edge{min(u, v), max(u, v), w}
	}
	want := slices.Clone(e)
	slices.SortFunc(want, compare)
	prev := runtime.GOMAXPROCS(3)
	err := sortEdges(e)
	runtime.GOMAXPROCS(prev)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(e, want) {
		t.Fatal("parallel sort differs from slices.SortFunc")
	}
}

func TestCheckRejects(t *testing.T) {
	// two components: {0..4} and {5, 6}, vertex 7 isolated.
	g := tg.Build(t, 8, false, tg.Float64, []tg.Edge{
		{0, 1, 1}, {1, 2, 2}, {2, 3, 3}, {3, 4, 4}, {0, 4, 10}, {1, 3, 5}, {5, 6, 1},
	}...)
	good, err := Kruskal(g)
	if err != nil {
		t.Fatal(err)
	}
	if err := Check(g, good); err != nil {
		t.Fatal(err)
	}
	clone := func() *Result {
		r := *good
		r.Edges = slices.Clone(good.Edges)
		return &r
	}
	tests := []struct {
		name    string
		corrupt func(r *Result)
		want    string
	}{
		{"nil", nil, "no result"},
		{"non-tree edge added", func(r *Result) { r.Edges = append(r.Edges, Edge{1, 3, 5}); r.Weight += 5 }, "cycle"},
		{"missing edge", func(r *Result) { r.Edges = r.Edges[1:]; r.Weight -= 1 }, "does not span"},
		{"edge not in graph", func(r *Result) { r.Edges[0] = Edge{0, 2, 1} }, "not an edge"},
		{"wrong edge weight", func(r *Result) { r.Edges[0].W = 0.5; r.Weight -= 0.5 }, "weighs 0.5"},
		{"reversed endpoints", func(r *Result) { r.Edges[0].U, r.Edges[0].V = r.Edges[0].V, r.Edges[0].U }, "U < V"},
		{"vertex out of range", func(r *Result) { r.Edges[0].V = 8 }, "U < V < 8"},
		{"duplicate edge", func(r *Result) { r.Edges[1] = r.Edges[0] }, "are both"},
		{"wrong tree count", func(r *Result) { r.Trees = 2 }, "components"},
		{"wrong total", func(r *Result) { r.Weight += 1e-3 }, "sum of its edges"},
		{"not minimal", func(r *Result) {
			for i, e := range r.Edges {
				if e.U == 3 && e.V == 4 {
					r.Edges[i] = Edge{0, 4, 10}
				}
			}
			r.Weight += 6
		}, "not minimal"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var r *Result
			if tc.corrupt != nil {
				r = clone()
				tc.corrupt(r)
			}
			err := Check(g, r)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Check = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestErrors(t *testing.T) {
	dir, err := graph.Build(graph.EdgeList{N: 3, Src: []int32{0, 1}, Dst: []int32{1, 2}}, graph.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]func(*graph.CSR) (*Result, error){"Kruskal": Kruskal, "Boruvka": Boruvka} {
		if _, err := f(dir); err == nil || !strings.Contains(err.Error(), "symmetrize") {
			t.Errorf("%s(directed) = %v, want an error saying to symmetrize", name, err)
		}
		if _, err := f(nil); err == nil {
			t.Errorf("%s(nil) succeeded", name)
		}
	}
	if err := Check(dir, &Result{}); err == nil || !strings.Contains(err.Error(), "symmetrize") {
		t.Errorf("Check(directed) = %v", err)
	}
	// a directed graph made undirected works.
	if _, err := Boruvka(dir.Undirected()); err != nil {
		t.Errorf("Boruvka(undirected copy): %v", err)
	}
}

func TestCancel(t *testing.T) {
	g, err := gen.RMAT(8, 8)
	if err != nil {
		t.Fatal(err)
	}
	good, err := Kruskal(g)
	if err != nil {
		t.Fatal(err)
	}
	cancel.Request()
	defer cancel.Clear()
	_, errK := Kruskal(g)
	_, errB := Boruvka(g)
	errC := Check(g, good)
	for name, err := range map[string]error{"Kruskal": errK, "Boruvka": errB, "Check": errC} {
		if !errors.Is(err, cancel.ErrInterrupted) {
			t.Errorf("%s after Request: %v, want ErrInterrupted", name, err)
		}
	}
	cancel.Clear()
	if _, err := Boruvka(g); err != nil {
		t.Errorf("Boruvka after Clear: %v", err)
	}
}

func TestString(t *testing.T) {
	g := tg.Build(t, 3, false, tg.Float64, []tg.Edge{{0, 1, 1}, {1, 2, 2}}...)
	b, err := Boruvka(g)
	if err != nil {
		t.Fatal(err)
	}
	s := b.String()
	for _, want := range []string{"cpu Borůvka", "1 tree(s)", "2 edges", "weight 3", "1 rounds", "TEPS"} {
		if !strings.Contains(s, want) {
			t.Errorf("String() = %q, missing %q", s, want)
		}
	}
	if (*Result)(nil).String() == "" {
		t.Error("nil String is empty")
	}
}

// TestSumWeights checks that sumWeights equals the in-order sum bit for
// bit: whole weights (summed in parallel), fractional ones and magnitudes
// past 2^53 (summed in order), and short lists.
func TestSumWeights(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	inOrder := func(e []Edge) float64 {
		var w float64
		for _, x := range e {
			w += x.W
		}
		return w
	}
	for name, weight := range map[string]func() float64{
		"whole":      func() float64 { return float64(r.IntN(511) - 255) },
		"fractional": func() float64 { return r.Float64()*100 - 50 },
		"huge":       func() float64 { return float64(r.IntN(3)) * (1 << 50) },
		"zeros":      func() float64 { return math.Copysign(0, -1) },
	} {
		for _, n := range []int{0, 5, 4*sumChunk + 17} {
			e := make([]Edge, n)
			for i := range e {
				e[i].W = weight()
			}
			if got, want := sumWeights(e), inOrder(e); math.Float64bits(got) != math.Float64bits(want) {
				t.Errorf("%s, %d edges: sumWeights %v, in order %v", name, n, got, want)
			}
		}
	}
}
