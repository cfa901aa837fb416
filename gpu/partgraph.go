package gpu

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/graphnb/graphnb/gpu/nccl"
	"github.com/graphnb/graphnb/graph"
)

// A PartGraph is a graph split over a group by blocks of vertices (a 1D
// partition): rank r holds the arcs leaving the vertices of its block
// [Lo, Hi) (Block(N, Size, r)), so no device holds the whole graph. The
// parts of this process's ranks are in Parts, in rank order.
type PartGraph struct {
	Group *Group
	// N is the number of vertices and Arcs the number of arcs, over all
	// ranks.
	N    int
	Arcs int64
	// Directed is as for a CSR: false when every edge is stored as two
	// arcs (each in its source's part).
	Directed bool
	Parts    []*Part
}

// A Part is one rank's share of a PartGraph: a CSR whose rows are the
// vertices Lo … Hi-1 (row i is vertex Lo+i) and whose targets are global
// vertex numbers.
type Part struct {
	Rank *Rank
	// Lo and Hi bound the rank's vertices; Offsets has Hi-Lo+1 entries,
	// from 0; Adj holds the arcs' targets (0 ≤ target < N); Weights or
	// Weights64 their weights (nil where absent).
	Lo, Hi    int
	Offsets   *Int64s
	Adj       *Int32s
	Weights   *Float32s
	Weights64 *Float64s
}

// BlockAlign is the granularity of a vertex block: every block but the
// last starts and ends at a multiple of 64, so a block's bits are whole
// 64-bit words of a bitmap of all vertices.
const BlockAlign = 64

// Block is rank's block of vertices [lo, hi) when n vertices are split
// over size ranks: ⌈n/size⌉ rounded up to BlockAlign per rank, the last
// blocks shorter or empty.
func Block(n, size, rank int) (lo, hi int) {
	b := BlockSize(n, size)
	return min(rank*b, n), min((rank+1)*b, n)
}

// BlockSize is the length of a full block (see Block).
func BlockSize(n, size int) int {
	b := (n + size - 1) / max(size, 1)
	return (b + BlockAlign - 1) / BlockAlign * BlockAlign
}

// Owner is the rank whose block holds vertex v.
func Owner(v, n, size int) int { return v / BlockSize(n, size) }

// NewPartGraph wraps the parts of this process's ranks (made on their
// devices by a generator; one per rank of g in this process, in order)
// as a PartGraph that owns them, counting the arcs over all ranks (a
// collective: every rank of the group must call it).
func NewPartGraph(g *Group, n int, directed bool, parts []*Part) (*PartGraph, error) {
	if len(parts) != len(g.ranks) {
		return nil, fmt.Errorf("gpu: NewPartGraph: %d parts for %d ranks in this process", len(parts), len(g.ranks))
	}
	for i, p := range parts {
		r := g.ranks[i]
		lo, hi := Block(n, g.size, r.rank)
		switch {
		case p == nil || p.Offsets == nil || p.Adj == nil:
			return nil, fmt.Errorf("gpu: NewPartGraph: rank %d's part is missing its CSR", r.rank)
		case p.Lo != lo || p.Hi != hi:
			return nil, fmt.Errorf("gpu: NewPartGraph: rank %d holds vertices [%d, %d); its block is [%d, %d)", r.rank, p.Lo, p.Hi, lo, hi)
		case p.Offsets.Len() != hi-lo+1:
			return nil, fmt.Errorf("gpu: NewPartGraph: rank %d has %d offsets for %d vertices, want one more", r.rank, p.Offsets.Len(), hi-lo)
		case p.Weights != nil && p.Weights64 != nil:
			return nil, fmt.Errorf("gpu: NewPartGraph: rank %d has both float32 and float64 weights", r.rank)
		case p.Weights != nil && p.Weights.Len() != p.Adj.Len(), p.Weights64 != nil && p.Weights64.Len() != p.Adj.Len():
			return nil, fmt.Errorf("gpu: NewPartGraph: rank %d has %d weights for %d arcs", r.rank, max(p.Weights.Len(), p.Weights64.Len()), p.Adj.Len())
		}
		p.Rank = r
	}
	pg := &PartGraph{Group: g, N: n, Directed: directed, Parts: parts}
	if g.IsHost() {
		pg.Arcs = int64(parts[0].Adj.Len())
		return pg, nil
	}
	arcs := make([]int64, len(parts))
	err := g.Run(func(r *Rank, t *Thread) error {
		i := r.local()
		v, err := r.AllReduceInt64(t, []int64{int64(parts[i].Adj.Len())}, nccl.Sum)
		if err == nil {
			arcs[i] = v[0]
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	pg.Arcs = arcs[0]
	return pg, nil
}

// UploadParts splits c by vertex blocks over g and uploads each part of
// this process's ranks to its rank's device: a graph read from a file or
// generated on the host, searched over a group. Every process of the group
// calls it with the same graph (a collective).
func UploadParts(g *Group, c *graph.CSR) (*PartGraph, error) {
	if g == nil || c == nil || len(c.Offsets) == 0 {
		return nil, errors.New("gpu: UploadParts: nil group or empty graph")
	}
	if c.Weights != nil && c.Weights64 != nil {
		return nil, errors.New("gpu: UploadParts: the graph has both float32 and float64 weights; keep one")
	}
	n := c.NumVertices()
	var parts []*Part
	fail := func(err error) (*PartGraph, error) {
		for _, p := range parts {
			err = errors.Join(err, p.Offsets.Free(), p.Adj.Free(), p.Weights.Free(), p.Weights64.Free())
		}
		return nil, fmt.Errorf("gpu: UploadParts: %w", err)
	}
	for _, r := range g.ranks {
		lo, hi := Block(n, g.size, r.rank)
		a, b := c.Offsets[lo], c.Offsets[hi]
		off := make([]int64, hi-lo+1)
		for i := range off {
			off[i] = c.Offsets[lo+i] - a
		}
		p := &Part{Lo: lo, Hi: hi}
		parts = append(parts, p)
		var err error
		if p.Offsets, err = r.dev.Int64sFrom(off); err != nil {
			return fail(err)
		}
		if p.Adj, err = r.dev.Int32sFrom(c.Adj[a:b]); err != nil {
			return fail(err)
		}
		switch {
		case c.Weights != nil:
			p.Weights, err = r.dev.Float32sFrom(c.Weights[a:b])
		case c.Weights64 != nil:
			p.Weights64, err = r.dev.Float64sFrom(c.Weights64[a:b])
		}
		if err != nil {
			return fail(err)
		}
	}
	pg, err := NewPartGraph(g, n, c.Directed, parts)
	if err != nil {
		return fail(err)
	}
	return pg, nil
}

// Roots draws k search roots among the vertices with an arc: the roots
// graph.CSR.Roots gives on the whole graph with the same k and seed. Each
// rank answers for its own vertices (a few offsets read per candidate)
// and the answers are summed over the group, so it is a collective: every
// process of the group calls it with the same k and seed.
func (pg *PartGraph) Roots(k int, seed uint64) ([]int32, error) {
	return graph.RootsWhere(pg.N, k, seed, func(vs []int32) ([]bool, error) {
		has := make([]bool, len(vs))
		if pg.Group.IsHost() {
			off := pg.Parts[0].Offsets.HostData()
			for i, v := range vs {
				has[i] = off[v+1] > off[v]
			}
			return has, nil
		}
		sums := make([]int64, len(vs))
		err := pg.Group.Run(func(r *Rank, t *Thread) error {
			p := pg.Parts[r.local()]
			base, err := p.Offsets.devicePtr(r.dev)
			if err != nil {
				return err
			}
			mine := make([]int64, len(vs))
			var pair [2]int64
			for i, v := range vs {
				if int(v) < p.Lo || int(v) >= p.Hi {
					continue
				}
				if err := t.dtoh("PartGraph.Roots", unsafe.Pointer(&pair[0]), base+uint64(int(v)-p.Lo)*8, 16); err != nil {
					return err
				}
				if pair[1] > pair[0] {
					mine[i] = 1
				}
			}
			all, err := r.AllReduceInt64(t, mine, nccl.Sum)
			if err == nil && r.local() == 0 {
				copy(sums, all)
			}
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("gpu: PartGraph.Roots: %w", err)
		}
		for i, s := range sums {
			has[i] = s > 0
		}
		return has, nil
	})
}

// local is the rank's index in this process's ranks.
func (r *Rank) local() int {
	for i, q := range r.g.ranks {
		if q == r {
			return i
		}
	}
	return -1
}

// Part is the part of rank r of this process (nil when r is elsewhere).
func (pg *PartGraph) Part(r *Rank) *Part {
	if i := r.local(); i >= 0 && r.g == pg.Group {
		return pg.Parts[i]
	}
	return nil
}

// Weighted reports whether the arcs carry weights.
func (pg *PartGraph) Weighted() bool {
	return len(pg.Parts) > 0 && (pg.Parts[0].Weights != nil || pg.Parts[0].Weights64 != nil)
}

// Host assembles the whole graph on the host from the parts, for tests
// and small graphs: it needs every rank in this process.
func (pg *PartGraph) Host() (*graph.CSR, error) {
	if len(pg.Parts) != pg.Group.size {
		return nil, fmt.Errorf("gpu: PartGraph.Host: this process holds %d of %d parts; assemble the graph where all ranks are", len(pg.Parts), pg.Group.size)
	}
	c := &graph.CSR{Directed: pg.Directed, Offsets: make([]int64, 1, pg.N+1)}
	switch { // weighted with no arcs: empty weights, not none
	case pg.Parts[0].Weights != nil:
		c.Weights = []float32{}
	case pg.Parts[0].Weights64 != nil:
		c.Weights64 = []float64{}
	}
	for _, p := range pg.Parts {
		off, err := p.Offsets.ToHost()
		if err != nil {
			return nil, err
		}
		adj, err := p.Adj.ToHost()
		if err != nil {
			return nil, err
		}
		base := int64(len(c.Adj))
		for _, o := range off[1:] {
			c.Offsets = append(c.Offsets, base+o)
		}
		c.Adj = append(c.Adj, adj...)
		switch {
		case p.Weights != nil:
			w, err := p.Weights.ToHost()
			if err != nil {
				return nil, err
			}
			c.Weights = append(c.Weights, w...)
		case p.Weights64 != nil:
			w, err := p.Weights64.ToHost()
			if err != nil {
				return nil, err
			}
			c.Weights64 = append(c.Weights64, w...)
		}
	}
	return c, nil
}

// Close frees every part's arrays; idempotent. The group stays open.
func (pg *PartGraph) Close() error {
	var errs []error
	for _, p := range pg.Parts {
		errs = append(errs, p.Offsets.Free(), p.Adj.Free(), p.Weights.Free(), p.Weights64.Free())
	}
	return errors.Join(errs...)
}

// String describes the graph: "graph of 4,194,304 vertices and … arcs
// over a group of 2 ranks".
func (pg *PartGraph) String() string {
	return fmt.Sprintf("graph of %d vertices and %d arcs over a %s", pg.N, pg.Arcs, pg.Group)
}
