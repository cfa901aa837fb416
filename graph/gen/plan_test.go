package gen

import (
	"math/bits"
	"slices"
	"testing"
)

// TestPlanRMATReproducesEdges follows the plan in plain Go (the device
// generator's recipe, written from RMATPlan's doc comment) and compares
// the edges and weights with RMATEdges for every weight kind.
func TestPlanRMATReproducesEdges(t *testing.T) {
	for _, tc := range []struct {
		name      string
		scale, ef int
		opts      []Option
	}{
		{"s5_default", 5, 3, nil},
		{"s7_permute_int", 7, 16, []Option{PermuteVertices(true), Integer(9), Seed(4)}},
		{"s9_noise_f64", 9, 1, []Option{Noise(0.05), Float64(), Seed(8)}},
		{"s6_int_f64_unweighted", 6, 2, []Option{Integer(1000), Float64(), Unweighted(), PermuteVertices(true)}},
		{"s10_int_f64", 10, 80, []Option{Integer(1 << 40), Float64(), Probabilities(0.4, 0.3, 0.2)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			el, err := RMATEdges(tc.scale, tc.ef, tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			p, err := PlanRMAT(tc.scale, tc.ef, tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			src, dst := make([]int32, p.Edges), make([]int32, p.Edges)
			w32, w64 := make([]float32, p.Edges), make([]float64, p.Edges)
			ntab := len(p.Tables) / 256
			var r, rw rng
			for i := range p.Edges {
				if c := i / p.ChunkEdges; i%p.ChunkEdges == 0 {
					r = rng{p.EdgeStates[4*c], p.EdgeStates[4*c+1], p.EdgeStates[4*c+2], p.EdgeStates[4*c+3]}
					if p.Weights != NoWeights {
						rw = rng{p.WeightStates[4*c], p.WeightStates[4*c+1], p.WeightStates[4*c+2], p.WeightStates[4*c+3]}
					}
				}
				draws := 0
				var u, v, x uint64
				for g := range ntab {
					if g%2 == 0 {
						x = r.next()
						draws++
					}
					k := 4
					if g == ntab-1 {
						k = p.LastLevels
					}
					e := p.Tables[256*g+int(x&(1<<(2*k)-1))]
					out := e >> 40 & 255
					if (x>>8)&(1<<24-1) < e&(1<<32-1) {
						out = e >> 32 & 255
					}
					u, v = u<<k|out>>4, v<<k|out&15
					x >>= 32
				}
				if draws != p.EdgeDraws {
					t.Fatalf("an edge took %d numbers, the plan says %d", draws, p.EdgeDraws)
				}
				if p.Permute {
					u, v = uint64(p.PermuteVertex(int(u))), uint64(p.PermuteVertex(int(v)))
				}
				src[i], dst[i] = int32(u), int32(v)
				if p.Weights == NoWeights {
					continue
				}
				x = rw.next()
				switch {
				case p.Weights == IntWeights:
					w64[i] = float64(1 + mulHi(x, uint64(p.MaxWeight)))
					w32[i] = float32(1 + mulHi(x, uint64(p.MaxWeight)))
				case p.Float64:
					w64[i] = float64(x>>11) * 0x1p-53
				default:
					w32[i] = float32(x>>40) * 0x1p-24
				}
			}
			if !slices.Equal(src, el.Src) || !slices.Equal(dst, el.Dst) {
				t.Fatal("the plan's edges differ from RMATEdges'")
			}
			switch {
			case el.Weights64 != nil && !slices.Equal(w64, el.Weights64),
				el.Weights != nil && !slices.Equal(w32, el.Weights):
				t.Fatal("the plan's weights differ from RMATEdges'")
			case p.Weights == NoWeights && (el.Weights != nil || el.Weights64 != nil):
				t.Fatal("unweighted plan, weighted edge list")
			}
		})
	}
}

// TestPermutationIsBijection checks the Feistel permutation on sizes that
// are and are not powers of two, and that it does not depend on the
// worker count (each id is computed alone) but on the seed.
func TestPermutationIsBijection(t *testing.T) {
	for _, n := range []int{1, 2, 3, 5, 16, 17, 1000, 1 << 12, 1<<16 + 3, 1 << 17} {
		p, err := permutation(n, 3)
		if err != nil {
			t.Fatal(err)
		}
		seen := make([]bool, n)
		fixed := 0
		for v, q := range p {
			if q < 0 || int(q) >= n || seen[q] {
				t.Fatalf("n=%d: perm[%d] = %d repeats or leaves [0,%d)", n, v, q, n)
			}
			seen[q] = true
			if int(q) == v {
				fixed++
			}
		}
		if n >= 1000 && fixed > n/100+5 {
			t.Errorf("n=%d: %d fixed points, a random permutation has about 1", n, fixed)
		}
	}
	a, _ := permutation(1000, 3)
	b, _ := permutation(1000, 4)
	if slices.Equal(a, b) {
		t.Error("seeds 3 and 4 give the same permutation")
	}
}

// mulHi is ⌊x·n/2^64⌋.
func mulHi(x, n uint64) uint64 {
	hi, _ := bits.Mul64(x, n)
	return hi
}
