package sssp

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
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

// MaxBucketSpan bounds how many buckets one arc may span (its weight / Δ):
// each worker keeps a ring of up to twice that many bucket slots (the next
// power of two above the span), so a Δ much smaller than
// the heaviest arc would cost memory and time for nothing. DeltaStepping
// returns an error when the heaviest finite weight exceeds
// MaxBucketSpan·Δ.
const MaxBucketSpan = 1 << 16

// DefaultDeltaFactor is the constant of DeltaStepping's default Δ:
// Δ = DefaultDeltaFactor · (mean arc weight) / (mean out-degree). With
// weights uniform in [0, w) a vertex of mean degree then has about
// DefaultDeltaFactor light arcs. The value was tuned on R-MAT graphs of
// scale 20 (edge factor 16, uniform float32 weights) on 2 and 16 cores:
// factors 1 to 4 ran within about 30% of each other, 2 at or near the
// best.
const DefaultDeltaFactor = 2

// Tuning constants of Δ-stepping.
const (
	// dsChunk is the number of bucket vertices a worker takes at once.
	dsChunk = 64
	// fuseLimit: a worker keeps processing its own part of the current
	// bucket without a barrier while that part is smaller than this (bucket
	// fusion, as in the GAP benchmark suite).
	fuseLimit = 1024
	// dsSerial: a bucket phase with fewer vertices runs on the calling
	// goroutine.
	dsSerial = 128
)

// DeltaStepping computes shortest paths from src with Meyer and Sanders'
// Δ-stepping on all cores.
//
// Vertices wait in buckets of width delta by tentative distance (bucket
// ⌊d/Δ⌋). The lowest non-empty bucket is processed in phases: all its
// vertices relax their light arcs (w ≤ Δ) in parallel, which may refill
// it, until it stays empty; then the vertices it held relax their heavy
// arcs (w > Δ) once, which can only fill later buckets. Relaxations are
// atomic minima on the float64 distance bits (a compare-and-swap loop);
// each worker keeps its own buckets, and while its share of the current
// bucket is small it goes on without waiting for the others (bucket
// fusion). A vertex lowered again while it waits in a later bucket stays
// queued once. The phases run on one set of goroutines kept for the run
// (package algo/internal/team). The light arcs are first copied out of the
// graph into a CSR of their own (one pass over the weights, part of
// Result.Time), so that vertices re-entering their bucket scan only those;
// a large settled bucket relaxes its heavy arcs in vertex order, reading
// the graph front to back. Result.Iterations is the number of buckets that
// settled at least one vertex (buckets holding only stale entries, left by
// vertices that moved to an earlier bucket, are not counted).
//
// delta ≤ 0 picks Δ = DefaultDeltaFactor · mean weight / mean out-degree
// (1 for a graph without positive finite weights); Result.Delta reports the
// value used. A small Δ approaches Dijkstra (little wasted work, many
// phases), a large one Bellman-Ford (few phases, much re-relaxation).
//
// Distances are deterministic (identical to Dijkstra's); parents come
// from the tight-arc tree. Memory is about 24 bytes per vertex (distances,
// light-arc offsets, parents), 8 bytes per light arc (16 with float64
// weights), 4 bytes per queued vertex, and a ring of at most
// 2·MaxBucketSpan bucket slots per worker. It returns an error for a nil
// graph, a source outside [0, N), a negative or NaN weight, a Δ below
// (heaviest finite weight)/MaxBucketSpan, or cancellation (polled at every
// phase).
func DeltaStepping(g *graph.CSR, src int32, delta float64) (*Result, error) {
	return runDeltaStepping(g, src, delta, false)
}

// DeltaSteppingTraced is DeltaStepping with a Result.Trace, in the GPU
// near-far's vocabulary (Options.Trace): a step per light round and one
// per settled bucket's heavy arcs, each with its wall time.
//
//   - "light": a round over the current bucket's light arcs (w ≤ Δ), up
//     to the workers' barrier (one worker for fewer than 128 entries).
//     Frontier is the bucket entries the round
//     took (those it started with and those a worker took from its own
//     share by bucket fusion; a vertex queued twice counts twice, and an
//     entry left by a vertex that moved to an earlier bucket counts but is
//     skipped), FrontierArcs their light arcs, Inspected the light arcs
//     relaxed (those of the entries not skipped: at most FrontierArcs).
//   - "settle": the heavy arcs (w > Δ) of the vertices the bucket settled,
//     relaxed once after its last light round. Frontier is those vertices,
//     FrontierArcs and Inspected their heavy arcs (the light arcs' weights
//     are read too, to skip them). A bucket that held only skipped entries
//     settles nothing and has no settle step, so the settle steps number
//     Result.Iterations.
//
// Updated is the distances the step lowered (each successful atomic
// minimum; a vertex lowered twice counts twice). Why names the bucket,
// its distance range [bΔ, (b+1)Δ) and, for a light step, the round within
// the bucket ("bucket 3 [0.1875, 0.25), round 1"). Time tiles the bucket
// loop: a step's time runs from the previous step's end to its own, so
// the gathers and the search for the next bucket count in the step they
// follow; the light-arc copy before the loop counts in Result.Time but in
// no step.
//
// The counts are kept per worker in every run (an addition per vertex
// taken, per heavy arc and per lowered distance, beside the relaxation's
// atomic); a traced run adds the light degrees of every entry taken,
// read a chunk of 64 at a time, and a clock read and a Why per step
// (BenchmarkCPUTrace measures the difference; issue 17 allows 2%).
func DeltaSteppingTraced(g *graph.CSR, src int32, delta float64) (*Result, error) {
	return runDeltaStepping(g, src, delta, true)
}

// runDeltaStepping is DeltaStepping, with traced a Result.Trace
// (DeltaSteppingTraced).
func runDeltaStepping(g *graph.CSR, src int32, delta float64, traced bool) (*Result, error) {
	if err := checkInput(g, src); err != nil {
		return nil, err
	}
	prep := time.Now()
	ws, err := scanWeights(g)
	if err != nil {
		return nil, err
	}
	if ws.negArc >= 0 {
		return nil, negativeError(g, ws.negArc, "Δ-stepping", " (use BellmanFord on a directed graph)")
	}
	if math.IsNaN(delta) || math.IsInf(delta, 0) {
		return nil, fmt.Errorf("sssp: Δ-stepping bucket width %g is not a finite number (use a positive value, or 0 for the default)", delta)
	}
	if delta <= 0 {
		delta = defaultDelta(g, ws)
	}
	if ws.maxFinite/delta > MaxBucketSpan {
		return nil, fmt.Errorf("sssp: Δ-stepping bucket width %g is too small for arcs of weight up to %g (at most %d buckets per arc): use Δ ≥ %g",
			delta, ws.maxFinite, MaxBucketSpan, ws.maxFinite/MaxBucketSpan)
	}
	r := &Result{
		Algorithm: fmt.Sprintf("cpu Δ-stepping (Δ=%.3g)", delta),
		Source:    src,
		Delta:     delta,
		PrepTime:  time.Since(prep),
	}
	var steps *[]trace.Step
	if traced {
		steps = new([]trace.Step)
	}
	start := time.Now()
	switch {
	case g.Weights64 != nil:
		r.Dist, r.Iterations, err = deltaStepping(g, g.Weights64, src, delta, ws.maxFinite, steps)
	default:
		r.Dist, r.Iterations, err = deltaStepping(g, g.Weights, src, delta, ws.maxFinite, steps)
	}
	r.Time = time.Since(start)
	if err != nil {
		return nil, err
	}
	if traced {
		r.Trace = &trace.Trace{Algorithm: r.Algorithm, Arcs: g.NumArcs(), Steps: *steps, Time: r.Time}
	}
	if err := r.finish(g); err != nil {
		return nil, err
	}
	return r, nil
}

// defaultDelta is DefaultDeltaFactor · mean weight / mean degree, or 1
// when that is not a positive finite number.
func defaultDelta(g *graph.CSR, ws weightStats) float64 {
	n, m := g.NumVertices(), g.NumArcs()
	if m == 0 {
		return 1
	}
	d := DefaultDeltaFactor * ws.mean / (float64(m) / float64(n))
	if !(d > 0) || math.IsInf(d, 0) {
		return 1
	}
	return d
}

// dsWorker is one worker's private state.
type dsWorker struct {
	// ring holds the worker's buckets: bucket b lives in ring[b&mask].
	// Live buckets span at most MaxBucketSpan+4 consecutive indices, fewer
	// than the ring's length, so they never collide.
	ring [][]int32
	// pending counts the vertices queued in ring.
	pending int
	// count is the worker's share of the current step's counts.
	count dsCounts
	// settled lists the vertices this worker took first from the current
	// bucket; their heavy arcs wait for the bucket to settle.
	settled []int32
	// scratch holds the worker's share of the current bucket during fusion.
	scratch []int32
	_       [64]byte // keep workers' hot fields on separate cache lines
}

// push queues v in bucket b.
func (w *dsWorker) push(mask int64, b int64, v int32) {
	slot := &w.ring[b&mask]
	*slot = append(*slot, v)
	w.pending++
}

// dsCounts are a step's counts (DeltaSteppingTraced), kept by each worker
// and summed at the step's end.
type dsCounts struct {
	// relaxed is the arcs relaxed, lowered the distances lowered.
	relaxed, lowered int64
	// fused is the bucket entries a worker took from its own share
	// (bucket fusion); entryArcs the light arcs of every entry taken,
	// skipped ones included (counted in traced runs only).
	fused, entryArcs int64
}

// lightArc is a light arc stored with its weight, so that a vertex's light
// arcs are one contiguous run of memory.
type lightArc[W weight] struct {
	head int32
	w    W
}

// dsState is the shared state of one Δ-stepping run.
type dsState[W weight] struct {
	off []int64
	adj []int32
	ws  []W
	// lightOff and light hold the light arcs (w ≤ Δ) alone, as a CSR, so
	// that re-processing a vertex within its bucket reads only those.
	lightOff []int64
	light    []lightArc[W]
	dist     []float64
	delta    float64
	inv      float64 // 1/Δ: bucket(d) = int64(d*inv), monotone in d
	mask     int64
	// taken has bit v set once v was taken from the current bucket (and
	// listed in a worker's settled list); cleared after the heavy phase.
	taken   []uint64
	cur     int64 // the bucket being processed
	workers []dsWorker
	// team runs the parallel phases, one worker per element of workers.
	team *team.Team
	// steps receives a traced run's steps (nil when untraced); mark is the
	// end of the last step (or the loop's start).
	steps *[]trace.Step
	mark  time.Time
}

// splitLight fills the light-arc CSR in one pass over the weights on all
// cores: each vertex range collects its light arcs in a buffer of its own,
// and the buffers are then concatenated (4 or 8 bytes read per arc, 8 or 16
// written per light arc).
func (s *dsState[W]) splitLight() {
	n := len(s.off) - 1
	s.lightOff = rawmem.Slice[int64](n + 1) // every entry written below
	type piece struct {
		lo, hi int
		arcs   []lightArc[W]
	}
	var mu sync.Mutex
	var pieces []piece
	off, adj, ws, delta, lightOff := s.off, s.adj, s.ws, s.delta, s.lightOff
	par.ForWeighted(off, func(lo, hi int) {
		buf := make([]lightArc[W], 0, (off[hi]-off[lo])/16+16)
		for v := lo; v < hi; v++ {
			lightOff[v] = int64(len(buf))
			k0, k1 := off[v], off[v+1]
			if ws == nil { // unweighted: every arc weighs 1
				if 1 <= delta {
					for _, t := range adj[k0:k1] {
						buf = append(buf, lightArc[W]{t, 1})
					}
				}
				continue
			}
			heads := adj[k0:k1]
			for j, w := range ws[k0:k1] {
				if float64(w) <= delta {
					buf = append(buf, lightArc[W]{heads[j], w})
				}
			}
		}
		mu.Lock()
		pieces = append(pieces, piece{lo, hi, buf})
		mu.Unlock()
	})
	slices.SortFunc(pieces, func(a, b piece) int { return a.lo - b.lo })
	base := make([]int64, len(pieces)+1)
	for i, p := range pieces {
		base[i+1] = base[i] + int64(len(p.arcs))
	}
	lightOff[n] = base[len(pieces)]
	s.light = make([]lightArc[W], base[len(pieces)])
	par.ForChunks(len(pieces), 1, func(i, _, _ int) {
		p := pieces[i]
		copy(s.light[base[i]:], p.arcs)
		for v := p.lo; v < p.hi; v++ {
			lightOff[v] += base[i]
		}
	})
}

// relaxLight takes v from the current bucket: unless the entry is stale
// (v has since moved to an earlier bucket), it lists v for the heavy phase
// (once) and relaxes its light arcs.
func (s *dsState[W]) relaxLight(w *dsWorker, v int32) {
	dv := loadDist(&s.dist[v])
	if int64(dv*s.inv) != s.cur {
		return
	}
	word, bit := &s.taken[v>>6], uint64(1)<<(uint32(v)&63)
	if atomic.LoadUint64(word)&bit == 0 && atomic.OrUint64(word, bit)&bit == 0 {
		w.settled = append(w.settled, v)
	}
	lo, hi := s.lightOff[v], s.lightOff[v+1]
	w.count.relaxed += hi - lo
	for _, a := range s.light[lo:hi] {
		if nd := dv + float64(a.w); nd < loadDist(&s.dist[a.head]) {
			s.lower(w, a.head, nd)
		}
	}
}

// relaxHeavy relaxes the heavy arcs of a vertex of the settled bucket.
func (s *dsState[W]) relaxHeavy(w *dsWorker, v int32) {
	dv := loadDist(&s.dist[v])
	k0, k1 := s.off[v], s.off[v+1]
	heads := s.adj[k0:k1]
	if s.ws == nil { // unweighted: every arc weighs 1
		if 1 > s.delta {
			for _, t := range heads {
				if dv+1 < loadDist(&s.dist[t]) {
					s.lower(w, t, dv+1)
				}
			}
			w.count.relaxed += k1 - k0
		}
		return
	}
	heavy := int64(0)
	for j, wt := range s.ws[k0:k1] {
		if !(float64(wt) > s.delta) {
			continue
		}
		heavy++
		if t, nd := heads[j], dv+float64(wt); nd < loadDist(&s.dist[t]) {
			s.lower(w, t, nd)
		}
	}
	w.count.relaxed += heavy
}

// lower lowers the distance of t to nd unless another worker got it
// lower first, and then queues t in nd's bucket b, unless t already
// waits there: when b is a later bucket than the current one and the
// distance it replaced lay in b too, the entry queued for that distance
// is still pending and will read the lower one (R-MAT vertices are
// lowered several times within one later bucket by the heavy arcs of
// earlier ones; each entry would be taken and its arcs read). In the
// current bucket a vertex is queued again, as its first entry may have
// been taken already. The callers test nd against the distance first,
// inline: most arcs lower nothing.
func (s *dsState[W]) lower(w *dsWorker, t int32, nd float64) {
	old, ok := lowerDistFrom(&s.dist[t], nd)
	if !ok {
		return
	}
	w.count.lowered++
	b := int64(nd * s.inv)
	if b > s.cur && !math.IsInf(old, 1) && int64(old*s.inv) == b {
		return
	}
	w.push(s.mask, b, t)
}

// lightPhase relaxes the light arcs of the frontier (part of the current
// bucket) on all workers (or on worker 0 alone for a small frontier), in
// chunks taken dynamically; then each worker drains its own share of the
// current bucket while it stays small (bucket fusion).
func (s *dsState[W]) lightPhase(frontier []int32) {
	nw := len(s.workers)
	if len(frontier) < dsSerial {
		nw = 1
	}
	var task atomic.Int64
	s.team.Run(nw, func(id int) {
		w := &s.workers[id]
		for {
			lo := int(task.Add(1)-1) * dsChunk
			if lo >= len(frontier) {
				break
			}
			chunk := frontier[lo:min(lo+dsChunk, len(frontier))]
			if s.steps != nil {
				w.count.entryArcs += s.lightArcs(chunk)
			}
			for _, v := range chunk {
				s.relaxLight(w, v)
			}
		}
		for {
			slot := &w.ring[s.cur&s.mask]
			if len(*slot) == 0 || len(*slot) >= fuseLimit {
				return
			}
			w.scratch = append(w.scratch[:0], *slot...)
			w.pending -= len(*slot)
			*slot = (*slot)[:0]
			w.count.fused += int64(len(w.scratch))
			if s.steps != nil {
				w.count.entryArcs += s.lightArcs(w.scratch)
			}
			for _, v := range w.scratch {
				s.relaxLight(w, v)
			}
		}
	})
}

// lightArcs sums the light out-degrees of vs.
func (s *dsState[W]) lightArcs(vs []int32) int64 {
	var n int64
	for _, v := range vs {
		n += s.lightOff[v+1] - s.lightOff[v]
	}
	return n
}

// heavyPhase relaxes the heavy arcs of every vertex taken from the current
// bucket and clears the taken bits. Many vertices are visited in id order
// by sweeping the bitmap (so the CSR is read front to back); few, from the
// workers' lists, which buf collects.
func (s *dsState[W]) heavyPhase(buf []int32) []int32 {
	total := 0
	for i := range s.workers {
		total += len(s.workers[i].settled)
	}
	if total == 0 {
		return buf
	}
	words := len(s.taken)
	if total >= words/8 && total >= dsSerial {
		for i := range s.workers {
			s.workers[i].settled = s.workers[i].settled[:0]
		}
		const chunkWords = 64
		var task atomic.Int64
		s.team.Run(len(s.workers), func(id int) {
			w := &s.workers[id]
			for {
				w0 := int(task.Add(1)-1) * chunkWords
				if w0 >= words {
					return
				}
				for wi := w0; wi < min(w0+chunkWords, words); wi++ {
					for word := s.taken[wi]; word != 0; word &= word - 1 {
						s.relaxHeavy(w, int32(wi<<6+bits.TrailingZeros64(word)))
					}
					s.taken[wi] = 0
				}
			}
		})
		return buf
	}
	buf = buf[:0]
	for i := range s.workers {
		buf = append(buf, s.workers[i].settled...)
		s.workers[i].settled = s.workers[i].settled[:0]
	}
	nw := len(s.workers)
	if len(buf) < dsSerial {
		nw = 1
	}
	var task atomic.Int64
	s.team.Run(nw, func(id int) {
		w := &s.workers[id]
		for {
			lo := int(task.Add(1)-1) * dsChunk
			if lo >= len(buf) {
				return
			}
			for _, v := range buf[lo:min(lo+dsChunk, len(buf))] {
				s.relaxHeavy(w, v)
			}
		}
	})
	for _, v := range buf {
		s.taken[v>>6] = 0
	}
	return buf
}

// gather moves every worker's share of bucket b into buf and returns it.
func (s *dsState[W]) gather(b int64, buf []int32) []int32 {
	buf = buf[:0]
	for i := range s.workers {
		w := &s.workers[i]
		slot := &w.ring[b&s.mask]
		buf = append(buf, *slot...)
		w.pending -= len(*slot)
		*slot = (*slot)[:0]
	}
	return buf
}

// next returns the lowest non-empty bucket after cur, or -1.
func (s *dsState[W]) next() int64 {
	best := int64(-1)
	size := s.mask + 1
	for i := range s.workers {
		w := &s.workers[i]
		if w.pending == 0 {
			continue
		}
		for j := int64(1); j < size; j++ {
			if best >= 0 && s.cur+j >= best {
				break
			}
			if len(w.ring[(s.cur+j)&s.mask]) > 0 {
				best = s.cur + j
				break
			}
		}
	}
	return best
}

// settledCount is the number of vertices taken from the current bucket
// so far (listed for its heavy phase).
func (s *dsState[W]) settledCount() int64 {
	var n int64
	for i := range s.workers {
		n += int64(len(s.workers[i].settled))
	}
	return n
}

// takeCounts sums the workers' counts and clears them.
func (s *dsState[W]) takeCounts() dsCounts {
	var c dsCounts
	for i := range s.workers {
		w := &s.workers[i]
		c.relaxed += w.count.relaxed
		c.lowered += w.count.lowered
		c.fused += w.count.fused
		c.entryArcs += w.count.entryArcs
		w.count = dsCounts{}
	}
	return c
}

// bucketRange names bucket b and its distance range, for a step's Why.
func (s *dsState[W]) bucketRange(b int64) string {
	return fmt.Sprintf("bucket %d [%.4g, %.4g)", b, float64(b)*s.delta, float64(b+1)*s.delta)
}

// endStep appends a traced run's step (DeltaSteppingTraced) that ends now:
// a light round over entries bucket entries when light, else the settle
// step of settled vertices; round is the light round's index within its
// bucket.
func (s *dsState[W]) endStep(light bool, entries int64, round int) {
	c := s.takeCounts()
	now := time.Now()
	st := trace.Step{Inspected: c.relaxed, Updated: c.lowered, Time: now.Sub(s.mark)}
	if light {
		st.Kind, st.Frontier, st.FrontierArcs = "light", entries+c.fused, c.entryArcs
		st.Why = fmt.Sprintf("%s, round %d", s.bucketRange(s.cur), round)
	} else {
		st.Kind, st.Frontier, st.FrontierArcs = "settle", entries, c.relaxed
		st.Why = s.bucketRange(s.cur)
	}
	*s.steps = append(*s.steps, st)
	s.mark = now
}

// deltaStepping runs the bucket loop; with steps not nil it appends the
// run's steps (DeltaSteppingTraced).
func deltaStepping[W weight](g *graph.CSR, ws []W, src int32, delta, maxW float64, steps *[]trace.Step) ([]float64, int, error) {
	n := g.NumVertices()
	span := int64(maxW/delta) + 4
	size := int64(1) << bits.Len64(uint64(span))
	s := &dsState[W]{
		off:     g.Offsets,
		adj:     g.Adj,
		ws:      ws,
		delta:   delta,
		inv:     1 / delta,
		mask:    size - 1,
		taken:   make([]uint64, (n+63)/64),
		workers: make([]dsWorker, par.Workers()),
		steps:   steps,
	}
	for i := range s.workers {
		s.workers[i].ring = make([][]int32, size)
	}
	s.splitLight()
	s.team = team.New(len(s.workers))
	defer s.team.Close()
	s.dist = newDist(n, src)
	s.mark = time.Now()
	frontier := []int32{src}
	var heavy []int32
	buckets, round := 0, 0
	for {
		for ; len(frontier) > 0; round++ {
			if err := cancel.Check(); err != nil {
				return nil, 0, fmt.Errorf("sssp: Δ-stepping from %d stopped in bucket %d: %w", src, s.cur, err)
			}
			entries := int64(len(frontier))
			s.lightPhase(frontier)
			frontier = s.gather(s.cur, frontier)
			if steps != nil {
				s.endStep(true, entries, round)
			}
		}
		// A bucket settled: count it unless it held only stale entries.
		settled := s.settledCount()
		if settled > 0 {
			buckets++
		}
		heavy = s.heavyPhase(heavy)
		// A heavy arc lands in a later bucket, except when rounding of
		// d/Δ puts it back into this one: then process this bucket again.
		b := s.cur
		if frontier = s.gather(s.cur, frontier); len(frontier) == 0 {
			if b = s.next(); b >= 0 {
				frontier = s.gather(b, frontier)
			}
		}
		if steps != nil && settled > 0 {
			s.endStep(false, settled, 0)
		}
		if b < 0 {
			break
		}
		if b != s.cur {
			s.cur, round = b, 0
		}
	}
	return s.dist, buckets, nil
}
