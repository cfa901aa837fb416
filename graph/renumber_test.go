package graph_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/graph/gen"
)

// shuffledIDs returns a random permutation of [0, n) for seed.
func shuffledIDs(n int, seed uint64) []int32 {
	p := make([]int32, n)
	for i := range p {
		p[i] = int32(i)
	}
	r := rand.New(rand.NewPCG(seed, 99))
	r.Shuffle(n, func(i, j int) { p[i], p[j] = p[j], p[i] })
	return p
}

// buildMapped builds an undirected graph from edge pairs with vertex v
// renamed ids[v] (ids nil: unchanged), float32 weights from the pair index.
func buildMapped(t testing.TB, n int, pairs [][2]int32, ids []int32) *graph.CSR {
	t.Helper()
	el := graph.EdgeList{N: n}
	for i, e := range pairs {
		u, v := e[0], e[1]
		if ids != nil {
			u, v = ids[u], ids[v]
		}
		el.Src = append(el.Src, u)
		el.Dst = append(el.Dst, v)
		el.Weights = append(el.Weights, float32(i%7+1))
	}
	g, err := graph.Build(el, graph.BuildOptions{Symmetrize: true})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func pathPairs(n int) [][2]int32 {
	var p [][2]int32
	for i := 0; i+1 < n; i++ {
		p = append(p, [2]int32{int32(i), int32(i + 1)})
	}
	return p
}

func gridPairs(w, h int) [][2]int32 {
	var p [][2]int32
	for y := range h {
		for x := range w {
			v := int32(y*w + x)
			if x+1 < w {
				p = append(p, [2]int32{v, v + 1})
			}
			if y+1 < h {
				p = append(p, [2]int32{v, v + int32(w)})
			}
		}
	}
	return p
}

// randomDirected is a directed graph with n vertices and about m arcs.
func randomDirected(t testing.TB, n, m int, seed uint64) *graph.CSR {
	r := rand.New(rand.NewPCG(seed, 1))
	el := graph.EdgeList{N: n}
	for range m {
		el.Src = append(el.Src, int32(r.IntN(n)))
		el.Dst = append(el.Dst, int32(r.IntN(n)))
		el.Weights64 = append(el.Weights64, r.Float64())
	}
	g, err := graph.Build(el, graph.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// refRCM is a plain sequential reverse Cuthill-McKee with the same rules
// as RCMOrder: components in (degree, id) order of their first vertex,
// George-Liu search for the root, children by (degree, id), reversed.
func refRCM(g *graph.CSR) []int32 {
	n := g.NumVertices()
	deg := func(v int32) int { return g.Degree(v) }
	less := func(a, b int32) int {
		if deg(a) != deg(b) {
			return deg(a) - deg(b)
		}
		return int(a - b)
	}
	verts := make([]int32, n)
	for i := range verts {
		verts[i] = int32(i)
	}
	slices.SortFunc(verts, less)
	numbered := make([]bool, n)
	bfs := func(root int32) (int, []int32) {
		dist := map[int32]int{root: 0}
		level := []int32{root}
		ecc := 0
		for {
			var next []int32
			for _, u := range level {
				for _, v := range g.Neighbors(u) {
					if _, ok := dist[v]; !ok && !numbered[v] {
						dist[v] = ecc + 1
						next = append(next, v)
					}
				}
			}
			if len(next) == 0 {
				return ecc, level
			}
			ecc++
			level = next
		}
	}
	var order []int32
	for _, s := range verts {
		if numbered[s] {
			continue
		}
		root := s
		if deg(s) > 0 {
			ecc, last := bfs(root)
			for range 16 {
				x := slices.MinFunc(last, less)
				e, l := bfs(x)
				if e <= ecc {
					break
				}
				root, ecc, last = x, e, l
			}
		}
		numbered[root] = true
		order = append(order, root)
		for i := len(order) - 1; i < len(order); i++ {
			var kids []int32
			for _, v := range g.Neighbors(order[i]) {
				if !numbered[v] {
					numbered[v] = true
					kids = append(kids, v)
				}
			}
			slices.SortFunc(kids, less)
			order = append(order, kids...)
		}
	}
	newID := make([]int32, n)
	for i, v := range order {
		newID[v] = int32(n - 1 - i)
	}
	return newID
}

type namedGraph struct {
	name string
	g    *graph.CSR
}

func renumberGraphs(t testing.TB) []namedGraph {
	var out []namedGraph
	for _, tg := range studyGraphs() {
		g, err := tg.make()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, namedGraph{tg.name, g})
	}
	big, err := gen.RMAT(14, 16, gen.Seed(11), gen.PermuteVertices(true)) // levels of many arcs: the parallel path
	if err != nil {
		t.Fatal(err)
	}
	unw, err := gen.RMAT(9, 4, gen.Seed(12), gen.Unweighted()) // isolated vertices, small components
	if err != nil {
		t.Fatal(err)
	}
	return append(out,
		namedGraph{"rmat_s14_ef16", big},
		namedGraph{"rmat_s9_ef4_unweighted", unw},
		namedGraph{"grid_60x50_shuffled", buildMapped(t, 3000, gridPairs(60, 50), shuffledIDs(3000, 1))},
		namedGraph{"path_500_shuffled", buildMapped(t, 500, pathPairs(500), shuffledIDs(500, 2))},
		namedGraph{"directed_random", randomDirected(t, 3000, 9000, 3)},
		namedGraph{"empty", &graph.CSR{Offsets: []int64{0}}},
	)
}

func TestRCMOrderMatchesSequentialReference(t *testing.T) {
	for _, ng := range renumberGraphs(t) {
		t.Run(ng.name, func(t *testing.T) {
			want := refRCM(ng.g)
			for _, procs := range []int{1, 4} {
				prev := runtime.GOMAXPROCS(procs)
				newID, oldID, err := graph.RCMOrder(ng.g)
				runtime.GOMAXPROCS(prev)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(newID, want) {
					i := 0
					for newID[i] == want[i] {
						i++
					}
					t.Fatalf("GOMAXPROCS %d: newID[%d] = %d, reference %d", procs, i, newID[i], want[i])
				}
				for v, w := range newID {
					if oldID[w] != int32(v) {
						t.Fatalf("oldID[newID[%d]] = %d", v, oldID[w])
					}
				}
			}
		})
	}
}

// sameGraph fails unless a and b are equal array by array.
func sameGraph(t *testing.T, a, b *graph.CSR) {
	t.Helper()
	if !slices.Equal(a.Offsets, b.Offsets) || !slices.Equal(a.Adj, b.Adj) ||
		!slices.Equal(a.Weights, b.Weights) || !slices.Equal(a.Weights64, b.Weights64) ||
		(a.Weights == nil) != (b.Weights == nil) || (a.Weights64 == nil) != (b.Weights64 == nil) ||
		a.Directed != b.Directed {
		t.Fatal("graphs differ")
	}
}

func TestRenumberIsAnIsomorphism(t *testing.T) {
	for _, ng := range renumberGraphs(t) {
		t.Run(ng.name, func(t *testing.T) {
			g := ng.g
			newID, oldID, err := graph.RCMOrder(g)
			if err != nil {
				t.Fatal(err)
			}
			h, err := g.Renumber(newID)
			if err != nil {
				t.Fatal(err)
			}
			if err := h.Validate(); err != nil {
				t.Fatal(err)
			}
			if !g.Directed {
				if err := h.CheckSymmetric(); err != nil {
					t.Fatal(err)
				}
			}
			// every arc maps to an arc of the same weight, lists sorted by
			// id (checked arc by arc on the smaller graphs; the largest
			// one is covered by the round trip below)
			for u := range int32(g.NumVertices()) {
				if g.NumArcs() > 200_000 {
					break
				}
				if g.Degree(u) != h.Degree(newID[u]) {
					t.Fatalf("vertex %d has degree %d, renamed %d has %d", u, g.Degree(u), newID[u], h.Degree(newID[u]))
				}
				if !slices.IsSorted(h.Neighbors(newID[u])) {
					t.Fatalf("list of %d is not sorted by id", newID[u])
				}
				for k := g.Offsets[u]; k < g.Offsets[u+1]; k++ {
					nu, nv := newID[u], newID[g.Adj[k]]
					nb := h.Neighbors(nu)
					j, found := slices.BinarySearch(nb, nv)
					if !found || h.ArcWeight(h.Offsets[nu]+int64(j)) != g.ArcWeight(k) {
						t.Fatalf("arc %d→%d (weight %g) is missing as %d→%d", u, g.Adj[k], g.ArcWeight(k), nu, nv)
					}
				}
			}
			back, err := h.Renumber(oldID)
			if err != nil {
				t.Fatal(err)
			}
			sameGraph(t, g, back)
			if len(h.Adj) > 0 && &h.Adj[0] == &g.Adj[0] {
				t.Fatal("Renumber shares Adj with its input")
			}
		})
	}
}

func TestRCMNarrowsBandwidth(t *testing.T) {
	cases := []struct {
		name     string
		g        *graph.CSR
		maxAfter int
	}{
		// a path numbered from one end has bandwidth 1
		{"path_2000", buildMapped(t, 2000, pathPairs(2000), shuffledIDs(2000, 5)), 1},
		// a w×h grid numbered by anti-diagonals from a corner: two
		// consecutive levels, at most 2·min(w, h)
		{"grid_80x40", buildMapped(t, 3200, gridPairs(80, 40), shuffledIDs(3200, 6)), 80},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := tc.g.Bandwidth()
			newID, _, err := graph.RCMOrder(tc.g)
			if err != nil {
				t.Fatal(err)
			}
			h, err := tc.g.Renumber(newID)
			if err != nil {
				t.Fatal(err)
			}
			after := h.Bandwidth()
			t.Logf("bandwidth %d → %d", before, after)
			if after > tc.maxAfter || before < 10*after {
				t.Fatalf("bandwidth %d before, %d after RCM; want ≤ %d and ≥ 10× narrower", before, after, tc.maxAfter)
			}
		})
	}
	// SSCA#2 (shuffled ids): cliques come back together.
	g, err := gen.SSCA2(13, gen.Seed(8))
	if err != nil {
		t.Fatal(err)
	}
	newID, _, err := graph.RCMOrder(g)
	if err != nil {
		t.Fatal(err)
	}
	h, _ := g.Renumber(newID)
	if before, after := g.Bandwidth(), h.Bandwidth(); after*10 > before {
		t.Fatalf("SSCA#2 bandwidth %d before, %d after RCM", before, after)
	}
}

func TestBandwidth(t *testing.T) {
	g := buildMapped(t, 6, [][2]int32{{0, 1}, {1, 4}, {2, 3}}, nil)
	if b := g.Bandwidth(); b != 3 {
		t.Fatalf("bandwidth %d, want 3", b)
	}
	if b := (&graph.CSR{Offsets: []int64{0, 0}}).Bandwidth(); b != 0 {
		t.Fatalf("empty graph bandwidth %d", b)
	}
}

func TestRenumberErrors(t *testing.T) {
	g := buildMapped(t, 4, pathPairs(4), nil)
	cases := []struct {
		name  string
		newID []int32
		want  string
	}{
		{"short", []int32{0, 1, 2}, "got 3 for 4 vertices"},
		{"long", []int32{0, 1, 2, 3, 4}, "got 5 for 4 vertices"},
		{"out of range", []int32{0, 1, 4, 2}, "entry 2 is 4, outside [0,4)"},
		{"negative", []int32{0, -1, 2, 3}, "entry 1 is -1"},
		{"repeated", []int32{3, 1, 2, 1}, "entries 1 and 3 are both 1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := g.Renumber(tc.newID)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	// A long permutation with one repeat takes the parallel path.
	p := shuffledIDs(100000, 3)
	p[77777] = p[5]
	if _, err := graph.InvertPermutation(p); err == nil || !strings.Contains(err.Error(), "entries 5 and 77777") {
		t.Fatalf("InvertPermutation error %v", err)
	}
	inv, err := graph.InvertPermutation([]int32{2, 0, 1})
	if err != nil || !slices.Equal(inv, []int32{1, 2, 0}) {
		t.Fatalf("InvertPermutation = %v, %v", inv, err)
	}
}

func BenchmarkRCMOrder(b *testing.B) {
	for _, scale := range []int{16, 20} {
		for _, fam := range []string{"rmat", "ssca2"} {
			b.Run(fmt.Sprintf("%s_s%d", fam, scale), func(b *testing.B) {
				g := benchFamily(b, fam, scale)
				b.ResetTimer()
				start := time.Now()
				for range b.N {
					if _, _, err := graph.RCMOrder(g); err != nil {
						b.Fatal(err)
					}
				}
				reportRate(b, g.NumArcs(), "Marcs/s", start)
			})
		}
	}
}

func BenchmarkRenumber(b *testing.B) {
	for _, scale := range []int{16, 20} {
		b.Run(fmt.Sprintf("rmat_s%d_ef16", scale), func(b *testing.B) {
			g := benchRMAT(b, scale)
			newID, _, err := graph.RCMOrder(g)
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			start := time.Now()
			for range b.N {
				if _, err := g.Renumber(newID); err != nil {
					b.Fatal(err)
				}
			}
			reportRate(b, g.NumArcs(), "Marcs/s", start)
		})
	}
}

// benchFamily returns the cached R-MAT (edge factor 16) or SSCA#2 graph.
func benchFamily(b *testing.B, fam string, scale int) *graph.CSR {
	if fam == "ssca2" {
		return benchSSCA2(b, scale)
	}
	return benchRMAT(b, scale)
}

func TestTransformsStopOnInterrupt(t *testing.T) {
	g, err := gen.SSCA2(10, gen.Seed(4))
	if err != nil {
		t.Fatal(err)
	}
	c, err := g.UndirectedCOO()
	if err != nil {
		t.Fatal(err)
	}
	cancel.Request()
	defer cancel.Clear()
	if _, _, err := graph.RCMOrder(g); !errors.Is(err, cancel.ErrInterrupted) {
		t.Errorf("RCMOrder: %v, want an interrupt", err)
	}
	for _, p := range []int{1, 64} { // two-pass and one-pass sorts
		if _, err := graph.PermuteCOO(c, p); !errors.Is(err, cancel.ErrInterrupted) {
			t.Errorf("PermuteCOO(p=%d): %v, want an interrupt", p, err)
		}
	}
	if _, err := g.WeightRanks(); !errors.Is(err, cancel.ErrInterrupted) {
		t.Errorf("WeightRanks: %v, want an interrupt", err)
	}
	cancel.Clear()
	if _, _, err := graph.RCMOrder(g); err != nil {
		t.Errorf("RCMOrder after Clear: %v", err)
	}
}

// TestRCMIsolatedLast: components start in order of their least-(degree,
// id) vertex, so an isolated vertex starts the Cuthill-McKee order and
// gets the largest new number once it is reversed (the doc's promise).
func TestRCMIsolatedLast(t *testing.T) {
	g := buildMapped(t, 4, [][2]int32{{0, 1}, {1, 3}}, nil) // 2 is isolated
	newID, oldID, err := graph.RCMOrder(g)
	if err != nil {
		t.Fatal(err)
	}
	if newID[2] != 3 || oldID[3] != 2 {
		t.Errorf("RCMOrder: newID %v, oldID %v; want the isolated vertex 2 numbered 3", newID, oldID)
	}
}
