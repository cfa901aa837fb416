package graph_test

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/graph/gen"
)

// testGraph names a generated test graph.
type testGraph struct {
	name string
	make func() (*graph.CSR, error)
}

// studyGraphs are the two families of the studies (docs/studies.md, common
// ground) at test sizes: R-MAT with shuffled ids (no locality in the ids)
// and SSCA#2 (cliques on consecutive ids, then shuffled by default).
func studyGraphs() []testGraph {
	return []testGraph{
		{"rmat_s11_ef16", func() (*graph.CSR, error) { return gen.RMAT(11, 16, gen.Seed(3), gen.PermuteVertices(true)) }},
		{"rmat_s12_ef8_f64", func() (*graph.CSR, error) {
			return gen.RMAT(12, 8, gen.Seed(4), gen.PermuteVertices(true), gen.Float64())
		}},
		{"ssca2_s12", func() (*graph.CSR, error) { return gen.SSCA2(12, gen.Seed(5)) }},
		{"ssca2_s12_ordered", func() (*graph.CSR, error) { return gen.SSCA2(12, gen.Seed(6), gen.PermuteVertices(false)) }},
	}
}

func mustCOO(t testing.TB, g *graph.CSR, err error) *graph.COO {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	c, err := g.UndirectedCOO()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// refTileOrder is the obvious O(M log M) reference: indices stably sorted
// by (segment of max end, segment of min end).
func refTileOrder(c *graph.COO, p int) []int64 {
	idx := make([]int64, len(c.Start))
	for i := range idx {
		idx[i] = int64(i)
	}
	key := func(e int64) [2]int {
		a, b := int(c.Start[e]), int(c.End[e])
		return [2]int{max(a, b) / p, min(a, b) / p}
	}
	slices.SortStableFunc(idx, func(x, y int64) int {
		kx, ky := key(x), key(y)
		if kx[0] != ky[0] {
			return kx[0] - ky[0]
		}
		return kx[1] - ky[1]
	})
	return idx
}

func TestPermuteCOOMatchesReference(t *testing.T) {
	for _, tg := range studyGraphs() {
		g, err := tg.make()
		c := mustCOO(t, g, err)
		n := c.N
		// p = 1 and small p take the two-pass path (> 361 segments); the
		// others the single pass; p > N gives a single segment.
		for _, p := range []int{1, 5, 64, n / 20, n / 3, n, 10 * n} {
			t.Run(fmt.Sprintf("%s/p%d", tg.name, p), func(t *testing.T) {
				out, idx, err := graph.PermuteCOOIndex(c, p)
				if err != nil {
					t.Fatal(err)
				}
				if want := refTileOrder(c, p); !slices.Equal(idx, want) {
					t.Fatalf("order differs from the stable reference sort")
				}
				if out.N != c.N || out.NumEdges() != c.NumEdges() {
					t.Fatalf("permuted COO has %d edges over %d vertices, want %d over %d", out.NumEdges(), out.N, c.NumEdges(), c.N)
				}
				for k, e := range idx {
					a, b := c.Start[e], c.End[e]
					if a > b {
						a, b = b, a
					}
					if out.Start[k] != a || out.End[k] != b {
						t.Fatalf("edge %d is %d–%d, want edge %d of the input, %d–%d", k, out.Start[k], out.End[k], e, a, b)
					}
					if c.Weights != nil && out.Weights[k] != c.Weights[e] ||
						c.Weights64 != nil && out.Weights64[k] != c.Weights64[e] {
						t.Fatalf("edge %d lost its weight", k)
					}
				}
				if err := graph.CheckSegmentOrder(out, p); err != nil {
					t.Fatal(err)
				}
				plain, err := graph.PermuteCOO(c, p)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(plain.Start, out.Start) || !slices.Equal(plain.End, out.End) ||
					!slices.Equal(plain.Weights, out.Weights) || !slices.Equal(plain.Weights64, out.Weights64) {
					t.Fatal("PermuteCOO and PermuteCOOIndex disagree")
				}
			})
		}
	}
}

func TestPermuteCOOReorientsEdges(t *testing.T) {
	// Edges given in both orientations end up with Start ≤ End, each once.
	c := &graph.COO{N: 6, Start: []int32{5, 0, 4, 1, 3}, End: []int32{0, 2, 1, 5, 3},
		Weights: []float32{1, 2, 3, 4, 5}}
	out, idx, err := graph.PermuteCOOIndex(c, 2)
	if err != nil {
		t.Fatal(err)
	}
	// tiles (end seg, start seg): 0–5 (2,0), 0–2 (1,0), 1–4 (2,0), 1–5 (2,0), 3–3 (1,1)
	wantIdx := []int64{1, 4, 0, 2, 3}
	if !slices.Equal(idx, wantIdx) {
		t.Fatalf("index = %v, want %v", idx, wantIdx)
	}
	wantS, wantE := []int32{0, 3, 0, 1, 1}, []int32{2, 3, 5, 4, 5}
	wantW := []float32{2, 5, 1, 3, 4}
	if !slices.Equal(out.Start, wantS) || !slices.Equal(out.End, wantE) || !slices.Equal(out.Weights, wantW) {
		t.Fatalf("got %v %v %v, want %v %v %v", out.Start, out.End, out.Weights, wantS, wantE, wantW)
	}
	if err := graph.CheckSegmentOrder(c, 2); err == nil || !strings.Contains(err.Error(), "Start > End") {
		t.Fatalf("CheckSegmentOrder of the unoriented input = %v, want a Start > End error", err)
	}
}

func TestPermuteCOOIndependentOfCores(t *testing.T) {
	g, err := gen.RMAT(12, 16, gen.Seed(9), gen.PermuteVertices(true))
	c := mustCOO(t, g, err)
	for _, p := range []int{3, 200} {
		prev := runtime.GOMAXPROCS(1)
		one, err1 := graph.PermuteCOO(c, p)
		runtime.GOMAXPROCS(max(prev, 4))
		many, err2 := graph.PermuteCOO(c, p)
		runtime.GOMAXPROCS(prev)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if !slices.Equal(one.Start, many.Start) || !slices.Equal(one.End, many.End) || !slices.Equal(one.Weights, many.Weights) {
			t.Fatalf("p=%d: result depends on GOMAXPROCS", p)
		}
	}
}

// windowFacts is a brute-force oracle for one aligned window: distinct
// segments, tiles and end groups, and whether its first tile is diagonal.
type windowFacts struct {
	segments, tiles, groups int
	firstDiagonal           bool
}

func bruteWindows(c *graph.COO, p, w int) []windowFacts {
	var out []windowFacts
	for lo := 0; lo < len(c.Start); lo += w {
		segs, tiles, groups := map[int]bool{}, map[[2]int]bool{}, map[int]bool{}
		for k := lo; k < min(lo+w, len(c.Start)); k++ {
			s, e := int(c.Start[k])/p, int(c.End[k])/p
			segs[s], segs[e] = true, true
			tiles[[2]int{e, s}] = true
			groups[e] = true
		}
		s0, e0 := int(c.Start[lo])/p, int(c.End[lo])/p
		out = append(out, windowFacts{len(segs), len(tiles), len(groups), s0 == e0})
	}
	return out
}

// TestSegmentGuarantee checks the guarantee PermuteCOO documents on the
// study's graph families, against a brute-force count of every window.
func TestSegmentGuarantee(t *testing.T) {
	for _, tg := range studyGraphs() {
		g, err := tg.make()
		c := mustCOO(t, g, err)
		for _, tc := range []struct{ p, window int }{{c.N / 8, 32}, {c.N / 8, 256}, {c.N / 40, 32}, {100, 1024}} {
			t.Run(fmt.Sprintf("%s/p%d_w%d", tg.name, tc.p, tc.window), func(t *testing.T) {
				p, w := tc.p, tc.window
				out, err := graph.PermuteCOO(c, p)
				if err != nil {
					t.Fatal(err)
				}
				after, err := graph.SegmentsTouched(out, p, w)
				if err != nil {
					t.Fatal(err)
				}
				facts := bruteWindows(out, p, w)
				if after.Windows != len(facts) {
					t.Fatalf("%d windows, brute force %d", after.Windows, len(facts))
				}
				var sum, tilesMet, atMost3, most int
				for i, f := range facts {
					sum += f.segments
					tilesMet += f.tiles
					most = max(most, f.segments)
					if f.segments <= 3 {
						atMost3++
					}
					// Inside one end group a window reads its end
					// segment plus one start segment per tile.
					if f.groups == 1 && f.segments > f.tiles+1 {
						t.Fatalf("window %d: %d segments from %d tiles of one end group", i, f.segments, f.tiles)
					}
					if f.groups == 1 && f.tiles <= 2 && f.segments > 3 {
						t.Fatalf("window %d meets two tiles of one group but reads %d segments", i, f.segments)
					}
					// Passing into the next group from a diagonal tile
					// also reads at most 3.
					if f.groups == 2 && f.tiles == 2 && f.firstDiagonal && f.segments > 3 {
						t.Fatalf("window %d passes from a diagonal tile into the next group but reads %d segments", i, f.segments)
					}
				}
				if after.MaxSegments != most || after.AtMost3 != atMost3 || after.MeanSegments != float64(sum)/float64(len(facts)) {
					t.Fatalf("report %+v disagrees with brute force (max %d, ≤3 %d, sum %d)", after, most, atMost3, sum)
				}
				// Contiguous tiles: one run per tile, and the windows
				// together meet at most windows + tiles − 1 tiles.
				if after.TileRuns != after.Tiles {
					t.Fatalf("%d tiles in %d runs: a tile is split", after.Tiles, after.TileRuns)
				}
				if int64(tilesMet) > int64(after.Windows)+after.Tiles-1 {
					t.Fatalf("windows meet %d tiles, more than %d windows + %d tiles − 1", tilesMet, after.Windows, after.Tiles)
				}
				before, err := graph.SegmentsTouched(c, p, w)
				if err != nil {
					t.Fatal(err)
				}
				if before.Tiles != after.Tiles {
					t.Fatalf("tiles %d before, %d after: UndirectedCOO already stores Start < End", before.Tiles, after.Tiles)
				}
				if before.TileRuns <= after.TileRuns && !strings.HasSuffix(tg.name, "_ordered") {
					t.Fatalf("CSR order has %d tile runs, permuted %d: the permutation should merge runs", before.TileRuns, after.TileRuns)
				}
				if before.MeanSegments < after.MeanSegments {
					t.Fatalf("windows read %.2f segments before and %.2f after the permutation", before.MeanSegments, after.MeanSegments)
				}
				t.Logf("before: %v", before)
				t.Logf("after:  %v", after)
			})
		}
	}
}

// TestPermuteCOOImprovesShuffledRMAT pins the effect the study is after on
// a graph without id locality.
func TestPermuteCOOImprovesShuffledRMAT(t *testing.T) {
	g, err := gen.RMAT(13, 16, gen.Seed(2), gen.PermuteVertices(true))
	c := mustCOO(t, g, err)
	p := c.N / 16
	out, err := graph.PermuteCOO(c, p)
	if err != nil {
		t.Fatal(err)
	}
	before, _ := graph.SegmentsTouched(c, p, 128)
	after, _ := graph.SegmentsTouched(out, p, 128)
	if err := graph.CheckSegmentOrder(c, p); err == nil {
		t.Fatal("the CSR-order COO of a shuffled R-MAT passes CheckSegmentOrder")
	}
	if !(after.MeanSegments < before.MeanSegments/2) {
		t.Fatalf("mean segments per window %.2f before, %.2f after: want at least halved", before.MeanSegments, after.MeanSegments)
	}
	if after.AtMost3 <= before.AtMost3 {
		t.Fatalf("windows reading ≤ 3 segments: %d before, %d after", before.AtMost3, after.AtMost3)
	}
}

// TestOrientationHalvesTiles shows why PermuteCOO orients Start ≤ End:
// flipping edges at random spreads a segment pair over two tiles.
func TestOrientationHalvesTiles(t *testing.T) {
	g, err := gen.RMAT(12, 16, gen.Seed(7), gen.PermuteVertices(true))
	c := mustCOO(t, g, err)
	p := c.N / 16
	out, err := graph.PermuteCOO(c, p)
	if err != nil {
		t.Fatal(err)
	}
	flipped := &graph.COO{N: out.N, Start: slices.Clone(out.Start), End: slices.Clone(out.End)}
	r := rand.New(rand.NewPCG(1, 2))
	for k := range flipped.Start {
		if r.IntN(2) == 0 {
			flipped.Start[k], flipped.End[k] = flipped.End[k], flipped.Start[k]
		}
	}
	a, _ := graph.SegmentsTouched(out, p, 32)
	b, _ := graph.SegmentsTouched(flipped, p, 32)
	segs := int64(a.Segments)
	if a.Tiles > segs*(segs+1)/2 {
		t.Fatalf("oriented COO has %d tiles, more than the %d on or below the diagonal", a.Tiles, segs*(segs+1)/2)
	}
	if b.Tiles < a.Tiles*3/2 {
		t.Fatalf("randomly oriented edges fall in %d tiles, oriented ones in %d: want ≈ 2×", b.Tiles, a.Tiles)
	}
	if err := graph.CheckSegmentOrder(flipped, p); err == nil {
		t.Fatal("CheckSegmentOrder accepts edges with Start > End")
	}
}

func TestPermuteCOOErrors(t *testing.T) {
	ok := &graph.COO{N: 3, Start: []int32{0, 1}, End: []int32{1, 2}}
	cases := []struct {
		name string
		c    *graph.COO
		p    int
		want string
	}{
		{"zero P", ok, 0, "at least 1"},
		{"negative P", ok, -4, "at least 1"},
		{"nil COO", nil, 4, "nil"},
		{"vertex out of range", &graph.COO{N: 3, Start: []int32{0, 1}, End: []int32{1, 3}}, 2, "edge 1 (1–3)"},
		{"negative vertex", &graph.COO{N: 3, Start: []int32{-1}, End: []int32{1}}, 2, "outside [0,3)"},
		{"short End", &graph.COO{N: 3, Start: []int32{0, 1}, End: []int32{1}}, 2, "2 Start entries but 1 End"},
		{"weights length", &graph.COO{N: 3, Start: []int32{0}, End: []int32{1}, Weights: []float32{1, 2}}, 2, "1 edges but 2 weights"},
		{"both weights", &graph.COO{N: 3, Start: []int32{0}, End: []int32{1}, Weights: []float32{1}, Weights64: []float64{1}}, 2, "both"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := graph.PermuteCOO(tc.c, tc.p)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("PermuteCOO error = %v, want one containing %q", err, tc.want)
			}
			if _, err := graph.SegmentsTouched(tc.c, tc.p, 32); err == nil {
				t.Fatal("SegmentsTouched accepted it")
			}
			if err := graph.CheckSegmentOrder(tc.c, tc.p); err == nil {
				t.Fatal("CheckSegmentOrder accepted it")
			}
		})
	}
	if _, err := graph.SegmentsTouched(ok, 2, 0); err == nil || !strings.Contains(err.Error(), "window") {
		t.Fatalf("window 0: error %v", err)
	}
}

func TestPermuteCOOEmptyAndTiny(t *testing.T) {
	for _, c := range []*graph.COO{{N: 0}, {N: 5}, {N: 2, Start: []int32{1}, End: []int32{0}, Weights64: []float64{2.5}}} {
		out, idx, err := graph.PermuteCOOIndex(c, 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Start) != len(c.Start) || len(idx) != len(c.Start) || out.N != c.N {
			t.Fatalf("%+v → %+v", c, out)
		}
		r, err := graph.SegmentsTouched(out, 1, 4)
		if err != nil || r.Windows != len(c.Start) {
			t.Fatalf("report %+v, %v", r, err)
		}
	}
	out, _ := graph.PermuteCOO(&graph.COO{N: 2, Start: []int32{1}, End: []int32{0}, Weights64: []float64{2.5}}, 1)
	if out.Start[0] != 0 || out.End[0] != 1 || out.Weights64[0] != 2.5 {
		t.Fatalf("single edge came back as %+v", out)
	}
}

func TestSegmentSizeFor(t *testing.T) {
	for _, tc := range []struct {
		cache int64
		elem  int
		want  int
	}{
		{1536 << 10, 8, 65536}, // GTX Titan, doubles (docs/studies.md §1)
		{60 << 20, 8, 2621440}, // H200's 60 MiB L2
		{1536 << 10, 1, 524288},
		{10, 8, 1},
	} {
		got, err := graph.SegmentSizeFor(tc.cache, tc.elem)
		if err != nil || got != tc.want {
			t.Errorf("SegmentSizeFor(%d, %d) = %d, %v; want %d", tc.cache, tc.elem, got, err, tc.want)
		}
	}
	for _, bad := range [][2]int64{{0, 8}, {1 << 20, 0}, {-1, 8}} {
		if _, err := graph.SegmentSizeFor(bad[0], int(bad[1])); err == nil {
			t.Errorf("SegmentSizeFor(%d, %d) accepted", bad[0], bad[1])
		}
	}
}

// benchGraphs caches the R-MAT graphs of the benchmarks (building scale
// 20 takes seconds).
var benchGraphs sync.Map

func benchRMAT(b *testing.B, scale int) *graph.CSR {
	b.Helper()
	key := fmt.Sprintf("rmat%d", scale)
	if g, ok := benchGraphs.Load(key); ok {
		return g.(*graph.CSR)
	}
	g, err := gen.RMAT(scale, 16, gen.Seed(1))
	if err != nil {
		b.Fatal(err)
	}
	benchGraphs.Store(key, g)
	return g
}

func benchSSCA2(b *testing.B, scale int) *graph.CSR {
	b.Helper()
	key := fmt.Sprintf("ssca2%d", scale)
	if g, ok := benchGraphs.Load(key); ok {
		return g.(*graph.CSR)
	}
	g, err := gen.SSCA2(scale, gen.Seed(1))
	if err != nil {
		b.Fatal(err)
	}
	benchGraphs.Store(key, g)
	return g
}

// reportRate reports a transform's throughput in millions of items per
// second.
func reportRate(b *testing.B, items int64, unit string, start time.Time) {
	s := time.Since(start).Seconds() / float64(b.N)
	b.ReportMetric(float64(items)/s/1e6, unit)
}

func BenchmarkPermuteCOO(b *testing.B) {
	for _, scale := range []int{16, 20} {
		for _, p := range []int{65536, 1024} { // Titan L2 of doubles; many segments (two passes)
			b.Run(fmt.Sprintf("rmat_s%d_ef16/p%d", scale, p), func(b *testing.B) {
				c, err := benchRMAT(b, scale).UndirectedCOO()
				if err != nil {
					b.Fatal(err)
				}
				b.ResetTimer()
				start := time.Now()
				for range b.N {
					if _, err := graph.PermuteCOO(c, p); err != nil {
						b.Fatal(err)
					}
				}
				reportRate(b, c.NumEdges(), "Medges/s", start)
			})
		}
	}
}
