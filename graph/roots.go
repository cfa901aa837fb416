package graph

import (
	"fmt"
	"math/rand/v2"

	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/internal/par"
)

// Roots returns up to k distinct search roots drawn at random (seeded)
// from the vertices that have at least one arc, as Graph500 chooses its
// 64 roots. It returns fewer when the graph has fewer such vertices, and
// the same roots for the same graph, k and seed. Its memory and time are
// bounded by the graph's size whatever k is. It has no error result, so
// an interrupt (cancel.Request) makes it panic with an error wrapping
// cancel.ErrInterrupted.
func (g *CSR) Roots(k int, seed uint64) []int32 {
	return RootsFromOffsets(g.Offsets, k, seed)
}

// RootsFromOffsets is CSR.Roots for a graph of which only the CSR
// offsets (n+1 entries) are at hand, such as a graph resident on a
// device: the same roots for the same offsets, k and seed.
func RootsFromOffsets(offsets []int64, k int, seed uint64) []int32 {
	n := max(len(offsets)-1, 0)
	if k <= 0 || n == 0 {
		return nil
	}
	// No more roots than vertices: every allocation below is sized by
	// the graph, not by k.
	k = min(k, n)
	r := rand.New(rand.NewPCG(seed, 0x726f6f7473)) // "roots"
	picked := make(map[int32]bool, min(k, 1<<16))
	roots := make([]int32, 0, min(k, 1<<16))
	stop := func() {
		panic(fmt.Errorf("graph: Roots: %w", cancel.ErrInterrupted))
	}
	// Rejection sampling is fast while non-isolated vertices are common;
	// fall back to listing them when draws keep failing.
	for tries := 0; len(roots) < k && tries < 64*k; tries++ {
		if par.Cancelled(tries) {
			stop()
		}
		v := int32(r.IntN(n))
		if !picked[v] && offsets[v+1] > offsets[v] {
			picked[v] = true
			roots = append(roots, v)
		}
	}
	if len(roots) < k {
		var rest []int32
		for v := int32(0); v < int32(n); v++ {
			if par.Cancelled(int(v)) {
				stop()
			}
			if !picked[v] && offsets[v+1] > offsets[v] {
				rest = append(rest, v)
			}
		}
		r.Shuffle(len(rest), func(i, j int) { rest[i], rest[j] = rest[j], rest[i] })
		roots = append(roots, rest[:min(len(rest), k-len(roots))]...)
	}
	return roots
}
