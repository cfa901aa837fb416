package gen

import (
	"fmt"
	"math"

	"github.com/graphnb/graphnb/graph"
)

// RMAT returns an undirected R-MAT graph (Chakrabarti, Zhan, Faloutsos
// 2004; the Kronecker generator of Graph500) with 2^scale vertices, built
// from edgeFactor·2^scale generated edges: self-loops and duplicates are
// then removed (keeping the minimum weight) and every edge is stored as two
// arcs. edgeFactor 16 gives the studies' graphs: average degree 32 in arcs
// before deduplication; after it, about 26 at scale 14 and 30.6 at scale 22
// with the default probabilities.
//
// It is RMATEdges followed by graph.Build with Symmetrize; see RMATEdges
// for the options and the model. scale must lie in 1..30 and edgeFactor be
// at least 1, else RMAT returns an error, as it does for bad options or an
// interrupt (cancel.ErrInterrupted). Time O(edgeFactor·2^scale·scale) spread
// over all cores; memory about 12 bytes per generated edge for the edge
// list plus what graph.Build needs (graph.BuildBytes): about 68 bytes per
// edge at the peak. A graph whose peak does not fit in the memory
// available is refused before anything is generated, with an error that
// gives the need and what is available.
func RMAT(scale, edgeFactor int, opts ...Option) (*graph.CSR, error) {
	el, err := rmatEdges(scale, edgeFactor, true, opts)
	if err != nil {
		return nil, err
	}
	return build("R-MAT", el)
}

// RMATEdges returns the raw edge list of an R-MAT graph: edgeFactor·2^scale
// directed edges over 2^scale vertices, self-loops and duplicates included,
// for callers who want a directed graph (graph.Build without Symmetrize) or
// a file.
//
// Each edge picks its endpoints bit by bit, most significant first: at
// every one of the scale levels it falls into the quadrant (source bit,
// target bit) = (0,0), (0,1), (1,0), (1,1) with probability a, b, c, d.
// Options:
//   - Probabilities(a, b, c), default 0.57, 0.19, 0.19 (Graph500).
//   - Noise(level), default 0: per-level perturbation of a, b, c, d.
//   - PermuteVertices(true): relabel vertices by a random permutation, as
//     Graph500 does (a keyed Feistel network, see PermuteVertices); off by
//     default.
//   - Uniform() (default), Integer(max), Unweighted(), Float64(): weights.
//   - Seed(s), default 1.
//
// Four levels are drawn at once: the 256 outcomes of four levels (their
// probabilities are products of four quadrant probabilities) are sampled
// by Walker's alias method from 32 random bits, 8 choosing a column of
// the table and 24 comparing with the column's threshold. The thresholds
// are multiples of 2^-24, so each four-level outcome has its exact
// probability to within a few units of 2^-32, and each level's quadrant
// probabilities are exact to about 2^-24 (Graph500's reference resolves
// them to 10^-4). One 64-bit random number serves eight levels. The
// random streams belong to fixed chunks of 2^16 edges, so the list is the
// same for a seed whatever the core count. An edge list that does not fit
// in the memory available is refused before anything is generated.
// PlanRMAT exports this recipe, with which package gpugen generates the
// same graph on a GPU.
func RMATEdges(scale, edgeFactor int, opts ...Option) (graph.EdgeList, error) {
	return rmatEdges(scale, edgeFactor, false, opts)
}

// rmatEdges is RMATEdges; with build, the memory check also counts what
// graph.Build will need.
func rmatEdges(scale, edgeFactor int, build bool, opts []Option) (graph.EdgeList, error) {
	c, err := rmatConfig(scale, edgeFactor, opts)
	if err != nil {
		return graph.EdgeList{}, err
	}
	n := 1 << scale
	what := fmt.Sprintf("R-MAT scale %d, edge factor %d", scale, edgeFactor)
	if err := checkMemory(what, n, float64(edgeFactor)*float64(n), &c, build); err != nil {
		return graph.EdgeList{}, err
	}
	m := edgeFactor * n
	tables := rmatDraws(rmatTables(rmatQuadrants(&c, scale)))
	el := newEdgeList(n, m, &c)
	err = forChunks(m, chunkEdges, func(ci, lo, hi int) {
		r := newRNG(c.seed, streamEdges, uint64(ci))
		rmatFill(el.Src[lo:hi], el.Dst[lo:hi], tables, &r)
	})
	if err != nil {
		return graph.EdgeList{}, err
	}
	if c.permute {
		if err := permute(&el, c.seed); err != nil {
			return graph.EdgeList{}, err
		}
	}
	if err := fillWeights(&el, &c); err != nil {
		return graph.EdgeList{}, err
	}
	return el, nil
}

// rmatConfig applies opts and checks them with R-MAT's parameters.
func rmatConfig(scale, edgeFactor int, opts []Option) (config, error) {
	c := apply(opts)
	if scale < 1 || scale > 30 {
		return c, fmt.Errorf("gen: R-MAT scale %d is outside 1..30", scale)
	}
	if edgeFactor < 1 {
		return c, fmt.Errorf("gen: R-MAT edge factor %d must be at least 1", edgeFactor)
	}
	if err := c.checkProbabilities(); err != nil {
		return c, err
	}
	if err := c.checkWeights("R-MAT"); err != nil {
		return c, err
	}
	return c, nil
}

// rmatQuadrants returns the quadrant probabilities [a, b, c, d] of every
// level, most significant first, with the per-level noise drawn from the
// seed if asked for.
func rmatQuadrants(c *config, scale int) [][4]float64 {
	q := make([][4]float64, scale)
	r := newRNG(c.seed, streamNoise, 0)
	for i := range q {
		a, b, cc := c.a, c.b, c.c
		d := max(0, 1-a-b-cc)
		if c.noise > 0 {
			// Explicit conversions keep the compiler from fusing
			// operations, so every architecture computes the same bits.
			mu := c.noise * float64(float64(2*r.float64())-1)
			if a+d > 0 {
				a -= float64(2*mu*a) / (a + d)
				d -= float64(2*mu*d) / (a + d)
			}
			b += mu
			cc += mu
		}
		q[i] = [4]float64{max(a, 0), max(b, 0), max(cc, 0), max(d, 0)}
	}
	return q
}

// groupLevels is the number of levels one alias table draws.
const groupLevels = 4

// aliasEntry is one column of an alias table. own and alt are outcomes,
// each packing k source bits (high nibble) and k target bits (low
// nibble); a 24-bit uniform y keeps the column's own outcome if y < thr,
// else takes its alias alt.
type aliasEntry struct {
	thr      uint32
	own, alt uint8
	_        [2]byte
}

// aliasTable draws k ≤ 4 levels at once: 4^k columns.
type aliasTable struct {
	k    uint
	mask uint64
	col  []aliasEntry
}

// rmatTables builds one alias table per group of four levels (the last
// group may be shorter), by Vose's algorithm on the outcome probabilities.
func rmatTables(q [][4]float64) []aliasTable {
	var tabs []aliasTable
	for lo := 0; lo < len(q); lo += groupLevels {
		k := min(groupLevels, len(q)-lo)
		tabs = append(tabs, newAliasTable(q[lo:lo+k]))
	}
	return tabs
}

func newAliasTable(q [][4]float64) aliasTable {
	k := len(q)
	cols := 1 << (2 * k)
	t := aliasTable{k: uint(k), mask: uint64(cols - 1), col: make([]aliasEntry, cols)}
	// Outcome o holds the quadrants of the k levels, two bits per level,
	// most significant level first; quadrant (s<<1 | t) for source bit s
	// and target bit t has probability q[level][s<<1|t].
	scaled := make([]float64, cols)
	for o := range cols {
		p := float64(cols)
		var src, dst uint8
		for l := range k {
			quad := o >> (2 * (k - 1 - l)) & 3
			p *= q[l][quad]
			src = src<<1 | uint8(quad>>1)
			dst = dst<<1 | uint8(quad&1)
		}
		scaled[o] = p
		t.col[o].own = src<<4 | dst
	}
	var small, large []int
	for o, p := range scaled {
		if p < 1 {
			small = append(small, o)
		} else {
			large = append(large, o)
		}
	}
	for len(small) > 0 && len(large) > 0 {
		s := small[len(small)-1]
		small = small[:len(small)-1]
		l := large[len(large)-1]
		t.col[s].thr = uint32(math.Round(scaled[s] * (1 << 24)))
		t.col[s].alt = t.col[l].own
		scaled[l] = (scaled[l] + scaled[s]) - 1
		if scaled[l] < 1 {
			large = large[:len(large)-1]
			small = append(small, l)
		}
	}
	// What remains has probability 1 up to rounding: always keep it.
	for _, o := range append(small, large...) {
		t.col[o].thr = 1 << 24
		t.col[o].alt = t.col[o].own
	}
	return t
}

// rmatDraw is an alias table in the form rmatFill reads: 256 packed
// columns (those of a table with fewer levels repeated: column c at every
// index whose low 2k bits are c), so the low byte of a random number picks
// the same column as x&aliasTable.mask with neither a mask nor a bounds
// check. A packed column holds thr in bits 0–31, alt in bits 32–39 and
// own^alt in bits 40–47.
type rmatDraw struct {
	col *[256]uint64
	k   uint // levels drawn
}

// rmatDraws returns the tables in rmatFill's form.
func rmatDraws(tabs []aliasTable) []rmatDraw {
	out := make([]rmatDraw, len(tabs))
	for g, t := range tabs {
		col := new([256]uint64)
		for i := range col {
			e := t.col[uint64(i)&t.mask]
			col[i] = uint64(e.thr) | uint64(e.alt)<<32 | uint64(e.own^e.alt)<<40
		}
		out[g] = rmatDraw{col: col, k: t.k}
	}
	return out
}

// pick returns the outcome drawn from the low 32 bits of x: 8 bits choose
// a column, the next 24 compare with its threshold (kept when below it).
func (t rmatDraw) pick(x uint64) uint32 {
	e := t.col[uint8(x)]
	y := uint32(x>>8) & (1<<24 - 1)
	keep := (y - uint32(e)) >> 31 // 1 when y < thr: y-thr wraps
	return uint32(e>>32)&0xff ^ (uint32(e>>40)&0xff)&-keep
}

// rmatFill generates len(src) edges: for each group of levels, 32 random
// bits pick a column (2k bits) and compare 24 bits with its threshold;
// one 64-bit number serves two groups, the low half the first.
func rmatFill(src, dst []int32, tabs []rmatDraw, rp *rng) {
	s0, s1, s2, s3 := rp.s0, rp.s1, rp.s2, rp.s3
	dst = dst[:len(src)]
	for i := range src {
		var u, v uint32
		for g := 0; g < len(tabs); g += 2 {
			var x uint64
			x, s0, s1, s2, s3 = xoshiro(s0, s1, s2, s3)
			t := tabs[g]
			b := t.pick(x)
			k := t.k & 31
			u = u<<k | b>>4
			v = v<<k | b&15
			if g+1 < len(tabs) {
				t = tabs[g+1]
				b = t.pick(x >> 32)
				k = t.k & 31
				u = u<<k | b>>4
				v = v<<k | b&15
			}
		}
		src[i], dst[i] = int32(u), int32(v)
	}
	rp.s0, rp.s1, rp.s2, rp.s3 = s0, s1, s2, s3
}
