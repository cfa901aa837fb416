package gen

import (
	"fmt"
	"slices"

	"github.com/graphnb/graphnb/graph"
)

// SSCA2Config holds the parameters of the SSCA#2 generator, named as in
// the HPCS SSCA#2 specification (Bader and Madduri, "Design and
// implementation of the HPCS graph analysis benchmark on symmetric
// multiprocessors", HiPC 2005; specification v2.x).
type SSCA2Config struct {
	// MaxCliqueSize bounds the clique sizes, drawn uniform in
	// 1..MaxCliqueSize; it must lie in 1..2^scale.
	MaxCliqueSize int
	// ProbIntercliqueEdges is the probability p, in [0, 1], of the first
	// inter-clique edge of a vertex; it halves at every doubling of the
	// distance.
	ProbIntercliqueEdges float64
	// MaxParallelEdges (≥ 1) bounds the number of parallel edges drawn
	// between two vertices, uniform in 1..MaxParallelEdges. The CSR merges
	// them, keeping the minimum weight; only the edge list keeps them.
	MaxParallelEdges int
	// MaxIntWeight bounds the integer weights, uniform in 1..MaxIntWeight;
	// 0 means the specification's 2^scale. It must not be negative.
	MaxIntWeight int
}

// DefaultSSCA2Config returns the parameters SSCA2 uses when no
// SSCA2Params option is given:
//
//	MaxCliqueSize 49, ProbIntercliqueEdges 0.1, MaxParallelEdges 1, MaxIntWeight 0 (= 2^scale).
//
// These are the values of the generator behind the MST study (docs/studies.md §3):
// clique sizes uniform in 1..49 put a vertex in a clique of size s with
// probability proportional to s, so the mean intra-clique degree is
// E[s²]/E[s] - 1 = 825/25 - 1 = 32, and the sparse inter-clique edges add
// about 0.1 arcs per vertex: average degree ≈ 32, as the studies use. The
// specification's own defaults (MaxCliqueSize ⌊2^(scale/3)⌋,
// ProbIntercliqueEdges 0.5, MaxParallelEdges 3) give a degree that grows
// with the scale instead.
func DefaultSSCA2Config() SSCA2Config {
	return SSCA2Config{MaxCliqueSize: 49, ProbIntercliqueEdges: 0.1, MaxParallelEdges: 1}
}

// SSCA2Params sets the parameters of the SSCA2 generator (default
// DefaultSSCA2Config()). Other generators ignore it.
func SSCA2Params(p SSCA2Config) Option {
	return func(c *config) { c.ssca2, c.ssca2Set = p, true }
}

// SSCA2 returns an undirected SSCA#2 graph with 2^scale vertices: many
// small cliques joined by sparse inter-clique edges (see SSCA2Edges for the
// model), with self-loops and duplicates removed, keeping the minimum
// weight. With the default parameters the average degree is ≈ 32 arcs per
// vertex, like the studies' graphs (docs/studies.md, common ground and §3).
//
// scale must lie in 1..30, else SSCA2 returns an error, as it does for bad
// parameters or an interrupt (cancel.ErrInterrupted). Time and memory are
// linear in the number of edges, about 16·2^scale with the defaults.
func SSCA2(scale int, opts ...Option) (*graph.CSR, error) {
	el, err := ssca2Edges(scale, true, opts)
	if err != nil {
		return nil, err
	}
	return build("SSCA2", el)
}

// SSCA2Edges returns the edge list of an SSCA#2 graph with N = 2^scale
// vertices, every edge once (u→v), parallel edges included; build it with
// graph.Build and Symmetrize. The model, after the specification's
// scalable data generator:
//
//  1. Cliques: sizes uniform in 1..MaxCliqueSize, drawn until they cover
//     N vertices (the last one cut to fit); each clique is a run of
//     consecutive ids.
//  2. Intra-clique edges: every pair of vertices of a clique is joined by
//     1..MaxParallelEdges parallel edges (uniform).
//  3. Inter-clique edges: each vertex i looks at distances growing in
//     powers of two: for t = 1, 2, … while 2^t < N it picks
//     j = (i + 2^t + r) mod N with r uniform in [0, 2^(t-1)); if j lies in
//     another clique, it draws 1..MaxParallelEdges candidate edges i→j,
//     each kept with probability ProbIntercliqueEdges/2^(t-1).
//  4. Vertices are relabelled by a random permutation (turn it off with
//     PermuteVertices(false) to keep each clique's ids consecutive).
//  5. Weights: integers uniform in 1..MaxIntWeight by default; the weight
//     options (Uniform, Integer, Unweighted, Float64) override this.
//
// Deviations from the specification, all made because the studies use
// the graph as undirected: the specification makes each clique edge
// one-way with probability ProbUnidirectional, which symmetrizing erases,
// so it is not modelled; its string-valued weights (kernel 2 of the
// benchmark) are left out, all weights being numbers. Distances in step 3
// are measured in vertex ids, as the specification's reference generator
// does, which at mean clique size (1+MaxCliqueSize)/2 is the clique
// distance scaled by that size.
//
// Generation runs in parallel over fixed chunks of 4096 vertices with one
// random stream each, so the list is the same for a seed on any core count.
// An edge list that does not fit in the memory available is refused,
// before anything is generated when the expected count says so, else
// once the edges are counted.
// PlanSSCA2 exports this recipe, with which package gpugen generates the
// same graph on a GPU.
func SSCA2Edges(scale int, opts ...Option) (graph.EdgeList, error) {
	return ssca2Edges(scale, false, opts)
}

// ssca2Edges is SSCA2Edges; with build, the memory checks also count what
// graph.Build will need.
func ssca2Edges(scale int, build bool, opts []Option) (graph.EdgeList, error) {
	c, p, err := ssca2Config(scale, opts)
	if err != nil {
		return graph.EdgeList{}, err
	}
	n := 1 << scale
	expected := ssca2Expected(n, p)
	what := fmt.Sprintf("SSCA2 scale %d", scale)
	if err := checkMemory(what, n, expected, &c, build); err != nil {
		return graph.EdgeList{}, err
	}

	starts := cliqueStarts(n, p.MaxCliqueSize, c.seed)
	chunks := (n + ssca2ChunkVertices - 1) / ssca2ChunkVertices
	maxPar := uint64(p.MaxParallelEdges)
	inter := chance(p.ProbIntercliqueEdges)
	check := func(edges int64) error { return checkMemory(what, n, float64(edges), &c, build) }
	src, dst, err := generateTwoPass(chunks, c.seed, check, func(ci int, r *rng, s *sink) {
		lo, hi := ci*ssca2ChunkVertices, min((ci+1)*ssca2ChunkVertices, n)
		// k is the clique of vertex lo: the last start ≤ lo.
		k, found := slices.BinarySearch(starts, int32(lo))
		if !found {
			k--
		}
		for i := lo; i < hi; i++ {
			for int(starts[k+1]) <= i {
				k++
			}
			cs, ce := int(starts[k]), int(starts[k+1])
			if i == cs {
				for u := cs; u < ce; u++ {
					for v := u + 1; v < ce; v++ {
						np := uint64(1)
						if maxPar > 1 {
							np += r.below(maxPar)
						}
						for range np {
							s.add(int32(u), int32(v))
						}
					}
				}
			}
			thr := inter
			for t := 1; 1<<t < n; t++ {
				j := (i + 1<<t + int(r.below(1<<(t-1)))) % n
				if j < cs || j >= ce {
					np := uint64(1)
					if maxPar > 1 {
						np += r.below(maxPar)
					}
					for range np {
						if r.next()>>11 < thr {
							s.add(int32(i), int32(j))
						}
					}
				}
				thr >>= 1
			}
		}
	})
	if err != nil {
		return graph.EdgeList{}, err
	}
	el := graph.EdgeList{N: n, Src: src, Dst: dst}
	switch {
	case c.weights == NoWeights:
	case c.float64W:
		el.Weights64 = make([]float64, len(src))
	default:
		el.Weights = make([]float32, len(src))
	}
	if !c.permuteSet || c.permute {
		if err := permute(&el, c.seed); err != nil {
			return graph.EdgeList{}, err
		}
	}
	if err := fillWeights(&el, &c); err != nil {
		return graph.EdgeList{}, err
	}
	return el, nil
}

// ssca2ChunkVertices is the number of vertices one random stream of
// SSCA2's edges serves.
const ssca2ChunkVertices = 4096

// ssca2Config applies opts and checks them with SSCA2's parameters; it
// settles the default weights (integers 1..MaxIntWeight).
func ssca2Config(scale int, opts []Option) (config, SSCA2Config, error) {
	c := apply(opts)
	p := DefaultSSCA2Config()
	if scale < 1 || scale > 30 {
		return c, p, fmt.Errorf("gen: SSCA2 scale %d is outside 1..30", scale)
	}
	n := 1 << scale
	if c.ssca2Set {
		p = c.ssca2
	}
	switch {
	case p.MaxCliqueSize < 1 || p.MaxCliqueSize > n:
		return c, p, fmt.Errorf("gen: SSCA2 MaxCliqueSize %d must lie in 1..2^scale = %d (the default is 49)", p.MaxCliqueSize, n)
	case !(p.ProbIntercliqueEdges >= 0 && p.ProbIntercliqueEdges <= 1):
		return c, p, fmt.Errorf("gen: SSCA2 ProbIntercliqueEdges %v must lie in [0, 1] (the default is 0.1)", p.ProbIntercliqueEdges)
	case p.MaxParallelEdges < 1:
		return c, p, fmt.Errorf("gen: SSCA2 MaxParallelEdges %d must be at least 1", p.MaxParallelEdges)
	case p.MaxIntWeight < 0:
		return c, p, fmt.Errorf("gen: SSCA2 MaxIntWeight %d must be ≥ 1, or 0 for 2^scale", p.MaxIntWeight)
	}
	if !c.weightsSet {
		c.weights, c.maxWeight = IntWeights, p.MaxIntWeight
		if p.MaxIntWeight == 0 {
			c.maxWeight = n
		}
	}
	if err := c.checkWeights("SSCA2"); err != nil {
		return c, p, err
	}
	return c, p, nil
}

// ssca2Expected is the expected number of edges: intra-clique edges
// N·(E[s²]/E[s]-1)/2 = N·(M-1)/3 pairs, inter-clique about 2p per vertex,
// each drawn (1+MaxParallelEdges)/2 times on average.
func ssca2Expected(n int, p SSCA2Config) float64 {
	meanPar := float64(1+p.MaxParallelEdges) / 2
	return float64(n) * (float64(p.MaxCliqueSize-1)/3 + 2*p.ProbIntercliqueEdges) * meanPar
}

// cliqueStarts draws clique sizes uniform in 1..maxSize until they cover
// n vertices and returns the first vertex of every clique followed by n.
func cliqueStarts(n, maxSize int, seed uint64) []int32 {
	r := newRNG(seed, streamCliques, 0)
	starts := make([]int32, 0, 2*n/(maxSize+1)+2)
	for v := 0; v < n; v += 1 + int(r.below(uint64(maxSize))) {
		starts = append(starts, int32(v))
	}
	return append(starts, int32(n))
}
