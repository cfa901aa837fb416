package transform

import (
	"errors"
	"fmt"

	"github.com/graphnb/graphnb/gpu"
)

// checkGraph returns an error for a nil graph or one on the host device.
func checkGraph(g *gpu.Graph, who string) error {
	switch {
	case g == nil || g.Offsets == nil:
		return fmt.Errorf("transform: %s: no graph (nil or without offsets)", who)
	case g.Device() == nil || g.Device().IsHost():
		return errHost
	}
	return nil
}

// ArcSources returns, for every arc k of g, the vertex it leaves (src[k]
// = v for Offsets[v] ≤ k < Offsets[v+1]): one binary search per arc over
// the offsets, O(M log N) work. The caller frees the result.
func ArcSources(g *gpu.Graph) (*gpu.Int32s, error) {
	if err := checkGraph(g, "ArcSources"); err != nil {
		return nil, err
	}
	src, err := g.Device().AllocInt32s(int(g.Arcs))
	if err != nil {
		return nil, fmt.Errorf("transform: ArcSources: %w", err)
	}
	if err := launch(g.Device(), "gt_arc_source", blocks(g.Arcs), g.Offsets, g.N, g.Arcs, src); err != nil {
		src.Free()
		return nil, err
	}
	return src, nil
}

// UndirectedCOO returns the COO view of the undirected graph g on its
// device, bit-identical to graph.CSR.UndirectedCOO of g's host copy: the
// arcs u→v with u < v, in CSR order, with their weights. Work is O(M log N)
// (the arc sources) plus a scan; scratch is 12 bytes per arc. It returns
// an error for a directed graph, on the host device, and for a device
// error. The caller closes the result.
func UndirectedCOO(g *gpu.Graph) (_ *gpu.COO, err error) {
	if err := checkGraph(g, "UndirectedCOO"); err != nil {
		return nil, err
	}
	if g.Directed {
		return nil, errors.New("transform: UndirectedCOO: the COO view relaxes both directions of each edge, but this graph is directed (build it with Symmetrize)")
	}
	dev := g.Device()
	src, err := ArcSources(g)
	if err != nil {
		return nil, err
	}
	defer src.Free()
	at, err := dev.AllocInt64s(int(g.Arcs) + 1)
	if err != nil {
		return nil, fmt.Errorf("transform: UndirectedCOO: %w", err)
	}
	defer at.Free()
	if err := launch(dev, "gt_upper_count", blocks(g.Arcs), src, g.Adj, g.Arcs, at); err != nil {
		return nil, err
	}
	m, err := ExclusiveScan(at, g.Arcs, true)
	if err != nil {
		return nil, err
	}
	var start, end *gpu.Int32s
	var w32 *gpu.Float32s
	var w64 *gpu.Float64s
	defer func() {
		if err != nil {
			start.Free()
			end.Free()
			w32.Free()
			w64.Free()
		}
	}()
	if start, err = dev.AllocInt32s(int(m)); err != nil {
		return nil, fmt.Errorf("transform: UndirectedCOO: %w", err)
	}
	if end, err = dev.AllocInt32s(int(m)); err != nil {
		return nil, fmt.Errorf("transform: UndirectedCOO: %w", err)
	}
	if g.Weights != nil {
		if w32, err = dev.AllocFloat32s(int(m)); err != nil {
			return nil, fmt.Errorf("transform: UndirectedCOO: %w", err)
		}
	}
	if g.Weights64 != nil {
		if w64, err = dev.AllocFloat64s(int(m)); err != nil {
			return nil, fmt.Errorf("transform: UndirectedCOO: %w", err)
		}
	}
	if err = launch(dev, "gt_upper_scatter", blocks(g.Arcs), src, g.Adj, g.Weights, g.Weights64, g.Arcs, at, start, end, w32, w64); err != nil {
		return nil, err
	}
	return dev.NewCOO(g.N, start, end, w32, w64)
}
