package gen

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/graphnb/graphnb/graph"
)

func TestRMATEdgesCount(t *testing.T) {
	for _, tc := range []struct{ scale, ef int }{{1, 1}, {3, 5}, {10, 16}, {13, 3}} {
		t.Run(fmt.Sprintf("s%d_ef%d", tc.scale, tc.ef), func(t *testing.T) {
			el, err := RMATEdges(tc.scale, tc.ef, PermuteVertices(true))
			if err != nil {
				t.Fatal(err)
			}
			n := 1 << tc.scale
			if el.N != n || el.Len() != tc.ef*n || len(el.Dst) != el.Len() || len(el.Weights) != el.Len() {
				t.Fatalf("N=%d, %d src, %d dst, %d weights; want N=%d and %d edges",
					el.N, len(el.Src), len(el.Dst), len(el.Weights), n, tc.ef*n)
			}
			for i := range el.Src {
				if el.Src[i] < 0 || int(el.Src[i]) >= n || el.Dst[i] < 0 || int(el.Dst[i]) >= n {
					t.Fatalf("edge %d = %d→%d outside [0,%d)", i, el.Src[i], el.Dst[i], n)
				}
			}
		})
	}
}

// TestRMATQuadrants checks the model itself: at every level, the share of
// edges in each quadrant matches the level's probabilities, with and
// without noise.
func TestRMATQuadrants(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []Option
	}{
		{"graph500", nil},
		{"skewed", []Option{Probabilities(0.7, 0.05, 0.2)}},
		{"d_zero", []Option{Probabilities(0.5, 0.25, 0.25)}},
		{"noise", []Option{Noise(0.1), Seed(3)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const scale, ef = 7, 512 // 65536 edges
			el, err := RMATEdges(scale, ef, tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			c := apply(tc.opts)
			want := rmatQuadrants(&c, scale)
			m := float64(el.Len())
			for l := range scale {
				bit := scale - 1 - l
				var count [4]float64
				for i := range el.Src {
					q := (el.Src[i]>>bit&1)<<1 | el.Dst[i]>>bit&1
					count[q]++
				}
				for q := range 4 {
					p := want[l][q]
					got := count[q] / m
					sigma := math.Sqrt(p * (1 - p) / m)
					if math.Abs(got-p) > 5*sigma+1e-6 {
						t.Errorf("level %d quadrant %d: share %.4f, want %.4f ± %.4f", l, q, got, p, 5*sigma)
					}
				}
			}
		})
	}
}

// TestAliasTable checks that the alias tables reproduce the probability of
// every four-level outcome.
func TestAliasTable(t *testing.T) {
	qs := [][4]float64{{0.57, 0.19, 0.19, 0.05}, {0.25, 0.25, 0.25, 0.25}, {1, 0, 0, 0}, {0.3, 0, 0.7, 0}, {0.6, 0.1, 0.2, 0.1}}
	for k := 1; k <= groupLevels; k++ {
		for rot := range qs {
			q := make([][4]float64, k)
			for l := range q {
				q[l] = qs[(rot+l)%len(qs)]
			}
			tab := newAliasTable(q)
			cols := len(tab.col)
			got := map[uint8]float64{}
			for _, e := range tab.col {
				keep := float64(e.thr) / (1 << 24)
				if keep > 1 {
					t.Fatalf("threshold %d above 2^24", e.thr)
				}
				got[e.own] += keep / float64(cols)
				got[e.alt] += (1 - keep) / float64(cols)
			}
			for o := range cols {
				p := 1.0
				var src, dst uint8
				for l := range k {
					quad := o >> (2 * (k - 1 - l)) & 3
					p *= q[l][quad]
					src, dst = src<<1|uint8(quad>>1), dst<<1|uint8(quad&1)
				}
				if g := got[src<<4|dst]; math.Abs(g-p) > 1e-8 {
					t.Errorf("k=%d rot=%d outcome %d: probability %.10f, want %.10f", k, rot, o, g, p)
				}
			}
		}
	}
}

func TestRMATSkew(t *testing.T) {
	g, err := RMAT(14, 16)
	if err != nil {
		t.Fatal(err)
	}
	checkGraph(t, g)
	s := g.DegreeStats()
	if s.Mean < 20 || s.Mean > 32 {
		t.Errorf("mean degree %.2f, want 20..32 (32 before deduplication)", s.Mean)
	}
	if float64(s.Max) < 50*s.Mean {
		t.Errorf("max degree %d is not ≫ mean %.2f", s.Max, s.Mean)
	}
	// Without permutation vertex 0 collects the most edges (all-zero bits
	// are the likeliest at every level).
	if g.Degree(0) != s.Max {
		t.Errorf("degree of vertex 0 is %d, max is %d", g.Degree(0), s.Max)
	}
	// Uniform probabilities give an Erdős–Rényi-like graph: no skew.
	u, err := RMAT(14, 16, Probabilities(0.25, 0.25, 0.25))
	if err != nil {
		t.Fatal(err)
	}
	if us := u.DegreeStats(); float64(us.Max) > 3*us.Mean {
		t.Errorf("uniform R-MAT: max degree %d vs mean %.2f, want no skew", us.Max, us.Mean)
	}
}

func degrees(g *graph.CSR) []int {
	d := make([]int, g.NumVertices())
	for v := range d {
		d[v] = g.Degree(int32(v))
	}
	return d
}

func TestRMATPermutation(t *testing.T) {
	plain, err := RMAT(12, 16, Seed(5))
	if err != nil {
		t.Fatal(err)
	}
	perm, err := RMAT(12, 16, Seed(5), PermuteVertices(true))
	if err != nil {
		t.Fatal(err)
	}
	checkGraph(t, perm)
	if plain.NumArcs() != perm.NumArcs() {
		t.Fatalf("%d arcs plain, %d permuted", plain.NumArcs(), perm.NumArcs())
	}
	dp, dq := degrees(plain), degrees(perm)
	if slices.Equal(dp, dq) {
		t.Fatal("permutation left every degree in place")
	}
	// The permutation is a relabelling: map plain ids through it and the
	// edge sets coincide.
	p, _ := permutation(1<<12, 5)
	for u := range int32(1 << 12) {
		for _, v := range plain.Neighbors(u) {
			if !perm.HasArc(p[u], p[v]) {
				t.Fatalf("arc %d→%d maps to %d→%d, missing in the permuted graph", u, v, p[u], p[v])
			}
		}
	}
	slices.Sort(dp)
	slices.Sort(dq)
	if !slices.Equal(dp, dq) {
		t.Error("permutation changed the degree multiset")
	}
}

func TestRMATErrors(t *testing.T) {
	cases := []struct {
		name      string
		scale, ef int
		opts      []Option
	}{
		{"scale0", 0, 16, nil},
		{"scale31", 31, 16, nil},
		{"ef0", 10, 0, nil},
		{"too_many_edges", 30, 16, nil},
		{"negative_a", 10, 16, []Option{Probabilities(-0.1, 0.5, 0.3)}},
		{"nan_b", 10, 16, []Option{Probabilities(0.5, math.NaN(), 0.3)}},
		{"sum_above_1", 10, 16, []Option{Probabilities(0.6, 0.3, 0.2)}},
		{"c_above_1", 10, 16, []Option{Probabilities(0, 0, 1.5)}},
		{"integer0", 10, 16, []Option{Integer(0)}},
		{"noise_negative", 10, 16, []Option{Noise(-0.01)}},
		{"noise_too_large", 10, 16, []Option{Noise(0.2)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := RMAT(tc.scale, tc.ef, tc.opts...); err == nil {
				t.Error("RMAT accepted it")
			}
			if _, err := RMATEdges(tc.scale, tc.ef, tc.opts...); err == nil {
				t.Error("RMATEdges accepted it")
			}
		})
	}
	// Edge cases that are valid.
	for _, opts := range [][]Option{
		{Probabilities(1, 0, 0)},
		{Probabilities(0, 0, 0)}, // d = 1
		{Probabilities(0.5, 0.25, 0.25), Noise(0.25)},
	} {
		if _, err := RMAT(6, 4, opts...); err != nil {
			t.Errorf("valid options rejected: %v", err)
		}
	}
}

// TestRMATCornerProbabilities: with a = 1 every edge is 0→0 (a
// self-loop, removed by Build); with d = 1 every edge is (n-1)→(n-1).
func TestRMATCornerProbabilities(t *testing.T) {
	el, err := RMATEdges(5, 4, Probabilities(1, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	for i := range el.Src {
		if el.Src[i] != 0 || el.Dst[i] != 0 {
			t.Fatalf("a=1: edge %d→%d", el.Src[i], el.Dst[i])
		}
	}
	el, err = RMATEdges(5, 4, Probabilities(0, 1, 0))
	if err != nil {
		t.Fatal(err)
	}
	for i := range el.Src {
		if el.Src[i] != 0 || el.Dst[i] != 31 {
			t.Fatalf("b=1: edge %d→%d, want 0→31", el.Src[i], el.Dst[i])
		}
	}
	el, err = RMATEdges(5, 4, Probabilities(0, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	for i := range el.Src {
		if el.Src[i] != 31 || el.Dst[i] != 31 {
			t.Fatalf("d=1: edge %d→%d", el.Src[i], el.Dst[i])
		}
	}
}
