package graph

import (
	"fmt"
	"math"
	"slices"
	"sync/atomic"

	"github.com/graphnb/graphnb/internal/par"
)

// This file holds the SSSP study's edge permutation (docs/studies.md §1,
// the "cache" switch: edges permuted for L2 locality).
//
// Vocabulary. With a segment size P, vertex v lies in segment v/P; a graph
// of N vertices has N/P+1 segments (the study's count; the last may be
// empty). The tile of an edge is the pair (segment of End, segment of
// Start): the two segments of dist one thread reads. An end group is the
// run of edges sharing the segment of End.

// SegmentSizeFor returns a segment size P (elements) for a cache of
// cacheBytes bytes holding elemBytes-byte dist entries (8 for the studies'
// doubles, 1 for BFS levels): the largest P such that three segments fit,
// which is what a window of edges spanning two tiles of one end group
// reads (see PermuteCOO). Pass the L2 size, or the share of it the kernel
// may use. The GTX Titan of the study (1.5 MiB L2, doubles) gives
// P = 65,536. The result is at least 1 and at most 2^31−1.
func SegmentSizeFor(cacheBytes int64, elemBytes int) (int, error) {
	if cacheBytes <= 0 || elemBytes <= 0 {
		return 0, fmt.Errorf("graph: segment size needs a positive cache size and element size, got %d bytes and %d bytes per element", cacheBytes, elemBytes)
	}
	p := cacheBytes / (3 * int64(elemBytes))
	return int(min(max(p, 1), math.MaxInt32)), nil
}

// PermuteCOO returns a copy of c with its edges reordered for the SSSP
// study's "cache" switch (docs/studies.md §1): grouped by the
// segment of their End vertex (End/p) in increasing order, and inside a
// group ordered by the segment of their Start vertex (0, 1, 2, …). Edges of
// one tile keep their relative order from c, so the result is
// deterministic. Every edge of c appears exactly once, with its weight.
//
// Orientation. Each undirected pair is stored once and the kernel relaxes
// both directions, so the orientation is free; PermuteCOO stores every
// edge with Start ≤ End (as UndirectedCOO does: its edges keep their
// orientation). Then the tile (segment of End, segment of Start) lies on or
// below the diagonal: the two tiles (a, b) and (b, a) of an unoriented
// order become one, so there are about half as many tiles to sweep.
//
// Guarantee (checked by CheckSegmentOrder, measured by SegmentsTouched):
//  1. Start ≤ End for every edge, hence segment(Start) ≤ segment(End).
//  2. Tiles never decrease along the array in (end segment, start segment)
//     order, so every tile and every end group is one contiguous run and
//     a sweep makes the fewest tile changes any order can: one per
//     non-empty tile.
//
// What a window of consecutive edges (a warp, a block, the edges in flight
// on the whole GPU) reads follows from it: a window inside one tile reads
// at most 2 segments of dist; a window that meets two tiles of one end
// group reads at most 3 (the study's "at most 3 segments"), and so does one
// that passes from a group into the next when the first group ends on its
// diagonal tile (Start and End in the same segment); otherwise such a
// window reads at most 4. A window meeting k tiles of one end group reads at most
// k+1 segments. The bound of 3 therefore holds for windows no longer than
// the tiles they cross: choose P so that three segments fit in L2
// (SegmentSizeFor) and tiles stay larger than the kernel's wave of edges;
// on sparse graphs with small P many tiles are short and windows read more,
// which SegmentsTouched reports.
//
// PermuteCOO returns an error for p < 1, for a malformed COO (ids outside
// [0, N), mismatched lengths) and when interrupted (cancel.Check, polled
// passes). Work is O(M + N/p), spread over all cores: one stable counting
// sort by tile when there are at most 361 segments (65,536 tiles), else
// two stable counting-sort passes (start segment, then end segment).
// Scratch memory is about 16 bytes per edge besides the result.
func PermuteCOO(c *COO, p int) (*COO, error) {
	out, _, err := permuteCOO(c, p, "PermuteCOO")
	return out, err
}

// PermuteCOOIndex is PermuteCOO that also returns the permutation: edge k
// of the result is edge index[k] of c, with Start and End exchanged when
// c.Start[index[k]] > c.End[index[k]]. Results computed per edge on the
// permuted COO map back with orig[index[k]] = res[k]; per-vertex results
// (distances, levels) need no mapping.
func PermuteCOOIndex(c *COO, p int) (*COO, []int64, error) {
	return permuteCOO(c, p, "PermuteCOOIndex")
}

// numSegments is the study's (N/P)+1.
func numSegments(n, p int) int { return n/p + 1 }

func permuteCOO(c *COO, p int, op string) (*COO, []int64, error) {
	if err := checkSegmentArgs(c, p, op); err != nil {
		return nil, nil, err
	}
	m := len(c.Start)
	segs := numSegments(c.N, p)
	// ends returns the edge's segments, oriented Start ≤ End.
	ends := func(e int64) (lo, hi int) {
		a, b := c.Start[e], c.End[e]
		if a > b {
			a, b = b, a
		}
		return int(a) / p, int(b) / p
	}
	var idx []int64
	var err error
	if tiles := uint64(segs) * uint64(segs+1) / 2; tiles <= 1<<16 {
		// One pass keyed by the tile's index in (end, start) order among
		// the tiles on or below the diagonal.
		idx, err = stableCountingOrder(m, int(tiles), func(e int64) int {
			s, t := ends(e)
			return t*(t+1)/2 + s
		}, nil)
	} else {
		// Least significant key first: by start segment, then stably by
		// end segment.
		idx, err = stableCountingOrder(m, segs, func(e int64) int { s, _ := ends(e); return s }, nil)
		if err == nil {
			idx, err = stableCountingOrder(m, segs, func(e int64) int { _, t := ends(e); return t }, idx)
		}
	}
	if err != nil {
		return nil, nil, fmt.Errorf("graph: %s: %w", op, err)
	}
	out := &COO{N: c.N, Start: make([]int32, m), End: make([]int32, m)}
	if c.Weights != nil {
		out.Weights = make([]float32, m)
	}
	if c.Weights64 != nil {
		out.Weights64 = make([]float64, m)
	}
	err = par.For(m, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			e := idx[k]
			a, b := c.Start[e], c.End[e]
			if a > b {
				a, b = b, a
			}
			out.Start[k], out.End[k] = a, b
			if out.Weights != nil {
				out.Weights[k] = c.Weights[e]
			}
			if out.Weights64 != nil {
				out.Weights64[k] = c.Weights64[e]
			}
		}
	})
	if err != nil {
		return nil, nil, fmt.Errorf("graph: %s: %w", op, err)
	}
	return out, idx, nil
}

// checkSegmentArgs validates a COO and a segment size.
func checkSegmentArgs(c *COO, p int, op string) error {
	if c == nil {
		return fmt.Errorf("graph: %s: the COO is nil", op)
	}
	if p < 1 {
		return fmt.Errorf("graph: %s: segment size P = %d must be at least 1 (SegmentSizeFor picks one from the L2 size)", op, p)
	}
	m := len(c.Start)
	switch {
	case c.N < 0 || c.N >= math.MaxInt32:
		return fmt.Errorf("graph: %s: COO has %d vertices, outside [0, 2^31-1)", op, c.N)
	case len(c.End) != m:
		return fmt.Errorf("graph: %s: COO has %d Start entries but %d End entries", op, m, len(c.End))
	case c.Weights != nil && c.Weights64 != nil:
		return fmt.Errorf("graph: %s: COO has both float32 and float64 weights", op)
	case c.Weights != nil && len(c.Weights) != m:
		return fmt.Errorf("graph: %s: COO has %d edges but %d weights", op, m, len(c.Weights))
	case c.Weights64 != nil && len(c.Weights64) != m:
		return fmt.Errorf("graph: %s: COO has %d edges but %d weights", op, m, len(c.Weights64))
	}
	var bad atomic.Int64
	bad.Store(math.MaxInt64)
	n := int32(c.N)
	err := par.For(m, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			if s, e := c.Start[k], c.End[k]; s < 0 || s >= n || e < 0 || e >= n {
				atomicMinInt64(&bad, int64(k))
				return
			}
		}
	})
	if err != nil {
		return fmt.Errorf("graph: %s: %w", op, err)
	}
	if k := bad.Load(); k != math.MaxInt64 {
		return fmt.Errorf("graph: %s: edge %d (%d–%d) names a vertex outside [0,%d)", op, k, c.Start[k], c.End[k], c.N)
	}
	return nil
}

// stableCountingOrder returns the elements 0…m−1 (or in[0…m−1] when in is
// not nil) stably ordered by key(element) ∈ [0, buckets). It counts per
// chunk of the input, so the order does not depend on the core count.
// It returns cancel's error when interrupted.
func stableCountingOrder(m, buckets int, key func(e int64) int, in []int64) ([]int64, error) {
	out := make([]int64, m)
	if m == 0 {
		return out, nil
	}
	elem := func(j int) int64 { return int64(j) }
	if in != nil {
		elem = func(j int) int64 { return in[j] }
	}
	// Chunks: enough for the cores, few enough that the per-chunk counts
	// (chunks × buckets) stay within about one entry per element.
	chunks := min(4*par.Workers(), max(1, m/4096), max(1, (m+1<<16)/buckets))
	size := (m + chunks - 1) / chunks
	chunks = (m + size - 1) / size
	count := make([]int64, chunks*buckets)
	err := par.ForChunks(m, size, func(ch, lo, hi int) {
		h := count[ch*buckets : (ch+1)*buckets]
		for j := lo; j < hi; j++ {
			if par.Cancelled(j) {
				return
			}
			h[key(elem(j))]++
		}
	})
	if err != nil {
		return nil, err
	}
	// Exclusive prefix in (bucket, chunk) order, in parallel over bucket
	// ranges: first the bucket totals, then each chunk's start.
	total := make([]int64, buckets)
	err = par.For(buckets, func(lo, hi int) {
		for ch := range chunks {
			h := count[ch*buckets : (ch+1)*buckets]
			for b := lo; b < hi; b++ {
				total[b] += h[b]
			}
		}
	})
	if err != nil {
		return nil, err
	}
	var sum int64
	for b, t := range total {
		total[b] = sum
		sum += t
	}
	err = par.For(buckets, func(lo, hi int) {
		for ch := range chunks {
			h := count[ch*buckets : (ch+1)*buckets]
			for b := lo; b < hi; b++ {
				h[b], total[b] = total[b], total[b]+h[b]
			}
		}
	})
	if err != nil {
		return nil, err
	}
	err = par.ForChunks(m, size, func(ch, lo, hi int) {
		h := count[ch*buckets : (ch+1)*buckets]
		for j := lo; j < hi; j++ {
			if par.Cancelled(j) {
				return
			}
			e := elem(j)
			b := key(e)
			out[h[b]] = e
			h[b]++
		}
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// segmentTile packs edge k's tile as end segment << 32 | start segment, so
// tiles compare in (end, start) order.
func segmentTile(c *COO, p, k int) uint64 {
	return uint64(int(c.End[k])/p)<<32 | uint64(int(c.Start[k])/p)
}

// CheckSegmentOrder reports whether c is in the order PermuteCOO(c, p)
// guarantees: Start ≤ End for every edge, and tiles (segment of End,
// segment of Start) never decreasing along the array. The error names the
// first edge that breaks it. Work is O(M), parallel.
func CheckSegmentOrder(c *COO, p int) error {
	if err := checkSegmentArgs(c, p, "CheckSegmentOrder"); err != nil {
		return err
	}
	m := len(c.Start)
	tile := func(k int) uint64 { return segmentTile(c, p, k) }
	var bad atomic.Int64
	bad.Store(math.MaxInt64)
	err := par.For(m, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			if c.Start[k] > c.End[k] || (k > 0 && tile(k) < tile(k-1)) {
				atomicMinInt64(&bad, int64(k))
				return
			}
		}
	})
	if err != nil {
		return fmt.Errorf("graph: CheckSegmentOrder: %w", err)
	}
	k := bad.Load()
	if k == math.MaxInt64 {
		return nil
	}
	if c.Start[k] > c.End[k] {
		return fmt.Errorf("graph: edge %d is stored as %d–%d with Start > End; PermuteCOO stores Start ≤ End", k, c.Start[k], c.End[k])
	}
	t, u := tile(int(k)), tile(int(k)-1)
	return fmt.Errorf("graph: edge %d (%d–%d) in tile (end segment %d, start segment %d) follows edge %d in tile (%d, %d): tiles must not decrease (use PermuteCOO with P = %d)",
		k, c.Start[k], c.End[k], t>>32, uint32(t), k-1, u>>32, uint32(u), p)
}

// SegmentReport measures how many segments of dist the windows of a COO
// read: the quantity the SSSP study's permutation (docs/studies.md §1) keeps
// small. See SegmentsTouched.
type SegmentReport struct {
	// SegmentSize is P in vertices; Segments is N/P+1.
	SegmentSize, Segments int
	// Window is the number of consecutive edges per window; Windows is
	// the number of windows, ceil(M/Window).
	Window, Windows int
	// MaxSegments is the most distinct segments one window reads, and
	// MeanSegments the mean over windows.
	MaxSegments  int
	MeanSegments float64
	// AtMost3 counts the windows that read at most 3 segments.
	AtMost3 int
	// Tiles is the number of distinct (end segment, start segment) pairs
	// of the edges as stored; TileRuns the number of maximal runs of
	// consecutive edges in one tile. TileRuns == Tiles exactly when every
	// tile is contiguous, as after PermuteCOO.
	Tiles, TileRuns int64
}

// String renders the report in one line.
func (r SegmentReport) String() string {
	return fmt.Sprintf("P=%d (%d segments), windows of %d edges: %d windows read %.2f segments on average, at most %d; %.1f%% read ≤ 3; %d tiles in %d runs",
		r.SegmentSize, r.Segments, r.Window, r.Windows, r.MeanSegments, r.MaxSegments,
		100*float64(r.AtMost3)/float64(max(r.Windows, 1)), r.Tiles, r.TileRuns)
}

// SegmentsTouched cuts c into aligned windows of window consecutive edges
// ([0, W), [W, 2W), …: the warps or blocks of the kernel, one thread per
// edge) and counts the distinct segments of size p that each window's
// edges read (the segments of Start and End). It works on any COO, so the
// same report compares an order before and after PermuteCOO.
//
// It returns an error for p < 1, window < 1 or a malformed COO. Work is
// O(M log window) for the windows plus a parallel O(M log M) sort to count
// distinct tiles; scratch memory is 8 bytes per edge.
func SegmentsTouched(c *COO, p, window int) (SegmentReport, error) {
	if err := checkSegmentArgs(c, p, "SegmentsTouched"); err != nil {
		return SegmentReport{}, err
	}
	if window < 1 {
		return SegmentReport{}, fmt.Errorf("graph: SegmentsTouched: window of %d edges must be at least 1", window)
	}
	m := len(c.Start)
	r := SegmentReport{SegmentSize: p, Segments: numSegments(c.N, p), Window: window, Windows: (m + window - 1) / window}
	if m == 0 {
		return r, nil
	}
	// Windows, in fixed chunks of windows so the sums are deterministic.
	perChunk := max(1, (1<<16)/window)
	chunks := (r.Windows + perChunk - 1) / perChunk
	sums := make([]int64, chunks)
	maxs := make([]int, chunks)
	small := make([]int, chunks)
	err := par.ForChunks(r.Windows, perChunk, func(ch, wlo, whi int) {
		buf := make([]int32, 0, 2*window)
		for w := wlo; w < whi; w++ {
			buf = buf[:0]
			for k := w * window; k < min(m, (w+1)*window); k++ {
				buf = append(buf, int32(int(c.Start[k])/p), int32(int(c.End[k])/p))
			}
			slices.Sort(buf)
			d := len(slices.Compact(buf))
			sums[ch] += int64(d)
			maxs[ch] = max(maxs[ch], d)
			if d <= 3 {
				small[ch]++
			}
		}
	})
	if err != nil {
		return SegmentReport{}, fmt.Errorf("graph: SegmentsTouched: %w", err)
	}
	var sum int64
	for ch := range chunks {
		sum += sums[ch]
		r.MaxSegments = max(r.MaxSegments, maxs[ch])
		r.AtMost3 += small[ch]
	}
	r.MeanSegments = float64(sum) / float64(r.Windows)
	// Tiles: runs directly, distinct ones by sorting the keys.
	tile := func(k int) uint64 { return segmentTile(c, p, k) }
	keys := make([]uint64, m)
	var runs atomic.Int64
	err = par.For(m, func(lo, hi int) {
		var n int64
		for k := lo; k < hi; k++ {
			keys[k] = tile(k)
			if k == 0 || keys[k] != tile(k-1) {
				n++
			}
		}
		runs.Add(n)
	})
	if err != nil {
		return SegmentReport{}, fmt.Errorf("graph: SegmentsTouched: %w", err)
	}
	r.TileRuns = runs.Load()
	if err := sortUint64s(keys); err != nil {
		return SegmentReport{}, fmt.Errorf("graph: SegmentsTouched: %w", err)
	}
	distinct, err := dedupSorted(keys)
	if err != nil {
		return SegmentReport{}, fmt.Errorf("graph: SegmentsTouched: %w", err)
	}
	r.Tiles = int64(len(distinct))
	return r, nil
}
