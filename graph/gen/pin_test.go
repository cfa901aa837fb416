package gen

import (
	"encoding/binary"
	"hash/fnv"
	"math"
	"testing"

	"github.com/graphnb/graphnb/graph"
)

// hashEdges returns an FNV-1a hash of an edge list: N, then every edge's
// source, target and weight bits, little-endian.
func hashEdges(el graph.EdgeList) uint64 {
	h := fnv.New64a()
	var b [8]byte
	put := func(x uint64) {
		binary.LittleEndian.PutUint64(b[:], x)
		h.Write(b[:])
	}
	put(uint64(el.N))
	for i := range el.Src {
		put(uint64(uint32(el.Src[i]))<<32 | uint64(uint32(el.Dst[i])))
		switch {
		case el.Weights != nil:
			put(uint64(math.Float32bits(el.Weights[i])))
		case el.Weights64 != nil:
			put(math.Float64bits(el.Weights64[i]))
		}
	}
	return h.Sum64()
}

// hashCSR returns an FNV-1a hash of a graph's arrays.
func hashCSR(g *graph.CSR) uint64 {
	h := fnv.New64a()
	var b [8]byte
	put := func(x uint64) {
		binary.LittleEndian.PutUint64(b[:], x)
		h.Write(b[:])
	}
	for _, o := range g.Offsets {
		put(uint64(o))
	}
	for _, v := range g.Adj {
		put(uint64(uint32(v)))
	}
	for _, w := range g.Weights {
		put(uint64(math.Float32bits(w)))
	}
	for _, w := range g.Weights64 {
		put(math.Float64bits(w))
	}
	return h.Sum64()
}

// TestRMATPinned pins the R-MAT generator's output: edge lists (scales
// whose last alias table draws 1, 2, 3 and 4 levels; every weight kind;
// noise) and built graphs hash to the values the generator gave before
// its fill loop and graph.Build were made faster, so that no speed-up can
// change a graph that CPU and GPU curves share. Vertex permutation is
// left out: its definition may change with the device generator (issue
// 15), and TestDeterminism covers it.
func TestRMATPinned(t *testing.T) {
	edgeCases := []struct {
		name  string
		scale int
		opts  []Option
		want  uint64
	}{
		{"s9_unweighted", 9, []Option{Unweighted()}, 0x85dcfb57e120618e},
		{"s10_uniform", 10, nil, 0xf8bded657e464243},
		{"s11_int", 11, []Option{Integer(100), Seed(5)}, 0x662a3b2b09690869},
		{"s12_float64_noise", 12, []Option{Float64(), Noise(0.1)}, 0xd8583a3f1513962e},
		{"s16_unweighted", 16, []Option{Unweighted()}, 0xa69e20d2f2baeb5},
	}
	for _, tc := range edgeCases {
		el, err := RMATEdges(tc.scale, 8, tc.opts...)
		if err != nil {
			t.Fatal(err)
		}
		if got := hashEdges(el); got != tc.want {
			t.Errorf("RMATEdges %s: hash %#x, want %#x", tc.name, got, tc.want)
		}
	}
	graphCases := []struct {
		name  string
		scale int
		opts  []Option
		want  uint64
	}{
		{"s14_unweighted", 14, []Option{Unweighted()}, 0x8affccf22fa8b3c8},
		{"s13_uniform", 13, nil, 0x16fd2ef5177ebb9},
		{"s12_float64", 12, []Option{Float64(), Seed(9)}, 0xeb51965797b8c62e},
	}
	for _, tc := range graphCases {
		g, err := RMAT(tc.scale, 16, tc.opts...)
		if err != nil {
			t.Fatal(err)
		}
		if got := hashCSR(g); got != tc.want {
			t.Errorf("RMAT %s: hash %#x, want %#x", tc.name, got, tc.want)
		}
	}
}
