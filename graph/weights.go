package graph

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sync/atomic"

	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/internal/par"
)

// SortByWeight returns a copy of g in which every neighbour list is ordered
// by arc weight, ascending, with equal weights ordered by vertex id: the
// MST study's "local sort" (docs/studies.md §3, input transformation 1), which lets
// a warp find a vertex's lightest arc to another tree by scanning its list
// from the front. The result is deterministic and shares no slice with g.
//
// An unweighted graph (every arc weighs 1) comes back with its lists sorted
// by id. Weights keep their exact values, except that a float32 weight of
// −0 becomes +0 (the two compare equal, so the order is unaffected).
//
// The lists of the result are no longer sorted by id, so HasArc and
// CheckSymmetric, which binary-search by id, do not apply to it; the
// compressed encoding (Compress) and the rank mapping (WeightRanks) do.
//
// Work is O(M log d) for d the largest degree, spread over all cores by
// arc count; scratch memory is 8 bytes (16 with float64 weights) per arc of
// the largest list, per core. It has no error result, so an interrupt
// (cancel.Request) makes it panic with an error wrapping
// cancel.ErrInterrupted (cancel.Recover turns that back into an error).
func (g *CSR) SortByWeight() *CSR {
	out, err := g.sortByWeight()
	if err != nil {
		panic(fmt.Errorf("graph: SortByWeight: %w", err))
	}
	return out
}

func (g *CSR) sortByWeight() (*CSR, error) {
	var err error
	out := &CSR{
		Offsets:  slices.Clone(g.Offsets),
		Adj:      make([]int32, len(g.Adj)),
		Directed: g.Directed,
	}
	switch {
	case g.Weights != nil:
		out.Weights = make([]float32, len(g.Adj))
		err = par.ForWeighted(g.Offsets, func(lo, hi int) {
			var keys []uint64
			for v := lo; v < hi; v++ {
				a, b := g.Offsets[v], g.Offsets[v+1]
				keys = keys[:0]
				for k := a; k < b; k++ {
					// +0 turns −0 into +0 so the two zeros tie.
					w := g.Weights[k] + 0
					keys = append(keys, uint64(orderedBits(w))<<32|uint64(uint32(g.Adj[k])))
				}
				slices.Sort(keys)
				for j, key := range keys {
					out.Adj[a+int64(j)] = int32(uint32(key))
					out.Weights[a+int64(j)] = fromOrderedBits(uint32(key >> 32))
				}
			}
		})
	case g.Weights64 != nil:
		out.Weights64 = make([]float64, len(g.Adj))
		type arc struct {
			w  float64
			id int32
		}
		err = par.ForWeighted(g.Offsets, func(lo, hi int) {
			var arcs []arc
			for v := lo; v < hi; v++ {
				a, b := g.Offsets[v], g.Offsets[v+1]
				arcs = arcs[:0]
				for k := a; k < b; k++ {
					arcs = append(arcs, arc{g.Weights64[k], g.Adj[k]})
				}
				slices.SortFunc(arcs, func(x, y arc) int {
					if c := cmp.Compare(x.w, y.w); c != 0 {
						return c
					}
					return cmp.Compare(x.id, y.id)
				})
				for j, x := range arcs {
					out.Adj[a+int64(j)] = x.id
					out.Weights64[a+int64(j)] = x.w
				}
			}
		})
	default:
		copy(out.Adj, g.Adj)
		err = par.ForWeighted(g.Offsets, func(lo, hi int) {
			for v := lo; v < hi; v++ {
				slices.Sort(out.Adj[out.Offsets[v]:out.Offsets[v+1]])
			}
		})
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// MaxDistinctWeights is the number of distinct weights that uint32 ranks
// can number (ranks 0 … 2^32−1).
const MaxDistinctWeights uint64 = 1 << 32

// RankWeights maps every weight to its rank among the distinct values of w:
// the smallest weight has rank 0, the next larger distinct weight rank 1,
// and so on, so w[i] < w[j] exactly when rank[i] < rank[j] and equal
// weights share a rank. It is the MST study's "weights → integers"
// (docs/studies.md §3, input transformation 3): Borůvka only compares weights, and
// a uint32 compares faster and takes less memory than a double.
//
// −0 and +0 are equal and share a rank. RankWeights returns an error for a
// NaN weight (it has no rank), for more than MaxDistinctWeights (2^32)
// distinct values, and when interrupted (cancel.Check after the sort).
//
// Work is a parallel sort of (weight, position) pairs, O(M log M), and one
// scan; scratch memory is 16 bytes per weight (32 for RankWeights), besides
// the 4-byte ranks.
func RankWeights(w []float64) ([]uint32, error) {
	return rankWeights64(w, MaxDistinctWeights)
}

// RankWeights32 is RankWeights for float32 weights.
func RankWeights32(w []float32) ([]uint32, error) {
	return rankWeights32(w, MaxDistinctWeights)
}

// WeightRanks returns the rank of every arc's weight (see RankWeights),
// parallel to g.Adj, for either weight width. On a graph whose lists were
// ordered by SortByWeight the ranks are non-decreasing along each list.
//
// An unweighted graph has one weight (1) for every arc, so all its ranks
// are 0.
func (g *CSR) WeightRanks() ([]uint32, error) {
	switch {
	case g.Weights != nil:
		return rankWeights32(g.Weights, MaxDistinctWeights)
	case g.Weights64 != nil:
		return rankWeights64(g.Weights64, MaxDistinctWeights)
	}
	return make([]uint32, len(g.Adj)), nil
}

// orderedBits64 maps a float64 to a uint64 whose unsigned order is the
// float's numeric order (NaN excluded; −0 sorts just below +0).
func orderedBits64(f float64) uint64 {
	b := math.Float64bits(f)
	if b>>63 != 0 {
		return ^b
	}
	return b | 1<<63
}

func rankWeights32(w []float32, limit uint64) ([]uint32, error) {
	key := func(i int) (uint64, bool) {
		x := w[i]
		return uint64(orderedBits(x + 0)), x == x
	}
	return rankByKeys(len(w), key, 32, limit)
}

func rankWeights64(w []float64, limit uint64) ([]uint32, error) {
	key := func(i int) (uint64, bool) {
		x := w[i]
		return orderedBits64(x + 0), x == x
	}
	return rankByKeys(len(w), key, 64, limit)
}

// weightKeyIndex is a weight's order-preserving key and its position.
type weightKeyIndex struct {
	key uint64
	idx int
}

// rankByKeys ranks m values given by key (an order-preserving key of
// keyBits bits, and false for NaN): it sorts (key, position) pairs and
// numbers the distinct keys in one scan. Keys of at most 32 bits pack with
// their position into one uint64. limit is the most distinct values
// allowed (MaxDistinctWeights outside tests).
func rankByKeys(m int, key func(i int) (uint64, bool), keyBits int, limit uint64) ([]uint32, error) {
	var bad atomic.Int64
	bad.Store(math.MaxInt64)
	nan := func(i int) {
		atomicMinInt64(&bad, int64(i))
	}
	var at func(j int) (uint64, int)
	if keyBits <= 32 && uint64(m) <= 1<<32 {
		packed := make([]uint64, m)
		err := par.For(m, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				k, ok := key(i)
				if !ok {
					nan(i)
					return
				}
				packed[i] = k<<32 | uint64(i)
			}
		})
		if err == nil && bad.Load() == math.MaxInt64 {
			err = sortUint64s(packed)
		}
		if err != nil {
			return nil, fmt.Errorf("graph: ranking weights: %w", err)
		}
		at = func(j int) (uint64, int) { p := packed[j]; return p >> 32, int(uint32(p)) }
	} else {
		pairs := make([]weightKeyIndex, m)
		err := par.For(m, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				k, ok := key(i)
				if !ok {
					nan(i)
					return
				}
				pairs[i] = weightKeyIndex{k, i}
			}
		})
		if err == nil && bad.Load() == math.MaxInt64 {
			err = sortParallel(pairs, func(x []weightKeyIndex) {
				slices.SortFunc(x, func(a, b weightKeyIndex) int { return cmp.Compare(a.key, b.key) })
			}, func(a, b weightKeyIndex) bool { return a.key < b.key })
		}
		if err != nil {
			return nil, fmt.Errorf("graph: ranking weights: %w", err)
		}
		at = func(j int) (uint64, int) { return pairs[j].key, pairs[j].idx }
	}
	if i := bad.Load(); i != math.MaxInt64 {
		return nil, fmt.Errorf("graph: weight %d is NaN, which has no rank; remove or replace it", i)
	}
	// Position j of the sorted order starts a new distinct value when its
	// key differs from position j−1's. Count those per chunk, then number.
	const size = 1 << 18
	chunks := (m + size - 1) / size
	starts := make([]int64, chunks+1)
	isNew := func(j int) bool {
		if j == 0 {
			return true
		}
		k, _ := at(j)
		p, _ := at(j - 1)
		return k != p
	}
	err := par.ForChunks(m, size, func(c, lo, hi int) {
		var n int64
		for j := lo; j < hi; j++ {
			if isNew(j) {
				n++
			}
		}
		starts[c] = n
	})
	if err != nil {
		return nil, fmt.Errorf("graph: ranking weights: %w", err)
	}
	distinct := prefixSum(starts)[chunks]
	if uint64(distinct) > limit {
		return nil, fmt.Errorf("graph: %d distinct weights exceed the %d that uint32 ranks can number; round the weights to fewer values or keep float comparisons",
			distinct, limit)
	}
	ranks := make([]uint32, m)
	err = par.ForChunks(m, size, func(c, lo, hi int) {
		r := starts[c] - 1 // rank of the value before the chunk
		for j := lo; j < hi; j++ {
			if isNew(j) {
				r++
			}
			_, i := at(j)
			ranks[i] = uint32(r)
		}
	})
	if err != nil {
		return nil, fmt.Errorf("graph: ranking weights: %w", err)
	}
	return ranks, nil
}

// atomicMinInt64 lowers *x to v if v is smaller.
func atomicMinInt64(x *atomic.Int64, v int64) {
	for {
		old := x.Load()
		if v >= old || x.CompareAndSwap(old, v) {
			return
		}
	}
}

// dedupSorted returns the distinct values of a sorted slice, in order, in
// a new slice, using all cores; cancel's error when interrupted.
func dedupSorted(x []uint64) ([]uint64, error) {
	n := len(x)
	if n == 0 {
		return nil, nil
	}
	const size = 1 << 18
	chunks := (n + size - 1) / size
	counts := make([]int, chunks+1)
	first := func(i int) bool { return i == 0 || x[i] != x[i-1] }
	err := par.ForChunks(n, size, func(c, lo, hi int) {
		k := 0
		for i := lo; i < hi; i++ {
			if first(i) {
				k++
			}
		}
		counts[c] = k
	})
	if err != nil {
		return nil, err
	}
	total := 0
	for c := range chunks {
		counts[c], total = total, total+counts[c]
	}
	out := make([]uint64, total)
	err = par.ForChunks(n, size, func(c, lo, hi int) {
		k := counts[c]
		for i := lo; i < hi; i++ {
			if first(i) {
				out[k] = x[i]
				k++
			}
		}
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// sortUint64s sorts x ascending using all cores (see sortParallel).
func sortUint64s(x []uint64) error {
	return sortParallel(x, slices.Sort[[]uint64], func(a, b uint64) bool { return a < b })
}

// sortRun is the most elements sortParallel sorts in one piece, and
// mergePiece the most it merges in one: either takes a few milliseconds,
// so an interrupt is seen soon.
const (
	sortRun    = 1 << 18
	mergePiece = 1 << 20
)

// sortParallel sorts x by less using all cores: chunks are sorted in
// parallel by sortChunk, then merged pairwise, each merge split into
// independent pieces at merge-path split points so every round keeps all
// cores busy. It is stable when sortChunk is. Scratch is one copy of x.
// Chunks and merge pieces are small (sortRun, mergePiece), so it returns
// cancel's error soon after an interrupt, leaving x in some order.
func sortParallel[T any](x []T, sortChunk func([]T), less func(a, b T) bool) error {
	n := len(x)
	w := par.Workers()
	if n < 1<<15 {
		sortChunk(x)
		return cancel.Check()
	}
	runs := 1
	for runs < 2*w || n > runs*sortRun {
		runs *= 2
	}
	size := (n + runs - 1) / runs
	if err := par.ForChunks(n, size, func(_, lo, hi int) { sortChunk(x[lo:hi]) }); err != nil {
		return err
	}
	bounds := []int{}
	for lo := 0; lo < n; lo += size {
		bounds = append(bounds, lo)
	}
	bounds = append(bounds, n)
	src, dst := x, make([]T, n)
	type piece struct{ a0, a1, b0, b1, out int }
	for len(bounds) > 2 {
		merges := (len(bounds) - 1) / 2
		per := max(1, (2*w+merges-1)/merges, (bounds[min(2, len(bounds)-1)]-bounds[0]+mergePiece-1)/mergePiece)
		var pieces []piece
		next := []int{0}
		for i := 0; i+1 < len(bounds); i += 2 {
			if i+2 >= len(bounds) { // odd run out: copied as it is
				pieces = append(pieces, piece{bounds[i], bounds[i+1], bounds[i+1], bounds[i+1], bounds[i]})
				next = append(next, bounds[i+1])
				continue
			}
			a0, a1, b1 := bounds[i], bounds[i+1], bounds[i+2]
			a, b := src[a0:a1], src[a1:b1]
			total := len(a) + len(b)
			prevI, prevT := 0, 0
			for p := 1; p <= per; p++ {
				t := total * p / per
				ia := mergeSplit(a, b, t, less)
				pieces = append(pieces, piece{a0 + prevI, a0 + ia, a1 + prevT - prevI, a1 + t - ia, a0 + prevT})
				prevI, prevT = ia, t
			}
			next = append(next, b1)
		}
		err := par.ForChunks(len(pieces), 1, func(_, lo, _ int) {
			p := pieces[lo]
			mergeRuns(dst[p.out:p.out+(p.a1-p.a0)+(p.b1-p.b0)], src[p.a0:p.a1], src[p.b0:p.b1], less)
		})
		if err != nil {
			return err
		}
		src, dst = dst, src
		bounds = next
	}
	if &src[0] != &x[0] {
		copy(x, src)
	}
	return nil
}

// mergeSplit returns how many of the first t merged elements of sorted a
// and b come from a (elements of a go first on ties).
func mergeSplit[T any](a, b []T, t int, less func(a, b T) bool) int {
	lo, hi := max(0, t-len(b)), min(t, len(a))
	for lo < hi {
		i := int(uint(lo+hi) >> 1)
		j := t - i
		if j > 0 && !less(b[j-1], a[i]) { // a[i] <= b[j-1]
			lo = i + 1
		} else {
			hi = i
		}
	}
	return lo
}

// mergeRuns merges sorted a and b into out (len(out) = len(a)+len(b)), taking
// from a first on ties.
func mergeRuns[T any](out, a, b []T, less func(a, b T) bool) {
	i, j, k := 0, 0, 0
	for i < len(a) && j < len(b) {
		if less(b[j], a[i]) {
			out[k] = b[j]
			j++
		} else {
			out[k] = a[i]
			i++
		}
		k++
	}
	k += copy(out[k:], a[i:])
	copy(out[k:], b[j:])
}
