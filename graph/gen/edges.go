package gen

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/internal/membudget"
	"github.com/graphnb/graphnb/internal/par"
)

// chunkEdges is the number of edges (or weights) one random stream fills.
// Chunk boundaries depend only on this constant, never on the core count.
const chunkEdges = 1 << 16

// edgeBytes is the size of one edge of an edge list with the weights the
// configuration asks for.
func (c *config) edgeBytes() int64 {
	switch {
	case c.weights == NoWeights:
		return 8
	case c.float64W:
		return 16
	}
	return 12
}

// checkMemory refuses a graph of about edges edges over n vertices whose
// edge list, plus with build what graph.Build needs to make the CSR,
// would not fit in the memory available (package membudget: the free
// memory, the cgroup limit, GRAPHNB_MEMORY). The sizes a user gives, not a
// fixed limit, decide: the error gives the need and what is available.
func checkMemory(what string, n int, edges float64, c *config, build bool) error {
	m := int64(math.MaxInt64)
	if edges < float64(math.MaxInt64/64) {
		m = int64(math.Ceil(edges))
	}
	need := membudget.Bytes(m, c.edgeBytes())
	if build {
		need = membudget.Bytes(need, 1, graph.BuildBytes(n, m, true), 1)
	}
	return membudget.Check(fmt.Sprintf("gen: %s (about %.3g edges over %d vertices)", what, edges, n), need)
}

// newEdgeList allocates an edge list of m edges with room for the weights
// the configuration asks for.
func newEdgeList(n, m int, c *config) graph.EdgeList {
	el := graph.EdgeList{N: n, Src: make([]int32, m), Dst: make([]int32, m)}
	switch {
	case c.weights == NoWeights:
	case c.float64W:
		el.Weights64 = make([]float64, m)
	default:
		el.Weights = make([]float32, m)
	}
	return el
}

// fillWeights draws the weights of el (which must have the slices
// newEdgeList made) in parallel, one random stream per fixed chunk.
func fillWeights(el *graph.EdgeList, c *config) error {
	m := el.Len()
	if c.weights == NoWeights {
		return nil
	}
	maxW := uint64(c.maxWeight)
	return forChunks(m, chunkEdges, func(ci, lo, hi int) {
		r := newRNG(c.seed, streamWeights, uint64(ci))
		switch {
		case el.Weights64 != nil && c.weights == IntWeights:
			for i := lo; i < hi; i++ {
				el.Weights64[i] = float64(1 + r.below(maxW))
			}
		case el.Weights64 != nil:
			for i := lo; i < hi; i++ {
				el.Weights64[i] = r.float64()
			}
		case c.weights == IntWeights:
			for i := lo; i < hi; i++ {
				el.Weights[i] = float32(1 + r.below(maxW))
			}
		default:
			for i := lo; i < hi; i++ {
				el.Weights[i] = float32(r.next()>>40) * 0x1p-24
			}
		}
	})
}

// permutationRounds is the number of Feistel rounds of the vertex
// permutation: four rounds of a pseudorandom function make a pseudorandom
// permutation (Luby and Rackoff 1988).
const permutationRounds = 4

// vertexPermutation is the random relabelling of PermuteVertices: a
// balanced Feistel network on 2·half bits whose round function is
// mix64(R ^ key[round]), restricted to [0, n) by cycle walking (apply it
// again while the image is ≥ n; the domain is under 4n, so fewer than
// four applications on average). Each vertex's new id is computed on its
// own, so the permutation is built in parallel, in O(n), and the device
// generator (package gpugen) computes the same ids without a table.
type vertexPermutation struct {
	n    uint64
	half uint
	keys [permutationRounds]uint64
}

// newVertexPermutation draws the round keys of the permutation of [0, n)
// from the stream (seed, streamPermutation, 0).
func newVertexPermutation(n int, seed uint64) vertexPermutation {
	half := uint(max(1, (bits.Len64(uint64(max(n, 1)-1))+1)/2))
	p := vertexPermutation{n: uint64(n), half: half}
	r := newRNG(seed, streamPermutation, 0)
	for i := range p.keys {
		p.keys[i] = r.next()
	}
	return p
}

// apply returns the new id of vertex v (v < n).
func (p *vertexPermutation) apply(v uint64) uint64 {
	mask := uint64(1)<<p.half - 1
	for {
		l, r := v>>p.half, v&mask
		for _, k := range p.keys {
			l, r = r, l^(mix64(r^k)&mask)
		}
		v = l<<p.half | r
		if v < p.n {
			return v
		}
	}
}

// permutation returns the random permutation of [0, n) drawn from the
// seed (vertexPermutation): perm[v] is vertex v's new id. It runs in
// parallel over fixed chunks and returns cancel's error when interrupted.
func permutation(n int, seed uint64) ([]int32, error) {
	p := newVertexPermutation(n, seed)
	perm := make([]int32, n)
	err := forChunks(n, chunkEdges, func(_, lo, hi int) {
		for v := lo; v < hi; v++ {
			perm[v] = int32(p.apply(uint64(v)))
		}
	})
	if err != nil {
		return nil, err
	}
	return perm, nil
}

// relabel maps every endpoint of el through perm, in parallel.
func relabel(el *graph.EdgeList, perm []int32) error {
	err := par.For(el.Len(), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			el.Src[i] = perm[el.Src[i]]
			el.Dst[i] = perm[el.Dst[i]]
		}
	})
	if err != nil {
		return fmt.Errorf("gen: %w", err)
	}
	return nil
}

// permute relabels el by a random permutation of its vertices drawn from
// the seed.
func permute(el *graph.EdgeList, seed uint64) error {
	perm, err := permutation(el.N, seed)
	if err != nil {
		return err
	}
	return relabel(el, perm)
}

// build symmetrizes el into an undirected CSR.
func build(gen string, el graph.EdgeList) (*graph.CSR, error) {
	g, err := graph.Build(el, graph.BuildOptions{Symmetrize: true})
	if err != nil {
		return nil, fmt.Errorf("gen: %s: %w", gen, err)
	}
	return g, nil
}

// sink receives the edges of one chunk: it only counts them in the first
// pass of generateTwoPass and stores them in the second.
type sink struct {
	src, dst []int32
	n        int
	store    bool
}

func (s *sink) add(u, v int32) {
	if s.store {
		s.src[s.n], s.dst[s.n] = u, v
	}
	s.n++
}

// generateTwoPass builds the endpoints of an edge list whose chunks make
// a random number of edges: emit(chunk, r, s) runs twice per chunk with
// the same random stream, first counting, then storing at the chunk's
// offset. The result does not depend on the core count, and the memory is
// that of the result alone. check sees the number of edges before any is
// stored, and may refuse them.
func generateTwoPass(chunks int, seed uint64, check func(edges int64) error, emit func(chunk int, r *rng, s *sink)) (src, dst []int32, err error) {
	counts := make([]int64, chunks+1)
	err = forChunks(chunks, 1, func(ci, _, _ int) {
		r := newRNG(seed, streamEdges, uint64(ci))
		s := sink{}
		emit(ci, &r, &s)
		counts[ci] = int64(s.n)
	})
	if err != nil {
		return nil, nil, err
	}
	var total int64
	for i, c := range counts {
		counts[i] = total
		total += c
	}
	if err := check(total); err != nil {
		return nil, nil, err
	}
	src, dst = make([]int32, total), make([]int32, total)
	err = forChunks(chunks, 1, func(ci, _, _ int) {
		r := newRNG(seed, streamEdges, uint64(ci))
		lo, hi := counts[ci], counts[ci+1]
		s := sink{src: src[lo:hi], dst: dst[lo:hi], store: true}
		emit(ci, &r, &s)
		if int64(s.n) != hi-lo {
			panic("gen: a chunk generated a different number of edges on its second pass")
		}
	})
	if err != nil {
		return nil, nil, err
	}
	return src, dst, nil
}

// checkVertices returns an error unless 1 ≤ n < 2^31-1 (graph.Build's
// limit for int32 vertex ids).
func checkVertices(gen string, n int) error {
	if n < 1 {
		return fmt.Errorf("gen: %s needs at least 1 vertex, got %d", gen, n)
	}
	if n >= 1<<31-1 {
		return fmt.Errorf("gen: %s with %d vertices exceeds the limit of 2^31-2 (vertex ids are int32)", gen, n)
	}
	return nil
}

// mulFits reports whether a·b fits in an int without overflow (a, b ≥ 0).
func mulFits(a, b int) bool {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	return hi == 0 && lo <= 1<<62
}
