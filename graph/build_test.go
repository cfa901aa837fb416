package graph

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// refBuild is a map-based reference for Build.
func refBuild(el EdgeList, sym bool) map[[2]int32]float64 {
	best := map[[2]int32]float64{}
	add := func(u, v int32, w float64) {
		if u == v {
			return
		}
		k := [2]int32{u, v}
		if old, ok := best[k]; !ok || w < old {
			best[k] = w
		}
	}
	for i := range el.Src {
		w := 1.0
		if el.Weights != nil {
			w = float64(el.Weights[i])
		}
		if el.Weights64 != nil {
			w = el.Weights64[i]
		}
		add(el.Src[i], el.Dst[i], w)
		if sym {
			add(el.Dst[i], el.Src[i], w)
		}
	}
	return best
}

func randomEdgeList(r *rand.Rand, n, m int, kind string) EdgeList {
	el := EdgeList{N: n, Src: make([]int32, m), Dst: make([]int32, m)}
	switch kind {
	case "f32":
		el.Weights = make([]float32, m)
	case "f64":
		el.Weights64 = make([]float64, m)
	}
	for i := range m {
		el.Src[i], el.Dst[i] = int32(r.IntN(n)), int32(r.IntN(n))
		w := float64(r.IntN(7)) - 2 // small range: many ties, some negative
		if el.Weights != nil {
			el.Weights[i] = float32(w)
		}
		if el.Weights64 != nil {
			el.Weights64[i] = w
		}
	}
	return el
}

func TestBuildMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, kind := range []string{"none", "f32", "f64"} {
		for _, sym := range []bool{false, true} {
			for trial := range 20 {
				n := 1 + r.IntN(40)
				m := r.IntN(200)
				if trial == 0 {
					n, m = 3000, 40000 // large enough to run in parallel
				}
				el := randomEdgeList(r, n, m, kind)
				g, err := Build(el, BuildOptions{Symmetrize: sym})
				if err != nil {
					t.Fatal(err)
				}
				if err := g.Validate(); err != nil {
					t.Fatal(err)
				}
				if g.Directed == sym {
					t.Fatalf("Directed = %v with Symmetrize = %v", g.Directed, sym)
				}
				want := refBuild(el, sym)
				if g.NumArcs() != int64(len(want)) {
					t.Fatalf("%s sym=%v: %d arcs, want %d", kind, sym, g.NumArcs(), len(want))
				}
				for u := int32(0); u < int32(n); u++ {
					nb := g.Neighbors(u)
					if !slices.IsSorted(nb) {
						t.Fatalf("neighbours of %d not sorted: %v", u, nb)
					}
					for k := g.Offsets[u]; k < g.Offsets[u+1]; k++ {
						w, ok := want[[2]int32{u, g.Adj[k]}]
						if !ok {
							t.Fatalf("unexpected arc %d→%d", u, g.Adj[k])
						}
						if kind != "none" && g.ArcWeight(k) != w {
							t.Fatalf("arc %d→%d weighs %g, want minimum %g", u, g.Adj[k], g.ArcWeight(k), w)
						}
					}
				}
				if sym {
					if err := g.CheckSymmetric(); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
	}
}

func TestBuildRemovesSelfLoopsAndKeepsMinimum(t *testing.T) {
	el := EdgeList{N: 3,
		Src:     []int32{0, 0, 1, 2, 0, 2},
		Dst:     []int32{1, 1, 1, 0, 1, 2},
		Weights: []float32{5, 2, 9, 7, 3, 1}}
	g, err := Build(el, BuildOptions{Symmetrize: true})
	if err != nil {
		t.Fatal(err)
	}
	got := map[[2]int32]float64{}
	for u := int32(0); u < 3; u++ {
		for k := g.Offsets[u]; k < g.Offsets[u+1]; k++ {
			got[[2]int32{u, g.Adj[k]}] = g.ArcWeight(k)
		}
	}
	want := map[[2]int32]float64{{0, 1}: 2, {1, 0}: 2, {0, 2}: 7, {2, 0}: 7}
	if len(got) != len(want) {
		t.Fatalf("arcs %v, want %v", got, want)
	}
	for k, w := range want {
		if got[k] != w {
			t.Fatalf("arc %v weighs %g, want %g (all: %v)", k, got[k], w, got)
		}
	}
}

func TestBuildIsIndependentOfCoreCount(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for _, kind := range []string{"f32", ""} { // the general and the unweighted path
		el := randomEdgeList(r, 5000, 100_000, kind)
		prev := runtime.GOMAXPROCS(1)
		one, err := Build(el, BuildOptions{Symmetrize: true})
		runtime.GOMAXPROCS(max(prev, 4))
		many, err2 := Build(el, BuildOptions{Symmetrize: true})
		runtime.GOMAXPROCS(prev)
		if err != nil || err2 != nil {
			t.Fatal(err, err2)
		}
		if !slices.Equal(one.Offsets, many.Offsets) || !slices.Equal(one.Adj, many.Adj) || !slices.Equal(one.Weights, many.Weights) {
			t.Fatalf("Build (%q weights) gave different graphs with 1 and several cores", kind)
		}
	}
}

func TestBuildErrors(t *testing.T) {
	nan := float32(math.NaN())
	cases := []struct {
		name string
		el   EdgeList
		want string
	}{
		{"vertex out of range", EdgeList{N: 2, Src: []int32{0}, Dst: []int32{2}}, "outside [0,2)"},
		{"negative vertex", EdgeList{N: 2, Src: []int32{-1}, Dst: []int32{0}}, "outside [0,2)"},
		{"length mismatch", EdgeList{N: 2, Src: []int32{0}, Dst: []int32{}}, "1 sources but 0 destinations"},
		{"weight count", EdgeList{N: 2, Src: []int32{0}, Dst: []int32{1}, Weights: []float32{}}, "1 edges but 0 weights"},
		{"both weights", EdgeList{N: 2, Src: []int32{0}, Dst: []int32{1}, Weights: []float32{1}, Weights64: []float64{1}}, "both"},
		{"NaN", EdgeList{N: 2, Src: []int32{0}, Dst: []int32{1}, Weights: []float32{nan}}, "NaN"},
		{"negative N", EdgeList{N: -1}, "outside"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Build(c.el, BuildOptions{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want one containing %q", err, c.want)
			}
		})
	}
}

func TestOrderedBitsPreservesOrder(t *testing.T) {
	vals := []float32{float32(math.Inf(-1)), -3.5, -1, -1e-30, 0, 1e-30, 0.5, 1, 2, 1e30, float32(math.Inf(1))}
	for i := 1; i < len(vals); i++ {
		if orderedBits(vals[i-1]) >= orderedBits(vals[i]) {
			t.Fatalf("orderedBits(%g) >= orderedBits(%g)", vals[i-1], vals[i])
		}
	}
	for _, v := range vals {
		if got := fromOrderedBits(orderedBits(v)); got != v {
			t.Fatalf("round trip of %g gave %g", v, got)
		}
	}
}

func TestValidateRejectsBrokenGraphs(t *testing.T) {
	good := func() *CSR {
		return &CSR{Offsets: []int64{0, 1, 2}, Adj: []int32{1, 0}, Weights: []float32{1, 1}}
	}
	cases := []struct {
		name   string
		break_ func(g *CSR)
		want   string
	}{
		{"no offsets", func(g *CSR) { g.Offsets = nil }, "no offsets"},
		{"first offset", func(g *CSR) { g.Offsets[0] = 1 }, "Offsets[0]"},
		{"decreasing", func(g *CSR) { g.Offsets[1] = 3 }, "decrease"},
		{"last offset", func(g *CSR) { g.Adj = g.Adj[:1]; g.Weights = g.Weights[:1] }, "arcs"},
		{"bad head", func(g *CSR) { g.Adj[0] = 5 }, "outside"},
		{"weight count", func(g *CSR) { g.Weights = g.Weights[:1] }, "weights for"},
		{"NaN", func(g *CSR) { g.Weights[1] = float32(math.NaN()) }, "NaN"},
		{"both weights", func(g *CSR) { g.Weights64 = []float64{1, 1} }, "both"},
	}
	if err := good().Validate(); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := good()
			c.break_(g)
			err := g.Validate()
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Validate = %v, want an error containing %q", err, c.want)
			}
		})
	}
}

func TestCheckSymmetric(t *testing.T) {
	g, _ := Build(EdgeList{N: 3, Src: []int32{0, 1}, Dst: []int32{1, 2}, Weights: []float32{1, 2}}, BuildOptions{})
	if err := g.CheckSymmetric(); err == nil {
		t.Fatal("a directed path passed CheckSymmetric")
	}
	u := g.Undirected()
	if err := u.CheckSymmetric(); err != nil {
		t.Fatal(err)
	}
	u.Weights[0] = 42
	if err := u.CheckSymmetric(); err == nil || !strings.Contains(err.Error(), "reverse") {
		t.Fatalf("CheckSymmetric = %v, want a weight mismatch", err)
	}
}

func TestHasArcAndAccessors(t *testing.T) {
	g, _ := Build(EdgeList{N: 4, Src: []int32{0, 0, 2}, Dst: []int32{3, 1, 3}}, BuildOptions{Symmetrize: true})
	if g.NumVertices() != 4 || g.NumEdges() != 3 || g.NumArcs() != 6 || g.Weighted() {
		t.Fatalf("got %v", g)
	}
	for _, c := range []struct {
		u, v int32
		want bool
	}{{0, 1, true}, {1, 0, true}, {0, 3, true}, {3, 2, true}, {0, 2, false}, {1, 3, false}} {
		if g.HasArc(c.u, c.v) != c.want {
			t.Errorf("HasArc(%d,%d) = %v, want %v", c.u, c.v, !c.want, c.want)
		}
	}
	if g.Degree(0) != 2 || g.ArcWeight(0) != 1 {
		t.Fatalf("Degree(0) = %d, ArcWeight(0) = %g", g.Degree(0), g.ArcWeight(0))
	}
	if want := int64(5*8 + 6*4 + 96); g.MemoryBytes() != want {
		t.Fatalf("MemoryBytes = %d, want %d", g.MemoryBytes(), want)
	}
	if s := g.String(); !strings.Contains(s, "undirected graph: 4 vertices, 3 edges (6 arcs), unweighted") {
		t.Fatalf("String = %q", s)
	}
}

func BenchmarkBuild(b *testing.B) {
	for _, scale := range []int{16, 20} {
		n := 1 << scale
		r := rand.New(rand.NewPCG(3, 3))
		el := randomEdgeList(r, n, 16*n, "f32")
		b.Run(fmt.Sprintf("uniform_s%d_ef16", scale), func(b *testing.B) {
			for b.Loop() {
				if _, err := Build(el, BuildOptions{Symmetrize: true}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(el.Src))*float64(b.N)/b.Elapsed().Seconds()/1e6, "Medges/s")
		})
	}
}

// TestBuildLongListsMatchReference covers lists long enough for the radix
// sort, with many duplicate heads of different weights.
func TestBuildLongListsMatchReference(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	for _, n := range []int{300, 5000} { // heads fit one and two radix digits
		el := randomEdgeList(r, n, 0, "f32")
		for i := range 20_000 {
			hub := int32(r.IntN(3)) // three hubs with thousands of arcs
			el.Src = append(el.Src, hub)
			el.Dst = append(el.Dst, int32(r.IntN(n)))
			el.Weights = append(el.Weights, float32(r.IntN(1000))-float32(i%3))
		}
		g, err := Build(el, BuildOptions{Symmetrize: true})
		if err != nil {
			t.Fatal(err)
		}
		want := refBuild(el, true)
		if g.NumArcs() != int64(len(want)) {
			t.Fatalf("n=%d: %d arcs, want %d", n, g.NumArcs(), len(want))
		}
		for u := int32(0); u < int32(n); u++ {
			if !slices.IsSorted(g.Neighbors(u)) {
				t.Fatalf("n=%d: list of %d not sorted", n, u)
			}
			for k := g.Offsets[u]; k < g.Offsets[u+1]; k++ {
				if w := want[[2]int32{u, g.Adj[k]}]; g.ArcWeight(k) != w {
					t.Fatalf("n=%d: arc %d→%d weighs %g, want %g", n, u, g.Adj[k], g.ArcWeight(k), w)
				}
			}
		}
	}
}

func TestRadixSortByHead(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	for _, bitsN := range []int{1, 11, 12, 22, 31} {
		keys := make([]uint64, 1000)
		for i := range keys {
			keys[i] = uint64(r.Uint32()>>(32-bitsN))<<32 | uint64(r.Uint32())
		}
		radixSortByHead(keys, make([]uint64, len(keys)), bitsN)
		for i := 1; i < len(keys); i++ {
			if keys[i-1]>>32 > keys[i]>>32 {
				t.Fatalf("%d head bits: keys not sorted by head at %d", bitsN, i)
			}
		}
	}
}

// TestVertexOutOfRange checks that Degree, Neighbors and HasArc of a
// vertex the graph does not have panic with a message that names the
// method, the argument and the valid range, not with a bare index error.
func TestVertexOutOfRange(t *testing.T) {
	g, err := Build(EdgeList{N: 3, Src: []int32{0, 1}, Dst: []int32{1, 2}}, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var empty CSR
	for _, c := range []struct {
		name string
		call func()
		want string
	}{
		{"Neighbors(-1)", func() { g.Neighbors(-1) }, "graph: Neighbors(-1): -1 is not a vertex; the graph's vertices are 0..2"},
		{"Degree(1<<30)", func() { g.Degree(1 << 30) }, "graph: Degree(1073741824): 1073741824 is not a vertex; the graph's vertices are 0..2"},
		{"Degree(3)", func() { g.Degree(3) }, "graph: Degree(3): 3 is not a vertex"},
		{"HasArc(5, 0)", func() { g.HasArc(5, 0) }, "graph: HasArc(5): 5 is not a vertex"},
		{"empty graph", func() { empty.Neighbors(0) }, "graph: Neighbors(0): the graph has no vertices"},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				e, ok := recover().(*VertexError)
				if !ok || !strings.HasPrefix(e.Error(), c.want) {
					t.Errorf("panic %v, want a *VertexError %q", e, c.want)
				}
			}()
			c.call()
		})
	}
	if g.Degree(1) != 1 || len(g.Neighbors(2)) != 0 || !g.HasArc(0, 1) || g.HasArc(0, 7) {
		t.Fatal("in-range calls changed")
	}
}

// TestBuildPlainMatchesBuild32 checks that the unweighted path gives the
// CSR the general path gives, bit for bit: small and multi-bucket vertex
// counts, hubs whose lists pass radixMin, directed and symmetrized.
func TestBuildPlainMatchesBuild32(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	for _, n := range []int{1, 2, 300, bucketVertices, 3*bucketVertices + 17, 70_000} {
		for _, sym := range []bool{false, true} {
			el := randomEdgeList(r, n, 4*n+50, "")
			for range 3000 { // hubs: long lists, many duplicates
				el.Src = append(el.Src, int32(r.IntN(min(n, 3))))
				el.Dst = append(el.Dst, int32(r.IntN(n)))
			}
			want, err := build32(&el, BuildOptions{Symmetrize: sym})
			if err != nil {
				t.Fatal(err)
			}
			headBits := bits.Len(uint(max(n-1, 1)))
			for _, b := range []struct {
				name  string
				build func() (*CSR, error)
			}{
				{"buildPlain", func() (*CSR, error) { return buildPlain(&el, BuildOptions{Symmetrize: sym}) }},
				{"8-byte keys", func() (*CSR, error) { return buildPlainKeys[uint64](&el, BuildOptions{Symmetrize: sym}, headBits, 12) }},
				{"4-byte keys, buckets of 2^8", func() (*CSR, error) { return buildPlainKeys[uint32](&el, BuildOptions{Symmetrize: sym}, headBits, 8) }},
			} {
				got, err := b.build()
				if err != nil {
					t.Fatal(err)
				}
				if got.Directed != want.Directed || !slices.Equal(got.Offsets, want.Offsets) || !slices.Equal(got.Adj, want.Adj) || got.Weights != nil {
					t.Fatalf("n=%d symmetrize=%v: %s differs from build32 (%d arcs, want %d)", n, sym, b.name, got.NumArcs(), want.NumArcs())
				}
			}
		}
	}
	g, err := Build(EdgeList{N: 0}, BuildOptions{})
	if err != nil || len(g.Offsets) != 1 || g.NumArcs() != 0 {
		t.Fatalf("empty graph: %v, %v", g, err)
	}
}

func TestRadixSortBits(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 9))
	for _, keyBits := range []int{1, 11, 12, 23, 32, 43} {
		for _, n := range []int{5, radixMin + 1, 5000} {
			keys := make([]uint64, n)
			for i := range keys {
				keys[i] = r.Uint64() >> (64 - keyBits)
			}
			want := slices.Sorted(slices.Values(keys))
			radixSortBits(keys, make([]uint64, n), keyBits)
			if !slices.Equal(keys, want) {
				t.Fatalf("%d bits, %d keys: not sorted", keyBits, n)
			}
			if keyBits <= 32 {
				keys32 := make([]uint32, n)
				for i := range keys32 {
					keys32[i] = uint32(r.Uint64() >> (64 - keyBits))
				}
				want32 := slices.Sorted(slices.Values(keys32))
				radixSortBits(keys32, make([]uint32, n), keyBits)
				if !slices.Equal(keys32, want32) {
					t.Fatalf("%d bits, %d 4-byte keys: not sorted", keyBits, n)
				}
			}
		}
	}
}
