package graph

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/internal/par"
)

// RCMOrder computes a reverse Cuthill-McKee ordering of g: connected
// vertices get close numbers, the MST study's "renumber vertices so that
// strongly connected vertices get close numbers" (docs/studies.md §3, input
// transformation 2). Pass newID to Renumber to relabel the graph;
// newID[old] is a vertex's new number and oldID[new] its old one, so the
// two are inverse permutations of [0, N).
//
// Each connected component is numbered by a breadth-first search from a
// pseudo-peripheral vertex (George and Liu's search, started at the
// component's vertex of least degree, ties by id), visiting each vertex's
// unnumbered neighbours in increasing degree (ties by id); the whole
// Cuthill-McKee order is then reversed. Components are started in order of
// their least-(degree, id) vertex, so isolated vertices come first in the
// Cuthill-McKee order and last in the result (they get the largest new
// numbers). The order is deterministic and does not depend on the core
// count.
//
// For a directed graph only out-arcs are followed; make it undirected
// (Undirected) for the classical ordering. The ordering narrows the
// bandwidth (Bandwidth) of meshes, roads and clique-rich graphs such as
// SSCA#2 a lot, and helps R-MAT little, as the study observed.
//
// Each BFS level runs in parallel; work is O(M) per BFS, usually three or
// four BFS per component (George and Liu's search stops after 16 moves),
// plus sorting each vertex's children by degree; scratch memory is 16
// bytes per vertex besides the two results. The only error is an
// interrupt (cancel.Check between components and BFS levels).
func RCMOrder(g *CSR) (newID, oldID []int32, err error) {
	n := g.NumVertices()
	r := &rcm{
		g:      g,
		order:  make([]int32, 0, n),
		parent: make([]int32, n),
		seen:   make([]int32, n),
	}
	err = par.For(n, func(lo, hi int) {
		for v := lo; v < hi; v++ {
			r.parent[v] = unreached
		}
	})
	if err != nil {
		return nil, nil, fmt.Errorf("graph: RCM ordering: %w", err)
	}
	byDegree, err := verticesByDegree(g)
	if err != nil {
		return nil, nil, fmt.Errorf("graph: RCM ordering: %w", err)
	}
	for _, s := range byDegree {
		if r.parent[s] != unreached {
			continue
		}
		if err := cancel.Check(); err != nil {
			return nil, nil, fmt.Errorf("graph: RCM ordering: %w", err)
		}
		root := s
		if g.Degree(s) > 0 {
			if root, err = r.peripheral(s); err != nil {
				return nil, nil, fmt.Errorf("graph: RCM ordering: %w", err)
			}
		}
		if err := r.cuthillMcKee(root); err != nil {
			return nil, nil, fmt.Errorf("graph: RCM ordering: %w", err)
		}
	}
	newID, oldID = make([]int32, n), make([]int32, n)
	err = par.For(n, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			v := r.order[i]
			j := int32(n - 1 - i)
			newID[v], oldID[j] = j, v
		}
	})
	if err != nil {
		return nil, nil, fmt.Errorf("graph: RCM ordering: %w", err)
	}
	return newID, oldID, nil
}

const (
	// unreached marks a vertex no BFS of the ordering has met; numbered
	// marks one already in the order. Between the two, parent holds the
	// least order position of a frontier neighbour during a level.
	unreached = math.MaxInt32
	numbered  = -1
	// seqArcs is the frontier size (in arcs) below which a BFS level runs
	// on one goroutine.
	seqArcs = 1 << 13
	// maxPeripheralRounds bounds George and Liu's search.
	maxPeripheralRounds = 16
)

type rcm struct {
	g *CSR
	// order is the Cuthill-McKee order being built (capacity N, so
	// frontiers can alias it while it grows).
	order []int32
	// parent is unreached, numbered, or during a level the least
	// position in order of a frontier neighbour.
	parent []int32
	// seen[v] == stamp marks vertices met by the current level search.
	seen         []int32
	stamp        int32
	front, next  []int32
	frontWeights []int64
}

// verticesByDegree returns all vertices ordered by (degree, id), by a
// counting sort on the degree; cancel's error when interrupted.
func verticesByDegree(g *CSR) ([]int32, error) {
	n := g.NumVertices()
	maxDeg := 0
	for v := range n {
		if par.Cancelled(v) {
			return nil, cancel.ErrInterrupted
		}
		maxDeg = max(maxDeg, int(g.Offsets[v+1]-g.Offsets[v]))
	}
	start := make([]int, maxDeg+2)
	for v := range n {
		if par.Cancelled(v) {
			return nil, cancel.ErrInterrupted
		}
		start[g.Offsets[v+1]-g.Offsets[v]+1]++
	}
	for d := 1; d < len(start); d++ {
		start[d] += start[d-1]
	}
	out := make([]int32, n)
	for v := range n {
		if par.Cancelled(v) {
			return nil, cancel.ErrInterrupted
		}
		d := g.Offsets[v+1] - g.Offsets[v]
		out[start[d]] = int32(v)
		start[d]++
	}
	return out, nil
}

// frontierWeights returns offsets (as in a CSR) of the arcs of the
// frontier's vertices, for par.ForWeighted, and their total.
func (r *rcm) frontierWeights(front []int32) ([]int64, int64) {
	w := r.frontWeights[:0]
	var sum int64
	w = append(w, 0)
	for _, u := range front {
		sum += r.g.Offsets[u+1] - r.g.Offsets[u]
		w = append(w, sum)
	}
	r.frontWeights = w
	return w, sum
}

// peripheral runs George and Liu's search for a pseudo-peripheral vertex
// of s's component: from the current root, take the least-degree vertex
// (ties by id) of the last BFS level; move there while its eccentricity
// grows.
func (r *rcm) peripheral(s int32) (int32, error) {
	root := s
	ecc, last, err := r.levels(root)
	if err != nil {
		return 0, err
	}
	for range maxPeripheralRounds {
		x := last[0]
		for _, v := range last[1:] {
			if dv, dx := r.g.Degree(v), r.g.Degree(x); dv < dx || (dv == dx && v < x) {
				x = v
			}
		}
		e, l, err := r.levels(x)
		if err != nil {
			return 0, err
		}
		if e <= ecc {
			break
		}
		root, ecc, last = x, e, l
	}
	return root, nil
}

// levels runs a BFS from root and returns its eccentricity and its last
// level (as a set: the order within it depends on scheduling).
func (r *rcm) levels(root int32) (int, []int32, error) {
	if r.stamp == math.MaxInt32 {
		clear(r.seen)
		r.stamp = 0
	}
	r.stamp++
	st := r.stamp
	r.seen[root] = st
	front := append(r.front[:0], root)
	next := r.next[:0]
	ecc := 0
	for {
		if err := cancel.Check(); err != nil {
			return 0, nil, err
		}
		var err error
		if next, err = r.expand(front, next[:0], st); err != nil {
			return 0, nil, err
		}
		if len(next) == 0 {
			break
		}
		ecc++
		front, next = next, front
	}
	last := slices.Clone(front)
	r.front, r.next = front, next
	return ecc, last, nil
}

// expand appends to dst the vertices adjacent to front not yet stamped st,
// stamping them. In a directed graph a search may reach components
// numbered before; it skips their vertices. It returns cancel's error
// when interrupted.
func (r *rcm) expand(front, dst []int32, st int32) ([]int32, error) {
	g := r.g
	directed := g.Directed
	weights, arcs := r.frontierWeights(front)
	if arcs <= seqArcs || par.Workers() == 1 {
		for _, u := range front {
			for _, v := range g.Adj[g.Offsets[u]:g.Offsets[u+1]] {
				if r.seen[v] != st && (!directed || r.parent[v] == unreached) {
					r.seen[v] = st
					dst = append(dst, v)
				}
			}
		}
		return dst, nil
	}
	var mu sync.Mutex
	err := par.ForWeighted(weights, func(lo, hi int) {
		var local []int32
		for _, u := range front[lo:hi] {
			for _, v := range g.Adj[g.Offsets[u]:g.Offsets[u+1]] {
				if directed && r.parent[v] != unreached {
					continue
				}
				if old := atomic.LoadInt32(&r.seen[v]); old != st && atomic.CompareAndSwapInt32(&r.seen[v], old, st) {
					local = append(local, v)
				}
			}
		}
		mu.Lock()
		dst = append(dst, local...)
		mu.Unlock()
	})
	return dst, err
}

// cuthillMcKee appends root's component to r.order in Cuthill-McKee order:
// level by level, the children of each frontier vertex (the unnumbered
// neighbours whose first numbered neighbour it is) in increasing degree.
// Within a level the children of earlier vertices come first, exactly as
// a sequential queue would give.
func (r *rcm) cuthillMcKee(root int32) error {
	g := r.g
	a := len(r.order)
	r.order = append(r.order, root)
	r.parent[root] = numbered
	for a < len(r.order) {
		if err := cancel.Check(); err != nil {
			return err
		}
		b := len(r.order)
		front := r.order[a:b]
		weights, arcs := r.frontierWeights(front)
		if arcs <= seqArcs || par.Workers() == 1 {
			var keys []uint64
			for _, u := range front {
				c := len(r.order)
				for _, v := range g.Adj[g.Offsets[u]:g.Offsets[u+1]] {
					if r.parent[v] == unreached {
						r.parent[v] = numbered
						r.order = append(r.order, v)
					}
				}
				keys = sortByDegree(g, r.order[c:], keys)
			}
			a = b
			continue
		}
		// Pass 1: every unnumbered neighbour learns its least frontier
		// position (numbered vertices hold −1 and never change).
		err := par.ForWeighted(weights, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				label := int32(a + i)
				u := front[i]
				for _, v := range g.Adj[g.Offsets[u]:g.Offsets[u+1]] {
					p := &r.parent[v]
					for {
						old := atomic.LoadInt32(p)
						if old <= label || atomic.CompareAndSwapInt32(p, old, label) {
							break
						}
					}
				}
			}
		})
		if err != nil {
			return err
		}
		// Pass 2: each frontier vertex claims the neighbours it is the
		// least parent of (the claim also absorbs duplicate arcs).
		type part struct {
			lo       int
			children []int32
		}
		var (
			mu    sync.Mutex
			parts []part
		)
		err = par.ForWeighted(weights, func(lo, hi int) {
			var children []int32
			var keys []uint64
			for i := lo; i < hi; i++ {
				label := int32(a + i)
				u := front[i]
				c := len(children)
				for _, v := range g.Adj[g.Offsets[u]:g.Offsets[u+1]] {
					if atomic.LoadInt32(&r.parent[v]) == label && atomic.CompareAndSwapInt32(&r.parent[v], label, numbered) {
						children = append(children, v)
					}
				}
				keys = sortByDegree(g, children[c:], keys)
			}
			mu.Lock()
			parts = append(parts, part{lo, children})
			mu.Unlock()
		})
		if err != nil {
			return err
		}
		slices.SortFunc(parts, func(x, y part) int { return cmp.Compare(x.lo, y.lo) })
		for _, p := range parts {
			r.order = append(r.order, p.children...)
		}
		a = b
	}
	return nil
}

// sortByDegree sorts vs by (degree, id), using keys as scratch, and
// returns the scratch for reuse.
func sortByDegree(g *CSR, vs []int32, keys []uint64) []uint64 {
	if len(vs) < 2 {
		return keys
	}
	keys = keys[:0]
	for _, v := range vs {
		keys = append(keys, uint64(g.Offsets[v+1]-g.Offsets[v])<<32|uint64(uint32(v)))
	}
	slices.Sort(keys)
	for j, k := range keys {
		vs[j] = int32(uint32(k))
	}
	return keys
}

// InvertPermutation returns the inverse of perm, a permutation of
// [0, len(perm)): inv[perm[i]] = i. It turns an oldID table into a newID
// table and back, and returns an error naming the first entry out of range
// or the first repeated value, and cancel's error when interrupted. Work
// is O(N), parallel.
func InvertPermutation(perm []int32) ([]int32, error) {
	n := len(perm)
	if n >= math.MaxInt32 {
		return nil, fmt.Errorf("graph: a permutation of %d elements exceeds the int32 id range", n)
	}
	inv := make([]int32, n)
	err := par.For(n, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			inv[i] = -1
		}
	})
	if err != nil {
		return nil, fmt.Errorf("graph: inverting a permutation: %w", err)
	}
	var failed atomic.Bool
	err = par.For(n, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			v := perm[i]
			if v < 0 || int(v) >= n || !atomic.CompareAndSwapInt32(&inv[v], -1, int32(i)) {
				failed.Store(true)
				return
			}
		}
	})
	if err != nil {
		return nil, fmt.Errorf("graph: inverting a permutation: %w", err)
	}
	if !failed.Load() {
		return inv, nil
	}
	// Name the first offence deterministically.
	first := make([]int32, n)
	for i := range first {
		first[i] = -1
	}
	for i, v := range perm {
		if v < 0 || int(v) >= n {
			return nil, fmt.Errorf("graph: permutation entry %d is %d, outside [0,%d)", i, v, n)
		}
		if first[v] >= 0 {
			return nil, fmt.Errorf("graph: permutation entries %d and %d are both %d; each of [0,%d) must appear once", first[v], i, v, n)
		}
		first[v] = int32(i)
	}
	panic("graph: InvertPermutation found an error it cannot name")
}

// Renumber returns g with vertex v renamed newID[v]: vertex newID[v] of the
// result has the neighbours {newID[u] : u a neighbour of v}, sorted by
// their new id, each with its weight. The result shares nothing with g;
// Renumber(oldID) of the result gives g back. Use it with RCMOrder (MST
// study, docs/studies.md §3, input transformation 2), or any ordering of your own.
//
// It returns an error when newID is not a permutation of [0, N) (wrong
// length, an entry out of range or repeated). Work is O(M log d) for d the
// largest degree, in parallel over vertices balanced by arcs.
func (g *CSR) Renumber(newID []int32) (*CSR, error) {
	n := g.NumVertices()
	if len(newID) != n {
		return nil, fmt.Errorf("graph: Renumber needs one new id per vertex: got %d for %d vertices", len(newID), n)
	}
	oldID, err := InvertPermutation(newID)
	if errors.Is(err, cancel.ErrInterrupted) {
		return nil, fmt.Errorf("graph: Renumber: %w", err)
	}
	if err != nil {
		return nil, fmt.Errorf("graph: Renumber: newID is not a permutation: %w", err)
	}
	off := make([]int64, n+1)
	err = par.For(n, func(lo, hi int) {
		for w := lo; w < hi; w++ {
			v := oldID[w]
			off[w] = g.Offsets[v+1] - g.Offsets[v]
		}
	})
	if err != nil {
		return nil, fmt.Errorf("graph: Renumber: %w", err)
	}
	out := &CSR{Offsets: prefixSum(off), Adj: make([]int32, len(g.Adj)), Directed: g.Directed}
	switch {
	case g.Weights != nil:
		out.Weights = make([]float32, len(g.Adj))
		// One uint64 per arc, new id above the weight's bits: sorting
		// the keys sorts by id and carries the weight along.
		err = par.ForWeighted(out.Offsets, func(lo, hi int) {
			var keys []uint64
			for w := lo; w < hi; w++ {
				v := oldID[w]
				keys = keys[:0]
				for k := g.Offsets[v]; k < g.Offsets[v+1]; k++ {
					keys = append(keys, uint64(newID[g.Adj[k]])<<32|uint64(math.Float32bits(g.Weights[k])))
				}
				slices.Sort(keys)
				base := out.Offsets[w]
				for j, key := range keys {
					out.Adj[base+int64(j)] = int32(key >> 32)
					out.Weights[base+int64(j)] = math.Float32frombits(uint32(key))
				}
			}
		})
	case g.Weights64 != nil:
		out.Weights64 = make([]float64, len(g.Adj))
		err = renumber64(g, out, newID, oldID)
	default:
		err = par.ForWeighted(out.Offsets, func(lo, hi int) {
			for w := lo; w < hi; w++ {
				v := oldID[w]
				dst := out.Adj[out.Offsets[w]:out.Offsets[w+1]]
				for j, u := range g.Adj[g.Offsets[v]:g.Offsets[v+1]] {
					dst[j] = newID[u]
				}
				slices.Sort(dst)
			}
		})
	}
	if err != nil {
		return nil, fmt.Errorf("graph: Renumber: %w", err)
	}
	return out, nil
}

// renumber64 fills out's lists (offsets already set) from g's float64
// lists, mapping ids through newID and sorting each list by the new id
// (then weight, for duplicate arcs) with its weights.
func renumber64(g, out *CSR, newID, oldID []int32) error {
	type arc struct {
		id int32
		w  float64
	}
	return par.ForWeighted(out.Offsets, func(lo, hi int) {
		var arcs []arc
		for w := lo; w < hi; w++ {
			v := oldID[w]
			arcs = arcs[:0]
			for k := g.Offsets[v]; k < g.Offsets[v+1]; k++ {
				arcs = append(arcs, arc{newID[g.Adj[k]], g.Weights64[k]})
			}
			slices.SortFunc(arcs, func(x, y arc) int {
				if c := cmp.Compare(x.id, y.id); c != 0 {
					return c
				}
				return cmp.Compare(x.w, y.w)
			})
			base := out.Offsets[w]
			for j, a := range arcs {
				out.Adj[base+int64(j)] = a.id
				out.Weights64[base+int64(j)] = a.w
			}
		}
	})
}

// Bandwidth returns the largest |u − v| over the arcs u→v of g: the
// bandwidth of its adjacency matrix, which RCMOrder tries to make small.
// An empty graph has bandwidth 0. Work is O(M), parallel. It has no
// error result, so an interrupt (cancel.Request) makes it panic with an
// error wrapping cancel.ErrInterrupted.
func (g *CSR) Bandwidth() int {
	var best atomic.Int64
	err := par.ForWeighted(g.Offsets, func(lo, hi int) {
		var b int64
		for u := lo; u < hi; u++ {
			for _, v := range g.Adj[g.Offsets[u]:g.Offsets[u+1]] {
				b = max(b, int64(v)-int64(u), int64(u)-int64(v))
			}
		}
		for {
			old := best.Load()
			if b <= old || best.CompareAndSwap(old, b) {
				break
			}
		}
	})
	if err != nil {
		panic(fmt.Errorf("graph: Bandwidth: %w", err))
	}
	return int(best.Load())
}
