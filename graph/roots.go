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
// offsets (n+1 entries) are at hand: the same roots for the same offsets,
// k and seed.
func RootsFromOffsets(offsets []int64, k int, seed uint64) []int32 {
	roots, err := RootsWhere(max(len(offsets)-1, 0), k, seed, func(vs []int32) ([]bool, error) {
		has := make([]bool, len(vs))
		for i, v := range vs {
			has[i] = offsets[v+1] > offsets[v]
		}
		return has, nil
	})
	if err != nil {
		panic(err) // only an interrupt: the oracle above cannot fail
	}
	return roots
}

// RootsWhere is CSR.Roots for a graph of n vertices whose degrees are
// read through hasArcs, which reports for each vertex of vs whether it has
// at least one arc — a graph resident on a device answers for the few
// vertices sampled without copying its offsets (gpu.Graph.Roots). It
// asks for batches of candidates in the order CSR.Roots draws them, then,
// only when the draws keep failing, for every vertex in order; the roots
// are those of CSR.Roots on the same graph, k and seed. An error of
// hasArcs is returned as is; an interrupt (cancel.Request) as an error
// wrapping cancel.ErrInterrupted.
func RootsWhere(n, k int, seed uint64, hasArcs func(vs []int32) ([]bool, error)) ([]int32, error) {
	if k <= 0 || n <= 0 {
		return nil, nil
	}
	// No more roots than vertices: every allocation below is sized by
	// the graph, not by k.
	k = min(k, n)
	r := rand.New(rand.NewPCG(seed, 0x726f6f7473)) // "roots"
	picked := make(map[int32]bool, min(k, 1<<16))
	roots := make([]int32, 0, min(k, 1<<16))
	interrupted := fmt.Errorf("graph: Roots: %w", cancel.ErrInterrupted)
	ask := func(vs []int32) ([]bool, error) {
		has, err := hasArcs(vs)
		if err == nil && len(has) != len(vs) {
			err = fmt.Errorf("graph: Roots: the degree oracle answered %d of %d vertices", len(has), len(vs))
		}
		return has, err
	}
	// Rejection sampling is fast while non-isolated vertices are common;
	// fall back to listing them when draws keep failing. The draws are
	// made in batches of about twice the roots missing, never more than
	// the tries left, so that the generator's state at the fallback is
	// the one a draw at a time leaves.
	for tries, limit := 0, 64*k; len(roots) < k && tries < limit; {
		if cancel.Requested() {
			return nil, interrupted
		}
		vs := make([]int32, min(limit-tries, 2*(k-len(roots))+8))
		for i := range vs {
			vs[i] = int32(r.IntN(n))
		}
		has, err := ask(vs)
		if err != nil {
			return nil, err
		}
		for i, v := range vs {
			if len(roots) == k {
				break
			}
			tries++
			if !picked[v] && has[i] {
				picked[v] = true
				roots = append(roots, v)
			}
		}
	}
	if len(roots) < k {
		all := make([]int32, n)
		for v := range all {
			if par.Cancelled(v) {
				return nil, interrupted
			}
			all[v] = int32(v)
		}
		has, err := ask(all)
		if err != nil {
			return nil, err
		}
		var rest []int32
		for v, ok := range has {
			if ok && !picked[int32(v)] {
				rest = append(rest, int32(v))
			}
		}
		r.Shuffle(len(rest), func(i, j int) { rest[i], rest[j] = rest[j], rest[i] })
		roots = append(roots, rest[:min(len(rest), k-len(roots))]...)
	}
	return roots, nil
}
