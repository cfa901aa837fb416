package mst

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/internal/par"
	"github.com/graphnb/graphnb/trace"
)

// noEdge marks a tree without an outgoing edge in a round.
const noEdge = math.MaxUint32

// Boruvka returns the minimum spanning forest of the undirected graph g by
// the parallel Borůvka algorithm of the MST study (docs/studies.md §3), on all
// cores.
//
// Preparation (PrepTime, not in Time, as in the study): every edge is
// ranked by the total order (weight, smaller endpoint, larger endpoint) —
// the study's "weights → integers" — and every vertex's neighbour list is
// laid out in rank order — its "local sort". Each round then
//
//  1. finds every tree's minimum outgoing edge: each vertex advances a
//     cursor past the neighbours already in its own tree (they stay there)
//     and offers the first other one, an atomic minimum on ranks combines
//     the offers of a tree;
//  2. hooks each tree to the tree across that edge, and removes 2-cycles
//     (two trees that chose each other: the smaller id becomes the root);
//     with distinct ranks no longer cycle can form;
//  3. merges trees by pointer jumping (F[i] = F[F[i]] until stable);
//  4. renumbers the surviving trees 0..P-1 (a prefix sum, so ids do not
//     depend on timing) and relabels the vertices.
//
// It stops when one tree remains or no tree has an outgoing edge. Work is
// O(M) for the preparation (a radix sort), then O(M + N log N) for the
// rounds (at most log2 N rounds; cursors only advance); memory is about
// 32 bytes per edge (48 while sorting) plus 30 bytes per vertex. The
// result is deterministic and equals Kruskal's.
//
// It returns an error for a nil or directed graph, for 2^32-1 edges or
// more (ranks are uint32, as in the study), and, wrapped,
// cancel.ErrInterrupted when interrupted (polled every round).
func Boruvka(g *graph.CSR) (*Result, error) { return boruvka(g, false) }

// boruvka is Boruvka, with traced a Result.Trace of one step per round
// (the GPU Borůvka's host stand-in, Options.Trace).
func boruvka(g *graph.CSR, traced bool) (*Result, error) {
	t0 := time.Now()
	edges, err := undirectedEdges(g, "Boruvka")
	if err != nil {
		return nil, err
	}
	if int64(len(edges)) >= noEdge {
		return nil, fmt.Errorf("mst: Boruvka ranks edges as uint32, but the graph has %d edges (limit %d): use Kruskal", len(edges), int64(noEdge)-1)
	}
	if err := sortEdges(edges); err != nil {
		return nil, fmt.Errorf("mst: Boruvka: %w", err)
	}
	n := g.NumVertices()
	l, err := rankLists(n, edges, g.Offsets)
	if err != nil {
		return nil, fmt.Errorf("mst: Boruvka: %w", err)
	}
	r := &Result{Algorithm: "cpu Borůvka", PrepTime: time.Since(t0)}

	t1 := time.Now()
	var steps *[]trace.Step
	if traced {
		steps = new([]trace.Step)
	}
	inTree, trees, rounds, err := boruvkaRounds(n, edges, l, steps)
	if err != nil {
		return nil, fmt.Errorf("mst: Boruvka: %w", err)
	}
	if r.Edges, err = collect(edges, inTree); err != nil {
		return nil, fmt.Errorf("mst: Boruvka: %w", err)
	}
	r.Time = time.Since(t1)
	if traced {
		r.Trace = &trace.Trace{Algorithm: r.Algorithm, Arcs: g.NumArcs(), Steps: *steps, Time: r.Time}
	}
	r.Trees, r.Iterations = trees, rounds
	r.finish(g)
	return r, nil
}

// lists is a CSR whose neighbour lists are sorted by edge rank: the arcs
// of v are head[off[v]:off[v+1]] with ranks rank[off[v]:off[v+1]].
type lists struct {
	off  []int64
	head []int32
	rank []uint32
}

// rankLists lays out both arcs of every edge of the sorted slice edges,
// each vertex's arcs in rank order. The workers (up to 32) own contiguous vertex
// ranges (balanced by the degrees in hint, the graph's offsets); each
// scans all edges and writes only its own vertices' arcs, so writes never
// collide and every list keeps rank order.
// It returns cancel's error when interrupted.
func rankLists(n int, edges []Edge, hint []int64) (lists, error) {
	parts := max(1, min(par.Workers(), 32, len(edges)>>12))
	bounds := make([]int32, parts+1)
	for p := 1; p < parts; p++ {
		target := hint[n] * int64(p) / int64(parts)
		v, _ := slices.BinarySearch(hint, target)
		bounds[p] = int32(max(int(bounds[p-1]), min(v, n)))
	}
	bounds[parts] = int32(n)
	own := func(fn func(lo, hi int32)) {
		var wg sync.WaitGroup
		for p := 0; p < parts; p++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				fn(bounds[p], bounds[p+1])
			}()
		}
		wg.Wait()
	}
	off := make([]int64, n+1)
	own(func(lo, hi int32) {
		for k, e := range edges {
			if par.Cancelled(k) {
				return
			}
			if e.U >= lo && e.U < hi {
				off[e.U+1]++
			}
			if e.V >= lo && e.V < hi {
				off[e.V+1]++
			}
		}
	})
	if err := cancel.Check(); err != nil {
		return lists{}, err
	}
	for v := 0; v < n; v++ {
		off[v+1] += off[v]
	}
	l := lists{off: off, head: make([]int32, 2*len(edges)), rank: make([]uint32, 2*len(edges))}
	pos := slices.Clone(off[:n])
	own(func(lo, hi int32) {
		for k, e := range edges {
			if par.Cancelled(k) {
				return
			}
			if e.U >= lo && e.U < hi {
				p := pos[e.U]
				l.head[p], l.rank[p] = e.V, uint32(k)
				pos[e.U]++
			}
			if e.V >= lo && e.V < hi {
				p := pos[e.V]
				l.head[p], l.rank[p] = e.U, uint32(k)
				pos[e.V]++
			}
		}
	})
	if err := cancel.Check(); err != nil {
		return lists{}, err
	}
	return l, nil
}

// boruvkaRounds runs the rounds and returns a bitmap of the chosen edges
// (bit k: the edge of rank k), the number of trees left and the number of
// merging rounds. With steps not nil it appends one per round (see
// Result.Trace).
func boruvkaRounds(n int, edges []Edge, l lists, steps *[]trace.Step) (inTree []uint64, trees, rounds int, err error) {
	comp := make([]int32, n) // tree of each vertex, 0..P-1
	for v := range comp {
		comp[v] = int32(v)
	}
	cursor := slices.Clone(l.off[:n])
	best := make([]uint32, n)
	hook, hook2 := make([]int32, n), make([]int32, n)
	newID := make([]int32, n)
	inTree = make([]uint64, (len(edges)+63)/64)
	p := n
	for p > 1 {
		if err := cancel.Check(); err != nil {
			return nil, 0, 0, err
		}
		roundStart := time.Now()
		var scanned atomic.Int64 // arcs read by step 1
		step := trace.Step{Kind: "round", Frontier: int64(p)}
		record := func(added int64) {
			if steps != nil {
				step.Inspected, step.Updated, step.Time = scanned.Load(), added, time.Since(roundStart)
				*steps = append(*steps, step)
			}
		}
		// 1. minimum outgoing edge of every tree.
		b := best[:p]
		if err := par.For(p, func(lo, hi int) {
			for c := lo; c < hi; c++ {
				b[c] = noEdge
			}
		}); err != nil {
			return nil, 0, 0, err
		}
		if err := par.ForWeighted(l.off, func(lo, hi int) {
			var read int64
			for v := lo; v < hi; v++ {
				c := comp[v]
				k0, end := cursor[v], l.off[v+1]
				k := k0
				for k < end && comp[l.head[k]] == c {
					k++
				}
				cursor[v] = k
				read += k - k0
				if k < end {
					atomicMin(&b[c], l.rank[k])
					read++
				}
			}
			scanned.Add(read)
		}); err != nil {
			return nil, 0, 0, err
		}
		// 2. hook every tree to its neighbour across that edge, then break
		// the 2-cycles towards the smaller id (read f, write f2).
		f, f2 := hook[:p], hook2[:p]
		if err := par.For(p, func(lo, hi int) {
			for c := lo; c < hi; c++ {
				f[c] = int32(c)
				if b[c] != noEdge {
					e := edges[b[c]]
					o := comp[e.U]
					if o == int32(c) {
						o = comp[e.V]
					}
					f[c] = o
				}
			}
		}); err != nil {
			return nil, 0, 0, err
		}
		if err := par.For(p, func(lo, hi int) {
			for c := lo; c < hi; c++ {
				t := f[c]
				if t != int32(c) && f[t] == int32(c) && int32(c) < t {
					t = int32(c)
				}
				f2[c] = t
			}
		}); err != nil {
			return nil, 0, 0, err
		}
		var added atomic.Int64
		if err := par.For(p, func(lo, hi int) {
			k := 0
			for c := lo; c < hi; c++ {
				if f2[c] != int32(c) {
					atomic.OrUint64(&inTree[b[c]/64], 1<<(b[c]%64))
					k++
				}
			}
			added.Add(int64(k))
		}); err != nil {
			return nil, 0, 0, err
		}
		if added.Load() == 0 {
			record(0)
			break // no tree has an outgoing edge: a spanning forest
		}
		rounds++
		// 3. pointer jumping to the roots, Jacobi style (read src, write dst).
		root, err := pointerJump(f2, f)
		if err != nil {
			return nil, 0, 0, err
		}
		// 4. renumber the roots and relabel the vertices.
		ids := newID[:p]
		before := p
		if p, err = renumber(root, ids); err != nil {
			return nil, 0, 0, err
		} else if p >= before {
			panic("mst: a Borůvka round added edges but merged no trees (internal error)")
		}
		if err := par.For(n, func(lo, hi int) {
			for v := lo; v < hi; v++ {
				comp[v] = ids[root[comp[v]]]
			}
		}); err != nil {
			return nil, 0, 0, err
		}
		record(int64(before - p))
	}
	return inTree, p, rounds, nil
}

// collect returns the edges whose bits are set, in rank order: per-chunk
// counts, a prefix sum, then a parallel fill; cancel's error when
// interrupted.
func collect(edges []Edge, inTree []uint64) ([]Edge, error) {
	const words = 1 << 12
	chunks := (len(inTree) + words - 1) / words
	at := make([]int, chunks+1)
	err := par.ForChunks(len(inTree), words, func(c, lo, hi int) {
		k := 0
		for _, w := range inTree[lo:hi] {
			k += bits.OnesCount64(w)
		}
		at[c+1] = k
	})
	if err != nil {
		return nil, err
	}
	for c := 0; c < chunks; c++ {
		at[c+1] += at[c]
	}
	out := make([]Edge, at[chunks])
	err = par.ForChunks(len(inTree), words, func(c, lo, hi int) {
		j := at[c]
		for i := lo; i < hi; i++ {
			for w := inTree[i]; w != 0; w &= w - 1 {
				out[j] = edges[i*64+bits.TrailingZeros64(w)]
				j++
			}
		}
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// atomicMin lowers *p to v if v is smaller.
func atomicMin(p *uint32, v uint32) {
	for {
		old := atomic.LoadUint32(p)
		if v >= old || atomic.CompareAndSwapUint32(p, old, v) {
			return
		}
	}
}

// pointerJump replaces every entry of the forest f by its root, using
// scratch (same length) as the second buffer, and returns the slice that
// holds the roots (f or scratch), or cancel's error when interrupted.
func pointerJump(f, scratch []int32) ([]int32, error) {
	src, dst := f, scratch
	for pass := 0; ; pass++ {
		if pass > 64 { // a forest of < 2^31 nodes needs at most 32 passes
			panic("mst: Borůvka hooks formed a cycle (internal error)")
		}
		var changed atomic.Bool
		if err := par.For(len(src), func(lo, hi int) {
			ch := false
			for c := lo; c < hi; c++ {
				t := src[src[c]]
				if t != src[c] {
					ch = true
				}
				dst[c] = t
			}
			if ch {
				changed.Store(true)
			}
		}); err != nil {
			return nil, err
		}
		src, dst = dst, src
		if !changed.Load() {
			return src, nil
		}
	}
}

// renumber gives the roots of root (root[c] == c) the ids 0..count-1 in
// increasing order of c, stores them in ids[c], and returns count. Chunks
// have fixed boundaries, so the ids do not depend on timing. It returns
// cancel's error when interrupted.
func renumber(root, ids []int32) (int, error) {
	const chunk = 1 << 14
	p := len(root)
	counts := make([]int32, (p+chunk-1)/chunk+1)
	err := par.ForChunks(p, chunk, func(ci, lo, hi int) {
		var k int32
		for c := lo; c < hi; c++ {
			if root[c] == int32(c) {
				k++
			}
		}
		counts[ci+1] = k
	})
	if err != nil {
		return 0, err
	}
	for i := 1; i < len(counts); i++ {
		counts[i] += counts[i-1]
	}
	err = par.ForChunks(p, chunk, func(ci, lo, hi int) {
		k := counts[ci]
		for c := lo; c < hi; c++ {
			if root[c] == int32(c) {
				ids[c] = k
				k++
			}
		}
	})
	if err != nil {
		return 0, err
	}
	return int(counts[len(counts)-1]), nil
}
