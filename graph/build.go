package graph

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sync/atomic"

	"github.com/graphnb/graphnb/internal/membudget"
	"github.com/graphnb/graphnb/internal/par"
)

// EdgeList is a list of edges Src[i]→Dst[i] over the vertices [0, N), with
// optional weights parallel to Src (at most one of Weights and Weights64).
type EdgeList struct {
	N         int
	Src, Dst  []int32
	Weights   []float32
	Weights64 []float64
}

// Len returns the number of edges in the list.
func (el *EdgeList) Len() int { return len(el.Src) }

// BuildOptions selects how Build reads an edge list. The zero value builds
// a directed graph.
type BuildOptions struct {
	// Symmetrize stores both arcs of every edge and marks the graph
	// undirected: the right choice for the studies' R-MAT and SSCA#2 graphs.
	Symmetrize bool
}

// Build makes a CSR from an edge list. It removes self-loops, and merges
// duplicate arcs keeping the minimum weight (with Symmetrize, u→v and v→u
// of one pair end up with the same, minimum, weight). Neighbour lists come
// out sorted by vertex id. The result does not depend on the core count.
//
// Work is O(M + N) plus the sort of each neighbour list, spread over all
// cores; memory is 8 bytes per arc of scratch (16 with float64 weights) on
// top of the result. Build returns an error for a vertex id outside [0, N),
// mismatched slice lengths, NaN weights, or a graph too large for int32 ids,
// and cancel's error when interrupted (it polls cancel.Check throughout).
func Build(el EdgeList, opt BuildOptions) (*CSR, error) {
	if err := checkEdgeList(&el); err != nil {
		return nil, err
	}
	need := BuildBytes(el.N, int64(el.Len()), opt.Symmetrize)
	if err := membudget.Check(fmt.Sprintf("graph: building a CSR from %d edges over %d vertices", el.Len(), el.N), need); err != nil {
		return nil, err
	}
	var g *CSR
	var err error
	switch {
	case el.Weights64 != nil:
		g, err = build64(&el, opt)
	case el.Weights == nil:
		g, err = buildPlain(&el, opt)
	default:
		g, err = build32(&el, opt)
	}
	if err != nil {
		return nil, fmt.Errorf("graph: building a CSR: %w", err)
	}
	return g, nil
}

// BuildBytes returns about how many bytes Build needs at its peak, on top
// of the edge list it is given, for m edges over n vertices: 28 per arc
// (two arcs per edge with symmetrize) for its scratch and the result, and
// 24 per vertex. Build refuses, with an error that gives both figures, an
// edge list whose BuildBytes exceed the memory available. (R-MAT at
// scales 20 and 22 peaks at 68 bytes per generated edge: the 12 of the
// edge list with float32 weights, plus these 56.)
func BuildBytes(n int, m int64, symmetrize bool) int64 {
	arcs := m
	if symmetrize {
		arcs = membudget.Bytes(m, 2)
	}
	return membudget.Bytes(arcs, 28, int64(n), 24)
}

func checkEdgeList(el *EdgeList) error {
	m := len(el.Src)
	switch {
	case el.N < 0 || el.N >= math.MaxInt32:
		return fmt.Errorf("graph: %d vertices is outside [0, 2^31-1)", el.N)
	case len(el.Dst) != m:
		return fmt.Errorf("graph: edge list has %d sources but %d destinations", m, len(el.Dst))
	case el.Weights != nil && el.Weights64 != nil:
		return fmt.Errorf("graph: edge list has both float32 and float64 weights")
	case el.Weights != nil && len(el.Weights) != m:
		return fmt.Errorf("graph: edge list has %d edges but %d weights", m, len(el.Weights))
	case el.Weights64 != nil && len(el.Weights64) != m:
		return fmt.Errorf("graph: edge list has %d edges but %d weights", m, len(el.Weights64))
	}
	var bad atomic.Int64
	bad.Store(-1)
	n := int32(el.N)
	err := par.For(m, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			s, d := el.Src[i], el.Dst[i]
			nan := (el.Weights != nil && el.Weights[i] != el.Weights[i]) ||
				(el.Weights64 != nil && el.Weights64[i] != el.Weights64[i])
			if s < 0 || s >= n || d < 0 || d >= n || nan {
				bad.CompareAndSwap(-1, int64(i))
				return
			}
		}
	})
	if err != nil {
		return fmt.Errorf("graph: checking an edge list: %w", err)
	}
	if i := bad.Load(); i >= 0 {
		s, d := el.Src[i], el.Dst[i]
		if s < 0 || s >= n || d < 0 || d >= n {
			return fmt.Errorf("graph: edge %d (%d→%d) names a vertex outside [0,%d)", i, s, d, el.N)
		}
		return fmt.Errorf("graph: edge %d (%d→%d) has a NaN weight", i, s, d)
	}
	return nil
}

// countArcs returns the offsets of the arcs the edge list produces per
// source vertex, before duplicates are removed.
func countArcs(el *EdgeList, symmetrize bool) ([]int64, error) {
	deg := make([]int64, el.N+1)
	err := par.For(len(el.Src), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			atomic.AddInt64(&deg[el.Src[i]], 1)
			if symmetrize {
				atomic.AddInt64(&deg[el.Dst[i]], 1)
			}
		}
	})
	if err != nil {
		return nil, err
	}
	var sum int64
	for v, d := range deg {
		deg[v] = sum
		sum += d
	}
	return deg, nil
}

// orderedBits maps a float32 to a uint32 whose unsigned order is the
// float's numeric order (NaN excluded).
func orderedBits(f float32) uint32 {
	b := math.Float32bits(f)
	if b>>31 != 0 {
		return ^b
	}
	return b | 1<<31
}

// fromOrderedBits inverts orderedBits.
func fromOrderedBits(b uint32) float32 {
	if b>>31 != 0 {
		return math.Float32frombits(b &^ (1 << 31))
	}
	return math.Float32frombits(^b)
}

// build32 handles unweighted and float32 graphs: each arc is one uint64
// key (head << 32 | ordered weight bits), so sorting a list by key orders
// it by head and, within a head, by weight; the first of a run of equal
// heads is the minimum-weight duplicate.
func build32(el *EdgeList, opt BuildOptions) (*CSR, error) {
	n := el.N
	start, keys, err := groupBySource(el, opt.Symmetrize)
	if err != nil {
		return nil, err
	}
	// Sort and deduplicate each list in place; kept[v] is its new length
	// until prefixSum turns kept into the result's offsets.
	kept := make([]int64, n+1)
	headBits := bits.Len(uint(max(n-1, 1)))
	err = par.ForWeighted(start, func(lo, hi int) {
		var scratch []uint64
		for v := lo; v < hi; v++ {
			seg := keys[start[v]:start[v+1]]
			switch {
			case len(seg) > radixMin:
				if cap(scratch) < len(seg) {
					scratch = make([]uint64, len(seg))
				}
				radixSortByHead(seg, scratch[:len(seg)], headBits)
			case len(seg) > 1:
				slices.Sort(seg)
			}
			// Keep the first arc of each head, lowered to the minimum
			// weight of its run (the radix sort orders by head only).
			w := 0
			last := int64(-1)
			for _, k := range seg {
				h := int64(k >> 32)
				switch {
				case h == int64(v):
				case h == last:
					if uint32(k) < uint32(seg[w-1]) {
						seg[w-1] = k
					}
				default:
					seg[w] = k
					w++
					last = h
				}
			}
			kept[v] = int64(w)
		}
	})
	if err != nil {
		return nil, err
	}
	g := &CSR{Offsets: prefixSum(kept), Directed: !opt.Symmetrize}
	m := g.Offsets[n]
	g.Adj = make([]int32, m)
	weighted := el.Weights != nil
	if weighted {
		g.Weights = make([]float32, m)
	}
	err = par.ForWeighted(g.Offsets, func(lo, hi int) {
		for v := lo; v < hi; v++ {
			dst := g.Offsets[v]
			src := keys[start[v] : start[v]+g.Offsets[v+1]-dst]
			for j, k := range src {
				g.Adj[dst+int64(j)] = int32(k >> 32)
			}
			if weighted {
				for j, k := range src {
					g.Weights[dst+int64(j)] = fromOrderedBits(uint32(k))
				}
			}
		}
	})
	if err != nil {
		return nil, err
	}
	return g, nil
}

// radixMin is the list length above which build32 sorts by radix instead
// of by comparison.
const radixMin = 128

// radixDigit is the digit width of radixSortByHead in bits.
const radixDigit = 11

// radixSortByHead sorts keys by their upper 32 bits (the head vertex id,
// below 2^headBits) with an LSD radix sort, using scratch (same length) as
// the second buffer. The order among equal heads is unspecified.
func radixSortByHead(keys, scratch []uint64, headBits int) {
	var count [1 << radixDigit]int
	src, dst := keys, scratch
	for shift := 32; shift < 32+headBits; shift += radixDigit {
		clear(count[:])
		for _, k := range src {
			count[(k>>shift)&(1<<radixDigit-1)]++
		}
		sum := 0
		for d, c := range count {
			count[d] = sum
			sum += c
		}
		for _, k := range src {
			d := (k >> shift) & (1<<radixDigit - 1)
			dst[count[d]] = k
			count[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &keys[0] {
		copy(keys, src)
	}
}

// bucketVertices is the number of consecutive source vertices that share a
// bucket in groupBySource: their cursors (8 bytes each) stay in L1 and
// the bucket's keys (about 32 per vertex) in L2.
const bucketVertices = 1 << 12

// groupBySource places every arc's key (head << 32 | ordered weight bits)
// in the list of its source vertex, and returns the lists' offsets (N+1)
// and the keys. Order within a list is unspecified. It works in two
// passes so that no pass writes to more places than the caches can hold:
// first arcs are partitioned into buckets of bucketVertices source
// vertices (per-chunk histograms, no atomics), then each bucket is placed
// by source on its own. It returns cancel's error when interrupted.
func groupBySource(el *EdgeList, symmetrize bool) (start []int64, keys []uint64, err error) {
	n, m := el.N, len(el.Src)
	buckets := (n + bucketVertices - 1) / bucketVertices
	if buckets == 0 {
		return make([]int64, n+1), nil, nil
	}
	key := func(i int, head int32) uint64 {
		if el.Weights == nil {
			return uint64(head) << 32
		}
		return uint64(head)<<32 | uint64(orderedBits(el.Weights[i]))
	}
	chunks := min(4*par.Workers(), max(1, m/minEdgesPerChunk))
	// hist[c*buckets+b]: arcs of chunk c that fall into bucket b, then the
	// position where chunk c writes its first arc of bucket b.
	hist := make([]int64, chunks*buckets)
	chunkRange := func(c int) (int, int) { return m * c / chunks, m * (c + 1) / chunks }
	err = par.ForChunks(chunks, 1, func(c, _, _ int) {
		h := hist[c*buckets : (c+1)*buckets]
		lo, hi := chunkRange(c)
		for i := lo; i < hi; i++ {
			if par.Cancelled(i) {
				return
			}
			h[el.Src[i]/bucketVertices]++
			if symmetrize {
				h[el.Dst[i]/bucketVertices]++
			}
		}
	})
	if err != nil {
		return nil, nil, err
	}
	bucketStart := make([]int64, buckets+1)
	var pos int64
	for b := range buckets {
		bucketStart[b] = pos
		for c := range chunks {
			cnt := hist[c*buckets+b]
			hist[c*buckets+b] = pos
			pos += cnt
		}
	}
	bucketStart[buckets] = pos
	srcs := make([]int32, pos)
	staged := make([]uint64, pos)
	err = par.ForChunks(chunks, 1, func(c, _, _ int) {
		at := hist[c*buckets : (c+1)*buckets]
		lo, hi := chunkRange(c)
		for i := lo; i < hi; i++ {
			if par.Cancelled(i) {
				return
			}
			s, d := el.Src[i], el.Dst[i]
			k := at[s/bucketVertices]
			srcs[k], staged[k] = s, key(i, d)
			at[s/bucketVertices] = k + 1
			if symmetrize {
				k = at[d/bucketVertices]
				srcs[k], staged[k] = d, key(i, s)
				at[d/bucketVertices] = k + 1
			}
		}
	})
	if err != nil {
		return nil, nil, err
	}
	hist = nil
	start = make([]int64, n+1)
	keys = make([]uint64, pos)
	err = par.ForWeighted(bucketStart, func(blo, bhi int) {
		for b := blo; b < bhi; b++ {
			first := b * bucketVertices
			last := min(first+bucketVertices, n)
			deg := start[first:last]
			for _, s := range srcs[bucketStart[b]:bucketStart[b+1]] {
				deg[int(s)-first]++
			}
			at := bucketStart[b]
			for v, d := range deg {
				deg[v] = at
				at += d
			}
			// deg[v] is now v's cursor; it ends at the next list's start.
			for k := bucketStart[b]; k < bucketStart[b+1]; k++ {
				v := int(srcs[k]) - first
				keys[deg[v]] = staged[k]
				deg[v]++
			}
			// shift cursors back to starts
			for v := len(deg) - 1; v > 0; v-- {
				deg[v] = deg[v-1]
			}
			deg[0] = bucketStart[b]
		}
	})
	if err != nil {
		return nil, nil, err
	}
	start[n] = pos
	return start, keys, nil
}

// minEdgesPerChunk is the least number of edges worth a chunk of its own
// in groupBySource.
const minEdgesPerChunk = 1 << 16

type arc64 struct {
	head int32
	w    float64
}

// build64 is build32 for float64 weights, sorting (head, weight) pairs.
func build64(el *EdgeList, opt BuildOptions) (*CSR, error) {
	start, err := countArcs(el, opt.Symmetrize)
	if err != nil {
		return nil, err
	}
	n := el.N
	arcs := make([]arc64, start[n])
	cursor := slices.Clone(start[:n])
	err = par.For(len(el.Src), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			s, d, w := el.Src[i], el.Dst[i], el.Weights64[i]
			arcs[atomic.AddInt64(&cursor[s], 1)-1] = arc64{d, w}
			if opt.Symmetrize {
				arcs[atomic.AddInt64(&cursor[d], 1)-1] = arc64{s, w}
			}
		}
	})
	if err != nil {
		return nil, err
	}
	cursor = nil
	kept := make([]int64, n+1)
	err = par.ForWeighted(start, func(lo, hi int) {
		for v := lo; v < hi; v++ {
			seg := arcs[start[v]:start[v+1]]
			slices.SortFunc(seg, func(a, b arc64) int {
				if c := cmp.Compare(a.head, b.head); c != 0 {
					return c
				}
				return cmp.Compare(a.w, b.w)
			})
			w := 0
			last := int32(-1)
			for _, a := range seg {
				if a.head == last || a.head == int32(v) {
					continue
				}
				seg[w] = a
				w++
				last = a.head
			}
			kept[v] = int64(w)
		}
	})
	if err != nil {
		return nil, err
	}
	g := &CSR{Offsets: prefixSum(kept), Directed: !opt.Symmetrize}
	m := g.Offsets[n]
	g.Adj = make([]int32, m)
	g.Weights64 = make([]float64, m)
	err = par.ForWeighted(g.Offsets, func(lo, hi int) {
		for v := lo; v < hi; v++ {
			dst := g.Offsets[v]
			for j, a := range arcs[start[v] : start[v]+g.Offsets[v+1]-dst] {
				g.Adj[dst+int64(j)] = a.head
				g.Weights64[dst+int64(j)] = a.w
			}
		}
	})
	if err != nil {
		return nil, err
	}
	return g, nil
}

// prefixSum turns counts (length N+1, last entry ignored) into offsets
// (length N+1, starting at 0), in place, and returns the slice.
func prefixSum(counts []int64) []int64 {
	var sum int64
	for v, c := range counts {
		counts[v] = sum
		sum += c
	}
	return counts
}
