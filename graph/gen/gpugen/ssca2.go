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
// built into the CSR as RMAT does. Memory: about (18 + 2w) bytes per arc
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
	tmp := r.tmp
	starts, err := tmp.Int32sFrom(p.Starts)
	if err != nil {
		return nil, nil, nil, err
	}
	states, err := tmp.Uint64sFrom(p.EdgeStates)
	if err != nil {
		return nil, nil, nil, err
	}
	if p.ChunkVertices%ssca2Part != 0 {
		return nil, nil, nil, fmt.Errorf("chunks of %d vertices are not parts of %d", p.ChunkVertices, ssca2Part)
	}
	chunks := int64(p.Chunks)
	parts := chunks * int64(p.ChunkVertices/ssca2Part)
	counts, err := tmp.AllocUint64s(int(parts))
	if err != nil {
		return nil, nil, nil, err
	}
	pstates, err := tmp.AllocUint64s(int(parts) * stateWords)
	if err != nil {
		return nil, nil, nil, err
	}
	shape := []any{uint64(p.MaxParallelEdges), p.InterThreshold, p.Scale}
	err = r.launch(kSSCA2Count, chunks, append([]any{starts, int64(len(p.Starts)), int64(p.N), p.ChunkVertices, chunks, states}, append(shape, pstates, counts)...)...)
	if err != nil {
		return nil, nil, nil, err
	}
	cnt, err := counts.ToHost()
	if err != nil {
		return nil, nil, nil, err
	}
	var edges uint64
	for c, k := range cnt {
		cnt[c] = edges
		edges += k
	}
	if 2*edges > maxArcs {
		return nil, nil, nil, fmt.Errorf("%d edges, %d arcs before deduplication; the device generator numbers arcs in 32 bits (at most %d): use gen.SSCA2 and upload the graph (%w)", edges, 2*edges, int64(maxArcs), ErrTooBig)
	}
	if err := checkFree(r.t.Device(), what, ssca2Bytes(p, float64(2*edges)), "gen.SSCA2"); err != nil {
		return nil, nil, nil, err
	}
	if err := r.phase("states"); err != nil {
		return nil, nil, nil, err
	}
	if err := counts.Upload(cnt); err != nil {
		return nil, nil, nil, err
	}
	if keys, err = tmp.AllocUint64s(int(2 * edges)); err != nil {
		return nil, nil, nil, err
	}
	perm := 0
	if p.Permute {
		perm = 1
	}
	k := p.PermuteKeys
	err = r.launch(kSSCA2Emit, parts, append([]any{starts, int64(len(p.Starts)), int64(p.N), parts, pstates},
		append(shape, perm, int(p.PermuteHalf), k[0], k[1], k[2], k[3], counts, keys)...)...)
	if err != nil {
		return nil, nil, nil, err
	}
	ws := p.WeightStates(int(edges))
	if ws == nil {
		return keys, nil, nil, nil
	}
	wchunks := int64(len(ws) / stateWords)
	segs := p.WeightChunkEdges / segEdges
	wstart, err := tmp.Uint64sFrom(ws)
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
	wargs := []any{wstates, segsTotal, segs, int64(p.WeightChunkEdges), int64(edges), kind, uint64(p.MaxWeight)}
	if p.Float64 {
		if w64, err = tmp.AllocFloat64s(int(2 * edges)); err != nil {
			return nil, nil, nil, err
		}
		err = r.launch(kWeightsF64, segsTotal, append(wargs, w64)...)
	} else {
		if w32, err = tmp.AllocFloat32s(int(2 * edges)); err != nil {
			return nil, nil, nil, err
		}
		err = r.launch(kWeightsF32, segsTotal, append(wargs, w32)...)
	}
	if err != nil {
		return nil, nil, nil, err
	}
	return keys, w32, w64, nil
}
