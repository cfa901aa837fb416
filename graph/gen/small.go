package gen

import (
	"fmt"
	"math"

	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/internal/par"
)

// The teaching graphs below are undirected CSRs built with graph.Build.
// Their weights follow the weight options, uniform in [0, 1) by default
// like R-MAT's (Integer(9) gives small whole numbers that read well in a
// printed path); the seed only matters for the weights and for
// ErdosRenyi's edges. Vertex ids need int32: every generator returns an
// error for fewer than 1 or 2^31-1 or more vertices.

// teach finishes a teaching graph: weights, then Build.
func teach(name string, el graph.EdgeList, c *config) (*graph.CSR, error) {
	if err := fillWeights(&el, c); err != nil {
		return nil, err
	}
	return build(name, el)
}

// Path returns the path 0 – 1 – … – n-1: n vertices, n-1 edges.
// Time and memory O(n).
func Path(n int, opts ...Option) (*graph.CSR, error) {
	c := apply(opts)
	if err := checkVertices("Path", n); err != nil {
		return nil, err
	}
	if err := c.checkWeights("Path"); err != nil {
		return nil, err
	}
	if err := checkMemory(fmt.Sprintf("Path(%d)", n), n, float64(n-1), &c, true); err != nil {
		return nil, err
	}
	el := newEdgeList(n, n-1, &c)
	err := par.For(n-1, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			el.Src[i], el.Dst[i] = int32(i), int32(i+1)
		}
	})
	if err != nil {
		return nil, fmt.Errorf("gen: Path: %w", err)
	}
	return teach("Path", el, &c)
}

// Grid returns the rows×cols 4-neighbour lattice: vertex r·cols+c (row r,
// column c) is joined to its right and lower neighbours, which makes
// rows·(cols-1) + cols·(rows-1) edges. Time and memory O(rows·cols).
func Grid(rows, cols int, opts ...Option) (*graph.CSR, error) {
	c := apply(opts)
	if rows < 1 || cols < 1 {
		return nil, fmt.Errorf("gen: Grid needs at least 1 row and 1 column, got %d×%d", rows, cols)
	}
	if !mulFits(rows, cols) {
		return nil, fmt.Errorf("gen: Grid %d×%d has too many vertices (the limit is 2^31-2)", rows, cols)
	}
	n := rows * cols
	if err := checkVertices("Grid", n); err != nil {
		return nil, err
	}
	if err := c.checkWeights("Grid"); err != nil {
		return nil, err
	}
	horiz := rows * (cols - 1)
	if err := checkMemory(fmt.Sprintf("Grid(%d, %d)", rows, cols), n, float64(horiz+cols*(rows-1)), &c, true); err != nil {
		return nil, err
	}
	el := newEdgeList(n, horiz+cols*(rows-1), &c)
	err := par.For(rows, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			// Row r's horizontal edges, then its vertical edges down.
			h := r * (cols - 1)
			for col := 0; col+1 < cols; col++ {
				v := int32(r*cols + col)
				el.Src[h+col], el.Dst[h+col] = v, v+1
			}
			if r+1 < rows {
				d := horiz + r*cols
				for col := range cols {
					v := int32(r*cols + col)
					el.Src[d+col], el.Dst[d+col] = v, v+int32(cols)
				}
			}
		}
	})
	if err != nil {
		return nil, fmt.Errorf("gen: Grid: %w", err)
	}
	return teach("Grid", el, &c)
}

// Star returns the star with hub 0 joined to each of the vertices
// 1..n-1: n vertices, n-1 edges. Time and memory O(n).
func Star(n int, opts ...Option) (*graph.CSR, error) {
	c := apply(opts)
	if err := checkVertices("Star", n); err != nil {
		return nil, err
	}
	if err := c.checkWeights("Star"); err != nil {
		return nil, err
	}
	if err := checkMemory(fmt.Sprintf("Star(%d)", n), n, float64(n-1), &c, true); err != nil {
		return nil, err
	}
	el := newEdgeList(n, n-1, &c)
	err := par.For(n-1, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			el.Src[i], el.Dst[i] = 0, int32(i+1)
		}
	})
	if err != nil {
		return nil, fmt.Errorf("gen: Star: %w", err)
	}
	return teach("Star", el, &c)
}

// MaxComplete is the largest n Complete accepts: K_8192 has 33.5 million
// edges, 67 million arcs, about 0.55 GB as a CSR with float32 weights and
// as much again while it is built. Dense graphs beyond that belong in a
// graph.Dense matrix, not a CSR.
const MaxComplete = 8192

// Complete returns the complete graph K_n: n(n-1)/2 edges. n must lie in
// 1..MaxComplete, else Complete returns an error. Time and memory O(n²).
func Complete(n int, opts ...Option) (*graph.CSR, error) {
	c := apply(opts)
	if n < 1 || n > MaxComplete {
		return nil, fmt.Errorf("gen: Complete(%d): n must lie in 1..%d (K_n has n(n-1)/2 edges; use graph.Dense for larger dense graphs)", n, MaxComplete)
	}
	if err := c.checkWeights("Complete"); err != nil {
		return nil, err
	}
	if err := checkMemory(fmt.Sprintf("Complete(%d)", n), n, float64(n*(n-1)/2), &c, true); err != nil {
		return nil, err
	}
	el := newEdgeList(n, n*(n-1)/2, &c)
	err := forChunks(n, 64, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			k := int(pairRowStart(int64(i), int64(n)))
			for j := i + 1; j < n; j++ {
				el.Src[k], el.Dst[k] = int32(i), int32(j)
				k++
			}
		}
	})
	if err != nil {
		return nil, err
	}
	return teach("Complete", el, &c)
}

// pairRowStart is the index of pair (i, i+1) when the pairs i < j of n
// vertices are listed row by row: i·(2n-i-1)/2.
func pairRowStart(i, n int64) int64 { return i * (2*n - i - 1) / 2 }

// pairRow returns the row i of pair index k: the largest i in [lo, n-1)
// with pairRowStart(i) ≤ k (binary search).
func pairRow(k, lo, n int64) int64 {
	hi := n - 1 // pairRowStart(hi) > k for every valid k
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if pairRowStart(mid, n) <= k {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// ErdosRenyi returns a G(n, p) random graph: each of the n(n-1)/2 pairs
// of distinct vertices is an edge with probability p, independently, so
// the expected number of edges is p·n(n-1)/2 and the degrees are
// binomial(n-1, p). n must lie in 1..2^31-2 and p in [0, 1]; a graph whose
// expected (then actual) edge count does not fit in the memory available
// is refused. Errors are returned for all of these.
//
// The pairs are listed row by row and the generator jumps from one edge
// to the next by a geometric number of pairs (Batagelj and Brandes,
// "Efficient generation of large random networks", Phys. Rev. E 71, 2005),
// so time and memory are O(n + m) for m edges, not O(n²). The pair list is
// cut into fixed chunks of about 2^16 expected edges, each with its own
// random stream, run in parallel: the graph is the same for a seed on any
// core count. (The jump lengths use math.Log, whose last bit may differ
// between CPU architectures, so an amd64 and an arm64 machine may
// disagree on a rare edge.)
func ErdosRenyi(n int, p float64, opts ...Option) (*graph.CSR, error) {
	c := apply(opts)
	if err := checkVertices("ErdosRenyi", n); err != nil {
		return nil, err
	}
	if !(p >= 0 && p <= 1) {
		return nil, fmt.Errorf("gen: ErdosRenyi edge probability %v must lie in [0, 1]", p)
	}
	if err := c.checkWeights("ErdosRenyi"); err != nil {
		return nil, err
	}
	nn := int64(n)
	pairs := nn * (nn - 1) / 2
	what := fmt.Sprintf("ErdosRenyi(%d, %g)", n, p)
	if err := checkMemory(what, n, p*float64(pairs), &c, true); err != nil {
		return nil, err
	}
	el := graph.EdgeList{N: n}
	if p > 0 && pairs > 0 {
		size := pairs
		if want := math.Ceil(chunkEdges / p); want < float64(pairs) {
			size = max(chunkEdges, int64(want))
		}
		chunks := int((pairs + size - 1) / size)
		logq := math.Log1p(-p) // < 0; -Inf for p = 1
		check := func(edges int64) error { return checkMemory(what, n, float64(edges), &c, true) }
		src, dst, err := generateTwoPass(chunks, c.seed, check, func(ci int, r *rng, s *sink) {
			lo := int64(ci) * size
			hi := min(lo+size, pairs)
			i := pairRow(lo, 0, nn)
			next := pairRowStart(i+1, nn)
			for k := lo - 1; ; {
				if p < 1 {
					// Pairs skipped before the next edge: geometric, from
					// u uniform in (0, 1].
					u := float64(r.next()>>11+1) * 0x1p-53
					skip := math.Log(u) / logq
					if skip >= float64(hi-k) {
						break
					}
					k += int64(skip)
				}
				k++
				if k >= hi {
					break
				}
				for steps := 0; k >= next; steps++ {
					if steps == 8 {
						i = pairRow(k, i, nn)
						next = pairRowStart(i+1, nn)
						break
					}
					i++
					next = pairRowStart(i+1, nn)
				}
				j := i + 1 + (k - pairRowStart(i, nn))
				s.add(int32(i), int32(j))
			}
		})
		if err != nil {
			return nil, err
		}
		el.Src, el.Dst = src, dst
	}
	m := el.Len()
	switch {
	case c.weights == NoWeights:
	case c.float64W:
		el.Weights64 = make([]float64, m)
	default:
		el.Weights = make([]float32, m)
	}
	return teach("ErdosRenyi", el, &c)
}
