package gen

import (
	"fmt"
	"math"
	"testing"

	"github.com/graphnb/graphnb/graph"
)

func TestTeachingGraphs(t *testing.T) {
	cases := []struct {
		name  string
		gen   func() (*graph.CSR, error)
		n     int
		edges int64
		// arc, when set, must hold for every arc u→v.
		arc func(u, v int32) bool
	}{
		{"path_1", func() (*graph.CSR, error) { return Path(1) }, 1, 0, nil},
		{"path_100", func() (*graph.CSR, error) { return Path(100) }, 100, 99,
			func(u, v int32) bool { return u-v == 1 || v-u == 1 }},
		{"grid_1x1", func() (*graph.CSR, error) { return Grid(1, 1) }, 1, 0, nil},
		{"grid_1x7", func() (*graph.CSR, error) { return Grid(1, 7) }, 7, 6, nil},
		{"grid_13x7", func() (*graph.CSR, error) { return Grid(13, 7) }, 91, 13*6 + 7*12,
			func(u, v int32) bool {
				ru, cu, rv, cv := u/7, u%7, v/7, v%7
				return (ru == rv && (cu-cv == 1 || cv-cu == 1)) || (cu == cv && (ru-rv == 1 || rv-ru == 1))
			}},
		{"star_1", func() (*graph.CSR, error) { return Star(1) }, 1, 0, nil},
		{"star_50", func() (*graph.CSR, error) { return Star(50) }, 50, 49,
			func(u, v int32) bool { return (u == 0) != (v == 0) }},
		{"complete_1", func() (*graph.CSR, error) { return Complete(1) }, 1, 0, nil},
		{"complete_2", func() (*graph.CSR, error) { return Complete(2) }, 2, 1, nil},
		{"complete_77", func() (*graph.CSR, error) { return Complete(77) }, 77, 77 * 76 / 2, nil},
		{"erdos_renyi_p0", func() (*graph.CSR, error) { return ErdosRenyi(500, 0) }, 500, 0, nil},
		{"erdos_renyi_p1", func() (*graph.CSR, error) { return ErdosRenyi(60, 1) }, 60, 60 * 59 / 2, nil},
		{"erdos_renyi_n1", func() (*graph.CSR, error) { return ErdosRenyi(1, 0.5) }, 1, 0, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g, err := tc.gen()
			if err != nil {
				t.Fatal(err)
			}
			checkGraph(t, g)
			if g.NumVertices() != tc.n || g.NumEdges() != tc.edges {
				t.Fatalf("%d vertices, %d edges; want %d, %d", g.NumVertices(), g.NumEdges(), tc.n, tc.edges)
			}
			if tc.arc != nil {
				for u := range int32(tc.n) {
					for _, v := range g.Neighbors(u) {
						if !tc.arc(u, v) {
							t.Fatalf("unexpected arc %d→%d", u, v)
						}
					}
				}
			}
		})
	}
}

func TestStarAndCompleteDegrees(t *testing.T) {
	s, err := Star(1000)
	if err != nil {
		t.Fatal(err)
	}
	if s.Degree(0) != 999 {
		t.Errorf("hub degree %d, want 999", s.Degree(0))
	}
	k, err := Complete(500)
	if err != nil {
		t.Fatal(err)
	}
	for v := range int32(500) {
		if k.Degree(v) != 499 {
			t.Fatalf("K_500 vertex %d has degree %d", v, k.Degree(v))
		}
	}
}

func TestErdosRenyiEdgeCount(t *testing.T) {
	// Sizes chosen so the pair list spans one chunk, a few and many.
	for _, tc := range []struct {
		n int
		p float64
	}{{200, 0.3}, {1500, 0.3}, {5000, 0.01}, {1 << 18, 4.0 / (1 << 18)}} {
		t.Run(fmt.Sprintf("n%d_p%g", tc.n, tc.p), func(t *testing.T) {
			g, err := ErdosRenyi(tc.n, tc.p, Seed(42), Unweighted())
			if err != nil {
				t.Fatal(err)
			}
			checkGraph(t, g)
			pairs := float64(tc.n) * float64(tc.n-1) / 2
			want := tc.p * pairs
			sigma := math.Sqrt(pairs * tc.p * (1 - tc.p))
			if got := float64(g.NumEdges()); math.Abs(got-want) > 5*sigma {
				t.Errorf("%v edges, want %.0f ± %.0f", got, want, 5*sigma)
			}
		})
	}
}

// TestErdosRenyiPairsUniform: over many seeds every pair of a small graph
// is an edge about p of the time, and the first and last pairs are not
// favoured (a bug at the ends of the geometric skipping would show).
func TestErdosRenyiPairsUniform(t *testing.T) {
	const n, p, runs = 9, 0.3, 3000
	var count [n][n]int
	for s := range uint64(runs) {
		g, err := ErdosRenyi(n, p, Seed(s), Unweighted())
		if err != nil {
			t.Fatal(err)
		}
		for u := range int32(n) {
			for _, v := range g.Neighbors(u) {
				count[u][v]++
			}
		}
	}
	sigma := math.Sqrt(runs * p * (1 - p))
	for u := range n {
		for v := u + 1; v < n; v++ {
			if d := math.Abs(float64(count[u][v]) - runs*p); d > 5*sigma {
				t.Errorf("pair %d–%d: %d of %d runs, want %.0f ± %.0f", u, v, count[u][v], runs, runs*p, 5*sigma)
			}
		}
	}
}

// TestPairRow checks the row lookup of the pair enumeration against a
// direct walk.
func TestPairRow(t *testing.T) {
	for _, n := range []int64{2, 3, 10, 101} {
		k := int64(0)
		for i := int64(0); i < n-1; i++ {
			if pairRowStart(i, n) != k {
				t.Fatalf("n=%d: row %d starts at %d, want %d", n, i, pairRowStart(i, n), k)
			}
			for range n - 1 - i {
				if r := pairRow(k, 0, n); r != i {
					t.Fatalf("n=%d: pair %d in row %d, want %d", n, k, r, i)
				}
				k++
			}
		}
	}
}

func TestTeachingErrors(t *testing.T) {
	cases := map[string]func() (*graph.CSR, error){
		"path_0":          func() (*graph.CSR, error) { return Path(0) },
		"path_negative":   func() (*graph.CSR, error) { return Path(-3) },
		"path_int32":      func() (*graph.CSR, error) { return Path(1 << 31) },
		"grid_0_rows":     func() (*graph.CSR, error) { return Grid(0, 5) },
		"grid_0_cols":     func() (*graph.CSR, error) { return Grid(5, 0) },
		"grid_int32":      func() (*graph.CSR, error) { return Grid(1<<16, 1<<16) },
		"grid_overflow":   func() (*graph.CSR, error) { return Grid(1<<40, 1<<40) },
		"star_0":          func() (*graph.CSR, error) { return Star(0) },
		"complete_0":      func() (*graph.CSR, error) { return Complete(0) },
		"complete_cap":    func() (*graph.CSR, error) { return Complete(MaxComplete + 1) },
		"er_0":            func() (*graph.CSR, error) { return ErdosRenyi(0, 0.5) },
		"er_p_negative":   func() (*graph.CSR, error) { return ErdosRenyi(10, -0.1) },
		"er_p_above_1":    func() (*graph.CSR, error) { return ErdosRenyi(10, 1.1) },
		"er_p_nan":        func() (*graph.CSR, error) { return ErdosRenyi(10, math.NaN()) },
		"er_too_many":     func() (*graph.CSR, error) { return ErdosRenyi(1<<30, 0.5) },
		"er_int32":        func() (*graph.CSR, error) { return ErdosRenyi(1<<31, 0) },
		"star_integer_-1": func() (*graph.CSR, error) { return Star(5, Integer(-1)) },
	}
	for name, f := range cases {
		t.Run(name, func(t *testing.T) {
			if _, err := f(); err == nil {
				t.Error("accepted")
			}
		})
	}
}
