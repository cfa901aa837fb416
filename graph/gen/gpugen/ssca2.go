package gpugen

import (
	"errors"
	"fmt"
	"math"

	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph/gen"
)

// SSCA2 generates gen.SSCA2(scale, opts...) on dev, straight into a
// device-resident graph: the same CSR edge for edge and bit for bit as the
// host generator's, for every option (SSCA2Params, the vertex permutation,
// on by default, weight kinds, seed). The host copy is made only when the
// graph's Host asks for it. Arguments and options are checked as
// gen.SSCA2 checks them, with the same errors.
//
// On a GPU one thread per chunk of 4096 vertices runs the host's loop
// with the chunk's random stream (gen.PlanSSCA2), counting the edges of
// each part of 256 vertices and recording the stream's state there; one
// thread per part then writes both arcs of each edge at the offsets the
// counts give; the weights are drawn per segment of edges; then the arcs are sorted and
// built into the CSR as RMAT does. Memory: about 17.5 + 2w bytes per arc
// at the peak (w the weight's bytes), checked against the device's free
// memory before anything is generated (from the expected edge count) and
// again once the edges are counted. An interrupt stops it between
// launches. On the host device it is gen.SSCA2 followed by dev.Upload.
func SSCA2(dev *gpu.Device, scale int, opts ...gen.Option) (*gpu.Graph, error) {
	if dev == nil {
		return nil, errors.New("gpugen: SSCA2: nil device; pass gpu.Default() or gpu.Host()")
	}
	p, err := gen.PlanSSCA2(scale, opts...)
	if err != nil {
		return nil, err
	}
	if dev.IsHost() {
		g, err := gen.SSCA2(scale, opts...)
		if err != nil {
			return nil, err
		}
		return dev.Upload(g)
	}
	what := fmt.Sprintf("SSCA2 scale %d", scale)
	if err := checkFree(dev, what, ssca2Bytes(p, 2*math.Ceil(p.ExpectedEdges)), "gen.SSCA2"); err != nil {
		return nil, err
	}
	g, err := generate(dev, p.Scale, p.N, func(r *run) (*gpu.Uint64s, *gpu.Float32s, *gpu.Float64s, error) {
		return r.ssca2Edges(p, what)
	})
	if err != nil {
		return nil, fmt.Errorf("gpugen: %s: %w", what, err)
	}
	return g, nil
}

// ssca2Part is the number of vertices of a part (GG_SSCA2_PART).
const ssca2Part = 256

// ssca2Bytes is the device memory SSCA2 needs at its peak for arcs arcs.
func ssca2Bytes(p *gen.SSCA2Plan, arcs float64) int64 {
	a := int64(math.MaxInt64 / 64)
	if arcs < float64(a) {
		a = int64(arcs)
	}
	segs := a/2/segEdges + 1
	return pipelineBytes(a, p.N, weightBytes(p.Weights, p.Float64)) + int64(len(p.Starts))*4 + int64(p.Chunks)*32 + int64(p.N/ssca2Part+1)*40 + 2*segs*stateWords*8
}

// ssca2Edges counts the edges per chunk, sums the counts on the host,
// writes the arcs and draws the weights.
func (r *run) ssca2Edges(p *gen.SSCA2Plan, what string) (keys *gpu.Uint64s, w32 *gpu.Float32s, w64 *gpu.Float64s, err error) {
	c, err := r.ssca2Count(p, 0, p.Chunks)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := checkFree(r.t.Device(), what, ssca2Bytes(p, float64(2*c.edges)), "gen.SSCA2"); err != nil {
		return nil, nil, nil, err
	}
	if err := r.phase("states"); err != nil {
		return nil, nil, nil, err
	}
	return r.ssca2Emit(p, c, 0, c.edges)
}

// ssca2Counted is what ssca2Count leaves for ssca2Emit: the chunks
// [c0, c1) of the plan, their vertices' clique starts and the state and
// first edge (counted from the chunks' first) of each of their parts.
type ssca2Counted struct {
	c0, c1  int
	starts  *gpu.Int32s
	pstates *gpu.Uint64s
	first   *gpu.Uint64s
	// edges is the number of edges of the chunks.
	edges uint64
}

// ssca2Count counts the edges of each part of the vertices of chunks
// [c0, c1), in buffers of r.tmp, and numbers the parts' edges from 0.
func (r *run) ssca2Count(p *gen.SSCA2Plan, c0, c1 int) (*ssca2Counted, error) {
	tmp := r.tmp
	if p.ChunkVertices%ssca2Part != 0 {
		return nil, fmt.Errorf("chunks of %d vertices are not parts of %d", p.ChunkVertices, ssca2Part)
	}
	c := &ssca2Counted{c0: c0, c1: c1}
	var err error
	if c.starts, err = tmp.Int32sFrom(p.Starts); err != nil {
		return nil, err
	}
	states, err := tmp.Uint64sFrom(p.EdgeStates[stateWords*c0 : stateWords*c1])
	if err != nil {
		return nil, err
	}
	chunks := int64(c1 - c0)
	parts := chunks * int64(p.ChunkVertices/ssca2Part)
	if c.first, err = tmp.AllocUint64s(int(parts)); err != nil {
		return nil, err
	}
	if c.pstates, err = tmp.AllocUint64s(int(parts) * stateWords); err != nil {
		return nil, err
	}
	err = r.launch(kSSCA2Count, chunks, c.starts, int64(len(p.Starts)), int64(p.N), p.ChunkVertices, int64(c0), chunks, states,
		uint64(p.MaxParallelEdges), p.InterThreshold, p.Scale, c.pstates, c.first)
	if err != nil {
		return nil, err
	}
	cnt, err := c.first.ToHost()
	if err != nil {
		return nil, err
	}
	for i, k := range cnt {
		cnt[i] = c.edges
		c.edges += k
	}
	return c, c.first.Upload(cnt)
}

// ssca2Emit writes both arcs of each edge ssca2Count counted, and draws
// the weights of those edges, the first of them being edge first of the
// graph's total edges.
func (r *run) ssca2Emit(p *gen.SSCA2Plan, c *ssca2Counted, first, total uint64) (keys *gpu.Uint64s, w32 *gpu.Float32s, w64 *gpu.Float64s, err error) {
	tmp := r.tmp
	if keys, err = tmp.AllocUint64s(int(2 * c.edges)); err != nil {
		return nil, nil, nil, err
	}
	perm := 0
	if p.Permute {
		perm = 1
	}
	k := p.PermuteKeys
	perChunk := int64(p.ChunkVertices / ssca2Part)
	parts := int64(c.c1-c.c0) * perChunk
	err = r.launch(kSSCA2Emit, parts, c.starts, int64(len(p.Starts)), int64(p.N), int64(c.c0)*perChunk, parts, c.pstates,
		uint64(p.MaxParallelEdges), p.InterThreshold, p.Scale, perm, int(p.PermuteHalf), k[0], k[1], k[2], k[3], c.first, keys)
	if err != nil {
		return nil, nil, nil, err
	}
	ws := p.WeightStates(int(total))
	if ws == nil {
		return keys, nil, nil, nil
	}
	// The weight streams of the edges [first, first+edges): those of
	// chunks w0 … w1-1 of WeightChunkEdges edges.
	wce := uint64(p.WeightChunkEdges)
	w0, w1 := first/wce, (first+c.edges+wce-1)/wce
	wchunks := int64(w1 - w0)
	segs := p.WeightChunkEdges / segEdges
	wstart, err := tmp.Uint64sFrom(ws[stateWords*w0 : stateWords*w1])
	if err != nil {
		return nil, nil, nil, err
	}
	wstates, err := tmp.AllocUint64s(int(wchunks) * segs * stateWords)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := r.launch(kStates, wchunks, wstart, wchunks, segs, segEdges, 1, wstates); err != nil {
		return nil, nil, nil, err
	}
	kind := wUniform
	if p.Weights == gen.IntWeights {
		kind = wInt
	}
	segsTotal := wchunks * int64(segs)
	from := int64(first - w0*wce)
	wargs := []any{wstates, segsTotal, segs, int64(wce), from, from + int64(c.edges), kind, uint64(p.MaxWeight)}
	if p.Float64 {
		if w64, err = tmp.AllocFloat64s(int(2 * c.edges)); err != nil {
			return nil, nil, nil, err
		}
		err = r.launch(kWeightsF64, segsTotal, append(wargs, w64)...)
	} else {
		if w32, err = tmp.AllocFloat32s(int(2 * c.edges)); err != nil {
			return nil, nil, nil, err
		}
		err = r.launch(kWeightsF32, segsTotal, append(wargs, w32)...)
	}
	if err != nil {
		return nil, nil, nil, err
	}
	return keys, w32, w64, nil
}
