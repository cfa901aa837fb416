package bfs

import (
	"fmt"
	"slices"
	"sync"

	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/internal/par"
)

// checkLanes is how many results CheckMany validates in one read of the
// graph: one byte of a uint64 each.
const checkLanes = 8

// Lane bytes of CheckMany's level table: a reached vertex's level (at
// most laneMaxLevel), or laneUnreached. Both stay below 64, so the table's
// comparisons cannot carry from one lane into the next, and an unreached
// vertex is more than one level from every reached one.
const (
	laneMaxLevel  = 60
	laneUnreached = 63
	laneHigh      = 0x8080808080808080 // the top bit of every lane
	laneTwos      = 0x0202020202020202 // 2 in every lane
)

// CheckMany validates several BFS results of g: errs[i] is what
// Check(g, rs[i]) returns, message included, and errs has len(rs)
// entries. On an undirected graph whose lists hold their lower
// neighbours first (as Build makes them), it reads the graph once for up
// to eight results, their levels packed one byte each into a uint64 per
// vertex (8 bytes per vertex, plus the results themselves, which it only
// reads): every edge's levels are compared for all eight at once. A
// result that breaks any rule, or whose search is more than 60 levels
// deep, is then checked again by Check, which names the rule and the
// vertex; so is every result on a directed graph or one whose lists are
// in another order. A sweep checking one graph from many roots spends
// about a third of the time that Check on each would (see bench's
// BatchChecker).
func CheckMany(g *graph.CSR, rs []*Result) []error {
	errs := make([]error, len(rs))
	for lo := 0; lo < len(rs); lo += checkLanes {
		hi := min(lo+checkLanes, len(rs))
		if g == nil || len(g.Offsets) == 0 || g.Directed || hi-lo == 1 {
			for i := lo; i < hi; i++ {
				errs[i] = Check(g, rs[i])
			}
			continue
		}
		failed, err := checkLanesOnce(g, rs[lo:hi])
		for i := lo; i < hi; i++ {
			switch {
			case err != nil:
				errs[i] = fmt.Errorf("bfs: check: %w", err)
			case failed&(1<<(i-lo)) != 0:
				errs[i] = Check(g, rs[i])
			}
		}
	}
	return errs
}

// laneTables are the level tables of finished CheckMany calls: a sweep
// checks one graph batch after batch, and a fresh table costs a page
// fault per 4 KiB.
var laneTables sync.Pool

// checkLanesOnce checks up to eight results of the undirected graph g at
// once and returns a mask of those it could not accept (bit i for rs[i]):
// they broke a rule or are outside what the packed table holds, and
// Check must look at them. It accepts a result only when every rule of
// Check holds for it. The error is an interrupt's.
func checkLanesOnce(g *graph.CSR, rs []*Result) (failed uint8, err error) {
	n := g.NumVertices()
	lanes := len(rs)
	// Shape and source rules: anything wrong goes to Check.
	for i, r := range rs {
		if r == nil || len(r.Levels) != n || len(r.Parents) != n || r.Source < 0 || int(r.Source) >= n ||
			r.Levels[r.Source] != 0 || r.Parents[r.Source] != r.Source {
			failed |= 1 << i
		}
	}
	table, _ := laneTables.Get().(*[]uint64)
	if table == nil || cap(*table) < n {
		t := make([]uint64, n)
		table = &t
	}
	defer laneTables.Put(table)
	tab := (*table)[:n]

	// Pass 1 (parallel over vertices): each result's levels and parents
	// in range, as Check's pass 1 requires, the bookkeeping, and the
	// packed levels. The parents' levels are read in pass 2, from the
	// packed table: one random read of 8 bytes per vertex and result
	// instead of one in each result's level array.
	type sums struct {
		counts [checkLanes][laneMaxLevel + 1]int64
		deg    [checkLanes]int64
		depth  [checkLanes]int32
		bad    uint8
	}
	var mu sync.Mutex
	var total sums
	err = par.For(n, func(lo, hi int) {
		var s sums
		for v := int32(lo); v < int32(hi); v++ {
			word := uint64(0)
			for i := range checkLanes {
				b := uint64(laneUnreached)
				if i < lanes && failed&(1<<i) == 0 {
					r := rs[i]
					l, p := r.Levels[v], r.Parents[v]
					switch {
					case l == -1:
						if p != -1 {
							s.bad |= 1 << i
						}
					case l < -1 || l > laneMaxLevel || p < 0 || int(p) >= n:
						s.bad |= 1 << i
					default: // Levels[p] = l-1 is pass 2's, from the table
						b = uint64(l)
						s.counts[i][l]++
						s.deg[i] += g.Offsets[v+1] - g.Offsets[v]
						s.depth[i] = max(s.depth[i], l)
					}
				}
				word |= b << (8 * i)
			}
			tab[v] = word
		}
		mu.Lock()
		defer mu.Unlock()
		for i := range lanes {
			for l, c := range s.counts[i] {
				total.counts[i][l] += c
			}
			total.deg[i] += s.deg[i]
			total.depth[i] = max(total.depth[i], s.depth[i])
		}
		total.bad |= s.bad
	})
	if err != nil {
		return 0, err
	}
	failed |= total.bad

	// Pass 2 (parallel over the arcs): rules 3 and 4 for every edge,
	// from its higher end, for all results at once, and rule 5. A lane
	// holds a level or laneUnreached, below 64; for lanes x and w,
	// (x|128) - (w+2) keeps its top bit exactly when x ≥ w+2, without
	// borrowing from the next lane, so one OR of both directions over a
	// list flags, in the top bit of a lane, an edge whose ends' levels
	// are more than one apart, or join a reached and an unreached vertex.
	var lowerSum int64
	var edgeBad uint64
	err = par.ForWeighted(g.Offsets, func(lo, hi int) {
		var lower int64
		var bad uint64
		var tree uint8
		for u := int32(lo); u < int32(hi); u++ {
			arcs := g.Adj[g.Offsets[u]:g.Offsets[u+1]]
			w := tab[u]
			wHigh, wTwo := w|laneHigh, w+laneTwos
			j := 0
			for ; j < len(arcs) && arcs[j] < u; j++ {
				x := tab[arcs[j]]
				bad |= ((x | laneHigh) - wTwo) | (wHigh - (x + laneTwos))
			}
			lower += int64(j)
			// Rules 1 and 2, the parent's level (from the table), and
			// rule 5: the arc u→parent(u) stands for parent(u)→u.
			for i := range lanes {
				l := byte(w >> (8 * i))
				if l == laneUnreached || u == rs[i].Source {
					continue
				}
				p := rs[i].Parents[u]
				if byte(tab[p]>>(8*i)) != l-1 {
					tree |= 1 << i
					continue
				}
				var found bool
				if p < u { // in the prefix just read
					_, found = slices.BinarySearch(arcs[:j], p)
				} else {
					_, found = slices.BinarySearch(arcs[j:], p)
				}
				if !found && !slices.Contains(arcs, p) {
					tree |= 1 << i
				}
			}
		}
		mu.Lock()
		lowerSum += lower
		edgeBad |= bad
		failed |= tree
		mu.Unlock()
	})
	if err != nil {
		return 0, err
	}
	if 2*lowerSum != int64(len(g.Adj)) {
		// Some list holds a lower neighbour after a higher one (or a
		// self-loop): the prefixes did not cover every edge.
		return 1<<lanes - 1, nil
	}
	for i := range lanes {
		if edgeBad&(uint64(0x80)<<(8*i)) != 0 {
			failed |= 1 << i
		}
	}

	// Bookkeeping, as Check's.
	for i, r := range rs {
		if failed&(1<<i) != 0 {
			continue
		}
		levels := int(total.depth[i]) + 1
		ok := len(r.FrontierSizes) == levels && r.ComponentEdges == total.deg[i]/2
		var reached int64
		for l := 0; ok && l < levels; l++ {
			ok = r.FrontierSizes[l] == total.counts[i][l]
			reached += total.counts[i][l]
		}
		if !ok || r.Reached != reached {
			failed |= 1 << i
		}
	}
	return failed, nil
}
