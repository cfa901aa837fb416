package bfs

import (
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/internal/par"
)

// Check validates r as a BFS of g from r.Source by the Graph500 rules:
//
//  1. tree: Parents[Source] = Source, every reached vertex has a reached
//     parent, and following parents from any reached vertex reaches Source
//     without a cycle;
//  2. tree levels: Levels[v] = Levels[Parents[v]] + 1 for every reached
//     v ≠ Source (and Levels[Source] = 0);
//  3. edge levels: every arc u→v with u reached has Levels[v] ≤
//     Levels[u]+1 (on an undirected graph, with both arcs stored, this
//     says the endpoint levels of every edge differ by at most one);
//  4. spanning: every arc u→v with u reached has v reached, so the tree
//     spans Source's component (everything Source can reach);
//  5. tree arcs: every reached v ≠ Source has an arc Parents[v]→v in g.
//
// It also checks the bookkeeping: len(Levels) = len(Parents) = N, Source in
// range, unreached ⇔ level -1 ⇔ parent -1, FrontierSizes[l] = the number of
// vertices at level l (and no more entries than levels), Reached and
// ComponentEdges. It does not look at Directions, Iterations, times or
// rates.
//
// Levels being minimal follows from rules 2–4: a tree path gives an upper
// bound, and rule 3 makes every level at most one more than any in-
// neighbour's, so no shorter path exists. The error names the rule and the
// first offending vertex (lowest id) or arc. Work is O(N + M), both
// passes on all cores (on an undirected graph the arc pass reads each
// edge's levels once, from its higher end, and, when the lists are sorted
// by id as Build makes them, reads each list only up to its first arc
// above the vertex, searching the rest for a parent of higher id);
// memory is 1 byte per vertex
// (2 or 4 when the search is 253 or 65533 levels deep or more), plus 1 on
// a directed graph.
func Check(g *graph.CSR, r *Result) error {
	if g == nil || len(g.Offsets) == 0 {
		return fmt.Errorf("bfs: check: no graph")
	}
	if r == nil {
		return fmt.Errorf("bfs: check: no result")
	}
	n := g.NumVertices()
	if len(r.Levels) != n || len(r.Parents) != n {
		return fmt.Errorf("bfs: check: result has %d levels and %d parents for a %d-vertex graph", len(r.Levels), len(r.Parents), n)
	}
	src := r.Source
	if src < 0 || int(src) >= n {
		return fmt.Errorf("bfs: check: source %d is outside [0,%d)", src, n)
	}
	levels, parents := r.Levels, r.Parents
	if levels[src] != 0 {
		return fmt.Errorf("bfs: check: rule 2 (tree levels): source %d has level %d, want 0", src, levels[src])
	}
	if parents[src] != src {
		return fmt.Errorf("bfs: check: rule 1 (tree): source %d has parent %d, want itself", src, parents[src])
	}

	// Pass 1 (parallel): per-vertex rules; the error of the lowest
	// vertex wins, so the message does not depend on scheduling.
	var mu sync.Mutex // guards the per-worker sums merged below
	var bad par.FirstError
	report := func(v int32, err error) { bad.Report(int64(v)<<32, err) }
	// Pass 1 also writes the compact level copy of pass 2 in bytes, used
	// when the search is less than 253 levels deep (R-MAT's and SSCA#2's
	// are a few dozen at most); its buffer is reused from check to check.
	lv8 := byteLevels(n)
	defer byteLevelPool.Put(&lv8)
	var maxLevel int32
	err := par.For(n, func(lo, hi int) {
		var localMax int32
		for v := int32(lo); v < int32(hi); v++ {
			l, p := levels[v], parents[v]
			var err error
			switch {
			case l < -1:
				err = fmt.Errorf("bfs: check: vertex %d has level %d (want ≥ 0, or -1 when unreached)", v, l)
			case l == -1 && p != -1:
				err = fmt.Errorf("bfs: check: unreached vertex %d (level -1) has parent %d, want -1", v, p)
			case l >= 0 && p < 0:
				err = fmt.Errorf("bfs: check: rule 1 (tree): reached vertex %d (level %d) has no parent", v, l)
			case l >= 0 && int(p) >= n:
				err = fmt.Errorf("bfs: check: rule 1 (tree): vertex %d has parent %d, outside [0,%d)", v, p, n)
			case l >= 0 && levels[p] < 0:
				err = fmt.Errorf("bfs: check: rule 1 (tree): vertex %d has unreached parent %d", v, p)
			case l >= 0 && v != src && levels[p] != l-1:
				err = fmt.Errorf("bfs: check: rule 2 (tree levels): vertex %d has level %d but its parent %d has level %d",
					v, l, p, levels[p])
			}
			if err != nil {
				report(v, err)
				return
			}
			lv8[v] = uint8(l + 1) // wraps past 254: then unused
			localMax = max(localMax, l)
		}
		mu.Lock()
		maxLevel = max(maxLevel, localMax)
		mu.Unlock()
	})
	if err != nil {
		return fmt.Errorf("bfs: check: %w", err)
	}
	if err := bad.Err(); err != nil {
		return err
	}
	// Rule 1 follows: every parent is one level closer to the source, and
	// only the source has level 0 (any other vertex of level 0 would need
	// a parent of level -1), so following parents from any reached vertex
	// reaches the source without a cycle.

	// Pass 2 (parallel, one sweep over the reached vertices' arcs):
	// vertices per level, the component's degrees, rules 3 and 4 for every
	// arc, and rule 5 — on an undirected graph the arc v→parent(v) stands
	// for parent(v)→v, found while v's own list is read; on a directed
	// graph parentArc marks the vertices whose parent's list holds them.
	// The arcs read the levels from a compact copy (level+1, 0 when
	// unreached, in the narrowest unsigned type that holds the depth): a
	// quarter of the memory at the depths of R-MAT and SSCA#2 graphs, so
	// the random reads stay in cache, and rules 3 and 4 become one
	// unsigned comparison per arc.
	var parentArc []bool
	if g.Directed {
		parentArc = make([]bool, n)
	}
	arcs := func(lowerOnly bool, bad *par.FirstError) ([]int64, int64, int64, error) {
		switch {
		case maxLevel < math.MaxUint8-2: // x+1 below must not wrap
			return arcPass(g, r, lv8, int(maxLevel), lowerOnly, parentArc, bad)
		case maxLevel < math.MaxUint16-2:
			return arcPass(g, r, shifted[uint16](levels), int(maxLevel), lowerOnly, parentArc, bad)
		}
		return arcPass(g, r, shifted[uint32](levels), int(maxLevel), lowerOnly, parentArc, bad)
	}
	// On an undirected graph, first read each list only up to its first
	// arc above its vertex: when these prefixes hold half the arcs, they
	// hold every arc to a lower id (there are as many as to higher ids,
	// none being self-loops), so every edge was seen from its higher end.
	// Else (lists not sorted by id, or self-loops) read every list whole.
	var prefixBad, wholeBad par.FirstError
	arcBad := &prefixBad
	counts, degSum, lower, err := arcs(!g.Directed, arcBad)
	if err == nil && !g.Directed && 2*lower != int64(len(g.Adj)) {
		arcBad = &wholeBad
		counts, degSum, _, err = arcs(false, arcBad)
	}
	if err != nil {
		return fmt.Errorf("bfs: check: %w", err)
	}
	if err := arcBad.Err(); err != nil {
		return err
	}
	for v := range int32(len(parentArc)) {
		if levels[v] > 0 && !parentArc[v] {
			return fmt.Errorf("bfs: check: rule 5 (tree arcs): vertex %d has parent %d but the graph has no arc %d→%d", v, parents[v], parents[v], v)
		}
	}

	// Bookkeeping.
	if len(r.FrontierSizes) != len(counts) {
		return fmt.Errorf("bfs: check: %d frontier sizes for %d levels", len(r.FrontierSizes), len(counts))
	}
	var reached int64
	for l, c := range counts {
		if r.FrontierSizes[l] != c {
			return fmt.Errorf("bfs: check: FrontierSizes[%d] = %d but %d vertices have level %d", l, r.FrontierSizes[l], c, l)
		}
		reached += c
	}
	if r.Reached != reached {
		return fmt.Errorf("bfs: check: Reached = %d but %d vertices have a level", r.Reached, reached)
	}
	want := degSum
	if !g.Directed {
		want /= 2
	}
	if r.ComponentEdges != want {
		return fmt.Errorf("bfs: check: ComponentEdges = %d, want %d", r.ComponentEdges, want)
	}
	return nil
}

// byteLevelPool holds the byte level copies of finished checks: a sweep
// checks one graph from root after root, and a fresh copy costs a page
// fault per 4 KiB.
var byteLevelPool sync.Pool

// byteLevels returns a byte slice of length n, its contents undefined.
func byteLevels(n int) []uint8 {
	if p, ok := byteLevelPool.Get().(*[]uint8); ok && cap(*p) >= n {
		return (*p)[:n]
	}
	return make([]uint8, n)
}

// shifted returns level+1 for every vertex (0 when unreached) as type T,
// which the caller has chosen to hold the largest level plus one.
func shifted[T uint16 | uint32](levels []int32) []T {
	out := make([]T, len(levels))
	par.For(len(levels), func(lo, hi int) { // an interrupt leaves it partial: arcPass sees it too and fails
		for v := lo; v < hi; v++ {
			out[v] = T(levels[v] + 1)
		}
	})
	return out
}

// arcPass is Check's pass 2 over the arcs: it returns the vertices per
// level, the sum of the reached vertices' degrees and, with lowerOnly,
// the number of arcs read below their vertex, and reports rules
// 3, 4 and 5 (undirected; parentArc, when not nil, collects the directed
// rule-5 evidence) to bad, at index vertex<<32 | neighbour, so that the
// error kept is that of the lowest vertex and, in it, of the lowest
// neighbour (rule 5 after its arcs). lv[v] is Levels[v]+1, 0 when
// unreached.
//
// On an undirected graph every edge is stored as two arcs, so rules 3 and
// 4 are checked once per edge, from its higher end: a vertex reads the
// levels of its neighbours below it only, which halves the random reads
// and keeps the rest on the low ids where an R-MAT graph's hubs are (in
// cache). In a list sorted by id, as Build makes them, those neighbours
// are a prefix, read in a loop that does nothing else, and the rest is
// only searched for the parent; a list in another order is read arc by
// arc. A broken edge is reported at the end whose own list the
// arc-by-arc check fails on, with the same message.
//
// With lowerOnly (undirected graphs), a list is read only up to its
// first arc at or above its vertex, and beyond it only to find a parent
// of higher id: the arcs below the vertex that such a list holds further
// on are not read, so the caller must check that the count returned
// covers every arc below its vertex (half the arcs, in a symmetric graph
// without self-loops) and else call again without lowerOnly.
func arcPass[T uint8 | uint16 | uint32](g *graph.CSR, r *Result, lv []T, maxLevel int, lowerOnly bool, parentArc []bool, bad *par.FirstError) ([]int64, int64, int64, error) {
	var mu sync.Mutex
	counts := make([]int64, maxLevel+1)
	var degSum, lowerSum int64
	levels, parents, src := r.Levels, r.Parents, r.Source
	half := !g.Directed
	err := par.ForWeighted(g.Offsets, func(lo, hi int) {
		local := make([]int64, maxLevel+1)
		var deg, lower int64
		// The lowest index with a broken rule seen in this range, and its
		// error.
		bestAt, bestErr := int64(math.MaxInt64), error(nil)
		note := func(at, other int32, err error) {
			if i := int64(at)<<32 | int64(uint32(other)); i < bestAt {
				bestAt, bestErr = i, err
			}
		}
		defer func() {
			if bestErr != nil {
				bad.Report(bestAt, bestErr)
			}
			mu.Lock()
			for l, c := range local {
				counts[l] += c
			}
			degSum += deg
			lowerSum += lower
			mu.Unlock()
		}()
		for u := int32(lo); u < int32(hi); u++ {
			arcs := g.Adj[g.Offsets[u]:g.Offsets[u+1]]
			lu1 := lv[u]               // Levels[u]+1
			if lu1 == 0 && lowerOnly { // rule 4 from the unreached end
				j := 0
				for ; j < len(arcs) && arcs[j] < u; j++ {
					if v := arcs[j]; lv[v] != 0 {
						note(v, u, fmt.Errorf("bfs: check: rule 4 (spanning): vertex %d is unreached but has an arc from reached vertex %d (level %d)", u, v, levels[v]))
					}
				}
				lower += int64(j)
				continue
			}
			if lu1 == 0 {
				if half { // rule 4 from the unreached end
					for _, v := range arcs {
						if v < u && lv[v] != 0 {
							note(v, u, fmt.Errorf("bfs: check: rule 4 (spanning): vertex %d is unreached but has an arc from reached vertex %d (level %d)", u, v, levels[v]))
						}
					}
				}
				continue
			}
			local[lu1-1]++
			deg += int64(len(arcs))
			pu := parents[u]
			hasParentArc := u == src
			if lowerOnly {
				// The arcs below u, in a loop that does nothing else
				// while their levels are right; the first wrong one sends
				// the rest of the list to the general loop below.
				low := max(lu1-1, 1)
				span := lu1 + 1 - low
				j := 0
				for ; j < len(arcs); j++ {
					v := arcs[j]
					if v >= u {
						break
					}
					if v == pu {
						hasParentArc = true
					}
					if lv[v]-low > span {
						break
					}
				}
				lower += int64(j)
				rest := arcs[j:]
				if len(rest) == 0 || rest[0] > u {
					if !hasParentArc && pu > u {
						// In a sorted list a binary search finds it.
						_, found := slices.BinarySearch(rest, pu)
						hasParentArc = found || slices.Contains(rest, pu)
					}
					if !hasParentArc {
						note(u, math.MaxInt32, fmt.Errorf("bfs: check: rule 5 (tree arcs): vertex %d has parent %d but the graph has no arc %d→%d", u, pu, pu, u))
					}
					continue
				}
				for _, v := range rest {
					if v < u {
						lower++
					}
				}
				arcs = rest
			} else if half {
				// The arcs to lower ids first: all of a list sorted by
				// id (as Build makes them) up to the first arc above u,
				// whose rest only has to hold the parent. An arc below u
				// in that rest (an unsorted list) sends the list to the
				// general loop below.
				// Rules 3 and 4 as one unsigned comparison: a
				// neighbour's level+1 lies in [max(1, lu1-1), lu1+1].
				low := max(lu1-1, 1)
				span := lu1 + 1 - low
				j := 0
				for ; j < len(arcs); j++ {
					v := arcs[j]
					if v > u {
						break
					}
					if v == pu {
						hasParentArc = true
					}
					if lv[v]-low > span {
						break // reported by the general loop
					}
				}
				rest := arcs[j:]
				least := int32(math.MaxInt32)
				for _, v := range rest {
					least = min(least, v)
					if v == pu {
						hasParentArc = true
					}
				}
				if least > u {
					if !hasParentArc {
						note(u, math.MaxInt32, fmt.Errorf("bfs: check: rule 5 (tree arcs): vertex %d has parent %d but the graph has no arc %d→%d", u, pu, pu, u))
					}
					continue
				}
				arcs = rest
			}
			for _, v := range arcs {
				hasParentArc = hasParentArc || v == pu
				if half && v > u {
					continue
				}
				// Rules 3 and 4 at once: x-1 wraps to the type's maximum
				// for an unreached v, and is Levels[v] otherwise, which
				// must not exceed Levels[u]+1 …
				x := lv[v]
				if x-1 > lu1 {
					lu, l := levels[u], levels[v]
					if l < 0 {
						note(u, v, fmt.Errorf("bfs: check: rule 4 (spanning): vertex %d is unreached but has an arc from reached vertex %d (level %d)", v, u, lu))
					} else {
						note(u, v, fmt.Errorf("bfs: check: rule 3 (edge levels): arc %d→%d joins levels %d and %d, more than one apart", u, v, lu, l))
					}
				} else if half && x+1 < lu1 { // … nor, for the reverse arc, be below Levels[u]-1
					note(v, u, fmt.Errorf("bfs: check: rule 3 (edge levels): arc %d→%d joins levels %d and %d, more than one apart", v, u, levels[v], levels[u]))
				}
			}
			if parentArc != nil {
				for _, v := range arcs {
					if parents[v] == u {
						parentArc[v] = true
					}
				}
			} else if !hasParentArc {
				note(u, math.MaxInt32, fmt.Errorf("bfs: check: rule 5 (tree arcs): vertex %d has parent %d but the graph has no arc %d→%d", u, pu, pu, u))
			}
		}
	})
	return counts, degSum, lowerSum, err
}
