package graph

import (
	"math/bits"
	"sync"

	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/internal/par"
)

// buildPlain is build32 for unweighted edge lists, with less memory
// traffic: every arc becomes one key (source offset within its bucket of
// consecutive sources, then head; 4 bytes up to 2^24 vertices, else 8)
// placed in its bucket, and
// each bucket is then sorted whole by an LSD radix sort on those bits —
// which orders it by source, then by head — and deduplicated in one pass.
// Its result is the same CSR as build32's (sorted lists, self-loops and
// duplicates removed); its scratch is 4 or 8 bytes per arc (plus a
// bucket per core) instead of 20. Up to 2^23 vertices the keys are
// non-negative int32s and, unless more than an eighth of the arcs were
// removed, become the result's Adj in place (no second array of 4 bytes
// per arc to allocate and fault in; Adj then has that spare capacity).
func buildPlain(el *EdgeList, opt BuildOptions) (*CSR, error) {
	headBits := bits.Len(uint(max(el.N-1, 1)))
	// 4-byte keys while a bucket of at least 2^8 sources fits beside the
	// head (graphs of up to 2^24 vertices), else 8-byte keys; 31 bits,
	// in an int32 that can become Adj, up to 2^23 vertices.
	if localBits := min(plainBucketBits, 31-headBits); localBits >= 8 {
		return buildPlainKeys[int32](el, opt, headBits, localBits)
	}
	if localBits := min(plainBucketBits, 32-headBits); localBits >= 8 {
		return buildPlainKeys[uint32](el, opt, headBits, localBits)
	}
	return buildPlainKeys[uint64](el, opt, headBits, plainBucketBits)
}

// buildPlainKeys is buildPlain with keys of type K holding localBits of
// source offset above headBits of head, in buckets of 2^localBits sources.
func buildPlainKeys[K int32 | uint32 | uint64](el *EdgeList, opt BuildOptions, headBits, localBits int) (*CSR, error) {
	n, m := el.N, len(el.Src)
	g := &CSR{Directed: !opt.Symmetrize}
	bucketSize := 1 << localBits
	buckets := (n + bucketSize - 1) / bucketSize
	if buckets == 0 {
		g.Offsets = make([]int64, n+1)
		g.Adj = []int32{}
		return g, nil
	}
	keyBits := headBits + localBits
	headMask := K(1)<<headBits - 1
	chunks := min(4*par.Workers(), max(1, m/minEdgesPerChunk))
	// hist[c*buckets+b]: arcs of chunk c in bucket b, then where chunk c
	// writes its next arc of bucket b.
	hist := make([]int64, chunks*buckets)
	chunkRange := func(c int) (int, int) { return m * c / chunks, m * (c + 1) / chunks }
	err := par.ForChunks(chunks, 1, func(c, _, _ int) {
		h := hist[c*buckets : (c+1)*buckets]
		lo, hi := chunkRange(c)
		for i := lo; i < hi; i++ {
			if par.Cancelled(i) {
				return
			}
			h[el.Src[i]>>localBits]++
			if opt.Symmetrize {
				h[el.Dst[i]>>localBits]++
			}
		}
	})
	if err != nil {
		return nil, err
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
	keys := make([]K, pos)
	localMask := int32(1)<<localBits - 1
	err = par.ForChunks(chunks, 1, func(c, _, _ int) {
		at := hist[c*buckets : (c+1)*buckets]
		lo, hi := chunkRange(c)
		for i := lo; i < hi; i++ {
			if par.Cancelled(i) {
				return
			}
			s, d := el.Src[i], el.Dst[i]
			k := at[s>>localBits]
			keys[k] = K(s&localMask)<<headBits | K(d) // source offset, head
			at[s>>localBits] = k + 1
			if opt.Symmetrize {
				k = at[d>>localBits]
				keys[k] = K(d&localMask)<<headBits | K(s)
				at[d>>localBits] = k + 1
			}
		}
	})
	if err != nil {
		return nil, err
	}
	hist = nil
	// Sort each bucket, drop self-loops and repeats (moving the kept
	// heads to the front of the bucket) and count each vertex's kept arcs.
	kept := make([]int64, n+1)
	keptInBucket := make([]int64, buckets)
	// The sort's second buffers are handed from piece to piece (a piece
	// holds a bucket or two), not allocated per piece: fresh memory costs
	// a page fault per 4 KiB or a clearing pass.
	var scratches sync.Pool
	err = par.ForWeighted(bucketStart, func(blo, bhi int) {
		var scratch []K
		if p, ok := scratches.Get().(*[]K); ok {
			scratch = *p
		}
		defer func() { scratches.Put(&scratch) }()
		for b := blo; b < bhi; b++ {
			seg := keys[bucketStart[b]:bucketStart[b+1]]
			if cap(scratch) < len(seg) {
				scratch = make([]K, len(seg))
			}
			sorted := radixSortBitsIn(seg, scratch[:len(seg)], keyBits)
			first := b * bucketSize
			w := 0
			last := ^K(0)
			for _, k := range sorted { // kept heads go to the front of seg
				v := first + int(k>>headBits)
				if k == last || k&headMask == K(v) {
					continue
				}
				last = k
				seg[w] = k & headMask
				w++
				kept[v]++
			}
			keptInBucket[b] = int64(w)
		}
	})
	if err != nil {
		return nil, err
	}
	g.Offsets = prefixSum(kept)
	arcs := g.Offsets[n]
	if adj, ok := any(keys).([]int32); ok && arcs >= int64(len(keys))-int64(len(keys))/8 {
		// Move the buckets' heads together, in order: a bucket's place
		// in Adj is at or before its place in keys, so each move (a
		// memmove) reads nothing a move before it wrote.
		for b := range buckets {
			if b%64 == 0 {
				if err := cancel.Check(); err != nil {
					return nil, err
				}
			}
			copy(adj[g.Offsets[b*bucketSize]:], adj[bucketStart[b]:bucketStart[b]+keptInBucket[b]])
		}
		g.Adj = adj[:arcs]
		return g, nil
	}
	g.Adj = make([]int32, arcs)
	err = par.ForWeighted(bucketStart, func(blo, bhi int) {
		for b := blo; b < bhi; b++ {
			out := g.Adj[g.Offsets[b*bucketSize]:]
			for j, k := range keys[bucketStart[b] : bucketStart[b]+keptInBucket[b]] {
				out[j] = int32(k)
			}
		}
	})
	if err != nil {
		return nil, err
	}
	return g, nil
}

// radixSortBits sorts keys (non-negative, when int32) by their low
// keyBits bits (at most 44) with
// an LSD radix sort of at most radixDigit-bit digits, using scratch (same
// length) as the second buffer; one reading pass counts every digit.
// Equal keys are equal in full, so the order is total.
func radixSortBits[K int32 | uint32 | uint64](keys, scratch []K, keyBits int) {
	if sorted := radixSortBitsIn(keys, scratch, keyBits); len(keys) > 0 && &sorted[0] != &keys[0] {
		copy(keys, sorted)
	}
}

// radixSortBitsIn is radixSortBits leaving the sorted keys in whichever
// of keys and scratch the last pass wrote, which it returns (an odd
// number of passes ends in scratch, and the caller may read them there
// rather than pay for a copy back).
func radixSortBitsIn[K int32 | uint32 | uint64](keys, scratch []K, keyBits int) []K {
	if len(keys) <= radixMin {
		insertionSort(keys)
		return keys
	}
	const maxPasses = 4
	passes := (keyBits + radixDigit - 1) / radixDigit
	digit := (keyBits + passes - 1) / passes // balanced digits
	mask := K(1)<<digit - 1
	var count [maxPasses][1 << radixDigit]int
	if passes == 3 { // the common case (23 to 33 bits), unrolled
		c0, c1, c2 := &count[0], &count[1], &count[2]
		for _, k := range keys {
			c0[k&mask]++
			c1[(k>>digit)&mask]++
			c2[(k>>(2*digit))&mask]++
		}
	} else {
		for _, k := range keys {
			for p := range passes {
				count[p][(k>>(p*digit))&mask]++
			}
		}
	}
	src, dst := keys, scratch
	for p := range passes {
		c := &count[p]
		sum := 0
		for d, n := range c[:mask+1] {
			c[d] = sum
			sum += n
		}
		shift := p * digit
		for _, k := range src {
			d := (k >> shift) & mask
			dst[c[d]] = k
			c[d]++
		}
		src, dst = dst, src
	}
	return src
}

// insertionSort sorts a short slice in place.
func insertionSort[K int32 | uint32 | uint64](a []K) {
	for i := 1; i < len(a); i++ {
		x := a[i]
		j := i
		for ; j > 0 && a[j-1] > x; j-- {
			a[j] = a[j-1]
		}
		a[j] = x
	}
}

// plainBucketBits is log2 of the number of consecutive source vertices
// whose arcs buildPlain sorts together (fewer when 4-byte keys need it):
// at R-MAT's average degree a bucket's keys take about a megabyte. Buckets
// of 2^8 to 2^12 sources measured the same at scale 20.
const plainBucketBits = 12
