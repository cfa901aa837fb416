package gpugen

import (
	_ "embed"
	"errors"
	"fmt"

	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph/gen"
)

// RMAT generates gen.RMAT(scale, edgeFactor, opts...) on dev, straight
// into a device-resident graph: the same CSR edge for edge and bit for bit
// (Offsets, Adj, Weights or Weights64) as the host generator's, for every
// option (probabilities, noise, vertex permutation, weight kinds, seed).
// The host copy is made only when the graph's Host asks for it. Arguments
// and options are checked as gen.RMAT checks them, with the same errors.
//
// On a GPU it draws the edges from the same random streams as the host
// (gen.PlanRMAT), sorts both arcs of every edge by (source, target) with
// an LSD radix sort, keeps the first arc of each run that is no self-loop
// with the least weight of the run, and writes the CSR; about 2·scale/8
// passes over 2·edgeFactor·2^scale arcs, numbered in 64 bits (a graph may
// have more than 2^32 arcs). It needs about 17.5 + 2w bytes per arc at
// its peak, the sort (w = 4 for float32 weights, 8 for float64, 0
// unweighted), checked against the device's free memory before anything
// is generated: a graph that does not fit is an error wrapping ErrTooBig
// that gives both figures. An interrupt (package cancel) stops it between
// launches with an error matching cancel.ErrInterrupted; what it
// allocated is freed.
//
// On the host device it is gen.RMAT followed by dev.Upload (the host
// copy then exists already), so callers need no branch.
func RMAT(dev *gpu.Device, scale, edgeFactor int, opts ...gen.Option) (*gpu.Graph, error) {
	if dev == nil {
		return nil, errors.New("gpugen: RMAT: nil device; pass gpu.Default() or gpu.Host()")
	}
	p, err := gen.PlanRMAT(scale, edgeFactor, opts...)
	if err != nil {
		return nil, err
	}
	if dev.IsHost() {
		g, err := gen.RMAT(scale, edgeFactor, opts...)
		if err != nil {
			return nil, err
		}
		return dev.Upload(g)
	}
	if len(p.Tables)/tableWords > maxTables {
		return nil, fmt.Errorf("gpugen: R-MAT scale %d needs %d alias tables, the kernel holds %d", scale, len(p.Tables)/tableWords, maxTables)
	}
	what := fmt.Sprintf("R-MAT scale %d, edge factor %d", scale, edgeFactor)
	if err := checkFree(dev, what, rmatBytes(p), "gen.RMAT"); err != nil {
		return nil, err
	}
	g, err := generate(dev, p.Scale, p.N, func(r *run) (*gpu.Uint64s, *gpu.Float32s, *gpu.Float64s, error) { return r.rmatEdges(p) })
	if err != nil {
		return nil, fmt.Errorf("gpugen: %s: %w", what, err)
	}
	return g, nil
}

// rmatBytes is the device memory RMAT needs at its peak for plan p.
func rmatBytes(p *gen.RMATPlan) int64 {
	segs := int64(p.Chunks) * int64(p.ChunkEdges/segEdges)
	return pipelineBytes(2*int64(p.Edges), p.N, weightBytes(p.Weights, p.Float64)) + 2*segs*stateWords*8
}

// edges draws the edges and their weights into 2·Edges arcs (keys, and
// the weights of the plan's kind).
func (r *run) rmatEdges(p *gen.RMATPlan) (keys *gpu.Uint64s, w32 *gpu.Float32s, w64 *gpu.Float64s, err error) {
	tmp := r.tmp
	segs := p.ChunkEdges / segEdges
	segsTotal := int64(p.Chunks) * int64(segs)
	arcs := 2 * p.Edges
	estart, err := tmp.Uint64sFrom(p.EdgeStates)
	if err != nil {
		return nil, nil, nil, err
	}
	estates, err := tmp.AllocUint64s(int(segsTotal) * stateWords)
	if err != nil {
		return nil, nil, nil, err
	}
	draws := p.EdgeDraws
	if err := r.launch(kStates, int64(p.Chunks), estart, int64(p.Chunks), segs, segEdges, draws, estates); err != nil {
		return nil, nil, nil, err
	}
	var wstates *gpu.Uint64s
	kind := wUniform
	switch {
	case p.Weights == gen.NoWeights:
		kind = wNone
	case p.Weights == gen.IntWeights:
		kind = wInt
	}
	if kind != wNone {
		wstart, err := tmp.Uint64sFrom(p.WeightStates)
		if err != nil {
			return nil, nil, nil, err
		}
		if wstates, err = tmp.AllocUint64s(int(segsTotal) * stateWords); err != nil {
			return nil, nil, nil, err
		}
		if err := r.launch(kStates, int64(p.Chunks), wstart, int64(p.Chunks), segs, segEdges, 1, wstates); err != nil {
			return nil, nil, nil, err
		}
	}
	if err := r.phase("states"); err != nil {
		return nil, nil, nil, err
	}
	tables, err := tmp.Uint64sFrom(p.Tables)
	if err != nil {
		return nil, nil, nil, err
	}
	if keys, err = tmp.AllocUint64s(arcs); err != nil {
		return nil, nil, nil, err
	}
	var wbuf any
	name := kEdgesF32
	switch {
	case kind == wNone:
		wbuf = (*gpu.Float32s)(nil)
	case p.Float64:
		if w64, err = tmp.AllocFloat64s(arcs); err != nil {
			return nil, nil, nil, err
		}
		wbuf, name = w64, kEdgesF64
	default:
		if w32, err = tmp.AllocFloat32s(arcs); err != nil {
			return nil, nil, nil, err
		}
		wbuf = w32
	}
	if err := r.phase("edges_alloc"); err != nil {
		return nil, nil, nil, err
	}
	perm := 0
	if p.Permute {
		perm = 1
	}
	k := p.PermuteKeys
	err = r.launch(name, segsTotal, estates, wstates, segsTotal, segs, int64(p.ChunkEdges), int64(p.Edges), p.Scale,
		tables, len(p.Tables)/tableWords, p.LastLevels, perm, int(p.PermuteHalf), k[0], k[1], k[2], k[3],
		kind, uint64(p.MaxWeight), keys, wbuf)
	if err != nil {
		return nil, nil, nil, err
	}
	return keys, w32, w64, nil
}
