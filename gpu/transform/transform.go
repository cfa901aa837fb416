package transform

import (
	_ "embed"
	"errors"
	"fmt"
	"math/bits"

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
	// radixBits is the widest digit of a radix sort pass, radixDigits
	// the counters of a tile (GT_RADIX_DIGITS).
	radixBits   = 8
	radixDigits = 1 << radixBits
	// diffBlocks is the grid of the grid-stride key-difference reduction.
	diffBlocks = 1024
)

// kernelNames lists every kernel the Go side launches.
func kernelNames() []string {
	return []string{
		"gt_scan_reduce", "gt_scan_down", "gt_key_diff", "gt_radix_hist", "gt_radix_hist8", "gt_radix_scatter32", "gt_radix_scatter64",
		"gt_copy_words",
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

// scan is ExclusiveScan's recursion (n ≥ 1). carries, when not empty,
// holds a buffer for the tile sums of each level of the recursion (at
// least ⌈n/scanTile⌉ elements for the first, and so on; see
// scanCarries), else they are allocated and freed here.
func scan(x *gpu.Int64s, n int64, withTotal bool, total *gpu.Int64s, carries ...*gpu.Int64s) error {
	dev := x.Device()
	tiles := (n + scanTile - 1) / scanTile
	var carry *gpu.Int64s
	if tiles > 1 {
		if len(carries) > 0 {
			carry, carries = carries[0], carries[1:]
		} else {
			var err error
			if carry, err = dev.AllocInt64s(int(tiles)); err != nil {
				return fmt.Errorf("transform: ExclusiveScan: %w", err)
			}
			defer carry.Free()
		}
		if err := launch(dev, "gt_scan_reduce", int(tiles), x, n, carry); err != nil {
			return err
		}
		if err := scan(carry, tiles, false, nil, carries...); err != nil {
			return err
		}
	}
	return launch(dev, "gt_scan_down", int(tiles), x, x, n, carry, withTotal, total)
}

// scanCarries allocates in mem the buffers scan needs for the tile sums
// of a scan of up to n elements, one per level of its recursion.
func scanCarries(mem *gpu.Allocations, n int64) ([]*gpu.Int64s, error) {
	var out []*gpu.Int64s
	for tiles := (n + scanTile - 1) / scanTile; tiles > 1; tiles = (tiles + scanTile - 1) / scanTile {
		c, err := mem.AllocInt64s(int(tiles))
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// SortPairs sorts the (key, value) pairs of keys and vals (of one length)
// by key, stably (equal keys keep their order), looking only at the low
// bits bits of the keys (1..64; higher bits are ignored). It is a
// least-significant-digit radix sort over the span of bits on which the
// keys differ (found first, in one pass over the keys), split into digits
// of at most 8 bits, one pass each — 4 passes for keys that differ in 32
// bits, 3 for 22, 6 for 48. A pass counts the digits of each tile of 4096
// keys (the first pass reads the keys, the others a byte per key that the
// pass before wrote), then moves the keys and values, reading and writing
// each once. Scratch is 13 bytes per pair plus 2 KiB per 4096 pairs
// (SortScratchBytes), allocated and freed per call (a Sorter keeps it).
// The result is deterministic. It returns an error for bad arguments, on
// the host device and for a device error.
func SortPairs(keys *gpu.Uint64s, vals *gpu.Uint32s, bits int) error {
	if keys == nil {
		return errors.New("transform: SortPairs: nil keys")
	}
	s := NewSorter(keys.Device())
	return errors.Join(s.Sort(keys, vals, bits), s.Free())
}

// SortScratchBytes is the device memory a sort of n keys with values of
// valueBytes bytes each (0, 4 or 8) allocates besides its arguments: a
// key, a value and a digit byte per pair, the digit counters of its tiles
// and their scan's carries.
func SortScratchBytes(n int64, valueBytes int) int64 {
	tiles := (n + radixTile - 1) / radixTile
	counters := (radixDigits*tiles + 1) * 8
	return n*(9+int64(valueBytes)) + counters + counters/(scanTile-1) + 16
}

// Sorter is SortPairs with its scratch buffers kept across calls (a sort
// of more pairs, or of wider values, than the scratch holds reallocates
// it), for a caller that sorts several times; its methods sort keys with
// values of several types by the same passes. Free releases the scratch.
// A Sorter is not safe for concurrent use.
type Sorter struct {
	dev *gpu.Device
	mem *gpu.Allocations
	// n and words are the pairs and the 4-byte words of values per pair
	// the scratch holds.
	n, words int64
	keys     *gpu.Uint64s
	vals     *gpu.Uint32s
	hist     *gpu.Int64s
	carries  []*gpu.Int64s // the tile sums of hist's scan, per level
	digits   *gpu.Uint8s   // each key's digit of the next pass
	diff     *gpu.Uint64s
	result   []uint64
}

// NewSorter returns a Sorter for buffers on dev.
func NewSorter(dev *gpu.Device) *Sorter { return &Sorter{dev: dev} }

// Free releases the scratch buffers; the Sorter may be used again.
func (s *Sorter) Free() error {
	err := s.mem.Free()
	s.mem, s.n, s.words = nil, -1, 0
	return err
}

// Reserve allocates the scratch for sorting up to n keys with values of
// valueBytes bytes each (0, 4 or 8) now, SortScratchBytes(n,
// valueBytes), so that the sorts that follow allocate nothing. It returns
// an error for bad arguments, on the host device and when the device
// cannot allocate the scratch.
func (s *Sorter) Reserve(n int64, valueBytes int) error {
	if n < 0 || valueBytes%4 != 0 || valueBytes < 0 || valueBytes > 8 {
		return fmt.Errorf("transform: Sorter.Reserve of %d keys with %d-byte values: want n ≥ 0 and values of 0, 4 or 8 bytes", n, valueBytes)
	}
	if s.dev == nil || s.dev.IsHost() {
		return errHost
	}
	if err := s.scratch(max(n, 1), int64(valueBytes/4)); err != nil {
		return fmt.Errorf("transform: Sorter.Reserve: %w", err)
	}
	return nil
}

// scratch makes sure the scratch buffers hold n pairs of words-word
// values. When an allocation fails the Sorter is left empty (the next
// sort allocates afresh), never half made.
func (s *Sorter) scratch(n, words int64) error {
	if s.mem != nil && s.n >= n && s.words >= words {
		return nil
	}
	if s.mem != nil { // grow, never shrink
		n, words = max(n, s.n), max(words, s.words)
	}
	if err := s.Free(); err != nil {
		return err
	}
	if err := s.allocate(n, words); err != nil {
		return errors.Join(err, s.Free())
	}
	return nil
}

// allocate makes the scratch buffers for n pairs of words-word values.
func (s *Sorter) allocate(n, words int64) error {
	s.mem, s.n, s.words = gpu.NewAllocations(s.dev), n, words
	tiles := (n + radixTile - 1) / radixTile
	var err error
	if s.keys, err = s.mem.AllocUint64s(int(n)); err != nil {
		return err
	}
	if s.vals, err = s.mem.AllocUint32s(int(n * words)); err != nil {
		return err
	}
	if s.hist, err = s.mem.AllocInt64s(int(radixDigits*tiles + 1)); err != nil {
		return err
	}
	if s.carries, err = scanCarries(s.mem, radixDigits*tiles); err != nil {
		return err
	}
	if s.digits, err = s.mem.AllocUint8s(int(n)); err != nil {
		return err
	}
	s.diff, err = s.mem.AllocUint64s(1)
	return err
}

// Sort is SortPairs with the Sorter's scratch.
func (s *Sorter) Sort(keys *gpu.Uint64s, vals *gpu.Uint32s, bits int) error {
	if vals == nil {
		return errors.New("transform: SortPairs: nil keys or values")
	}
	return s.sort("SortPairs", keys, vals, vals.Len(), vals.Device(), 1, bits)
}

// SortKeys sorts keys alone as Sort sorts pairs (the low bits bits, 1..64).
func (s *Sorter) SortKeys(keys *gpu.Uint64s, bits int) error {
	if keys == nil {
		return errors.New("transform: SortKeys: nil keys")
	}
	return s.sort("SortKeys", keys, nil, keys.Len(), keys.Device(), 0, bits)
}

// SortFloat32s sorts the (key, float32) pairs of keys and vals as Sort
// sorts (key, uint32) pairs; the values travel bit for bit.
func (s *Sorter) SortFloat32s(keys *gpu.Uint64s, vals *gpu.Float32s, bits int) error {
	if vals == nil {
		return errors.New("transform: SortFloat32s: nil values")
	}
	return s.sort("SortFloat32s", keys, vals, vals.Len(), vals.Device(), 1, bits)
}

// SortFloat64s sorts the (key, float64) pairs of keys and vals as Sort
// sorts (key, uint32) pairs; the values travel bit for bit. Scratch: 17
// bytes per pair and the counters (SortScratchBytes).
func (s *Sorter) SortFloat64s(keys *gpu.Uint64s, vals *gpu.Float64s, bits int) error {
	if vals == nil {
		return errors.New("transform: SortFloat64s: nil values")
	}
	return s.sort("SortFloat64s", keys, vals, vals.Len(), vals.Device(), 2, bits)
}

// sort sorts keys with the values vals (a device buffer of nvals
// elements of words 4-byte words each, on vdev; words 0: none).
func (s *Sorter) sort(op string, keys *gpu.Uint64s, vals any, nvals int, vdev *gpu.Device, words int64, bits int) error {
	if keys == nil {
		return fmt.Errorf("transform: %s: nil keys", op)
	}
	n := int64(keys.Len())
	if (words > 0 && int64(nvals) != n) || bits < 1 || bits > 64 {
		return fmt.Errorf("transform: %s: %d keys, %d values, %d bits: want as many values as keys and 1 to 64 bits", op, n, nvals, bits)
	}
	if keys.Device() != s.dev || vdev != s.dev {
		return fmt.Errorf("transform: %s: the keys or values are on another device than the Sorter's", op)
	}
	if s.dev == nil || s.dev.IsHost() {
		return errHost
	}
	if n < 2 {
		return nil
	}
	if err := s.scratch(n, words); err != nil {
		return fmt.Errorf("transform: %s: %w", op, err)
	}
	vary, err := s.varyingBits(keys, n)
	if err != nil {
		return fmt.Errorf("transform: %s: %w", op, err)
	}
	if bits < 64 {
		vary &= 1<<bits - 1
	}
	dev := s.dev
	scatter, vout := "gt_radix_scatter32", any(s.vals)
	switch words {
	case 0:
		vals, vout = (*gpu.Uint32s)(nil), (*gpu.Uint32s)(nil)
	case 2:
		scatter = "gt_radix_scatter64"
	}
	tiles := (n + radixTile - 1) / radixTile
	srcK, srcV, dstK, dstV := keys, vals, s.keys, vout
	passes := digits(vary)
	for p, d := range passes {
		// The first pass counts the keys' digits, the others the digit
		// bytes the pass before wrote.
		var err error
		if p == 0 {
			err = launch(dev, "gt_radix_hist", int(tiles), srcK, n, d.shift, d.width, s.hist, int(tiles))
		} else {
			err = launch(dev, "gt_radix_hist8", int(tiles), s.digits, n, d.width, s.hist, int(tiles))
		}
		if err != nil {
			return err
		}
		if err := scan(s.hist, tiles<<d.width, false, nil, s.carries...); err != nil {
			return err
		}
		next, dout := digit{}, (*gpu.Uint8s)(nil)
		if p+1 < len(passes) {
			next, dout = passes[p+1], s.digits
		}
		err = launch(dev, scatter, int(tiles), srcK, srcV, dstK, dstV, n, d.shift, d.width, s.hist, int(tiles), dout, next.shift, next.width)
		if err != nil {
			return err
		}
		srcK, srcV, dstK, dstV = dstK, dstV, srcK, srcV
	}
	if srcK == keys {
		return nil
	}
	// An odd number of passes left the result in the scratch (which may
	// be longer than n): copy it back.
	if err := launch(dev, "gt_copy_words", blocks(2*n), s.keys, keys, 2*n); err != nil {
		return err
	}
	if words > 0 {
		return launch(dev, "gt_copy_words", blocks(n*words), s.vals, vals, n*words)
	}
	return nil
}

// varyingBits returns the bits on which some of the n keys differ from
// the first.
func (s *Sorter) varyingBits(keys *gpu.Uint64s, n int64) (uint64, error) {
	if err := s.diff.Fill(0); err != nil {
		return 0, err
	}
	if err := launch(s.dev, "gt_key_diff", min(diffBlocks, blocks(n)), keys, n, s.diff); err != nil {
		return 0, err
	}
	if s.result == nil {
		s.result = make([]uint64, 1)
	}
	if err := s.diff.Download(s.result); err != nil {
		return 0, err
	}
	return s.result[0], nil
}

// digit is one pass of the radix sort: the width bits at shift.
type digit struct{ shift, width int }

// digits splits the span of vary (from its lowest to its highest set bit)
// into the fewest digits of at most radixBits bits, of nearly equal
// widths, leaving out those on which no key differs (vary 0: none).
func digits(vary uint64) []digit {
	if vary == 0 {
		return nil
	}
	lo, hi := bits.TrailingZeros64(vary), 64-bits.LeadingZeros64(vary)
	passes := (hi - lo + radixBits - 1) / radixBits
	var out []digit
	for p := range passes {
		shift := lo + p*(hi-lo)/passes
		width := lo + (p+1)*(hi-lo)/passes - shift
		if (vary>>shift)&(1<<width-1) != 0 {
			out = append(out, digit{shift, width})
		}
	}
	return out
}
