package graph

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
)

// refRoots is Roots drawing one candidate at a time, as it was written
// before RootsWhere asked in batches: RootsWhere must give the same roots.
func refRoots(offsets []int64, k int, seed uint64) []int32 {
	n := len(offsets) - 1
	if k <= 0 || n <= 0 {
		return nil
	}
	k = min(k, n)
	r := rand.New(rand.NewPCG(seed, 0x726f6f7473))
	picked := map[int32]bool{}
	var roots []int32
	for tries := 0; len(roots) < k && tries < 64*k; tries++ {
		v := int32(r.IntN(n))
		if !picked[v] && offsets[v+1] > offsets[v] {
			picked[v] = true
			roots = append(roots, v)
		}
	}
	if len(roots) < k {
		var rest []int32
		for v := int32(0); v < int32(n); v++ {
			if !picked[v] && offsets[v+1] > offsets[v] {
				rest = append(rest, v)
			}
		}
		r.Shuffle(len(rest), func(i, j int) { rest[i], rest[j] = rest[j], rest[i] })
		roots = append(roots, rest[:min(len(rest), k-len(roots))]...)
	}
	return roots
}

// offsetsWith returns the offsets of n vertices of which each has an arc
// with probability p.
func offsetsWith(r *rand.Rand, n int, p float64) []int64 {
	off := make([]int64, n+1)
	for v := range n {
		off[v+1] = off[v]
		if r.Float64() < p {
			off[v+1] += 1 + int64(r.IntN(3))
		}
	}
	return off
}

func TestRootsWhereMatchesOneDrawAtATime(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 2, 7, 100, 5000} {
		for _, p := range []float64{0, 0.001, 0.05, 0.5, 1} {
			off := offsetsWith(r, n, p)
			for _, k := range []int{1, 3, 64, 200, n + 5} {
				for seed := range uint64(3) {
					want := refRoots(off, k, seed)
					asked := 0
					got, err := RootsWhere(n, k, seed, func(vs []int32) ([]bool, error) {
						asked += len(vs)
						has := make([]bool, len(vs))
						for i, v := range vs {
							has[i] = off[v+1] > off[v]
						}
						return has, nil
					})
					if err != nil || !slices.Equal(got, want) {
						t.Fatalf("n %d, p %g, k %d, seed %d: RootsWhere %v (%v), one draw at a time %v", n, p, k, seed, got, err, want)
					}
					if g := RootsFromOffsets(off, k, seed); !slices.Equal(g, want) {
						t.Fatalf("n %d, p %g, k %d: RootsFromOffsets %v, want %v", n, p, k, g, want)
					}
					if p == 1 && k <= n/4 && asked > 3*k+8 {
						t.Errorf("n %d, k %d on a graph without isolated vertices: asked about %d vertices", n, k, asked)
					}
				}
			}
		}
	}
}

func TestRootsWhereErrors(t *testing.T) {
	boom := errors.New("device lost")
	if _, err := RootsWhere(10, 2, 1, func([]int32) ([]bool, error) { return nil, boom }); !errors.Is(err, boom) {
		t.Errorf("oracle error: %v", err)
	}
	if _, err := RootsWhere(10, 2, 1, func([]int32) ([]bool, error) { return []bool{true}, nil }); err == nil {
		t.Error("a short answer was accepted")
	}
}
