package apsp

import (
	"slices"
	"time"

	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/trace"
)

// The step kinds of a Result.Trace (see Options.Trace).
const (
	// kindRound is a step of the blocked methods: one diagonal tile (CPU
	// Blocked, BlockedGPU) or one diagonal block (OutOfCoreGPU).
	kindRound = "round"
	// kindKBlock is a step of the plain methods: traceKBlock k's.
	kindKBlock = "k-block"
)

// traceKBlock is the number of k's in a step of the plain methods
// (FloydWarshall and PlainGPU): the GPU's default tile, so that a plain
// trace has as many steps as the blocked trace of the same matrix.
const traceKBlock = DefaultGPUTile

// relaxations is a step's Inspected: the (i, j) pairs its ks k-steps
// consider, by construction, over a side×side matrix.
func relaxations(ks, side int) int64 { return int64(ks) * int64(side) * int64(side) }

// newTrace is the trace of a run over n vertices (Arcs: its n² entries).
func newTrace(r *Result, n int, steps []trace.Step) *trace.Trace {
	return &trace.Trace{Algorithm: r.Algorithm, Arcs: int64(n) * int64(n), Steps: steps, Time: r.Time}
}

// ---- out of core ----

// oocTracer records, in a traced out-of-core run, CUDA events on the two
// streams around the rounds, the block transfers and the kernels, from a
// pool kept by the Prepared (created on first need, reused by later
// runs); steps reads them once the run is over. A nil *oocTracer records
// nothing.
type oocTracer struct {
	p      *Prepared
	pool   *[]*gpu.Event
	used   int
	rounds []oocRound
	err    error // the first event that could not be made or recorded
}

// oocRound is one round's events, as indices into the pool.
type oocRound struct {
	start, end int      // on the copy stream: before its first copy, after its last
	copies     [][2]int // on the copy stream, around each batch of transfers
	kernels    [][2]int // on the kernel stream, around each run of kernels
}

// mark records the next event of the pool on s and returns its index
// (-1 for a nil tracer, or once an event failed).
func (tr *oocTracer) mark(t *gpu.Thread, s *gpu.Stream) int {
	if tr == nil || tr.err != nil {
		return -1
	}
	if tr.used == len(*tr.pool) {
		e, err := tr.p.mem.NewEvent()
		if err != nil {
			tr.err = err
			return -1
		}
		*tr.pool = append(*tr.pool, e)
	}
	i := tr.used
	if err := t.Record((*tr.pool)[i], s); err != nil {
		tr.err = err
		return -1
	}
	tr.used++
	return i
}

// beginRound opens round r on the copy stream.
func (tr *oocTracer) beginRound(t *gpu.Thread, xs *gpu.Stream) {
	if tr == nil {
		return
	}
	tr.rounds = append(tr.rounds, oocRound{start: tr.mark(t, xs)})
}

// endRound closes the current round on the copy stream, after its last
// transfer (every kernel of the round ran before it).
func (tr *oocTracer) endRound(t *gpu.Thread, xs *gpu.Stream) {
	if tr == nil {
		return
	}
	tr.rounds[len(tr.rounds)-1].end = tr.mark(t, xs)
}

// begin marks the start of a batch of transfers (on the copy stream) or
// of kernels (on the kernel stream); end marks its end.
func (tr *oocTracer) begin(t *gpu.Thread, s *gpu.Stream) int { return tr.mark(t, s) }

func (tr *oocTracer) endCopy(t *gpu.Thread, s *gpu.Stream, start int) {
	if tr == nil {
		return
	}
	r := &tr.rounds[len(tr.rounds)-1]
	r.copies = append(r.copies, [2]int{start, tr.mark(t, s)})
}

func (tr *oocTracer) endKernels(t *gpu.Thread, s *gpu.Stream, start int) {
	if tr == nil {
		return
	}
	r := &tr.rounds[len(tr.rounds)-1]
	r.kernels = append(r.kernels, [2]int{start, tr.mark(t, s)})
}

// steps reads the events (after the run, its streams synchronised) and
// returns a step per round (see Options.Trace): Time the round's span,
// Copy the copy engine's time on its transfers, Exposed the measure of
// the transfers' intervals outside every kernel interval of the round.
// Interval lengths are read between their own two events, positions
// against the round's first event (both on the device's clock, about
// 0.5 µs resolution); Exposed is then clamped to Copy and Time, which the
// exact arithmetic guarantees.
func (tr *oocTracer) steps(K, np int) ([]trace.Step, error) {
	if tr.err != nil {
		return nil, tr.err
	}
	ev := func(i int) *gpu.Event { return (*tr.pool)[i] }
	steps := make([]trace.Step, len(tr.rounds))
	for ri, r := range tr.rounds {
		span, err := gpu.Elapsed(ev(r.start), ev(r.end))
		if err != nil {
			return nil, err
		}
		pos := func(i int) (time.Duration, error) { return gpu.Elapsed(ev(r.start), ev(i)) }
		type interval struct{ lo, hi time.Duration }
		read := func(pairs [][2]int) ([]interval, time.Duration, error) {
			var out []interval
			var total time.Duration
			for _, pr := range pairs {
				d, err := gpu.Elapsed(ev(pr[0]), ev(pr[1]))
				if err != nil {
					return nil, 0, err
				}
				lo, err := pos(pr[0])
				if err != nil {
					return nil, 0, err
				}
				hi, err := pos(pr[1])
				if err != nil {
					return nil, 0, err
				}
				total += max(d, 0)
				out = append(out, interval{max(lo, 0), min(max(hi, lo, 0), span)})
			}
			return out, total, nil
		}
		copies, copyTime, err := read(r.copies)
		if err != nil {
			return nil, err
		}
		kernels, _, err := read(r.kernels)
		if err != nil {
			return nil, err
		}
		// Exposed: the copies' time outside the union of the kernels.
		slices.SortFunc(kernels, func(a, b interval) int { return int(a.lo - b.lo) })
		var exposed time.Duration
		for _, c := range copies {
			covered := time.Duration(0)
			for _, k := range kernels {
				lo, hi := max(c.lo, k.lo), min(c.hi, k.hi)
				if hi > lo {
					covered += hi - lo
				}
			}
			// kernels run one after another on one stream: their
			// intervals do not overlap, so covered is no double count.
			exposed += max(c.hi-c.lo-covered, 0)
		}
		steps[ri] = trace.Step{
			Kind:      kindRound,
			Inspected: relaxations(K, np),
			Time:      max(span, 0),
			Copy:      copyTime,
			Exposed:   min(exposed, copyTime, max(span, 0)),
		}
	}
	return steps, nil
}
