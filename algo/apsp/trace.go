package apsp

import (
	"fmt"
	"slices"
	"strings"
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

// oocTracer records, in a traced out-of-core run, the CUDA events of
// its rounds on the two streams, from a pool kept by the Prepared
// (created on first need, reused by later runs); steps reads them once
// the run is over. The run's own events (block row and column uploaded,
// phases started and done, a unit uploaded, its product started and
// done) become fresh events of the pool (record): they bracket the
// kernels and end most uploads at no extra cost, and the kernel stream
// gets no event more. The tracer adds events on the copy stream (mark)
// where a batch of transfers does not start right behind the previous
// one: at a round's start, before the first unit's upload and the
// download of block row and column and after it, around each unit's
// download (whose end starts the upload queued right behind it), and at
// a round's end. A nil *oocTracer records the run's fixed events and
// nothing more.
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

// record records, in place of the run's fixed event, the pool's next
// event on s (untraced: fixed itself, index -1), and returns the event
// recorded, for the run to wait on, and its index.
func (tr *oocTracer) record(t *gpu.Thread, s *gpu.Stream, fixed *gpu.Event) (*gpu.Event, int, error) {
	if tr == nil {
		return fixed, -1, t.Record(fixed, s)
	}
	i := tr.mark(t, s)
	if i < 0 {
		return nil, -1, fmt.Errorf("tracing: %w", tr.err)
	}
	return (*tr.pool)[i], i, nil
}

// beginRound opens a round with an event on the copy stream, before its
// first transfer, and returns its index.
func (tr *oocTracer) beginRound(t *gpu.Thread, xs *gpu.Stream) int {
	if tr == nil {
		return -1
	}
	i := tr.mark(t, xs)
	tr.rounds = append(tr.rounds, oocRound{start: i})
	return i
}

// endRound closes the current round on the copy stream, after its last
// transfer (every kernel of the round ran before it).
func (tr *oocTracer) endRound(t *gpu.Thread, xs *gpu.Stream) {
	if tr == nil {
		return
	}
	tr.rounds[len(tr.rounds)-1].end = tr.mark(t, xs)
}

// copied notes a batch of transfers between events a and b of the copy
// stream.
func (tr *oocTracer) copied(a, b int) {
	if tr != nil {
		r := &tr.rounds[len(tr.rounds)-1]
		r.copies = append(r.copies, [2]int{a, b})
	}
}

// ran notes a run of kernels between events a and b of the kernel
// stream.
func (tr *oocTracer) ran(a, b int) {
	if tr != nil {
		r := &tr.rounds[len(tr.rounds)-1]
		r.kernels = append(r.kernels, [2]int{a, b})
	}
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

// ---- the launches' byte models (issue 17) ----

// entryBytes is the size of a matrix entry in every plane: an int32 or
// float32 distance, an int32 predecessor or hop count.
const entryBytes = 4

// launchBytes is the byte model of a traced in-core launch (see
// Options.Trace): what the kernel must move between the GPU and its
// memory by construction, by its name (the element type's suffix
// ignored). Every access of the products is streamed (rows of tiles,
// whole vectors), so no byte is a gather; the rebuild's lookups are
// (rebuildBytes); a kernel without a model gives 0.
func (p *Prepared) launchBytes(name string) (bytes, gather int64) {
	n, np := int64(p.info.n), int64(p.np)
	planes := int64(p.cfg.planes())
	hops := int64(0)
	if p.cfg.hops {
		hops = 1
	}
	t := int64(p.cfg.tile)
	tile := t * t * entryBytes // one plane of one tile
	nb := np / max(t, 1)
	base := strings.TrimSuffix(strings.TrimSuffix(name, "_i32"), "_f32")
	if b, g, ok := p.rebuildBytes(base); ok {
		return b, g
	}
	switch base {
	case "fw_init":
		// the n×n input read, every plane of the np×np matrix written.
		return n*n*entryBytes + np*np*planes*entryBytes, 0
	case "fw_plain":
		// every entry's distance (and hop count) read, row k and column k
		// of them read once; the writes of the entries a step lowers
		// depend on the data and are left out.
		return (n*n + 2*n) * (1 + hops) * entryBytes, 0
	case "fw_phase1":
		// the diagonal tile's planes read and written.
		return 2 * planes * tile, 0
	case "fw_phase2":
		// the 2·(nb−1) tiles of row and column b read and written, and the
		// diagonal tile read once as the other operand: as A (distances,
		// hop counts) for the row, as B (every plane) for the column, so
		// every plane once.
		return 2*(nb-1)*2*planes*tile + planes*tile, 0
	case "fw_phase3":
		// the (nb−1)² other tiles read and written; the operands, column b
		// (A: distances, hop counts) and row b (B: every plane), read
		// once each.
		return (nb-1)*(nb-1)*2*planes*tile + (nb-1)*(1+hops+planes)*tile, 0
	}
	return 0, 0
}

// addLaunchBytes fills the launches' Bytes and Gather (launchBytes),
// times the launches an entry stands for (trace.Launch.Count).
func (p *Prepared) addLaunchBytes(launches []trace.Launch) {
	for i := range launches {
		b, g := p.launchBytes(launches[i].Name)
		c := int64(launches[i].Launched())
		launches[i].Bytes, launches[i].Gather = b*c, g*c
	}
}

// countPlain sets the Count of a traced PlainGPU run's fw_plain entries,
// read from its launch log in order: the launches each stands for
// (plainEntries), the unlogged ones after it included. Other runs'
// launches are left alone (each stands for itself). It fails when the
// log holds another number of fw_plain entries than the run logged.
func (p *Prepared) countPlain(launches []trace.Launch) error {
	if p.opts.Method != PlainGPU {
		return nil
	}
	entries := plainEntries(p.info.n)
	i := 0
	for j := range launches {
		if !strings.HasPrefix(launches[j].Name, "fw_plain") {
			continue
		}
		if i < len(entries) {
			launches[j].Count = entries[i].count
		}
		i++
	}
	if i != len(entries) {
		return fmt.Errorf("tracing: the launch log holds %d fw_plain entries, but the run logged %d (a bug: please report it)", i, len(entries))
	}
	return nil
}
