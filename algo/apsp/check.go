package apsp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/graph"
)

// Check validates r as the all-pairs shortest paths of d on samples
// source rows (distinct, drawn with seed; samples ≥ N checks every row)
// and returns an error naming the first discrepancy. For each sampled
// source s it
//
//   - recomputes row s independently: dense Dijkstra (O(N²)) when d has
//     no negative entry, else dense Bellman-Ford (O(N²) per pass), both in
//     int64 or float64; a negative cycle reachable from s is an error;
//   - compares Dist row s with it: exactly for int32 (true lengths
//     ≥ InfI32 count as InfI32), and for float32 within the tolerance
//     below, reachability always exactly;
//   - checks Parents row s: Parents[s][s] = s; -1 exactly where j is
//     unreachable; otherwise p = Parents[s][j] is a vertex with an edge p→j
//     and Dist[s][j] = Dist[s][p] + w(p, j) (exact for int32, within the
//     tolerance for float32); following Parents from every j reaches s;
//   - rebuilds a few paths with Path and compares their weight with Dist.
//
// Float32 tolerance: a float32 sum of L ≤ N−1 terms errs by at most about
// L·2⁻²⁴ times the sum of the terms' magnitudes, and float32 and exact
// arithmetic may pick different near-equal paths, so |got − want| ≤
// N·2⁻²²·S, where S = |want| for non-negative matrices and
// S = (N−1)·max|entry| otherwise.
//
// Cost: O(samples·N²) for non-negative matrices; Bellman-Ford passes
// multiply that by up to N. An interrupt returns cancel's error.
func Check(d *graph.Dense, r *Result, samples int, seed uint64) error {
	neg, maxAbs, err := inspect(d, "Check")
	if err != nil {
		return err
	}
	n := d.N
	if err := checkShape(d, r, samples, true); err != nil {
		return err
	}
	var sources []int
	rng := rand.New(rand.NewPCG(seed, 0x61707370))
	if samples >= n {
		sources = make([]int, n)
		for i := range sources {
			sources[i] = i
		}
	} else {
		sources = rng.Perm(n)[:samples]
		slices.Sort(sources)
	}
	c := &checker{d: d, r: r, n: n, neg: neg, maxAbs: maxAbs}
	for _, s := range sources {
		if err := c.row(s, rng); err != nil {
			return err
		}
	}
	return nil
}

// checkShape returns an error for a result that does not fit d: no
// result, another size or element type, Parents missing (unless
// !parents: the device check accepts DistancesOnly results) or of
// another size; and for fewer than 1 sample.
func checkShape(d *graph.Dense, r *Result, samples int, parents bool) error {
	n := d.N
	switch {
	case r == nil || r.Dist == nil:
		return fmt.Errorf("apsp: Check: no result")
	case r.Dist.N != n:
		return fmt.Errorf("apsp: result has %d vertices, the matrix %d", r.Dist.N, n)
	case r.Dist.IsInt() != d.IsInt() || (r.Dist.I32 == nil) == (r.Dist.F32 == nil) && n > 0:
		return fmt.Errorf("apsp: result Dist must hold the matrix's element type (%s)", elemType(d))
	case len(r.Dist.I32)+len(r.Dist.F32) != n*n:
		return fmt.Errorf("apsp: result Dist holds %d entries, want N·N = %d", len(r.Dist.I32)+len(r.Dist.F32), n*n)
	case len(r.Parents) != n*n && (parents || r.Parents != nil):
		return fmt.Errorf("apsp: result Parents holds %d entries, want N·N = %d", len(r.Parents), n*n)
	case samples < 1 && n > 0:
		return fmt.Errorf("apsp: Check needs at least 1 sample, got %d", samples)
	}
	return nil
}

func elemType(d *graph.Dense) string {
	if d.IsInt() {
		return "int32"
	}
	return "float32"
}

type checker struct {
	d      *graph.Dense
	r      *Result
	n      int
	neg    bool
	maxAbs float64
}

// w returns edge i→j of the input (+Inf: none), diagonal 0.
func (c *checker) w(i, j int) float64 {
	if i == j {
		return 0
	}
	return c.d.At(i, j)
}

// got returns Dist[i][j] of the result as a float64 (+Inf: none).
func (c *checker) got(i, j int) float64 { return c.r.Dist.At(i, j) }

// agree compares a result value with a reference value.
func (c *checker) agree(got, want float64) bool {
	if math.IsInf(want, 1) || math.IsInf(got, 1) {
		return math.IsInf(want, 1) && math.IsInf(got, 1)
	}
	if c.d.IsInt() {
		return got == want
	}
	s := math.Abs(want)
	if c.neg {
		s = float64(c.n-1) * c.maxAbs
	}
	return math.Abs(got-want) <= float64(c.n)*0x1p-22*s
}

// reference returns shortest distances from s in exact-enough arithmetic
// (int64 values are exact; float64 for float32 inputs), +Inf unreachable.
func (c *checker) reference(s int) ([]float64, error) {
	n := c.n
	dist := make([]float64, n)
	for j := range dist {
		dist[j] = math.Inf(1)
	}
	dist[s] = 0
	if !c.neg { // dense Dijkstra
		done := make([]bool, n)
		for i := range n {
			if i&63 == 0 && cancel.Requested() {
				return nil, fmt.Errorf("apsp: Check: %w", cancel.ErrInterrupted)
			}
			u := -1
			for j := 0; j < n; j++ {
				if !done[j] && (u < 0 || dist[j] < dist[u]) {
					u = j
				}
			}
			if math.IsInf(dist[u], 1) {
				break
			}
			done[u] = true
			for j := 0; j < n; j++ {
				if nd := dist[u] + c.w(u, j); nd < dist[j] {
					dist[j] = nd
				}
			}
		}
	} else { // Bellman-Ford, Gauss-Seidel sweeps
		for pass := 0; ; pass++ {
			changed := false
			for u := 0; u < n; u++ {
				if u&63 == 0 && cancel.Requested() {
					return nil, fmt.Errorf("apsp: Check: %w", cancel.ErrInterrupted)
				}
				if math.IsInf(dist[u], 1) {
					continue
				}
				for j := 0; j < n; j++ {
					if nd := dist[u] + c.w(u, j); nd < dist[j] {
						dist[j] = nd
						changed = true
					}
				}
			}
			if !changed {
				break
			}
			if pass == n {
				return nil, fmt.Errorf("apsp: the matrix has a negative cycle reachable from %d: no result can be valid", s)
			}
		}
	}
	if c.d.IsInt() {
		for j, v := range dist {
			if v >= float64(graph.InfI32) {
				dist[j] = math.Inf(1)
			}
		}
	}
	return dist, nil
}

// row checks Dist and Parents of source s.
func (c *checker) row(s int, rng *rand.Rand) error {
	want, err := c.reference(s)
	if err != nil {
		return err
	}
	n := c.n
	pred := c.r.Parents[s*n : (s+1)*n]
	for j := 0; j < n; j++ {
		if g := c.got(s, j); !c.agree(g, want[j]) {
			return fmt.Errorf("apsp: Dist[%d][%d] = %v, but the shortest path has length %v", s, j, g, want[j])
		}
	}
	if pred[s] != int32(s) {
		return fmt.Errorf("apsp: Parents[%d][%d] = %d, want %d", s, s, pred[s], s)
	}
	for j := 0; j < n; j++ {
		if j == s {
			continue
		}
		p := int(pred[j])
		if math.IsInf(want[j], 1) {
			if p != -1 {
				return fmt.Errorf("apsp: Parents[%d][%d] = %d, but %d is unreachable from %d (want -1)", s, j, p, j, s)
			}
			continue
		}
		if p < 0 || p >= n || p == j {
			return fmt.Errorf("apsp: Parents[%d][%d] = %d is not a predecessor of %d", s, j, p, j)
		}
		w := c.w(p, j)
		if math.IsInf(w, 1) {
			return fmt.Errorf("apsp: Parents[%d][%d] = %d, but there is no edge %d→%d", s, j, p, p, j)
		}
		if viaP := c.got(s, p) + w; !c.agree(c.got(s, j), viaP) {
			return fmt.Errorf("apsp: Parents[%d][%d] = %d, but Dist[%d][%d] + w(%d,%d) = %v ≠ Dist[%d][%d] = %v",
				s, j, p, s, p, p, j, viaP, s, j, c.got(s, j))
		}
	}
	// every Parents chain reaches s: state 0 unknown, 1 on the current walk,
	// 2 leads to s.
	state := make([]uint8, n)
	state[s] = 2
	var walk []int
	for j := 0; j < n; j++ {
		walk = walk[:0]
		v := j
		for pred[v] >= 0 && state[v] == 0 {
			state[v] = 1
			walk = append(walk, v)
			v = int(pred[v])
		}
		if pred[v] >= 0 && state[v] == 1 {
			return fmt.Errorf("apsp: following Parents[%d][·] from %d loops through %d", s, j, v)
		}
		for _, x := range walk {
			state[x] = 2
		}
	}
	// rebuild a few whole paths and add up their edges.
	for range min(n, 8) {
		j := rng.IntN(n)
		if math.IsInf(want[j], 1) {
			continue
		}
		path, err := c.r.Path(s, j)
		if err != nil {
			return err
		}
		var sum int64
		var sumF float64
		for k := 1; k < len(path); k++ {
			w := c.w(int(path[k-1]), int(path[k]))
			sum += int64(w)
			sumF += w
		}
		if c.d.IsInt() && float64(sum) != c.got(s, j) || !c.d.IsInt() && !c.agree(c.got(s, j), sumF) {
			return fmt.Errorf("apsp: the path %v from Parents weighs %v, but Dist[%d][%d] = %v", path, sumF, s, j, c.got(s, j))
		}
	}
	return nil
}
