package graph

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// wtGraph builds a random graph with n vertices and m edges whose weights
// come from a set of `values` values (so there are ties), of the given
// kind: "f32", "f64", "none"; directed or not.
func wtGraph(t testing.TB, seed uint64, n, m, values int, kind string, directed bool) *CSR {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 7))
	el := EdgeList{N: n, Src: make([]int32, m), Dst: make([]int32, m)}
	for i := range m {
		el.Src[i], el.Dst[i] = int32(r.IntN(n)), int32(r.IntN(n))
	}
	w := func() float64 { return float64(r.IntN(values)) / 4 }
	switch kind {
	case "f32":
		el.Weights = make([]float32, m)
		for i := range el.Weights {
			el.Weights[i] = float32(w())
		}
	case "f64":
		el.Weights64 = make([]float64, m)
		for i := range el.Weights64 {
			el.Weights64[i] = w() + 1e-12*float64(r.IntN(3)) // differ below float32 precision
		}
	}
	g, err := Build(el, BuildOptions{Symmetrize: !directed})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// wtRMAT is a small R-MAT sampler for the benchmarks (package graph's
// tests cannot import graph/gen): 2^scale vertices, 16 edges per vertex,
// float32 weights uniform in [0, 1).
func wtRMAT(b *testing.B, scale int) *CSR {
	n, m := 1<<scale, 16<<scale
	r := rand.New(rand.NewPCG(uint64(scale), 1))
	el := EdgeList{N: n, Src: make([]int32, m), Dst: make([]int32, m), Weights: make([]float32, m)}
	for i := range m {
		var u, v int32
		for bit := range scale {
			switch p := r.Float64(); {
			case p < 0.57:
			case p < 0.76:
				v |= 1 << bit
			case p < 0.95:
				u |= 1 << bit
			default:
				u |= 1 << bit
				v |= 1 << bit
			}
		}
		el.Src[i], el.Dst[i], el.Weights[i] = u, v, r.Float32()
	}
	g, err := Build(el, BuildOptions{Symmetrize: true})
	if err != nil {
		b.Fatal(err)
	}
	return g
}

func TestSortByWeightMatchesReference(t *testing.T) {
	for _, kind := range []string{"f32", "f64", "none"} {
		for _, directed := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/directed=%v", kind, directed), func(t *testing.T) {
				g := wtGraph(t, 1, 300, 6000, 5, kind, directed)
				s := g.SortByWeight()
				if s.Directed != g.Directed || !slices.Equal(s.Offsets, g.Offsets) {
					t.Fatal("offsets or direction changed")
				}
				if &s.Offsets[0] == &g.Offsets[0] || (len(g.Adj) > 0 && &s.Adj[0] == &g.Adj[0]) {
					t.Fatal("result shares arrays with its input")
				}
				if (s.Weights == nil) != (g.Weights == nil) || (s.Weights64 == nil) != (g.Weights64 == nil) {
					t.Fatal("weight width changed")
				}
				type arc struct {
					id int32
					w  float64
				}
				for v := range int32(g.NumVertices()) {
					var want, got []arc
					for k := g.Offsets[v]; k < g.Offsets[v+1]; k++ {
						want = append(want, arc{g.Adj[k], g.ArcWeight(k)})
						got = append(got, arc{s.Adj[k], s.ArcWeight(k)})
					}
					slices.SortStableFunc(want, func(a, b arc) int { return cmp.Compare(a.w, b.w) })
					if !slices.Equal(got, want) {
						t.Fatalf("vertex %d: got %v, want %v", v, got, want)
					}
				}
			})
		}
	}
}

func TestSortByWeightTiesAndZeros(t *testing.T) {
	negZero := float32(math.Copysign(0, -1))
	g := &CSR{
		Offsets: []int64{0, 5, 5},
		Adj:     []int32{4, 1, 3, 0, 2},
		Weights: []float32{2, 0, negZero, 2, -1},
	}
	s := g.SortByWeight()
	if want := []int32{2, 1, 3, 0, 4}; !slices.Equal(s.Adj, want) {
		t.Fatalf("order %v, want %v (−0 and +0 tie, then ids)", s.Adj, want)
	}
	if want := []float32{-1, 0, 0, 2, 2}; !slices.Equal(s.Weights, want) {
		t.Fatalf("weights %v, want %v", s.Weights, want)
	}
	g64 := &CSR{Offsets: []int64{0, 3}, Adj: []int32{2, 1, 0}, Weights64: []float64{math.Copysign(0, -1), 0, 0.5}}
	if s := g64.SortByWeight(); !slices.Equal(s.Adj, []int32{1, 2, 0}) {
		t.Fatalf("float64 order %v, want [1 2 0]", s.Adj)
	}
}

// refRanks ranks by a map over the sorted distinct values.
func refRanks(w []float64) []uint32 {
	d := slices.Clone(w)
	slices.Sort(d)
	d = slices.Compact(d)
	out := make([]uint32, len(w))
	for i, x := range w {
		r, _ := slices.BinarySearch(d, x)
		out[i] = uint32(r)
	}
	return out
}

func TestRankWeights(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct {
		name   string
		n      int
		values int
	}{{"empty", 0, 1}, {"one", 1, 1}, {"few_values", 5000, 7}, {"many_values", 70000, 1 << 30}, {"all_equal", 70000, 1}} {
		t.Run(tc.name, func(t *testing.T) {
			w := make([]float64, tc.n)
			for i := range w {
				w[i] = (float64(r.IntN(tc.values)) - float64(tc.values)/2) * 0.37
			}
			prev := runtime.GOMAXPROCS(4) // parallel sort and merge even on a small machine
			got, err := RankWeights(w)
			runtime.GOMAXPROCS(prev)
			if err != nil {
				t.Fatal(err)
			}
			if want := refRanks(w); !slices.Equal(got, want) {
				t.Fatal("ranks differ from the reference")
			}
			w32 := make([]float32, len(w))
			for i, x := range w {
				w32[i] = float32(x)
			}
			got32, err := RankWeights32(w32)
			if err != nil {
				t.Fatal(err)
			}
			w32as64 := make([]float64, len(w))
			for i, x := range w32 {
				w32as64[i] = float64(x)
			}
			if want := refRanks(w32as64); !slices.Equal(got32, want) {
				t.Fatal("float32 ranks differ from the reference")
			}
		})
	}
}

func TestRankWeightsSpecialValues(t *testing.T) {
	negZero := math.Copysign(0, -1)
	w := []float64{math.Inf(1), 0, negZero, -math.MaxFloat64, math.Inf(-1), 1e-300, -1e-300, math.SmallestNonzeroFloat64}
	got, err := RankWeights(w)
	if err != nil {
		t.Fatal(err)
	}
	want := []uint32{6, 3, 3, 1, 0, 5, 2, 4}
	if !slices.Equal(got, want) {
		t.Fatalf("ranks %v, want %v", got, want)
	}
	if _, err := RankWeights([]float64{1, math.NaN()}); err == nil || !strings.Contains(err.Error(), "weight 1 is NaN") {
		t.Fatalf("NaN: error %v", err)
	}
	if _, err := RankWeights32([]float32{float32(math.NaN())}); err == nil {
		t.Fatal("float32 NaN accepted")
	}
}

// TestRankWeightsLimit checks the distinct-value limit with a small one
// (2^32 distinct weights would need 32 GiB).
func TestRankWeightsLimit(t *testing.T) {
	w := []float64{5, 1, 5, 3, 2, 1}
	if r, err := rankWeights64(w, 4); err != nil || !slices.Equal(r, []uint32{3, 0, 3, 2, 1, 0}) {
		t.Fatalf("4 distinct under limit 4: %v, %v", r, err)
	}
	_, err := rankWeights64(w, 3)
	if err == nil || !strings.Contains(err.Error(), "4 distinct weights exceed the 3") {
		t.Fatalf("4 distinct under limit 3: error %v", err)
	}
	if _, err := rankWeights32([]float32{1, 2, 3}, 2); err == nil {
		t.Fatal("float32: 3 distinct under limit 2 accepted")
	}
	if MaxDistinctWeights != math.MaxUint32+1 {
		t.Fatalf("MaxDistinctWeights = %d", MaxDistinctWeights)
	}
}

func TestWeightRanks(t *testing.T) {
	for _, kind := range []string{"f32", "f64", "none"} {
		t.Run(kind, func(t *testing.T) {
			g := wtGraph(t, 2, 200, 3000, 9, kind, false).SortByWeight()
			ranks, err := g.WeightRanks()
			if err != nil {
				t.Fatal(err)
			}
			if len(ranks) != len(g.Adj) {
				t.Fatalf("%d ranks for %d arcs", len(ranks), len(g.Adj))
			}
			w := make([]float64, len(g.Adj))
			for k := range w {
				w[k] = g.ArcWeight(int64(k))
			}
			if want := refRanks(w); !slices.Equal(ranks, want) {
				t.Fatal("ranks differ from the reference")
			}
			for v := range g.NumVertices() {
				if !slices.IsSorted(ranks[g.Offsets[v]:g.Offsets[v+1]]) {
					t.Fatalf("ranks of weight-sorted vertex %d are not sorted", v)
				}
			}
			if kind == "none" && slices.Max(append(ranks, 0)) != 0 {
				t.Fatal("unweighted graph has a non-zero rank")
			}
		})
	}
}

func TestSortUint64s(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 1, 1000, 1 << 15, 100_003, 3*sortRun + 7} {
		for _, procs := range []int{1, 3, 8} {
			x := make([]uint64, n)
			for i := range x {
				x[i] = r.Uint64() >> (r.IntN(4) * 20) // ties and spread
			}
			want := slices.Clone(x)
			slices.Sort(want)
			prev := runtime.GOMAXPROCS(procs)
			if err := sortUint64s(x); err != nil {
				t.Fatal(err)
			}
			runtime.GOMAXPROCS(prev)
			if !slices.Equal(x, want) {
				t.Fatalf("n=%d procs=%d: not sorted", n, procs)
			}
			if d, err := dedupSorted(x); err != nil || !slices.Equal(d, slices.Compact(slices.Clone(want))) {
				t.Fatalf("n=%d: dedupSorted wrong", n)
			}
		}
	}
}

func BenchmarkSortByWeight(b *testing.B) {
	for _, scale := range []int{16, 20} {
		b.Run(fmt.Sprintf("rmat_s%d_ef16", scale), func(b *testing.B) {
			g := wtRMAT(b, scale)
			b.ResetTimer()
			start := time.Now()
			for range b.N {
				g.SortByWeight()
			}
			b.ReportMetric(float64(g.NumArcs())/(time.Since(start).Seconds()/float64(b.N))/1e6, "Marcs/s")
		})
	}
}

func BenchmarkWeightRanks(b *testing.B) {
	for _, scale := range []int{16, 20} {
		b.Run(fmt.Sprintf("rmat_s%d_ef16", scale), func(b *testing.B) {
			g := wtRMAT(b, scale)
			b.ResetTimer()
			start := time.Now()
			for range b.N {
				if _, err := g.WeightRanks(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(g.NumArcs())/(time.Since(start).Seconds()/float64(b.N))/1e6, "Marcs/s")
		})
	}
}
