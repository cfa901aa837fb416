package graph_test

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/graph/gen"
	"github.com/graphnb/graphnb/internal/card"
)

// rcmRenumbered returns g renumbered by RCMOrder.
func rcmRenumbered(t testing.TB, g *graph.CSR) *graph.CSR {
	t.Helper()
	newID, _, err := graph.RCMOrder(g)
	if err != nil {
		t.Fatal(err)
	}
	h, err := g.Renumber(newID)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// checkRoundTrip fails unless c encodes exactly g's Adj, in order.
func checkRoundTrip(t *testing.T, g *graph.CSR, c *graph.CompressedAdj) {
	t.Helper()
	if got := c.Decompress(); !slices.Equal(got, g.Adj) {
		t.Fatal("Decompress does not give back Adj")
	}
	if c.NumVertices() != g.NumVertices() || c.NumArcs() != g.NumArcs() {
		t.Fatalf("%d vertices, %d arcs; want %d, %d", c.NumVertices(), c.NumArcs(), g.NumVertices(), g.NumArcs())
	}
	for v := range int32(g.NumVertices()) {
		if c.Degree(v) != g.Degree(v) {
			t.Fatalf("vertex %d: degree %d, want %d", v, c.Degree(v), g.Degree(v))
		}
		for i, want := range g.Neighbors(v) {
			if got := c.Neighbor(v, i); got != want {
				t.Fatalf("Neighbor(%d, %d) = %d, want %d", v, i, got, want)
			}
		}
	}
	n, m := int64(g.NumVertices()), g.NumArcs()
	if want := 4*n + m + (m+3)/4; c.IDBytes() != want {
		t.Fatalf("IDBytes = %d, want 4·N + M + ceil(M/4) = %d", c.IDBytes(), want)
	}
	if want := 8*(n+1) + c.IDBytes() + 96; c.MemoryBytes() != want {
		t.Fatalf("MemoryBytes = %d, want %d", c.MemoryBytes(), want)
	}
}

func TestCompressRoundTrip(t *testing.T) {
	ssca, err := gen.SSCA2(12, gen.Seed(21))
	if err != nil {
		t.Fatal(err)
	}
	sscaRCM := rcmRenumbered(t, ssca)
	grid := rcmRenumbered(t, buildMapped(t, 4000, gridPairs(100, 40), shuffledIDs(4000, 8)))
	isolated := buildMapped(t, 10, [][2]int32{{2, 3}, {3, 9}, {2, 9}}, nil)
	cases := []struct {
		name string
		g    *graph.CSR
	}{
		{"ssca2_s12_rcm", sscaRCM},
		// weight order: lists not sorted by id, order must survive
		{"ssca2_s12_rcm_by_weight", sscaRCM.SortByWeight()},
		{"grid_100x40_rcm", grid},
		{"grid_100x40_rcm_by_weight", grid.SortByWeight()},
		{"isolated_vertices", isolated},
		{"empty", &graph.CSR{Offsets: []int64{0}}},
		{"no_arcs", &graph.CSR{Offsets: []int64{0, 0, 0}}},
		// the widest range that fits: 1023 ids apart
		{"span_1023", buildMapped(t, 2000, [][2]int32{{0, 1}, {0, 1024}, {1999, 976}}, nil)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := graph.Compress(tc.g)
			if err != nil {
				t.Fatal(err)
			}
			checkRoundTrip(t, tc.g, c)
			if len(tc.g.Offsets) > 1 && &c.Offsets[0] == &tc.g.Offsets[0] {
				t.Fatal("Compress shares Offsets with the graph")
			}
		})
	}
}

func TestCompressRejectsWideLists(t *testing.T) {
	cases := []struct {
		name string
		g    *graph.CSR
		want string
	}{
		{"span_1024", buildMapped(t, 2000, [][2]int32{{0, 3}, {5, 1}, {5, 1025}}, nil),
			"vertex 5 has neighbours from 1 to 1025, 1024 ids apart"},
		{"hub", buildMapped(t, 5000, [][2]int32{{7, 0}, {7, 4999}}, nil), "vertex 7 has neighbours from 0 to 4999"},
		{"negative_id", &graph.CSR{Offsets: []int64{0, 1}, Adj: []int32{-3}}, "negative neighbour id -3"},
		{"bad_offsets", &graph.CSR{Offsets: []int64{0, 2}, Adj: []int32{0}}, "malformed"},
	}
	ssca, err := gen.SSCA2(12, gen.Seed(21)) // shuffled ids: cliques are scattered
	if err != nil {
		t.Fatal(err)
	}
	cases = append(cases, struct {
		name string
		g    *graph.CSR
		want string
	}{"ssca2_shuffled", ssca, "renumber with RCMOrder first"})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := graph.Compress(tc.g)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestCompressSaving checks the study's figure: (1 + 0.25) bytes per
// neighbour + 4 per vertex, ≈ 2.9× less than 4-byte ids at degree 32.
func TestCompressSaving(t *testing.T) {
	g, err := gen.SSCA2(14, gen.Seed(22))
	if err != nil {
		t.Fatal(err)
	}
	h := rcmRenumbered(t, g)
	c, err := graph.Compress(h)
	if err != nil {
		t.Fatal(err)
	}
	d := float64(h.NumArcs()) / float64(h.NumVertices())
	ratio := float64(4*h.NumArcs()) / float64(c.IDBytes())
	if want := 4 * d / (1.25*d + 4); ratio < want-0.01 || ratio > want+0.01 {
		t.Fatalf("saving %.3f×, want 4d/(1.25d+4) = %.3f× at degree %.1f", ratio, want, d)
	}
	if ratio < 2.8 || ratio > 3.0 {
		t.Fatalf("saving %.2f× at degree %.1f, the study says ≈ 2.9×", ratio, d)
	}
	t.Logf("degree %.1f: %s of ids instead of %s, %.2f× less", d, card.Bytes(c.IDBytes()), card.Bytes(4*h.NumArcs()), ratio)
}

func TestNeighborPanicsOutOfRange(t *testing.T) {
	c, err := graph.Compress(buildMapped(t, 3, [][2]int32{{0, 1}}, nil))
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{-1, 1} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "graph: neighbour") {
					t.Errorf("Neighbor(0, %d) recovered %v, want a graph: panic", i, r)
				}
			}()
			c.Neighbor(0, i)
		}()
	}
}

// fuzzGraph decodes a small graph from fuzz bytes: 2 bytes of vertex count
// (1..4096), 1 flag byte (bit 0 directed, bit 1 sort by weight, bit 2
// narrow: ids mod 1200 so most lists fit), then 5 bytes per edge (two
// 2-byte ids, one weight byte).
func fuzzGraph(data []byte) (*graph.CSR, bool) {
	if len(data) < 3 {
		return nil, false
	}
	n := 1 + int(binary.LittleEndian.Uint16(data))%4096
	flags := data[2]
	span := n
	if flags&4 != 0 {
		span = min(n, 1200)
	}
	el := graph.EdgeList{N: n}
	for rest := data[3:]; len(rest) >= 5; rest = rest[5:] {
		el.Src = append(el.Src, int32(int(binary.LittleEndian.Uint16(rest))%span))
		el.Dst = append(el.Dst, int32(int(binary.LittleEndian.Uint16(rest[2:]))%span))
		el.Weights = append(el.Weights, float32(rest[4]%8))
	}
	g, err := graph.Build(el, graph.BuildOptions{Symmetrize: flags&1 == 0})
	if err != nil {
		return nil, false
	}
	if flags&2 != 0 {
		g = g.SortByWeight()
	}
	return g, true
}

func FuzzCompressRoundTrip(f *testing.F) {
	f.Add([]byte{10, 0, 0, 1, 0, 2, 0, 3, 4, 0, 5, 0, 1})
	f.Add([]byte{0, 8, 2, 1, 0, 2, 4, 3, 4, 0, 5, 0, 1, 0, 0, 255, 7, 9})
	f.Add([]byte{200, 3, 5, 1, 0, 2, 4, 3, 4, 0, 5, 0, 1, 0, 0, 255, 3, 9, 9, 0, 4, 4, 2})
	f.Add([]byte{255, 15, 1, 1, 0, 255, 15, 3})
	f.Fuzz(func(t *testing.T, data []byte) {
		g, ok := fuzzGraph(data)
		if !ok {
			return
		}
		// the first vertex whose list spans ≥ 1024 ids, if any
		wide := -1
		for v := range int32(g.NumVertices()) {
			if nb := g.Neighbors(v); len(nb) > 0 && slices.Max(nb)-slices.Min(nb) >= graph.CompressSpan {
				wide = int(v)
				break
			}
		}
		c, err := graph.Compress(g)
		if wide >= 0 {
			if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("vertex %d has", wide)) {
				t.Fatalf("vertex %d spans ≥ 1024 ids; Compress error %v", wide, err)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		checkRoundTrip(t, g, c)
	})
}

func BenchmarkCompress(b *testing.B) {
	for _, scale := range []int{16, 20} {
		b.Run(fmt.Sprintf("ssca2_s%d_rcm", scale), func(b *testing.B) {
			g := rcmRenumbered(b, benchSSCA2(b, scale)).SortByWeight()
			b.ResetTimer()
			start := time.Now()
			var c *graph.CompressedAdj
			for range b.N {
				var err error
				if c, err = graph.Compress(g); err != nil {
					b.Fatal(err)
				}
			}
			reportRate(b, g.NumArcs(), "Marcs/s", start)
			b.ReportMetric(float64(4*g.NumArcs())/float64(c.IDBytes()), "saving_x")
		})
	}
}

func BenchmarkDecompress(b *testing.B) {
	for _, scale := range []int{16, 20} {
		b.Run(fmt.Sprintf("ssca2_s%d_rcm", scale), func(b *testing.B) {
			c, err := graph.Compress(rcmRenumbered(b, benchSSCA2(b, scale)))
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			start := time.Now()
			for range b.N {
				c.Decompress()
			}
			reportRate(b, c.NumArcs(), "Marcs/s", start)
		})
	}
}
