package gen

import (
	"fmt"
	"math"
	"testing"
)

func TestSSCA2MeanDegree(t *testing.T) {
	for scale := 14; scale <= 16; scale++ {
		t.Run(fmt.Sprintf("s%d", scale), func(t *testing.T) {
			g, err := SSCA2(scale)
			if err != nil {
				t.Fatal(err)
			}
			checkGraph(t, g)
			s := g.DegreeStats()
			if s.Vertices != 1<<scale {
				t.Fatalf("%d vertices, want %d", s.Vertices, 1<<scale)
			}
			if s.Mean < 25 || s.Mean > 40 {
				t.Errorf("mean degree %.2f, want ≈ 32 (25..40)", s.Mean)
			}
			// Clique sizes are at most 49: degree 48 plus a few
			// inter-clique arcs.
			if s.Max < 48 || s.Max > 48+20 {
				t.Errorf("max degree %d, want about 48", s.Max)
			}
		})
	}
}

// TestSSCA2Structure checks the cliques (complete, consecutive ids
// without permutation, relabelled by the seed's permutation with it) and
// that the remaining arcs join different cliques.
func TestSSCA2Structure(t *testing.T) {
	const scale, seed = 13, 11
	n := 1 << scale
	cfg := SSCA2Config{MaxCliqueSize: 30, ProbIntercliqueEdges: 0.3, MaxParallelEdges: 2, MaxIntWeight: 9}
	starts := cliqueStarts(n, cfg.MaxCliqueSize, seed)
	clique := make([]int, n)
	for k := 0; k+1 < len(starts); k++ {
		size := int(starts[k+1] - starts[k])
		if size < 1 || (size > cfg.MaxCliqueSize) {
			t.Fatalf("clique %d has size %d", k, size)
		}
		for v := starts[k]; v < starts[k+1]; v++ {
			clique[v] = k
		}
	}
	perm, _ := permutation(n, seed)
	for _, permute := range []bool{false, true} {
		t.Run(fmt.Sprintf("permute_%v", permute), func(t *testing.T) {
			g, err := SSCA2(scale, Seed(seed), SSCA2Params(cfg), PermuteVertices(permute))
			if err != nil {
				t.Fatal(err)
			}
			checkGraph(t, g)
			id := func(v int32) int32 {
				if permute {
					return perm[v]
				}
				return v
			}
			// Every clique is a complete subgraph.
			for k := 0; k+1 < len(starts); k++ {
				for u := starts[k]; u < starts[k+1]; u++ {
					for v := starts[k]; v < starts[k+1]; v++ {
						if u != v && !g.HasArc(id(u), id(v)) {
							t.Fatalf("clique %d [%d,%d): arc %d→%d missing", k, starts[k], starts[k+1], u, v)
						}
					}
				}
			}
			// Arcs beyond the cliques' join different cliques.
			inv := make([]int32, n)
			for v := range int32(n) {
				inv[id(v)] = v
			}
			var intra, inter int64
			for k := 0; k+1 < len(starts); k++ {
				s := int64(starts[k+1] - starts[k])
				intra += s * (s - 1)
			}
			for u := range int32(n) {
				for _, v := range g.Neighbors(u) {
					if clique[inv[u]] != clique[inv[v]] {
						inter++
					}
				}
			}
			if intra+inter != g.NumArcs() {
				t.Errorf("%d clique arcs + %d inter-clique arcs ≠ %d arcs", intra, inter, g.NumArcs())
			}
			if inter == 0 {
				t.Error("no inter-clique arcs")
			}
			for _, w := range g.Weights {
				if w < 1 || w > 9 || w != float32(math.Trunc(float64(w))) {
					t.Fatalf("weight %v is not an integer in 1..9", w)
				}
			}
		})
	}
}

// TestSSCA2Interclique checks the inter-clique scheme: with isolated
// vertices (clique size 1) every vertex draws one candidate per distance
// 2^t, kept with probability p/2^(t-1), at offsets in [2^t, 2^t+2^(t-1)).
func TestSSCA2Interclique(t *testing.T) {
	const scale = 12
	n := 1 << scale
	el, err := SSCA2Edges(scale, PermuteVertices(false), Unweighted(),
		SSCA2Params(SSCA2Config{MaxCliqueSize: 1, ProbIntercliqueEdges: 0.8, MaxParallelEdges: 1}))
	if err != nil {
		t.Fatal(err)
	}
	perT := make([]int, scale)
	for i := range el.Src {
		d := (int(el.Dst[i]) - int(el.Src[i]) + n) % n
		found := false
		for t2 := 1; t2 < scale; t2++ {
			if d >= 1<<t2 && d < 1<<t2+1<<(t2-1) {
				perT[t2]++
				found = true
			}
		}
		if !found {
			t.Fatalf("edge %d→%d at distance %d fits no power-of-two window", el.Src[i], el.Dst[i], d)
		}
	}
	for t2 := 1; t2 < scale; t2++ {
		p := 0.8 / float64(int(1)<<(t2-1))
		want := p * float64(n)
		sigma := math.Sqrt(float64(n) * p * (1 - p))
		if math.Abs(float64(perT[t2])-want) > 5*sigma+1 {
			t.Errorf("distance 2^%d: %d edges, want %.0f ± %.0f", t2, perT[t2], want, 5*sigma)
		}
	}
}

func TestSSCA2ParallelEdges(t *testing.T) {
	cfg := SSCA2Config{MaxCliqueSize: 10, ProbIntercliqueEdges: 0, MaxParallelEdges: 4}
	el, err := SSCA2Edges(10, SSCA2Params(cfg))
	if err != nil {
		t.Fatal(err)
	}
	g, err := SSCA2(10, SSCA2Params(cfg))
	if err != nil {
		t.Fatal(err)
	}
	// Each pair of a clique gets 1..4 parallel edges: mean 2.5 per pair.
	ratio := float64(el.Len()) / float64(g.NumEdges())
	if ratio < 2.2 || ratio > 2.8 {
		t.Errorf("%d edges for %d pairs: %.2f per pair, want ≈ 2.5", el.Len(), g.NumEdges(), ratio)
	}
	// The CSR keeps the lightest of the parallel edges; with the default
	// maximum weight 2^10 its mean is well under the mean of one draw.
	var sum float64
	for _, w := range g.Weights {
		sum += float64(w)
	}
	if mean := sum / float64(len(g.Weights)); mean > 0.9*512 {
		t.Errorf("mean kept weight %.1f, want well below 512 (minimum of parallel edges)", mean)
	}
}

func TestSSCA2Errors(t *testing.T) {
	def := DefaultSSCA2Config()
	mod := func(f func(*SSCA2Config)) SSCA2Config { c := def; f(&c); return c }
	cases := []struct {
		name  string
		scale int
		cfg   SSCA2Config
	}{
		{"scale0", 0, def},
		{"scale31", 31, def},
		{"zero_config", 10, SSCA2Config{}},
		{"clique_above_n", 5, def},
		{"prob_negative", 10, mod(func(c *SSCA2Config) { c.ProbIntercliqueEdges = -0.1 })},
		{"prob_above_1", 10, mod(func(c *SSCA2Config) { c.ProbIntercliqueEdges = 1.5 })},
		{"prob_nan", 10, mod(func(c *SSCA2Config) { c.ProbIntercliqueEdges = math.NaN() })},
		{"parallel_0", 10, mod(func(c *SSCA2Config) { c.MaxParallelEdges = 0 })},
		{"weight_negative", 10, mod(func(c *SSCA2Config) { c.MaxIntWeight = -1 })},
		{"too_many_edges", 28, mod(func(c *SSCA2Config) { c.MaxCliqueSize = 1000 })},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := SSCA2(tc.scale, SSCA2Params(tc.cfg)); err == nil {
				t.Error("SSCA2 accepted it")
			}
		})
	}
}

func TestSSCA2DefaultWeights(t *testing.T) {
	g, err := SSCA2(8)
	if err != nil {
		t.Fatal(err)
	}
	maxW := float32(0)
	for _, w := range g.Weights {
		if w < 1 || w > 256 || w != float32(math.Trunc(float64(w))) {
			t.Fatalf("weight %v is not an integer in 1..2^8", w)
		}
		maxW = max(maxW, w)
	}
	if maxW < 200 {
		t.Errorf("largest weight %v: want integers spread over 1..256", maxW)
	}
	u, err := SSCA2(8, Uniform())
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range u.Weights {
		if w < 0 || w >= 1 {
			t.Fatalf("Uniform(): weight %v outside [0,1)", w)
		}
	}
}
