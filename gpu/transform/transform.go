package transform

import (
	_ "embed"
	"errors"
	"fmt"

	"github.com/graphnb/graphnb/gpu"
)

// kernelSource is the CUDA C of the transforms, compiled by NVRTC once per
// device (and cached on disk by package gpu).
//
//go:embed transform.cu
var kernelSource string

// Sizes transform.cu is built around (GT_BLOCK, GT_SCAN_TILE,
// GT_RADIX_TILE); a test checks that both sides agree.
const (
	blockSize = 256
	scanTile  = blockSize * 8
	radixTile = blockSize * 16
	// diffBlocks is the grid of the grid-stride key-difference reduction.
	diffBlocks = 1024
)

// kernelNames lists every kernel the Go side launches.
func kernelNames() []string {
	return []string{
		"gt_scan_reduce", "gt_scan_down", "gt_key_diff", "gt_radix_hist", "gt_radix_scatter",
		"gt_arc_source", "gt_upper_count", "gt_upper_scatter", "gt_tile_keys", "gt_permute_gather",
	}
}

var compiled = gpu.ModuleCache{Name: "transform.cu", Source: kernelSource}

// kernel returns the named kernel of transform.cu compiled for dev.
func kernel(dev *gpu.Device, name string) (*gpu.Function, error) {
	if dev == nil || dev.IsHost() {
		return nil, errHost
	}
	m, err := compiled.For(dev)
	if err != nil {
		return nil, fmt.Errorf("transform: %w", err)
	}
	f, err := m.Function(name)
	if err != nil {
		return nil, fmt.Errorf("transform: %w", err)
	}
	return f, nil
}

// errHost is returned by every transform on the host device, which has no
// kernels: use the graph package's host transforms there.
var errHost = errors.New("transform: the host device runs no kernels; use the graph package's host transforms (graph.CSR.UndirectedCOO, graph.PermuteCOO, ...) there")

// launch runs kernel name of dev on a 1-D grid of blockSize threads.
func launch(dev *gpu.Device, name string, grid int, args ...any) error {
	if grid == 0 {
		return nil
	}
	f, err := kernel(dev, name)
	if err != nil {
		return err
	}
	if err := f.Launch(gpu.D1(grid), gpu.D1(blockSize), 0, args...); err != nil {
		return fmt.Errorf("transform: %w", err)
	}
	return nil
}

// blocks is the number of blockSize blocks covering n elements.
func blocks(n int64) int { return int((n + blockSize - 1) / blockSize) }

// ExclusiveScan replaces x[0, n) by its exclusive prefix sums (x[i] = the
// sum of the old x[0, i)) and returns the total. When withTotal is set, x
// must hold n+1 elements and x[n] receives the total too (counts turned
// into CSR offsets in place). Sums wrap around int64 silently. Work is
// O(n) with two passes over x and a recursion on one sum per 2048
// elements; scratch is 8 bytes per 2048 elements. It returns an error
// for x too short, on the host device and for a device error.
func ExclusiveScan(x *gpu.Int64s, n int64, withTotal bool) (int64, error) {
	if x == nil {
		return 0, errors.New("transform: ExclusiveScan: nil buffer")
	}
	need := n
	if withTotal {
		need++
	}
	if n < 0 || int64(x.Len()) < need {
		return 0, fmt.Errorf("transform: ExclusiveScan of %d elements (total stored: %v) on a buffer of %d", n, withTotal, x.Len())
	}
	dev := x.Device()
	total, err := dev.AllocInt64s(1)
	if err != nil {
		return 0, fmt.Errorf("transform: ExclusiveScan: %w", err)
	}
	defer total.Free()
	if n == 0 {
		if withTotal {
			if err := x.Upload([]int64{0}); err != nil { // x has one element
				return 0, err
			}
		}
		return 0, nil
	}
	if err := scan(x, n, withTotal, total); err != nil {
		return 0, err
	}
	t := []int64{0}
	if err := total.Download(t); err != nil {
		return 0, fmt.Errorf("transform: ExclusiveScan: %w", err)
	}
	return t[0], nil
}

// scan is ExclusiveScan's recursion (n ≥ 1).
func scan(x *gpu.Int64s, n int64, withTotal bool, total *gpu.Int64s) error {
	dev := x.Device()
	tiles := (n + scanTile - 1) / scanTile
	var carry *gpu.Int64s
	if tiles > 1 {
		var err error
		if carry, err = dev.AllocInt64s(int(tiles)); err != nil {
			return fmt.Errorf("transform: ExclusiveScan: %w", err)
		}
		defer carry.Free()
		if err := launch(dev, "gt_scan_reduce", int(tiles), x, n, carry); err != nil {
			return err
		}
		if err := scan(carry, tiles, false, nil); err != nil {
			return err
		}
	}
	return launch(dev, "gt_scan_down", int(tiles), x, x, n, carry, withTotal, total)
}

// SortPairs sorts the (key, value) pairs of keys and vals (of one length) by key,
// stably (equal keys keep their order), looking only at the low bits bits
// of the keys (1..64; higher bits must be zero or are ignored). It is a
// least-significant-digit radix sort, 8 bits per pass, that skips the
// bytes on which every key agrees; scratch is 12 bytes per pair plus 2 KiB
// per 4096 pairs. The result is deterministic. It returns an error for
// bad arguments, on the host device and for a device error.
func SortPairs(keys *gpu.Uint64s, vals *gpu.Uint32s, bits int) error {
	if keys == nil || vals == nil {
		return errors.New("transform: SortPairs: nil keys or values")
	}
	n := int64(keys.Len())
	if int64(vals.Len()) != n || bits < 1 || bits > 64 {
		return fmt.Errorf("transform: SortPairs: %d keys, %d values, %d bits: want as many values as keys and 1 to 64 bits", n, vals.Len(), bits)
	}
	if n < 2 {
		return nil
	}
	dev := keys.Device()
	diff, err := dev.AllocUint64s(1)
	if err != nil {
		return fmt.Errorf("transform: SortPairs: %w", err)
	}
	defer diff.Free()
	if err := diff.Fill(0); err != nil {
		return err
	}
	if err := launch(dev, "gt_key_diff", min(diffBlocks, blocks(n)), keys, n, diff); err != nil {
		return err
	}
	d := []uint64{0}
	if err := diff.Download(d); err != nil {
		return fmt.Errorf("transform: SortPairs: %w", err)
	}
	if bits < 64 {
		d[0] &= 1<<bits - 1
	}
	if d[0] == 0 {
		return nil
	}
	tiles := (n + radixTile - 1) / radixTile
	hist, err := dev.AllocInt64s(int(256*tiles + 1))
	if err != nil {
		return fmt.Errorf("transform: SortPairs: %w", err)
	}
	defer hist.Free()
	k2, err := dev.AllocUint64s(int(n))
	if err != nil {
		return fmt.Errorf("transform: SortPairs: %w", err)
	}
	defer k2.Free()
	v2, err := dev.AllocUint32s(int(n))
	if err != nil {
		return fmt.Errorf("transform: SortPairs: %w", err)
	}
	defer v2.Free()
	srcK, srcV, dstK, dstV := keys, vals, k2, v2
	for shift := 0; shift < bits; shift += 8 {
		if (d[0]>>shift)&0xff == 0 {
			continue
		}
		if err := launch(dev, "gt_radix_hist", int(tiles), srcK, n, shift, hist, int(tiles)); err != nil {
			return err
		}
		if err := scan(hist, 256*tiles, false, nil); err != nil {
			return err
		}
		if err := launch(dev, "gt_radix_scatter", int(tiles), srcK, srcV, dstK, dstV, n, shift, hist, int(tiles)); err != nil {
			return err
		}
		srcK, srcV, dstK, dstV = dstK, dstV, srcK, srcV
	}
	if srcK != keys {
		if err := keys.CopyFrom(srcK); err != nil {
			return fmt.Errorf("transform: SortPairs: %w", err)
		}
		if err := vals.CopyFrom(srcV); err != nil {
			return fmt.Errorf("transform: SortPairs: %w", err)
		}
	}
	return nil
}
