package gen

import (
	"errors"
	"math"
	"runtime"
	"slices"
	"testing"

	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/graph"
)

// sameCSR reports whether two graphs are identical, array by array.
func sameCSR(a, b *graph.CSR) bool {
	return a.Directed == b.Directed && slices.Equal(a.Offsets, b.Offsets) &&
		slices.Equal(a.Adj, b.Adj) && slices.Equal(a.Weights, b.Weights) &&
		slices.Equal(a.Weights64, b.Weights64)
}

// withProcs runs fn with GOMAXPROCS set to p.
func withProcs(p int, fn func()) {
	old := runtime.GOMAXPROCS(p)
	defer runtime.GOMAXPROCS(old)
	fn()
}

// checkGraph fails unless g is a valid undirected graph.
func checkGraph(t *testing.T, g *graph.CSR) {
	t.Helper()
	if err := g.Validate(); err != nil {
		t.Fatalf("invalid CSR: %v", err)
	}
	if g.Directed {
		t.Fatal("generator returned a directed graph")
	}
	if err := g.CheckSymmetric(); err != nil {
		t.Fatalf("not symmetric: %v", err)
	}
}

// TestDeterminism checks every generator: same seed → same graph on 1
// and 2 cores; another seed → another graph.
func TestDeterminism(t *testing.T) {
	cases := []struct {
		name string
		gen  func(seed uint64) (*graph.CSR, error)
	}{
		{"rmat_s12", func(s uint64) (*graph.CSR, error) { return RMAT(12, 16, Seed(s)) }},
		{"rmat_s12_permute_noise", func(s uint64) (*graph.CSR, error) {
			return RMAT(12, 8, Seed(s), PermuteVertices(true), Noise(0.1), Integer(100))
		}},
		{"rmat_s11_float64", func(s uint64) (*graph.CSR, error) { return RMAT(11, 16, Seed(s), Float64()) }},
		{"ssca2_s12", func(s uint64) (*graph.CSR, error) { return SSCA2(12, Seed(s)) }},
		{"ssca2_s12_parallel", func(s uint64) (*graph.CSR, error) {
			return SSCA2(12, Seed(s), SSCA2Params(SSCA2Config{MaxCliqueSize: 20, ProbIntercliqueEdges: 0.5, MaxParallelEdges: 3}))
		}},
		{"erdos_renyi", func(s uint64) (*graph.CSR, error) { return ErdosRenyi(3000, 0.02, Seed(s)) }},
		{"grid_weights", func(s uint64) (*graph.CSR, error) { return Grid(40, 50, Seed(s)) }},
		{"complete_weights", func(s uint64) (*graph.CSR, error) { return Complete(300, Seed(s), Float64()) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var one, two, other *graph.CSR
			var err1, err2, err3 error
			withProcs(1, func() { one, err1 = tc.gen(7) })
			withProcs(2, func() { two, err2 = tc.gen(7) })
			other, err3 = tc.gen(8)
			if err := errors.Join(err1, err2, err3); err != nil {
				t.Fatal(err)
			}
			checkGraph(t, one)
			if !sameCSR(one, two) {
				t.Error("seed 7 on 1 core and on 2 cores gave different graphs")
			}
			if sameCSR(one, other) {
				t.Error("seeds 7 and 8 gave the same graph")
			}
		})
	}
}

func TestWeightOptions(t *testing.T) {
	type gen func(opts ...Option) (*graph.CSR, error)
	gens := []struct {
		name string
		gen  gen
	}{
		{"rmat", func(o ...Option) (*graph.CSR, error) { return RMAT(10, 8, o...) }},
		{"ssca2", func(o ...Option) (*graph.CSR, error) { return SSCA2(10, o...) }},
		{"path", func(o ...Option) (*graph.CSR, error) { return Path(500, o...) }},
		{"grid", func(o ...Option) (*graph.CSR, error) { return Grid(20, 30, o...) }},
		{"star", func(o ...Option) (*graph.CSR, error) { return Star(500, o...) }},
		{"complete", func(o ...Option) (*graph.CSR, error) { return Complete(40, o...) }},
		{"erdos_renyi", func(o ...Option) (*graph.CSR, error) { return ErdosRenyi(500, 0.05, o...) }},
	}
	for _, g := range gens {
		t.Run(g.name+"/uniform", func(t *testing.T) {
			c, err := g.gen(Uniform())
			if err != nil {
				t.Fatal(err)
			}
			if c.Weights == nil || c.Weights64 != nil {
				t.Fatal("Uniform() should give float32 weights")
			}
			lo, hi := float32(1), float32(0)
			for _, w := range c.Weights {
				if !(w >= 0 && w < 1) {
					t.Fatalf("weight %v outside [0,1)", w)
				}
				lo, hi = min(lo, w), max(hi, w)
			}
			if len(c.Weights) > 500 && (lo > 0.05 || hi < 0.95) {
				t.Errorf("%d uniform weights span only [%v, %v]", len(c.Weights), lo, hi)
			}
		})
		t.Run(g.name+"/integer5_float64", func(t *testing.T) {
			c, err := g.gen(Integer(5), Float64())
			if err != nil {
				t.Fatal(err)
			}
			if c.Weights64 == nil || c.Weights != nil {
				t.Fatal("Float64() should give float64 weights")
			}
			seen := map[float64]bool{}
			for _, w := range c.Weights64 {
				if w != math.Trunc(w) || w < 1 || w > 5 {
					t.Fatalf("weight %v is not an integer in 1..5", w)
				}
				seen[w] = true
			}
			if len(c.Weights64) > 100 && len(seen) != 5 {
				t.Errorf("only %d of the 5 weights occur among %d arcs", len(seen), len(c.Weights64))
			}
		})
		t.Run(g.name+"/unweighted", func(t *testing.T) {
			c, err := g.gen(Unweighted(), Float64())
			if err != nil {
				t.Fatal(err)
			}
			if c.Weighted() {
				t.Fatal("Unweighted() gave weights")
			}
			checkGraph(t, c)
		})
		t.Run(g.name+"/integer0", func(t *testing.T) {
			if _, err := g.gen(Integer(0)); err == nil {
				t.Fatal("Integer(0) accepted")
			}
		})
	}
}

func TestCancel(t *testing.T) {
	cancel.Request()
	defer cancel.Clear()
	cases := map[string]func() error{
		"rmat":        func() error { _, err := RMAT(12, 16); return err },
		"ssca2":       func() error { _, err := SSCA2(12); return err },
		"erdos_renyi": func() error { _, err := ErdosRenyi(2000, 0.1); return err },
		"complete":    func() error { _, err := Complete(200); return err },
	}
	for name, f := range cases {
		if err := f(); !errors.Is(err, cancel.ErrInterrupted) {
			t.Errorf("%s after cancel.Request: err = %v, want cancel.ErrInterrupted", name, err)
		}
	}
	cancel.Clear()
	if _, err := RMAT(8, 4); err != nil {
		t.Errorf("RMAT after cancel.Clear: %v", err)
	}
}

func TestRNGStreams(t *testing.T) {
	// Streams differing in any of seed, purpose, chunk start differently.
	seen := map[uint64]string{}
	for seed := range uint64(4) {
		for stream := range uint64(4) {
			for chunk := range uint64(64) {
				r := newRNG(seed, stream, chunk)
				x := r.next()
				if prev, ok := seen[x]; ok {
					t.Fatalf("streams (%d,%d,%d) and %s start alike", seed, stream, chunk, prev)
				}
				seen[x] = "another"
			}
		}
	}
	// below is uniform: chi-square over 10 cells of 100000 draws.
	r := newRNG(1, 2, 3)
	var cells [10]int
	for range 100000 {
		cells[r.below(10)]++
	}
	var chi2 float64
	for _, c := range cells {
		d := float64(c) - 10000
		chi2 += d * d / 10000
	}
	if chi2 > 30 { // 9 degrees of freedom: P(χ² > 30) ≈ 4e-4
		t.Errorf("below(10) cells %v: χ² = %.1f", cells, chi2)
	}
}
