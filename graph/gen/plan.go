package gen

// RMATPlan is everything a generator running elsewhere (package gpugen, on
// a GPU) needs to reproduce RMAT's edge list exactly, random streams
// included: the alias tables, the streams' starting states, the weight
// kind and the vertex permutation. Reproducing means, for every chunk c of
// ChunkEdges edges (the last one may be shorter):
//
//   - edge i of the chunk takes the next EdgeDraws numbers of the
//     xoshiro256** stream that starts at EdgeStates[4c:4c+4] (s0..s3); for
//     table g = 0, 1, … (a new number before every even g, shifted right
//     by 32 after every table) the low 2k bits of the number choose a
//     column of table g (k = 4 levels, LastLevels for the last table) and
//     bits 8..31 compare with its threshold: below it keeps the column's
//     own outcome, else takes the alias; an outcome's high nibble holds k
//     source bits, the low nibble k target bits, appended to the ids most
//     significant first;
//   - with Permute, both ends are relabelled by PermuteVertex;
//   - weight i of the chunk is the i-th number x of the stream at
//     WeightStates[4c:4c+4]: uniform float32 float32(x>>40)·2^-24, uniform
//     float64 float64(x>>11)·2^-53, integer 1 + ⌊x·MaxWeight/2^64⌋.
//
// RMAT then builds the CSR with graph.Build and Symmetrize.
type RMATPlan struct {
	// Scale and EdgeFactor are RMAT's arguments; N = 2^Scale vertices and
	// Edges = EdgeFactor·N generated edges.
	Scale, EdgeFactor, N, Edges int
	// ChunkEdges is the number of edges (and weights) one stream draws;
	// Chunks = ⌈Edges/ChunkEdges⌉.
	ChunkEdges, Chunks int
	// EdgeDraws is the number of 64-bit random numbers one edge takes:
	// ⌈Tables/2⌉.
	EdgeDraws int
	// Tables holds the alias tables of the groups of four levels, most
	// significant first, 256 entries each (4^k used): an entry packs the
	// threshold (24 bits, 2^24 = always keep) in bits 0..31, the own
	// outcome in bits 32..39 and the alias in bits 40..47.
	Tables []uint64
	// LastLevels is the number of levels of the last table (1..4).
	LastLevels int
	// EdgeStates and WeightStates hold the xoshiro256** states (four words
	// each) that start the chunks' edge and weight streams.
	EdgeStates, WeightStates []uint64
	// PlanCommon gives the weights and the vertex permutation.
	PlanCommon
}

// PlanCommon is what the plans share: how weights are drawn and the
// vertex permutation.
type PlanCommon struct {
	// Weights is the weight kind, MaxWeight the maximum integer weight and
	// Float64 whether weights are float64.
	Weights   WeightKind
	MaxWeight int
	Float64   bool
	// Permute says whether ends are relabelled; PermuteHalf and
	// PermuteKeys define the permutation (see PermuteVertex).
	Permute     bool
	PermuteHalf uint
	PermuteKeys [4]uint64

	n    int    // vertices
	seed uint64 // for streams drawn later (SSCA2Plan.WeightStates)
}

// planCommon returns the common part of a plan of n vertices.
func planCommon(n int, c *config, permute bool) PlanCommon {
	perm := newVertexPermutation(n, c.seed)
	return PlanCommon{Weights: c.weights, MaxWeight: c.maxWeight, Float64: c.float64W, Permute: permute,
		PermuteHalf: perm.half, PermuteKeys: perm.keys, n: n, seed: c.seed}
}

// PlanRMAT checks RMAT's arguments and options as RMAT does (same errors)
// and returns the plan of RMAT(scale, edgeFactor, opts...). It allocates
// 64 bytes per chunk of 2^16 edges and checks no memory: the generator
// that follows the plan checks its own.
func PlanRMAT(scale, edgeFactor int, opts ...Option) (*RMATPlan, error) {
	c, err := rmatConfig(scale, edgeFactor, opts)
	if err != nil {
		return nil, err
	}
	n := 1 << scale
	p := &RMATPlan{Scale: scale, EdgeFactor: edgeFactor, N: n, Edges: edgeFactor * n, ChunkEdges: chunkEdges,
		PlanCommon: planCommon(n, &c, c.permute)}
	p.Chunks = (p.Edges + chunkEdges - 1) / chunkEdges
	tabs := rmatTables(rmatQuadrants(&c, scale))
	p.EdgeDraws = (len(tabs) + 1) / 2
	p.LastLevels = int(tabs[len(tabs)-1].k)
	p.Tables = make([]uint64, 256*len(tabs))
	for g, t := range tabs {
		for o, e := range t.col {
			p.Tables[256*g+o] = uint64(e.thr) | uint64(e.own)<<32 | uint64(e.alt)<<40
		}
	}
	p.EdgeStates = streamStates(c.seed, streamEdges, p.Chunks)
	if c.weights != NoWeights {
		p.WeightStates = streamStates(c.seed, streamWeights, p.Chunks)
	}
	return p, nil
}

// streamStates returns the starting states of the streams (seed, stream,
// chunk) for chunk = 0..chunks-1, four words each.
func streamStates(seed, stream uint64, chunks int) []uint64 {
	s := make([]uint64, 0, 4*chunks)
	for c := range chunks {
		r := newRNG(seed, stream, uint64(c))
		s = append(s, r.s0, r.s1, r.s2, r.s3)
	}
	return s
}

// PermuteVertex returns the new id of vertex v (0 ≤ v < N, the plan's
// vertices) under the plan's permutation, whether or not Permute is set: a balanced Feistel
// network on 2·PermuteHalf bits, with h = PermuteHalf and M = 2^h-1,
//
//	l, r = x>>h, x&M;  for each key k: l, r = r, l ^ (mix64(r^k) & M);  x = l<<h | r
//
// (mix64 is SplitMix64's finaliser: z ^= z>>30; z *= 0xbf58476d1ce4e5b9;
// z ^= z>>27; z *= 0x94d049bb133111eb; z ^= z>>31), applied again while
// x ≥ N (cycle walking).
func (p *PlanCommon) PermuteVertex(v int) int {
	vp := vertexPermutation{n: uint64(p.n), half: p.PermuteHalf, keys: p.PermuteKeys}
	return int(vp.apply(uint64(v)))
}

// SSCA2Plan is the recipe of SSCA2(scale, opts...) for a generator running
// elsewhere (package gpugen). Vertex chunk c (ChunkVertices vertices, the
// last one may be shorter) runs SSCA2Edges' loop (steps 1–3 of its model)
// over its vertices with the xoshiro256** stream that starts at
// EdgeStates[4c:4c+4], where a bounded draw below(b) is ⌊x·b/2^64⌋ of the
// next number x and the edge i→j of step 3 is kept when x>>11 < the
// threshold, which starts at InterThreshold and halves with every t. The
// edges of chunk c follow those of chunk c-1. With Permute both ends are
// relabelled by PermuteVertex, and weight i is drawn as in RMATPlan from
// the streams of WeightStates(edges).
type SSCA2Plan struct {
	// Scale is SSCA2's argument; N = 2^Scale vertices.
	Scale, N int
	// ChunkVertices is the number of vertices one stream serves; Chunks
	// = ⌈N/ChunkVertices⌉.
	ChunkVertices, Chunks int
	// Starts holds the first vertex of every clique, then N.
	Starts []int32
	// MaxParallelEdges bounds the parallel edges; InterThreshold is the
	// threshold of step 3 for t = 1 (ProbIntercliqueEdges·2^53).
	MaxParallelEdges int
	InterThreshold   uint64
	// ExpectedEdges is the expected number of edges (a memory estimate).
	ExpectedEdges float64
	// EdgeStates holds the starting states of the chunks' streams.
	EdgeStates []uint64
	// WeightChunkEdges is the number of weights one weight stream draws.
	WeightChunkEdges int
	// PlanCommon gives the weights (integers 1..MaxIntWeight by default)
	// and the vertex permutation (on by default).
	PlanCommon
}

// PlanSSCA2 checks SSCA2's arguments and options as SSCA2 does (same
// errors) and returns the plan of SSCA2(scale, opts...). It draws the
// clique sizes (about 2^scale/25 numbers, sequentially) and checks no
// memory.
func PlanSSCA2(scale int, opts ...Option) (*SSCA2Plan, error) {
	c, p, err := ssca2Config(scale, opts)
	if err != nil {
		return nil, err
	}
	n := 1 << scale
	sp := &SSCA2Plan{Scale: scale, N: n, ChunkVertices: ssca2ChunkVertices, Chunks: (n + ssca2ChunkVertices - 1) / ssca2ChunkVertices,
		Starts: cliqueStarts(n, p.MaxCliqueSize, c.seed), MaxParallelEdges: p.MaxParallelEdges,
		InterThreshold: chance(p.ProbIntercliqueEdges), ExpectedEdges: ssca2Expected(n, p), WeightChunkEdges: chunkEdges,
		PlanCommon: planCommon(n, &c, !c.permuteSet || c.permute)}
	sp.EdgeStates = streamStates(c.seed, streamEdges, sp.Chunks)
	return sp, nil
}

// WeightStates returns the starting states of the weight streams of a
// graph of edges edges: one stream per chunk of WeightChunkEdges edges, four words
// each (nil when the graph is unweighted).
func (p *SSCA2Plan) WeightStates(edges int) []uint64 {
	if p.Weights == NoWeights {
		return nil
	}
	return streamStates(p.seed, streamWeights, (edges+chunkEdges-1)/chunkEdges)
}
