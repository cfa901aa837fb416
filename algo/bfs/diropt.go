package bfs

import (
	"fmt"
	"math/bits"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/graphnb/graphnb/algo/internal/rawmem"
	"github.com/graphnb/graphnb/algo/internal/team"
	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/internal/par"
	"github.com/graphnb/graphnb/trace"
)

// Tuning constants of the parallel steps.
const (
	// tdChunk is the number of frontier vertices a worker takes at once in
	// a top-down step over a large frontier.
	tdChunk = 64
	// tdArcSplitMax is the largest frontier whose top-down step is cut
	// into pieces of arcs rather than of vertices (summing its degrees
	// first, on one core).
	tdArcSplitMax = 1 << 14
	// tdPiecesPerWorker is how many arc pieces per worker a top-down step
	// aims at; tdMinArcs the fewest arcs in a piece.
	tdPiecesPerWorker = 16
	tdMinArcs         = 1 << 11
	// buChunkWords is the number of bitmap words (64 vertices each) a
	// worker takes at once in a bottom-up step.
	buChunkWords = 16
	// outBuf is the size of a worker's local buffer of newly claimed
	// vertices, flushed to the shared queue with one atomic add.
	outBuf = 1024
	// serialArcs: a top-down step over a frontier with fewer arcs runs on
	// the calling goroutine (starting workers would cost more).
	serialArcs = 1 << 13
	// initPiece is the number of vertices a worker initializes at once
	// (and queueToBitmap's frontier vertices); wordPiece the number of
	// bitmap words bitmapToQueue's workers take at once.
	initPiece = 1 << 14
	wordPiece = 1 << 10
)

// DirectionOptimizing runs Beamer's direction-optimizing BFS from src on
// all cores (par.Workers goroutines, kept for the whole search: see
// package algo/internal/team).
//
// A top-down step splits the frontier's arcs into pieces that workers take
// dynamically (a small frontier's hubs are cut across pieces, a large
// frontier is cut by vertices); a worker claims an unvisited head v by a
// compare-and-swap of Parents[v] from -1, then writes its level and
// appends it to a local buffer that is flushed to the next frontier with
// one atomic add. A bottom-up step gives each worker blocks of 64-vertex
// bitmap words; every unvisited vertex of a block scans its arcs until one
// comes from the frontier bitmap, so it needs no atomics. The search
// starts top-down, turns bottom-up when m_f > m_u/α (m_f: arcs leaving the
// frontier, m_u: arcs leaving unvisited vertices) while the frontier grows,
// and top-down again when it shrinks below N/β vertices (turnsDown,
// turnsUp; Options.Alpha, Options.Beta; the other fields of Options are the
// GPU's and do not apply).
//
// Directed graphs: a bottom-up step needs the arcs entering a vertex,
// which a CSR of out-arcs does not hold; rather than build the transpose
// (O(M) time and 4·M bytes per call), DirectionOptimizing runs every step
// top-down on a directed graph, in parallel, and says so in
// Result.Algorithm.
//
// Work is O(N + M) per search in the worst case (less when bottom-up steps
// stop early); memory is 12 bytes per vertex plus two bitmaps of N bits.
// Levels are deterministic; Parents may differ between runs (any valid BFS
// tree). It returns an error for a nil graph, a source outside [0, N),
// negative Alpha or Beta, or cancellation (checked at every level).
func DirectionOptimizing(g *graph.CSR, src int32, opt Options) (_ *Result, err error) {
	defer cancel.Recover(&err) // from finish's ComponentEdges
	if err := checkInput(g, src); err != nil {
		return nil, err
	}
	alpha, beta, err := opt.switchParams()
	if err != nil {
		return nil, err
	}
	r := &Result{Source: src}
	switch {
	case g.Directed:
		r.Algorithm = "cpu direction-optimizing (directed graph: top-down only)"
	case opt.TopDownOnly:
		r.Algorithm = "cpu parallel top-down"
	default:
		r.Algorithm = fmt.Sprintf("cpu direction-optimizing (α=%d, β=%d)", alpha, beta)
	}

	start := time.Now()
	s, err := newSearch(g)
	if err != nil {
		return nil, fmt.Errorf("bfs: direction-optimizing search from %d: %w", src, err)
	}
	defer s.team.Close()
	s.levels[src], s.parents[src] = 0, src
	s.queue[0] = src
	s.head, s.tail = 0, 1

	n := int64(s.n)
	nf, mf := int64(1), int64(g.Degree(src))
	mu := g.NumArcs() - mf // arcs leaving unvisited vertices
	degSum := mf           // the reached vertices' degrees: every step's mf
	prevNF := int64(0)
	bottomUp := false
	if opt.Trace {
		r.Trace = &trace.Trace{Algorithm: r.Algorithm, Arcs: g.NumArcs()}
	}
	for depth := int32(0); nf > 0; depth++ {
		if err := cancel.Check(); err != nil {
			return nil, fmt.Errorf("bfs: direction-optimizing search from %d stopped at level %d: %w", src, depth, err)
		}
		stepStart := time.Now()
		step := trace.Step{Frontier: nf, FrontierArcs: mf}
		r.FrontierSizes = append(r.FrontierSizes, nf)
		if !g.Directed && !opt.TopDownOnly {
			switch {
			case !bottomUp && turnsDown(nf, prevNF, mf, mu, alpha):
				err = s.queueToBitmap()
				bottomUp = true
				step.Why = switchDown(mf, mu, alpha, nf, prevNF)
			case bottomUp && turnsUp(nf, prevNF, n, beta):
				err = s.bitmapToQueue()
				bottomUp = false
				step.Why = switchUp(nf, prevNF, n, beta)
			}
			if err != nil {
				return nil, fmt.Errorf("bfs: direction-optimizing search from %d stopped at level %d: %w", src, depth, err)
			}
		}
		prevNF = nf
		if bottomUp {
			r.Directions = append(r.Directions, BottomUpStep)
			nf, mf, step.Inspected = s.bottomUpStep(depth, !s.unvisitedOK)
			s.unvisitedOK = true
			s.front, s.next = s.next, s.front
		} else {
			r.Directions = append(r.Directions, TopDownStep)
			step.Inspected = mf // every arc of the frontier
			nf, mf = s.topDownStep(depth, mf)
		}
		mu -= mf
		degSum += mf
		if r.Trace != nil {
			step.Kind = r.Directions[len(r.Directions)-1].String()
			step.Updated, step.Time = nf, time.Since(stepStart)
			r.Trace.Steps = append(r.Trace.Steps, step)
		}
	}
	// A step cut short by an interrupt may look like the last one.
	if err := cancel.Check(); err != nil {
		return nil, fmt.Errorf("bfs: direction-optimizing search from %d: %w", src, err)
	}
	r.Time = time.Since(start)
	if r.Trace != nil {
		r.Trace.Time = r.Time
	}
	r.Levels, r.Parents = s.levels, s.parents
	s.release()
	r.finishDegrees(g, degSum)
	return r, nil
}

// scratch is the part of a search's memory that does not outlive it: the
// frontier queue and the two bitmaps. Searches reuse it (scratchPool), so
// a sweep does not clear 4·N bytes per search on one core before the
// parallel work starts.
type scratch struct {
	queue                  []int32
	front, next, unvisited []uint64
}

var scratchPool sync.Pool // *scratch

// getScratch returns scratch for n vertices: a queue of n entries and,
// when a pooled one had them, bitmaps of n bits (else nil: allocated at
// the first switch to bottom-up). The contents are arbitrary.
func getScratch(n int) *scratch {
	if sc, ok := scratchPool.Get().(*scratch); ok && cap(sc.queue) >= n {
		sc.queue = sc.queue[:n]
		if words := (n + 63) / 64; cap(sc.front) >= words && cap(sc.next) >= words && cap(sc.unvisited) >= words {
			sc.front, sc.next, sc.unvisited = sc.front[:words], sc.next[:words], sc.unvisited[:words]
		} else {
			sc.front, sc.next, sc.unvisited = nil, nil, nil
		}
		return sc
	}
	return &scratch{queue: rawmem.Slice[int32](n)}
}

// release returns the search's scratch to the pool.
func (s *search) release() {
	scratchPool.Put(&scratch{queue: s.queue, front: s.front, next: s.next, unvisited: s.unvisited})
	s.queue, s.front, s.next, s.unvisited = nil, nil, nil, nil
}

// search is the state of one direction-optimizing BFS.
type search struct {
	g       *graph.CSR
	n       int
	levels  []int32
	parents []int32
	// queue holds the top-down frontiers one after the other; the current
	// one is queue[head:tail]. A vertex enters it at most once, so N
	// entries suffice.
	queue      []int32
	head, tail int
	// front and next are the bottom-up frontier bitmaps (bit v of word
	// v/64), allocated at the first switch; unvisited marks, after a
	// bottom-up step, the vertices with arcs it left unvisited, the only
	// ones the next bottom-up step has to look at (unvisitedOK; top-down
	// steps after it clear the bits of the vertices they reach).
	front, next, unvisited []uint64
	unvisitedOK            bool
	// cum is tdPieces' scratch: a small frontier's degrees summed.
	cum []int64
	// team runs the parallel steps; it lives as long as the search.
	team *team.Team
}

// newSearch returns a search of g, or cancel's error when interrupted.
func newSearch(g *graph.CSR) (*search, error) {
	n := g.NumVertices()
	s := &search{
		g:       g,
		n:       n,
		levels:  rawmem.Slice[int32](n), // written in full below
		parents: rawmem.Slice[int32](n),
		team:    team.New(par.Workers()),
	}
	sc := getScratch(n)
	s.queue, s.front, s.next, s.unvisited = sc.queue, sc.front, sc.next, sc.unvisited
	s.team.For(n, initPiece, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			s.levels[i] = -1
			s.parents[i] = -1
		}
	})
	if err := cancel.Check(); err != nil {
		s.release()
		s.team.Close()
		return nil, err
	}
	return s, nil
}

// topDownStep expands the frontier queue[head:tail] (level depth, mf arcs)
// into level depth+1, appended after tail, and makes it the frontier. It
// returns the new frontier's size and the arcs leaving it. After a
// cancellation request it stops early; the caller checks.
//
// Workers take the frontier's arcs in pieces (tdPieces): a hub's list is
// shared among them, so a level whose arcs hang on a few vertices (the
// second level from a root next to R-MAT's hubs: 347 vertices, 1.5 M
// arcs at scale 22) keeps every core busy.
func (s *search) topDownStep(depth int32, mf int64) (nf, arcs int64) {
	frontier := s.queue[s.head:s.tail]
	off, adj, parents, levels, queue := s.g.Offsets, s.g.Adj, s.parents, s.levels, s.queue
	unvisited := s.unvisited
	if !s.unvisitedOK {
		unvisited = nil
	}
	var out atomic.Int64 // end of the next frontier in queue
	out.Store(int64(s.tail))
	var total atomic.Int64
	workers := s.team.Size()
	if mf < serialArcs {
		workers = 1
	}
	pieces := s.tdPieces(frontier, mf, workers)
	var task atomic.Int64
	s.team.Run(workers, func(int) {
		buf := make([]int32, 0, outBuf)
		var scout int64
		for {
			p := int(task.Add(1) - 1)
			if p >= pieces.count() || cancel.Requested() {
				break
			}
			pieces.each(p, func(u int32, lo, hi int64) {
				for _, v := range adj[lo:hi] {
					if atomic.LoadInt32(&parents[v]) >= 0 ||
						!atomic.CompareAndSwapInt32(&parents[v], -1, u) {
						continue
					}
					levels[v] = depth + 1
					scout += off[v+1] - off[v]
					if unvisited != nil {
						atomic.AndUint64(&unvisited[v>>6], ^(1 << (uint(v) & 63)))
					}
					buf = append(buf, v)
					if len(buf) == outBuf {
						at := out.Add(outBuf) - outBuf
						copy(queue[at:], buf)
						buf = buf[:0]
					}
				}
			})
		}
		if len(buf) > 0 {
			at := out.Add(int64(len(buf))) - int64(len(buf))
			copy(queue[at:], buf)
		}
		total.Add(scout)
	})
	end := int(out.Load())
	s.head, s.tail = s.tail, end
	return int64(end - s.head), total.Load()
}

// tdPieces splits a top-down step's work for workers: chunks of tdChunk
// frontier vertices when the frontier is large (its arcs then spread over
// many chunks) or the step runs on one worker, else pieces of about
// mf/(tdPiecesPerWorker·workers) arcs (at least tdMinArcs), cut across
// adjacency lists.
func (s *search) tdPieces(frontier []int32, mf int64, workers int) tdSplit {
	sp := tdSplit{frontier: frontier, off: s.g.Offsets}
	if workers == 1 || len(frontier) > tdArcSplitMax {
		return sp
	}
	cum := s.cum[:0]
	cum = append(cum, 0)
	for _, u := range frontier {
		cum = append(cum, cum[len(cum)-1]+sp.off[u+1]-sp.off[u])
	}
	s.cum = cum
	sp.cum = cum
	sp.piece = max(tdMinArcs, mf/int64(tdPiecesPerWorker*workers))
	return sp
}

// tdSplit is a top-down step's division into pieces, taken by index.
type tdSplit struct {
	frontier []int32
	off      []int64
	// cum, when not nil, holds the frontier's arc counts summed (cum[i]:
	// arcs of frontier[:i]), and piece is the arcs of a piece; nil means
	// pieces of tdChunk vertices.
	cum   []int64
	piece int64
}

// count is the number of pieces.
func (sp tdSplit) count() int {
	if sp.cum == nil {
		return (len(sp.frontier) + tdChunk - 1) / tdChunk
	}
	return int((sp.cum[len(sp.cum)-1] + sp.piece - 1) / sp.piece)
}

// each calls fn(u, lo, hi) for the arcs [lo, hi) of frontier vertex u
// that piece p holds, in frontier order.
func (sp tdSplit) each(p int, fn func(u int32, lo, hi int64)) {
	if sp.cum == nil {
		for _, u := range sp.frontier[p*tdChunk : min((p+1)*tdChunk, len(sp.frontier))] {
			fn(u, sp.off[u], sp.off[u+1])
		}
		return
	}
	a0 := int64(p) * sp.piece
	a1 := min(a0+sp.piece, sp.cum[len(sp.cum)-1])
	// i: the frontier vertex holding arc a0 (the last i with cum[i] ≤ a0).
	i := sort.Search(len(sp.frontier), func(i int) bool { return sp.cum[i+1] > a0 })
	for ; i < len(sp.frontier) && sp.cum[i] < a1; i++ {
		u := sp.frontier[i]
		base := sp.off[u] - sp.cum[i] // arc a of the frontier is base+a
		fn(u, base+max(a0, sp.cum[i]), base+min(a1, sp.cum[i+1]))
	}
}

// bottomUpStep finds level depth+1 from the frontier bitmap front: every
// unvisited vertex looks for a neighbour in front. The new frontier is
// written to next, every word of it (the caller swaps the bitmaps). The
// first bottom-up step of a search reads every vertex and marks in
// unvisited those with arcs it leaves unvisited; the later ones read only
// those (an R-MAT graph has many vertices without arcs) and unmark the
// ones they reach, as top-down steps between them do. It returns the new
// frontier's size and the arcs leaving it, and the arcs it read (each
// vertex's up to its parent). After a cancellation request it stops early;
// the caller checks.
func (s *search) bottomUpStep(depth int32, first bool) (nf, arcs, inspected int64) {
	off, adj, parents, levels := s.g.Offsets, s.g.Adj, s.parents, s.levels
	front, next, unvisited := s.front, s.next, s.unvisited
	words := len(front)
	n := s.n
	var task atomic.Int64
	var found, scouted, read atomic.Int64
	s.team.Run(s.team.Size(), func(int) {
		var cnt, scout, inspect int64
		for {
			w0 := int(task.Add(1)-1) * buChunkWords
			if w0 >= words || cancel.Requested() {
				break
			}
			for wi := w0; wi < min(w0+buChunkWords, words); wi++ {
				base := wi << 6
				// todo: the vertices to look at, as bits of this word.
				var todo uint64
				if first {
					for v := base; v < min(base+64, n); v++ {
						if parents[v] < 0 && off[v+1] > off[v] {
							todo |= 1 << uint(v-base)
						}
					}
				} else {
					todo = unvisited[wi]
				}
				var word uint64
				for bitsLeft := todo; bitsLeft != 0; bitsLeft &= bitsLeft - 1 {
					b := bits.TrailingZeros64(bitsLeft)
					v := base + b
					lo, hi := off[v], off[v+1]
					arcsRead := hi - lo // all of them unless a parent is found
					for j, u := range adj[lo:hi] {
						if front[u>>6]&(1<<(uint(u)&63)) != 0 {
							parents[v] = u
							levels[v] = depth + 1
							word |= 1 << uint(b)
							cnt++
							scout += hi - lo
							arcsRead = int64(j) + 1
							break
						}
					}
					inspect += arcsRead
				}
				next[wi] = word
				unvisited[wi] = todo &^ word
			}
		}
		found.Add(cnt)
		scouted.Add(scout)
		read.Add(inspect)
	})
	return found.Load(), scouted.Load(), read.Load()
}

// queueToBitmap writes the frontier queue[head:tail] into the bitmap front.
func (s *search) queueToBitmap() error {
	if s.front == nil {
		words := (s.n + 63) / 64
		s.front = make([]uint64, words)
		s.next = make([]uint64, words)
		s.unvisited = make([]uint64, words)
	} else {
		clear(s.front)
	}
	front := s.front
	frontier := s.queue[s.head:s.tail]
	s.team.For(len(frontier), initPiece, func(lo, hi int) {
		for _, v := range frontier[lo:hi] {
			atomic.OrUint64(&front[v>>6], 1<<(uint(v)&63))
		}
	})
	return cancel.Check()
}

// bitmapToQueue appends the vertices of the bitmap front to the queue and
// makes them the top-down frontier queue[head:tail].
func (s *search) bitmapToQueue() error {
	front, queue := s.front, s.queue
	var out atomic.Int64
	out.Store(int64(s.tail))
	s.team.For(len(front), wordPiece, func(lo, hi int) {
		buf := make([]int32, 0, outBuf)
		for wi := lo; wi < hi; wi++ {
			for word := front[wi]; word != 0; word &= word - 1 {
				buf = append(buf, int32(wi<<6+bits.TrailingZeros64(word)))
				if len(buf) == outBuf {
					at := out.Add(outBuf) - outBuf
					copy(queue[at:], buf)
					buf = buf[:0]
				}
			}
		}
		if len(buf) > 0 {
			at := out.Add(int64(len(buf))) - int64(len(buf))
			copy(queue[at:], buf)
		}
	})
	s.head, s.tail = s.tail, int(out.Load())
	return cancel.Check()
}

// turnsDown reports whether a search going top-down turns bottom-up for
// the level whose frontier holds nf vertices with mf arcs, mu arcs leaving
// the unvisited vertices and prevNF vertices in the level before: m_f >
// m_u/α while the frontier grows. Without the growth test a search's tail
// went bottom-up again: there m_u is small, so m_f > m_u/α held for
// frontiers of a few hundred vertices, and a bottom-up level reads every
// unvisited vertex's bitmap word and arcs (H100, R-MAT scale 24
// permuted: 68 µs for a last level of 301 vertices, 3 µs top-down).
func turnsDown(nf, prevNF, mf, mu, alpha int64) bool {
	return nf > prevNF && mf > mu/alpha
}

// turnsUp reports whether a search going bottom-up turns top-down again:
// the frontier shrinks (nf < prevNF) below n/β vertices.
func turnsUp(nf, prevNF, n, beta int64) bool {
	return nf < prevNF && nf < n/beta
}

// switchDown says why a search turned bottom-up: m_f > m_u/α, and the
// frontier grew.
func switchDown(mf, mu, alpha, nf, prevNF int64) string {
	return fmt.Sprintf("m_f = %d > m_u/α = %d/%d = %d, and n_f = %d > %d before", mf, mu, alpha, mu/alpha, nf, prevNF)
}

// switchUp says why a search turned top-down again: n_f < n/β and
// shrinking.
func switchUp(nf, prevNF, n, beta int64) string {
	return fmt.Sprintf("n_f = %d < n/β = %d/%d = %d, and < %d before", nf, n, beta, n/beta, prevNF)
}
