package graph

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestDegreeStatsOfAStar(t *testing.T) {
	// star with hub 0 and 8 leaves, plus one isolated vertex 9
	el := EdgeList{N: 10}
	for v := int32(1); v <= 8; v++ {
		el.Src = append(el.Src, 0)
		el.Dst = append(el.Dst, v)
	}
	g, _ := Build(el, BuildOptions{Symmetrize: true})
	s := g.DegreeStats()
	if s.Min != 0 || s.Max != 8 || s.Isolated != 1 || s.Arcs != 16 || s.Vertices != 10 {
		t.Fatalf("stats %+v", s)
	}
	if math.Abs(s.Mean-1.6) > 1e-12 {
		t.Fatalf("mean %g, want 1.6", s.Mean)
	}
	// degrees: one 8, eight 1s, one 0 → variance = (64+8)/10 - 1.6² = 4.64
	if math.Abs(s.StdDev-math.Sqrt(4.64)) > 1e-12 {
		t.Fatalf("stddev %g, want %g", s.StdDev, math.Sqrt(4.64))
	}
	want := []int64{1, 8, 0, 0, 1} // 0 | 1 | 2–3 | 4–7 | 8–15
	if len(s.Histogram) != len(want) {
		t.Fatalf("histogram %v, want %v", s.Histogram, want)
	}
	for i := range want {
		if s.Histogram[i] != want[i] {
			t.Fatalf("histogram %v, want %v", s.Histogram, want)
		}
	}
	text := s.String()
	for _, frag := range []string{"max 8", "isolated 1", "8–15"} {
		if !strings.Contains(text, frag) {
			t.Fatalf("String() = %q lacks %q", text, frag)
		}
	}
}

func TestDegreeStatsEmpty(t *testing.T) {
	g := &CSR{Offsets: []int64{0}}
	if s := g.DegreeStats(); s.Min != 0 || s.Max != 0 || s.Vertices != 0 {
		t.Fatalf("stats of the empty graph: %+v", s)
	}
}

func TestRateAndComponentEdges(t *testing.T) {
	// two components: triangle {0,1,2} and edge {3,4}
	g, _ := Build(EdgeList{N: 5, Src: []int32{0, 1, 2, 3}, Dst: []int32{1, 2, 0, 4}}, BuildOptions{Symmetrize: true})
	inTriangle := func(v int32) bool { return v < 3 }
	if got := g.ComponentEdges(inTriangle); got != 3 {
		t.Fatalf("ComponentEdges = %d, want 3", got)
	}
	r := Rate(3, g.NumArcs(), 2*time.Second)
	if r.Graph500 != 1.5 || r.ArcsPerSecond != 4 {
		t.Fatalf("Rate = %+v, want 1.5 and 4", r)
	}
	if (Rate(3, 8, 0) != TEPS{}) {
		t.Fatal("a zero duration must give zero rates")
	}
	d, _ := Build(EdgeList{N: 3, Src: []int32{0, 1}, Dst: []int32{1, 2}}, BuildOptions{})
	if got := d.ComponentEdges(func(v int32) bool { return v == 0 }); got != 1 {
		t.Fatalf("directed ComponentEdges = %d, want 1", got)
	}
}

func TestTEPSString(t *testing.T) {
	got := TEPS{Graph500: 1.234e9, ArcsPerSecond: 2.5e6}.String()
	if got != "1.23 GTEPS (Graph500), 2.5 M arcs/s" {
		t.Fatalf("String = %q", got)
	}
	if SI(12) != "12 " || SI(1500) != "1.5 k" || SI(3e12) != "3 T" {
		t.Fatalf("SI: %q %q %q", SI(12), SI(1500), SI(3e12))
	}
}

func TestRoots(t *testing.T) {
	// vertices 0..9; only 2, 3, 5, 7 have arcs
	g, _ := Build(EdgeList{N: 10, Src: []int32{2, 5}, Dst: []int32{3, 7}}, BuildOptions{Symmetrize: true})
	for _, k := range []int{0, 1, 3, 4, 10} {
		roots := g.Roots(k, 9)
		if want := min(k, 4); len(roots) != want {
			t.Fatalf("Roots(%d) gave %d roots, want %d", k, len(roots), want)
		}
		seen := map[int32]bool{}
		for _, v := range roots {
			if g.Degree(v) == 0 || seen[v] {
				t.Fatalf("Roots(%d) = %v: isolated or repeated vertex %d", k, roots, v)
			}
			seen[v] = true
		}
	}
	a, b := g.Roots(3, 1), g.Roots(3, 1)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("same seed, different roots: %v vs %v", a, b)
		}
	}
}
