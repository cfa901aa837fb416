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

// SortPairs sorts the (key, value) pairs of keys and vals (of one length)
// by key, stably (equal keys keep their order), looking only at the low
// bits bits of the keys (1..64; higher bits are ignored). It is a
// least-significant-digit radix sort, 8 bits per pass, that skips the
// bytes on which every key agrees; scratch is 12 bytes per pair plus 2 KiB
// per 4096 pairs, allocated and freed per call (a Sorter keeps it). The
// result is deterministic. It returns an error for bad arguments, on the
// host device and for a device error.
func SortPairs(keys *gpu.Uint64s, vals *gpu.Uint32s, bits int) error {
	if keys == nil {
		return errors.New("transform: SortPairs: nil keys")
	}
	s := NewSorter(keys.Device())
	return errors.Join(s.Sort(keys, vals, bits), s.Free())
}

// Sorter is SortPairs with its scratch buffers kept across calls of the
// same length (a sort of another length reallocates them), for a caller
// that sorts several times. Free releases them. A Sorter is not safe for
// concurrent use.
type Sorter struct {
	dev    *gpu.Device
	mem    *gpu.Allocations
	n      int64
	keys   *gpu.Uint64s
	vals   *gpu.Uint32s
	hist   *gpu.Int64s
	diff   *gpu.Uint64s
	result []uint64
}

// NewSorter returns a Sorter for buffers on dev.
func NewSorter(dev *gpu.Device) *Sorter { return &Sorter{dev: dev} }

// Free releases the scratch buffers; the Sorter may be used again.
func (s *Sorter) Free() error {
	err := s.mem.Free()
	s.mem, s.n = nil, -1
	return err
}

// scratch makes sure the scratch buffers hold n pairs.
func (s *Sorter) scratch(n int64) error {
	if s.mem != nil && s.n == n {
		return nil
	}
	if err := s.Free(); err != nil {
		return err
	}
	s.mem, s.n = gpu.NewAllocations(s.dev), n
	tiles := (n + radixTile - 1) / radixTile
	var err error
	if s.keys, err = s.mem.AllocUint64s(int(n)); err != nil {
		return err
	}
	if s.vals, err = s.mem.AllocUint32s(int(n)); err != nil {
		return err
	}
	if s.hist, err = s.mem.AllocInt64s(int(256*tiles + 1)); err != nil {
		return err
	}
	s.diff, err = s.mem.AllocUint64s(1)
	return err
}

// Sort is SortPairs with the Sorter's scratch.
func (s *Sorter) Sort(keys *gpu.Uint64s, vals *gpu.Uint32s, bits int) error {
	if keys == nil || vals == nil {
		return errors.New("transform: SortPairs: nil keys or values")
	}
	n := int64(keys.Len())
	if int64(vals.Len()) != n || bits < 1 || bits > 64 {
		return fmt.Errorf("transform: SortPairs: %d keys, %d values, %d bits: want as many values as keys and 1 to 64 bits", n, vals.Len(), bits)
	}
	if keys.Device() != s.dev || vals.Device() != s.dev {
		return errors.New("transform: SortPairs: the keys or values are on another device than the Sorter's")
	}
	if s.dev == nil || s.dev.IsHost() {
		return errHost
	}
	if n < 2 {
		return nil
	}
	if err := s.scratch(n); err != nil {
		return fmt.Errorf("transform: SortPairs: %w", err)
	}
	if err := s.diff.Fill(0); err != nil {
		return err
	}
	dev := s.dev
	if err := launch(dev, "gt_key_diff", min(diffBlocks, blocks(n)), keys, n, s.diff); err != nil {
		return err
	}
	if s.result == nil {
		s.result = make([]uint64, 1)
	}
	if err := s.diff.Download(s.result); err != nil {
		return fmt.Errorf("transform: SortPairs: %w", err)
	}
	vary := s.result[0]
	if bits < 64 {
		vary &= 1<<bits - 1
	}
	tiles := (n + radixTile - 1) / radixTile
	srcK, srcV, dstK, dstV := keys, vals, s.keys, s.vals
	for shift := 0; shift < bits; shift += 8 {
		if (vary>>shift)&0xff == 0 {
			continue
		}
		if err := launch(dev, "gt_radix_hist", int(tiles), srcK, n, shift, s.hist, int(tiles)); err != nil {
			return err
		}
		if err := scan(s.hist, 256*tiles, false, nil); err != nil {
			return err
		}
		if err := launch(dev, "gt_radix_scatter", int(tiles), srcK, srcV, dstK, dstV, n, shift, s.hist, int(tiles)); err != nil {
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
