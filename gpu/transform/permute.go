package transform

import (
	"errors"
	"fmt"
	"math/bits"

	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph"
)

// PermuteCOO is graph.PermuteCOO on the device: a new COO with c's edges
// oriented Start ≤ End and ordered by tile (segment of End, then segment
// of Start, segments of p vertices), edges of one tile in c's order —
// bit-identical to graph.PermuteCOO of c's host copy. Work is a stable
// radix sort of the edges by tile (8 bits of tile number per pass, passes
// over constant bytes skipped) and a gather; scratch is about 28 bytes
// per edge. It returns graph.PermuteCOO's error for p < 1 or ids outside
// [0, N) (the COO is then downloaded to name the edge), an error for
// 2^32 edges or more, on the host device and for a device error. The
// caller closes the result.
func PermuteCOO(c *gpu.COO, p int) (*gpu.COO, error) {
	out, index, err := permuteCOO(c, p, false)
	index.Free()
	return out, err
}

// PermuteCOOIndex is PermuteCOO that also returns the permutation, as
// graph.PermuteCOOIndex: edge k of the result is edge index[k] of c.
// The caller frees index.
func PermuteCOOIndex(c *gpu.COO, p int) (*gpu.COO, *gpu.Int64s, error) {
	return permuteCOO(c, p, true)
}

func permuteCOO(c *gpu.COO, p int, withIndex bool) (_ *gpu.COO, _ *gpu.Int64s, err error) {
	switch {
	case c == nil || c.Start == nil || c.End == nil:
		return nil, nil, errors.New("transform: PermuteCOO: the COO is nil or has no edge arrays")
	case c.Device() == nil || c.Device().IsHost():
		return nil, nil, errHost
	case p < 1:
		return nil, nil, fmt.Errorf("transform: PermuteCOO: segment size P = %d must be at least 1 (graph.SegmentSizeFor picks one from the L2 size)", p)
	case c.Edges >= 1<<32:
		return nil, nil, fmt.Errorf("transform: PermuteCOO: %d edges; the device permutation numbers edges with 32 bits", c.Edges)
	}
	dev, m := c.Device(), c.Edges
	tmp := gpu.NewAllocations(dev)
	defer tmp.Free()
	keys, err := tmp.AllocUint64s(int(m))
	if err != nil {
		return nil, nil, fmt.Errorf("transform: PermuteCOO: %w", err)
	}
	order, err := tmp.AllocUint32s(int(m))
	if err != nil {
		return nil, nil, fmt.Errorf("transform: PermuteCOO: %w", err)
	}
	bad, err := tmp.AllocUint32s(1)
	if err != nil {
		return nil, nil, fmt.Errorf("transform: PermuteCOO: %w", err)
	}
	if err := bad.Fill(0); err != nil {
		return nil, nil, err
	}
	segs := int64(c.N/p + 1)
	if err := launch(dev, "gt_tile_keys", blocks(m), c.Start, c.End, m, c.N, p, segs, keys, order, bad); err != nil {
		return nil, nil, err
	}
	flag := []uint32{0}
	if err := bad.Download(flag); err != nil {
		return nil, nil, fmt.Errorf("transform: PermuteCOO: %w", err)
	}
	if flag[0] != 0 {
		return nil, nil, hostError(c, p)
	}
	if err := SortPairs(keys, order, max(1, bits.Len64(uint64(segs*segs)))); err != nil {
		return nil, nil, err
	}
	var start, end *gpu.Int32s
	var w32 *gpu.Float32s
	var w64 *gpu.Float64s
	var index *gpu.Int64s
	defer func() {
		if err != nil {
			start.Free()
			end.Free()
			w32.Free()
			w64.Free()
			index.Free()
		}
	}()
	if start, err = dev.AllocInt32s(int(m)); err != nil {
		return nil, nil, fmt.Errorf("transform: PermuteCOO: %w", err)
	}
	if end, err = dev.AllocInt32s(int(m)); err != nil {
		return nil, nil, fmt.Errorf("transform: PermuteCOO: %w", err)
	}
	if c.Weights != nil {
		if w32, err = dev.AllocFloat32s(int(m)); err != nil {
			return nil, nil, fmt.Errorf("transform: PermuteCOO: %w", err)
		}
	}
	if c.Weights64 != nil {
		if w64, err = dev.AllocFloat64s(int(m)); err != nil {
			return nil, nil, fmt.Errorf("transform: PermuteCOO: %w", err)
		}
	}
	if withIndex {
		if index, err = dev.AllocInt64s(int(m)); err != nil {
			return nil, nil, fmt.Errorf("transform: PermuteCOO: %w", err)
		}
	}
	if err = launch(dev, "gt_permute_gather", blocks(m), order, c.Start, c.End, c.Weights, c.Weights64, m, start, end, w32, w64, index); err != nil {
		return nil, nil, err
	}
	out, err := dev.NewCOO(c.N, start, end, w32, w64)
	if err != nil {
		return nil, nil, err
	}
	return out, index, nil
}

// hostError returns graph.PermuteCOO's error for c, downloaded (the
// device found an id out of range; the host names the edge).
func hostError(c *gpu.COO, p int) error {
	h, err := c.Download()
	if err != nil {
		return fmt.Errorf("transform: PermuteCOO: an id is out of range; downloading the COO to name it: %w", err)
	}
	if _, err := graph.PermuteCOO(h, p); err != nil {
		return err
	}
	return errors.New("transform: PermuteCOO: the device found an id out of range that the host does not (internal error)")
}
