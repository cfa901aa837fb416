package mst

import (
	"math"
	"slices"

	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/internal/par"
)

// sortEdges sorts e by (W, U, V). Small slices use slices.SortFunc; larger
// ones a parallel least-significant-digit radix sort, which is stable: one
// pass sequence on (U, V) unless e is already in that order (as the COO
// view of a graph built by graph.Build is), then one on the weight's bits.
// The sorted order is unique, so the result does not depend on the core
// count. It polls cancel.Check between passes and returns its error.
func sortEdges(e []Edge) error {
	if len(e) < 1<<12 {
		slices.SortFunc(e, compare)
		return cancel.Check()
	}
	buf := make([]Edge, len(e))
	if !sortedByEnds(e) {
		if err := radixSort(e, buf, endsKey); err != nil {
			return err
		}
	}
	return radixSort(e, buf, weightKey)
}

// weightKey maps W to a uint64 whose unsigned order is W's numeric order,
// with −0 and +0 equal (less treats them as equal too).
func weightKey(e *Edge) uint64 {
	w := e.W
	if w == 0 {
		w = 0 // turns −0 into +0
	}
	b := math.Float64bits(w)
	if b>>63 != 0 {
		return ^b
	}
	return b | 1<<63
}

// endsKey orders edges by (U, V).
func endsKey(e *Edge) uint64 { return uint64(uint32(e.U))<<32 | uint64(uint32(e.V)) }

// sortedByEnds reports whether e is sorted by (U, V) (false when
// interrupted: the sort that follows returns the error).
func sortedByEnds(e []Edge) bool {
	bad := false
	ok := make([]bool, par.Workers())
	par.ForChunks(len(e), (len(e)+len(ok)-1)/len(ok), func(c, lo, hi int) {
		for i := max(lo, 1); i < hi; i++ {
			if par.Cancelled(i) || endsKey(&e[i-1]) > endsKey(&e[i]) {
				return
			}
		}
		ok[c] = true
	})
	for _, o := range ok {
		bad = bad || !o
	}
	return !bad
}

// radixSort sorts e stably by key, 8 bits per pass from the least
// significant byte, skipping bytes on which every key agrees; buf is
// scratch of len(e). Each pass splits e into fixed chunks: per-chunk
// histograms, a prefix over (digit, chunk), then each chunk scatters its
// elements in order, which keeps the sort stable and deterministic.
func radixSort(e, buf []Edge, key func(*Edge) uint64) error {
	// Chunks of at most about 2^18 edges keep a chunk's pass within a few
	// milliseconds, so that an interrupt is seen soon.
	chunks := min(max(par.Workers()*2, len(e)>>18), max(1, len(e)>>14))
	size := (len(e) + chunks - 1) / chunks
	chunks = (len(e) + size - 1) / size
	// which bytes vary: OR of (key XOR first key).
	var vary uint64
	diff := make([]uint64, chunks)
	k0 := key(&e[0])
	err := par.ForChunks(len(e), size, func(c, lo, hi int) {
		var d uint64
		for i := lo; i < hi; i++ {
			d |= key(&e[i]) ^ k0
		}
		diff[c] = d
	})
	if err != nil {
		return err
	}
	for _, d := range diff {
		vary |= d
	}
	hist := make([][256]int, chunks)
	src, dst := e, buf
	for shift := uint(0); shift < 64; shift += 8 {
		if (vary>>shift)&0xff == 0 {
			continue
		}
		err := par.ForChunks(len(e), size, func(c, lo, hi int) {
			h := &hist[c]
			*h = [256]int{}
			for i := lo; i < hi; i++ {
				h[(key(&src[i])>>shift)&0xff]++
			}
		})
		if err != nil {
			return err
		}
		pos := 0
		for d := 0; d < 256; d++ {
			for c := range hist {
				n := hist[c][d]
				hist[c][d] = pos
				pos += n
			}
		}
		err = par.ForChunks(len(e), size, func(c, lo, hi int) {
			h := &hist[c]
			for i := lo; i < hi; i++ {
				d := (key(&src[i]) >> shift) & 0xff
				dst[h[d]] = src[i]
				h[d]++
			}
		})
		if err != nil {
			return err
		}
		src, dst = dst, src
	}
	if &src[0] != &e[0] {
		copy(e, src)
	}
	return nil
}
