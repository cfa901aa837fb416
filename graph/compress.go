package graph

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"sync/atomic"

	"github.com/graphnb/graphnb/internal/par"
)

// CompressSpan is the widest neighbour range the compressed encoding can
// hold: a list's ids must lie in [base, base+CompressSpan).
const CompressSpan = 1024

// CompressedAdj is the MST study's compressed neighbour encoding (docs/studies.md
// §3, input transformation 4, used there for SSCA#2): the k-th arc of the
// graph, leaving vertex v, points to
//
//	Base[v] + 256·hi(k) + Low[k],  hi(k) = High[k/4] >> (2·(k%4)) & 3
//
// where Base[v] is the smallest id in v's list. Each arc costs one byte of
// Low and two bits of High (four arcs per byte, packed across vertex
// boundaries), each vertex four bytes of Base: (1 + 0.25)·M + 4·N bytes of
// ids instead of 4·M, about 2.9× less at the studies' average degree 32.
// Arc k keeps its position, so weights or weight ranks stay in the CSR's
// arrays at the same indices.
type CompressedAdj struct {
	// Offsets are the CSR's offsets: v's arcs are [Offsets[v], Offsets[v+1]).
	Offsets []int64
	// Base holds each vertex's smallest neighbour id (0 for no neighbours).
	Base []uint32
	// Low holds the low byte of each arc's id − Base.
	Low []uint8
	// High holds bits 8–9 of each arc's id − Base, four arcs per byte,
	// arc k in bits 2·(k%4) and 2·(k%4)+1 of byte k/4.
	High []uint8
}

// Compress encodes g's neighbour lists as a CompressedAdj, keeping the
// order of every list exactly (a list sorted by weight with SortByWeight
// stays so). It returns an error naming the first vertex whose neighbours
// span CompressSpan (1024) ids or more: renumber such a graph first
// (RCMOrder, Renumber), which brings a clique-rich graph like SSCA#2 within
// range; R-MAT's hubs usually stay out of it. Offsets are copied, so the
// result shares nothing with g.
//
// Work is O(M + N), parallel. An interrupt returns cancel's error.
func Compress(g *CSR) (*CompressedAdj, error) {
	n := g.NumVertices()
	m := len(g.Adj)
	if n < 0 || int64(m) != g.Offsets[n] {
		return nil, fmt.Errorf("graph: Compress: malformed CSR (%d offsets, %d arcs); check it with Validate", len(g.Offsets), m)
	}
	c := &CompressedAdj{
		Offsets: slices.Clone(g.Offsets),
		Base:    make([]uint32, n),
		Low:     make([]uint8, m),
		High:    make([]uint8, (m+3)/4),
	}
	var bad atomic.Int64
	bad.Store(math.MaxInt64)
	err := par.ForWeighted(g.Offsets, func(lo, hi int) {
		for v := lo; v < hi; v++ {
			nb := g.Adj[g.Offsets[v]:g.Offsets[v+1]]
			if len(nb) == 0 {
				continue
			}
			a, b := slices.Min(nb), slices.Max(nb)
			if a < 0 || int64(b)-int64(a) >= CompressSpan {
				atomicMinInt64(&bad, int64(v))
				return
			}
			c.Base[v] = uint32(a)
		}
	})
	if err != nil {
		return nil, fmt.Errorf("graph: Compress: %w", err)
	}
	if v := bad.Load(); v != math.MaxInt64 {
		nb := g.Neighbors(int32(v))
		a, b := slices.Min(nb), slices.Max(nb)
		if a < 0 {
			return nil, fmt.Errorf("graph: Compress: vertex %d has a negative neighbour id %d; check the graph with Validate", v, a)
		}
		return nil, fmt.Errorf("graph: Compress: vertex %d has neighbours from %d to %d, %d ids apart; the encoding reaches %d ids from the smallest (renumber with RCMOrder first)",
			v, a, b, int64(b)-int64(a), CompressSpan)
	}
	// Arcs in groups of four per High byte, so each byte has one writer.
	err = forArcQuads(c.Offsets, func(k int64, v int) {
		d := uint32(g.Adj[k]) - c.Base[v]
		c.Low[k] = uint8(d)
		c.High[k>>2] |= uint8(d>>8) << (2 * (k & 3))
	})
	if err != nil {
		return nil, fmt.Errorf("graph: Compress: %w", err)
	}
	return c, nil
}

// forArcQuads calls fn(k, v) for every arc k and its tail v, in parallel
// over whole groups of four arcs (one High byte each).
func forArcQuads(offsets []int64, fn func(k int64, v int)) error {
	m := offsets[len(offsets)-1]
	quads := int((m + 3) / 4)
	return par.For(quads, func(lo, hi int) {
		k, end := int64(lo)*4, min(int64(hi)*4, m)
		// v is the vertex whose range holds arc k.
		v := sort.Search(len(offsets)-1, func(v int) bool { return offsets[v+1] > k })
		for ; k < end; k++ {
			for offsets[v+1] <= k {
				v++
			}
			fn(k, v)
		}
	})
}

// NumVertices returns the number of vertices N.
func (c *CompressedAdj) NumVertices() int { return len(c.Offsets) - 1 }

// NumArcs returns the number of arcs M.
func (c *CompressedAdj) NumArcs() int64 { return int64(len(c.Low)) }

// Degree returns the number of arcs leaving v.
func (c *CompressedAdj) Degree(v int32) int { return int(c.Offsets[v+1] - c.Offsets[v]) }

// Neighbor returns the i-th neighbour of v, in the order of the list the
// encoding was made from. It panics when i is outside [0, Degree(v)).
func (c *CompressedAdj) Neighbor(v int32, i int) int32 {
	if i < 0 || i >= c.Degree(v) {
		panic(fmt.Sprintf("graph: neighbour %d of vertex %d, which has %d", i, v, c.Degree(v)))
	}
	return c.arc(c.Offsets[v]+int64(i), int(v))
}

func (c *CompressedAdj) arc(k int64, v int) int32 {
	hi := uint32(c.High[k>>2]>>(2*(k&3))) & 3
	return int32(c.Base[v] + hi<<8 + uint32(c.Low[k]))
}

// Decompress returns the Adj array the encoding was made from, in the same
// order. Work is O(M + N), parallel.
func (c *CompressedAdj) Decompress() []int32 {
	adj := make([]int32, len(c.Low))
	if len(adj) == 0 {
		return adj
	}
	forArcQuads(c.Offsets, func(k int64, v int) { adj[k] = c.arc(k, v) })
	return adj
}

// IDBytes returns the bytes of the id encoding, Base, Low and High:
// 4·N + M + ceil(M/4). Compare it with the 4·M bytes of a CSR's Adj.
func (c *CompressedAdj) IDBytes() int64 {
	return int64(len(c.Base))*4 + int64(len(c.Low)) + int64(len(c.High))
}

// MemoryBytes returns the bytes held by all four arrays, offsets included
// (8 per vertex, as in a CSR), plus the struct's slice headers.
func (c *CompressedAdj) MemoryBytes() int64 {
	return int64(len(c.Offsets))*8 + c.IDBytes() + 96
}
