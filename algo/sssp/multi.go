package sssp

import (
	_ "embed"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"sync"
	"time"

	"github.com/graphnb/graphnb/algo/internal/devcheck"
	"github.com/graphnb/graphnb/algo/internal/groupstep"
	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/gpu/nccl"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/trace"
)

// multiBody is the CUDA C of RunGroup and its check (multi.cu).
//
//go:embed multi.cu
var multiBody string

// multiModule compiles multi.cu after the shared check helpers, without
// fused multiply-adds (one float64 addition per relaxation, as the CPU's).
var multiModule = gpu.ModuleCache{Name: "sssp_multi.cu", Source: devcheck.Source(multiBody),
	Options: []gpu.CompileOption{gpu.Flag("--fmad=false")}}

// Control words of multi.cu (a test compares them with its MS_* and
// MSCK_* defines).
const (
	msQLen     = 0
	msFMin     = 1
	msScanned  = 2
	msLowered  = 3
	msReached  = 4
	msDegrees  = 5
	msLeft     = 6
	msAdopted  = 7
	msLowest   = 8
	msCount0   = 9
	msNone     = math.MaxInt32 // MS_NONE: no parent candidate
	msOrphan   = -2            // MS_ORPHAN
	msckErrors = 1
	msckJumped = 3 // = ckJumped: ssspck_jump writes it
	msckReach  = 4
	msckWords  = 6
)

// multiKernelNames lists the kernels of multi.cu the Go side launches.
func multiKernelNames() []string {
	return []string{"msssp_init", "msssp_reset", "msssp_frontier", "msssp_relax_w32", "msssp_relax_w64", "msssp_pack", "msssp_apply",
		"msssp_fill_int", "msssp_offer_w32", "msssp_offer_w64", "msssp_take",
		"msssp_ck_vertices", "msssp_ck_tree", "msssp_ck_arcs_w32", "msssp_ck_arcs_w64", "msssp_ck_parent_arcs"}
}

// groupTuning holds test switches of RunGroup: loopback sends every
// relaxation through the exchange, a rank's own targets included, so
// that a one-rank group (all the fake driver has) runs the packing, the
// all-to-all and the owner's minima.
var groupTuning = struct{ loopback bool }{}

// GroupOptions are RunGroup's options.
type GroupOptions struct {
	// Delta is Δ, the bucket width; 0 picks it as NearFar does on one GPU:
	// DeltaFactor (or DefaultGroupDeltaFactor) times the mean weight over
	// the mean out-degree, both over the whole graph.
	Delta, DeltaFactor float64
	// Parents builds the parent tree after the distances (on the
	// devices; needed by GroupResult.Check and Parents).
	Parents bool
	// Trace asks for GroupResult.Trace: one step per round — kind
	// "round" when vertices below the threshold T were relaxed (Frontier
	// the group's queue, Inspected the arcs the group relaxed, Updated the
	// distances lowered since the round before: by the round's own
	// relaxations, and by the pairs the round before sent, applied
	// after its count), "threshold" when none was left and T moved up (Why
	// gives T) — with the round's wall time and in Step.Comm its time in
	// collectives (the host's clock), both the slowest rank's of this
	// process. The counts ride on the AllReduce each round makes anyway.
	// A host group traces its CPU Δ-stepping.
	Trace bool
}

// RankStats are one rank's figures of a RunGroup.
type RankStats struct {
	Rank int
	// Time is the rank's search (host clock, device synchronised), and
	// CommTime the part of it spent in collectives: the host clock around
	// each AllReduceInt64 and AllToAllV (the devices synchronised before
	// each, so kernel time is not counted there).
	Time, CommTime time.Duration
	// Relaxations counts the arcs the rank relaxed; Lowered the
	// distances it lowered (its own and those received).
	Relaxations, Lowered int64
	// SentBytes is what the rank sent in the all-to-all exchanges (16
	// bytes per (vertex, distance) pair), its own share included in a
	// loopback test.
	SentBytes int64
}

// GroupResult is a RunGroup: figures over the group, and each rank's
// distances and parents left on its device (Dist and Parents gather them
// to the host on request). Close frees them.
type GroupResult struct {
	Algorithm string
	Source    int32
	N         int
	// Delta is the bucket width used; Rounds the exchange rounds and
	// Phases the buckets (thresholds) processed.
	Delta          float64
	Rounds, Phases int
	// Reached is the vertices with a finite distance and ComponentEdges
	// the Graph500 edges of their component (over all ranks).
	Reached, ComponentEdges int64
	// Time is the search over the group (the slowest rank of this
	// process), CommTime that rank's time in collectives, TreeTime the
	// parents (outside Time).
	Time, CommTime, TreeTime time.Duration
	// TEPS is graph.Rate(ComponentEdges, the graph's arcs, Time).
	TEPS graph.TEPS
	// Relaxations and ExchangedBytes are over all ranks.
	Relaxations, ExchangedBytes int64
	// Ranks are the figures of this process's ranks, in rank order.
	Ranks []RankStats
	// Trace is the search's record when GroupOptions.Trace asked for one
	// (nil otherwise).
	Trace *trace.Trace

	pg    *gpu.PartGraph
	mu    sync.Mutex
	ranks []*groupRank // nil for a host group
	host  *Result      // a host group's result; else the gathered one
	g     *graph.CSR   // a host group's graph
}

// CommShare is CommTime / Time (0 when Time is 0).
func (r *GroupResult) CommShare() float64 {
	if r.Time <= 0 {
		return 0
	}
	return r.CommTime.Seconds() / r.Time.Seconds()
}

// String summarises the run in one line.
func (r *GroupResult) String() string {
	return fmt.Sprintf("%s from %d: %d reached, %d rounds, %d phases, %v (%.0f%% in collectives), %d relaxations, %d bytes exchanged, %v",
		r.Algorithm, r.Source, r.Reached, r.Rounds, r.Phases, r.Time.Round(time.Microsecond), 100*r.CommShare(),
		r.Relaxations, r.ExchangedBytes, r.TEPS)
}

// groupRank is one rank's state of a run: its part, kernels and buffers.
type groupRank struct {
	r       *gpu.Rank
	part    *gpu.Part
	mem     *gpu.Allocations
	fn      map[string]*gpu.Function
	grid    gpu.Dim // grid of the grid-stride kernels
	lo, nl  int     // the block [lo, lo+nl)
	bs      int     // gpu.BlockSize: the block's stride in global arrays
	n, size int
	weights any // *gpu.Float32s, *gpu.Float64s, or a nil *gpu.Float32s (unit)
	wtag    string

	dist    *gpu.Float64s // bs entries, +Inf past nl
	parents *gpu.Int32s   // bs entries, -1 past nl (Parents option)
	act     *gpu.Int32s
	queue   *gpu.Int32s
	ctl     *gpu.Uint64s
	stats   RankStats
	ctlHost []uint64
	steps   []trace.Step // a traced search's rounds (GroupOptions.Trace)
	// Agreement launches the kernels and agrees on stopping: its
	// Interrupted is set by a launch that met an interrupt, its CommTime
	// is the time in collectives so far.
	groupstep.Agreement
}

// RunGroup computes shortest paths from source over pg, a graph split
// by vertex blocks over a group, with Δ-stepping: every rank keeps the
// float64 distances of its block; in each round a rank relaxes the arcs of
// its active vertices below the threshold T (their own targets lowered in
// place with atomic minima), sends the best candidate for each remote
// target once per round to its owner ((vertex, distance) pairs, an
// AllToAllV after the counts went round in an AllReduceInt64), and the
// owners apply them with atomic minima; a phase ends when no rank has an
// active vertex below T, and the next T is the least active distance over
// the group plus Δ. Distances equal the CPU algorithms' and the single-GPU
// methods' bit for bit (the same fixed point of the same float64
// additions).
//
// With Parents, the tree is built after the search: each rank's block of
// distances is gathered on every rank (AllGather, 8 bytes per vertex of
// the graph on each device: the simplest exchange of the distances at
// the ends of a rank's arcs), each rank offers for its arcs u→v the
// tight ones from a strictly closer u, and the least offer per vertex
// wins (an AllReduce minimum over the N candidates); vertices reached
// only over arcs between equal distances are adopted in rounds, as
// RunOnDevice's tree (the same tree on the same distances).
//
// A group of the host device runs DeltaStepping on pg's one part.
// Interrupts are polled every round, by every rank, and agreed over the
// group, so every rank stops after the same round with an error matching
// cancel.ErrInterrupted; a failing rank breaks the group and every rank
// returns its error.
func RunGroup(pg *gpu.PartGraph, source int, o GroupOptions) (*GroupResult, error) {
	if pg == nil || pg.Group == nil {
		return nil, errors.New("sssp: RunGroup: no partitioned graph")
	}
	if pg.N == 0 {
		return nil, errors.New("sssp: RunGroup: the graph has no vertices, so no source")
	}
	if source < 0 || source >= pg.N {
		return nil, fmt.Errorf("sssp: RunGroup: source %d is not a vertex of this %d-vertex graph (use 0..%d)", source, pg.N, pg.N-1)
	}
	if !(o.Delta >= 0) || math.IsInf(o.Delta, 1) || !(o.DeltaFactor >= 0) || math.IsInf(o.DeltaFactor, 1) {
		return nil, fmt.Errorf("sssp: RunGroup: Δ = %g and Δ factor %g must be positive numbers, or 0 for the default", o.Delta, o.DeltaFactor)
	}
	if pg.N > math.MaxInt32 {
		return nil, fmt.Errorf("sssp: RunGroup: %d vertices exceed the 32-bit vertex numbers", pg.N)
	}
	if err := cancel.Check(); err != nil {
		return nil, fmt.Errorf("sssp: %w", err)
	}
	if pg.Group.IsHost() {
		return runGroupHost(pg, int32(source), o)
	}
	res := &GroupResult{Algorithm: fmt.Sprintf("gpu Δ-stepping over a %s", pg.Group), Source: int32(source), N: pg.N, pg: pg}
	ranks := make([]*groupRank, len(pg.Parts))
	for i, p := range pg.Parts {
		size := pg.Group.Size()
		// Every AllReduce sends the longest length (the round's counts
		// matrix): gpu.Rank keeps one scratch buffer.
		ranks[i] = &groupRank{r: p.Rank, part: p, n: pg.N, size: size,
			Agreement: groupstep.Agreement{Rank: p.Rank, What: "sssp: RunGroup", Block: blockSize, Width: max(3*size, size*size+3) + 1}}
	}
	res.ranks = ranks
	var sums sync.Mutex
	var stop error
	err := pg.Group.Run(func(r *gpu.Rank, t *gpu.Thread) error {
		gr := ranks[groupstep.PartIndex(pg, r)]
		return groupstep.Keep(&sums, &stop, gr.run(t, res, &sums, int32(source), o))
	})
	for _, gr := range ranks {
		res.Ranks = append(res.Ranks, gr.stats)
	}
	if err != nil {
		return nil, errors.Join(fmt.Errorf("sssp: RunGroup from %d: %w", source, err), res.Close())
	}
	if stop != nil {
		return nil, errors.Join(stop, res.Close())
	}
	res.TEPS = graph.Rate(res.ComponentEdges, pg.Arcs, res.Time)
	return res, nil
}

// run is one rank's share of RunGroup: its search, tree and counts,
// added to res under mu.
func (gr *groupRank) run(t *gpu.Thread, res *GroupResult, mu *sync.Mutex, src int32, o GroupOptions) error {
	if err := gr.prepare(t, o.Parents); err != nil {
		return err
	}
	delta, err := gr.delta(t, o)
	if err != nil {
		return err
	}
	rounds, phases, err := gr.search(t, src, delta, o.Trace)
	if err != nil {
		return err
	}
	start := time.Now()
	reached, degrees, err := gr.finish(t, src, o.Parents)
	tree := time.Since(start)
	if err != nil {
		return err
	}
	sent, err := gr.AllReduce(t, []int64{gr.stats.SentBytes, gr.stats.Relaxations}, nccl.Sum)
	if err != nil {
		return err
	}
	mu.Lock()
	defer mu.Unlock()
	res.Delta, res.Rounds, res.Phases, res.Reached = delta, rounds, phases, reached
	res.ComponentEdges = degrees
	if !res.pg.Directed {
		res.ComponentEdges /= 2
	}
	res.ExchangedBytes, res.Relaxations = sent[0], sent[1]
	if gr.stats.Time > res.Time || res.Trace == nil && o.Trace {
		res.Time, res.CommTime = gr.stats.Time, gr.stats.CommTime
		if o.Trace {
			res.Trace = &trace.Trace{Algorithm: res.Algorithm, Arcs: res.pg.Arcs, Steps: gr.steps, Time: gr.stats.Time}
		}
	}
	if o.Parents {
		res.TreeTime = max(res.TreeTime, tree)
	}
	return nil
}

// runGroupHost is RunGroup on a group of the host device: DeltaStepping
// on the one part (with o.Delta, else DeltaStepping's default Δ).
func runGroupHost(pg *gpu.PartGraph, src int32, o GroupOptions) (*GroupResult, error) {
	g, err := pg.Host()
	if err != nil {
		return nil, fmt.Errorf("sssp: RunGroup on the host: %w", err)
	}
	run := DeltaStepping
	if o.Trace {
		run = DeltaSteppingTraced
	}
	r, err := run(g, src, o.Delta)
	if err != nil {
		return nil, err
	}
	r.Algorithm += "; host group standing in for gpu Δ-stepping over a group"
	res := &GroupResult{Algorithm: r.Algorithm, Source: src, N: pg.N, Delta: r.Delta, Rounds: r.Iterations, Phases: r.Iterations,
		Reached: r.Reached, ComponentEdges: r.ComponentEdges, Time: r.Time, TreeTime: r.TreeTime, TEPS: r.TEPS,
		Ranks: []RankStats{{Time: r.Time}}, Trace: r.Trace, pg: pg, host: r, g: g}
	return res, nil
}

// prepare compiles the kernels and allocates the rank's buffers.
func (gr *groupRank) prepare(t *gpu.Thread, parents bool) error {
	dev := gr.r.Device()
	fn, err := multiModule.Functions(dev, multiKernelNames())
	if err != nil {
		return fmt.Errorf("sssp: %w", err)
	}
	info, err := dev.Info()
	if err != nil {
		return err
	}
	gr.fn = fn
	gr.lo, gr.nl = gr.part.Lo, gr.part.Hi-gr.part.Lo
	gr.bs = gpu.BlockSize(gr.n, gr.size)
	gr.grid = checkGrid(max(gr.bs, gr.n), info.SMs)
	gr.mem = gpu.NewAllocations(dev)
	switch {
	case gr.part.Weights64 != nil:
		gr.weights, gr.wtag = gr.part.Weights64, "w64"
	case gr.part.Weights != nil:
		gr.weights, gr.wtag = gr.part.Weights, "w32"
	default:
		gr.weights, gr.wtag = (*gpu.Float32s)(nil), "w32"
	}
	if gr.dist, err = gr.mem.AllocFloat64s(max(gr.bs, 1)); err != nil {
		return err
	}
	if parents {
		if gr.parents, err = gr.mem.AllocInt32s(max(gr.bs, 1)); err != nil {
			return err
		}
	}
	for _, b := range []**gpu.Int32s{&gr.act, &gr.queue} {
		if *b, err = gr.mem.AllocInt32s(max(gr.nl, 1)); err != nil {
			return err
		}
	}
	gr.ctlHost = make([]uint64, msCount0+gr.size)
	gr.ctl, err = gr.mem.AllocUint64s(len(gr.ctlHost))
	return err
}

// free frees the rank's buffers.
func (gr *groupRank) free() error {
	if gr.mem == nil {
		return nil
	}
	return gr.mem.Free()
}

// delta is Δ: o.Delta, else as NearFar picks it over the whole graph:
// each rank scans its weights on the device (resident.cu's chunked sums,
// so a one-rank group gets the single GPU's Δ bit for bit), and the
// ranks' sums and counts, exchanged exactly, are added in rank order.
func (gr *groupRank) delta(t *gpu.Thread, o GroupOptions) (float64, error) {
	ws := weightStats{negArc: -1}
	if gr.part.Weights != nil || gr.part.Weights64 != nil {
		fn, err := residentKernels(gr.r.Device())
		if err != nil {
			return 0, err
		}
		g := &gpu.Graph{Arcs: int64(gr.part.Adj.Len()), Weights: gr.part.Weights, Weights64: gr.part.Weights64}
		if ws, err = deviceWeightStats(gr.mem, fn, g); err != nil {
			return 0, err
		}
	} else if gr.part.Adj.Len() > 0 {
		ws = weightStats{negArc: -1, maxFinite: 1, mean: 1}
	}
	// Every rank's (negative arc + 1, mean weight bits, arcs) in its own
	// slots: a sum over the ranks copies each exactly; the means are
	// then combined in rank order, weighted by the arcs (Δ is a
	// heuristic: only a one-rank group needs, and gets, the single
	// GPU's value bit for bit).
	size, me := gr.size, gr.r.Rank()
	vals := make([]int64, 3*size)
	vals[3*me] = ws.negArc + 1
	vals[3*me+1] = int64(math.Float64bits(ws.mean))
	vals[3*me+2] = int64(gr.part.Adj.Len())
	all, err := gr.AllReduce(t, vals, nccl.Sum)
	if err != nil {
		return 0, err
	}
	var sum float64
	var arcs int64
	for k := range size {
		if neg := all[3*k]; neg > 0 {
			return 0, groupstep.Stop{Err: fmt.Errorf("sssp: RunGroup: a negative or NaN weight at arc %d of rank %d's part (Δ-stepping needs weights ≥ 0)", neg-1, k)}
		}
		sum += math.Float64frombits(uint64(all[3*k+1])) * float64(all[3*k+2])
		arcs += all[3*k+2]
	}
	if o.Delta > 0 {
		return o.Delta, nil
	}
	mean := ws.mean
	if size > 1 && arcs > 0 {
		mean = sum / float64(arcs)
	}
	return deltaOf(gr.n, arcs, weightStats{negArc: -1, mean: mean}, Options{DeltaFactor: o.DeltaFactor}, DefaultGroupDeltaFactor), nil
}

// launch launches a grid-stride kernel of multi.cu (see
// groupstep.Agreement.Launch).
func (gr *groupRank) launch(t *gpu.Thread, name string, args ...any) error {
	return gr.Launch(t, gr.fn[name], gr.grid, args...)
}

// search is the Δ-stepping loop (see RunGroup); it returns the rounds and
// phases.
func (gr *groupRank) search(t *gpu.Thread, src int32, delta float64, traced bool) (rounds, phases int, err error) {
	loop := groupTuning.loopback
	remote := gr.size > 1 || loop
	var rbest *gpu.Uint64s
	var rstamp, out *gpu.Int32s
	var send, recv *gpu.Uint64s
	scratch := gr.mem.Sub()
	defer scratch.Free()
	if remote {
		// rbest and rstamp over all N vertices, out in per-owner regions
		// of bs; send and recv hold 2 words per pair: at most one pair
		// per remote vertex sent, nl per other rank received.
		span := gr.bs * gr.size
		if rbest, err = scratch.AllocUint64s(span); err == nil {
			if rstamp, err = scratch.AllocInt32s(span); err == nil {
				if out, err = scratch.AllocInt32s(span); err == nil {
					if send, err = scratch.AllocUint64s(2 * span); err == nil {
						recv, err = scratch.AllocUint64s(2 * max(gr.bs*gr.size, 1))
					}
				}
			}
		}
		if err != nil {
			return 0, 0, err
		}
	}
	lo, nl, bs, n := int64(gr.lo), int64(gr.nl), int64(gr.bs), int64(gr.n)
	if err := t.Synchronize(); err != nil {
		return 0, 0, err
	}
	start := time.Now()
	gr.CommTime = 0
	if err := gr.launch(t, "msssp_init", gr.dist, bs, gr.act, nl, lo, src, rbest, rstamp, n); err != nil {
		return 0, 0, err
	}
	thr := nextThreshold(0, delta)
	phases = 1
	size, me := gr.size, gr.r.Rank()
	ctl := gr.ctlHost
	if err := gr.ctl.Fill(0); err != nil {
		return 0, 0, err
	}
	relax := "msssp_relax_" + gr.wtag
	loopArg := int32(0)
	if loop {
		loopArg = 1
	}
	limit := 16*gr.n + 4096 // far above any real run (2 rounds per phase on a path): a guard against a bug
	gr.steps = gr.steps[:0]
	var scanned, lowered uint64 // the counters at the round before's count
	var roundStart time.Time
	var roundComm time.Duration
	// step notes a traced round that ended.
	step := func(st trace.Step) {
		if traced {
			st.Time, st.Comm = time.Since(roundStart), gr.CommTime-roundComm
			gr.steps = append(gr.steps, st)
		}
	}
	for {
		if traced {
			roundStart, roundComm = time.Now(), gr.CommTime
		}
		rounds++
		if rounds > limit {
			return 0, 0, fmt.Errorf("no convergence after %d rounds (a bug: please report it)", limit)
		}
		if err := gr.Launch(t, gr.fn["msssp_reset"], gpu.D1(1), gr.ctl, int32(size)); err != nil {
			return 0, 0, err
		}
		if err := gr.launch(t, "msssp_frontier", gr.dist, gr.act, nl, thr, gr.queue, gr.ctl); err != nil {
			return 0, 0, err
		}
		if err := gr.launch(t, relax, gr.part.Offsets, gr.part.Adj, gr.weights, lo, nl, gr.queue, gr.dist, gr.act,
			rbest, rstamp, int32(rounds), out, bs, loopArg, gr.ctl); err != nil {
			return 0, 0, err
		}
		if err := gr.ctl.Download(ctl); err != nil {
			return 0, 0, err
		}
		// Every rank's counts per owner in its row, and its queue length.
		// Traced: the arcs relaxed and distances lowered since the round
		// before, summed over the group too.
		width := size*size + 1
		if traced {
			width += 2
		}
		vals := make([]int64, width)
		for k := range size {
			vals[me*size+k] = int64(ctl[msCount0+k])
		}
		vals[size*size] = int64(ctl[msQLen])
		if traced {
			vals[size*size+1], vals[size*size+2] = int64(ctl[msScanned]-scanned), int64(ctl[msLowered]-lowered)
			scanned, lowered = ctl[msScanned], ctl[msLowered]
		}
		all, err := gr.AllReduce(t, vals, nccl.Sum)
		if err != nil {
			return 0, 0, err
		}
		st := trace.Step{Kind: "round", Frontier: all[size*size]}
		if traced {
			st.Inspected, st.Updated = all[size*size+1], all[size*size+2]
			st.Why = fmt.Sprintf("T = %g", math.Float64frombits(thr))
		}
		if all[size*size] == 0 {
			// The phase is over: the next threshold from the least active
			// distance of the group, or the end.
			fm, err := gr.AllReduce(t, []int64{int64(ctl[msFMin])}, nccl.Min)
			if err != nil {
				return 0, 0, err
			}
			st.Kind = "threshold"
			if uint64(fm[0]) >= math.Float64bits(math.Inf(1)) {
				if traced {
					st.Why = "no active vertex left"
				}
				step(st)
				break
			}
			thr = nextThreshold(math.Float64frombits(uint64(fm[0])), delta)
			if traced {
				st.Why = fmt.Sprintf("T = %g", math.Float64frombits(thr))
			}
			step(st)
			phases++
			continue
		}
		if remote && anyListed(all[:size*size]) {
			if err := gr.exchange(t, all, out, rbest, send, recv); err != nil {
				return 0, 0, err
			}
		}
		step(st)
	}
	if err := t.Synchronize(); err != nil {
		return 0, 0, err
	}
	gr.stats.Rank = gr.r.Rank()
	gr.stats.Time = time.Since(start)
	gr.stats.CommTime = gr.CommTime
	gr.stats.Relaxations = int64(ctl[msScanned])
	gr.stats.Lowered = int64(ctl[msLowered])
	return rounds, phases, nil
}

// anyListed reports whether any rank listed a vertex for any owner (the
// counts matrix is the same on every rank: all skip the exchange alike).
func anyListed(counts []int64) bool {
	for _, c := range counts {
		if c != 0 {
			return true
		}
	}
	return false
}

// exchange packs the vertices listed per owner with their candidates,
// sends them with AllToAllV (counts from the matrix all, row = sender)
// and applies those received.
func (gr *groupRank) exchange(t *gpu.Thread, all []int64, out *gpu.Int32s, rbest, send, recv *gpu.Uint64s) error {
	size, me := gr.size, gr.r.Rank()
	sendCounts, recvCounts := make([]int, size), make([]int, size)
	at := 0
	for k := range size {
		c := int(all[me*size+k])
		sendCounts[k], recvCounts[k] = 2*c, 2*int(all[k*size+me])
		if c > 0 {
			if err := gr.launch(t, "msssp_pack", out, int64(k*gr.bs), int64(c), rbest, send, int64(at)); err != nil {
				return err
			}
		}
		at += c
	}
	gr.stats.SentBytes += int64(at) * 16
	sendSpan, err := gpu.SpanOf(send, 0, -1)
	if err != nil {
		return err
	}
	recvSpan, err := gpu.SpanOf(recv, 0, -1)
	if err != nil {
		return err
	}
	if err := t.Synchronize(); err != nil { // the packing is not communication
		return err
	}
	start := time.Now()
	err = gr.r.AllToAllV(t, sendSpan, sendCounts, recvSpan, recvCounts)
	gr.CommTime += time.Since(start)
	if err != nil {
		return err
	}
	got := 0
	for _, c := range recvCounts {
		got += c / 2
	}
	if got == 0 {
		return nil
	}
	return gr.launch(t, "msssp_apply", recv, int64(got), int64(gr.lo), gr.dist, gr.act, gr.ctl)
}

// nextThreshold is fmin + Δ, or the next float64 above fmin when the sum
// rounds to fmin (so that a phase always makes progress), as near-far's
// split does.
func nextThreshold(fmin, delta float64) uint64 {
	t := fmin + delta
	if t > fmin {
		return math.Float64bits(t)
	}
	return math.Float64bits(math.Nextafter(fmin, math.Inf(1)))
}

// finish gathers the distances on every rank (the parents need them),
// builds the parents with the Parents option, and counts the reached
// vertices and their arcs over the group.
func (gr *groupRank) finish(t *gpu.Thread, src int32, parents bool) (reached, degrees int64, err error) {
	lo, nl, bs := int64(gr.lo), int64(gr.nl), int64(gr.bs)
	scratch := gr.mem.Sub()
	defer scratch.Free()
	gd, err := gr.gatherDist(t, scratch)
	if err != nil {
		return 0, 0, err
	}
	par := gr.parents
	if !parents {
		if par, err = scratch.AllocInt32s(max(gr.bs, 1)); err != nil {
			return 0, 0, err
		}
	}
	cand, err := scratch.AllocInt32s(gr.bs * gr.size)
	if err != nil {
		return 0, 0, err
	}
	candSpan, err := gpu.SpanOf(cand, 0, -1)
	if err != nil {
		return 0, 0, err
	}
	offer := "msssp_offer_" + gr.wtag
	ctl := gr.ctlHost
	for round := 0; ; round++ {
		if err := gr.launch(t, "msssp_fill_int", cand, int64(cand.Len()), int32(msNone)); err != nil {
			return 0, 0, err
		}
		if parents {
			if err := gr.launch(t, offer, gr.part.Offsets, gr.part.Adj, gr.weights, lo, nl, gd, par, cand, int32(min(round, 1))); err != nil {
				return 0, 0, err
			}
			if err := gr.r.AllReduce(t, candSpan, candSpan, nccl.Min); err != nil {
				return 0, 0, err
			}
		}
		reset := make([]uint64, len(ctl))
		reset[msLowest] = math.MaxUint64
		if err := gr.ctl.Upload(reset); err != nil {
			return 0, 0, err
		}
		if err := gr.launch(t, "msssp_take", gr.part.Offsets, gd, cand, lo, nl, bs, src, par, int32(min(round, 1)), gr.ctl); err != nil {
			return 0, 0, err
		}
		if err := gr.ctl.Download(ctl); err != nil {
			return 0, 0, err
		}
		if round == 0 {
			counts, err := gr.AllReduce(t, []int64{int64(ctl[msReached]), int64(ctl[msDegrees])}, nccl.Sum)
			if err != nil {
				return 0, 0, err
			}
			reached, degrees = counts[0], counts[1]
		}
		if !parents {
			return reached, degrees, nil
		}
		left, err := gr.AllReduce(t, []int64{int64(ctl[msLeft]), int64(ctl[msAdopted])}, nccl.Sum)
		if err != nil {
			return 0, 0, err
		}
		if left[0] == 0 {
			return reached, degrees, nil
		}
		if round > 0 && left[1] == 0 {
			low := int64(math.MaxInt64)
			if ctl[msLeft] > 0 {
				low = int64(ctl[msLowest])
			}
			lowest, err := gr.AllReduce(t, []int64{low}, nccl.Min)
			if err != nil {
				return 0, 0, err
			}
			return 0, 0, fmt.Errorf("vertex %d has a finite distance but no path of tight arcs from the source %d: "+
				"the distances are not a fixed point of the arcs", lowest[0], src)
		}
	}
}

// gatherBlocks gathers every rank's block (the first bs entries of
// block) into all (bs·size entries: vertex v at v), on this rank.
func (gr *groupRank) gatherBlocks(t *gpu.Thread, block, all any) error {
	send, err := gpu.SpanOf(block, 0, gr.bs)
	if err != nil {
		return err
	}
	recv, err := gpu.SpanOf(all, 0, -1)
	if err != nil {
		return err
	}
	return gr.r.AllGather(t, send, recv)
}

// gatherDist returns every rank's block of distances, gathered on this
// rank (see gatherBlocks), allocated from a.
func (gr *groupRank) gatherDist(t *gpu.Thread, a *gpu.Allocations) (*gpu.Float64s, error) {
	gd, err := a.AllocFloat64s(gr.bs * gr.size)
	if err != nil {
		return nil, err
	}
	return gd, gr.gatherBlocks(t, gr.dist, gd)
}

// Close frees the ranks' device memory; idempotent. A Dist or Parents
// read before stays valid.
func (r *GroupResult) Close() error {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	var errs []error
	for _, gr := range r.ranks {
		errs = append(errs, gr.free())
	}
	r.ranks = nil
	return errors.Join(errs...)
}

// gathered returns the whole result on the host (one process holding
// every rank), downloaded once and kept.
func (r *GroupResult) gathered() (*Result, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.host != nil {
		return r.host, nil
	}
	if r.ranks == nil {
		return nil, errors.New("sssp: GroupResult: closed before its distances were read; read them before Close")
	}
	if len(r.ranks) != r.pg.Group.Size() {
		return nil, fmt.Errorf("sssp: GroupResult: this process holds %d of %d ranks; gather the distances where all ranks are", len(r.ranks), r.pg.Group.Size())
	}
	res := &Result{Algorithm: r.Algorithm, Source: r.Source, Iterations: r.Rounds, Delta: r.Delta, Reached: r.Reached,
		ComponentEdges: r.ComponentEdges, Time: r.Time, TreeTime: r.TreeTime, TEPS: r.TEPS, ArcsScanned: r.Relaxations,
		Phases: r.Phases, Dist: make([]float64, 0, r.N)}
	withParents := r.ranks[0].parents != nil
	if withParents {
		res.Parents = make([]int32, 0, r.N)
	}
	for _, gr := range r.ranks {
		d, err := gr.dist.ToHost()
		if err != nil {
			return nil, err
		}
		res.Dist = append(res.Dist, d[:gr.nl]...)
		if withParents {
			p, err := gr.parents.ToHost()
			if err != nil {
				return nil, err
			}
			res.Parents = append(res.Parents, p[:gr.nl]...)
		}
	}
	r.host = res
	return res, nil
}

// Result returns the run as an ordinary Result (Dist, and Parents with the
// Parents option; Iterations the rounds, ArcsScanned the relaxations),
// gathered from the ranks' devices on the first call (a group in one
// process only) and kept.
func (r *GroupResult) Result() (*Result, error) { return r.gathered() }

// Dist returns the distances of every vertex (see Result).
func (r *GroupResult) Dist() ([]float64, error) {
	res, err := r.gathered()
	if err != nil {
		return nil, err
	}
	return res.Dist, nil
}

// Parents returns the parents of every vertex (see Result); an error
// without the Parents option.
func (r *GroupResult) Parents() ([]int32, error) {
	res, err := r.gathered()
	if err != nil {
		return nil, err
	}
	if res.Parents == nil {
		return nil, errors.New("sssp: GroupResult.Parents: the run had no Parents option")
	}
	return res.Parents, nil
}

// Check validates the result on the devices with the certificate of the
// single-GPU device check (CheckDevice, DefaultTolerance): the source
// has distance 0 and is its own parent; a vertex is unreached exactly
// when it has no parent, and a parent is reached; following parents
// reaches the source; no arc can still shorten a distance; a tight arc
// joins each parent to its child. Each rank checks its block and its arcs,
// with every rank's distances and parents gathered (AllGather, 12 bytes
// per vertex of the graph on each device) and the parent arcs' marks
// reduced (an AllReduce maximum of N bytes); the failures are counted
// over the group with AllReduceInt64, and the error names the first
// rule broken and its lowest vertex. Reached and ComponentEdges are
// checked against the counts. It needs the Parents option; on a host group
// it is Check of the CPU result.
func (r *GroupResult) Check() error {
	if r == nil {
		return errors.New("sssp: GroupResult.Check: no result")
	}
	if r.g != nil {
		return CheckTolerance(r.g, r.host, DefaultTolerance)
	}
	r.mu.Lock()
	ranks := r.ranks
	r.mu.Unlock()
	if ranks == nil {
		return errors.New("sssp: GroupResult.Check: the result was closed; check it before Close")
	}
	if ranks[0].parents == nil {
		return errors.New("sssp: GroupResult.Check: the run had no parents to check (use GroupOptions.Parents)")
	}
	keys := make([]int64, len(ranks))
	counts := make([][]int64, len(ranks))
	var mu sync.Mutex
	var stop error
	err := r.pg.Group.Run(func(rk *gpu.Rank, t *gpu.Thread) error {
		i := groupstep.PartIndex(r.pg, rk)
		var err error
		ranks[i].Interrupted = false
		keys[i], counts[i], err = ranks[i].check(t, r.Source)
		return groupstep.Keep(&mu, &stop, err)
	})
	if err == nil {
		err = stop
	}
	if err != nil {
		return fmt.Errorf("sssp: device check over the group: %w", err)
	}
	key, c := keys[0], counts[0]
	if key != math.MaxInt64 {
		return groupCheckFailure(uint64(key), c[0])
	}
	if c[1] != r.Reached {
		return fmt.Errorf("sssp: device check: Reached = %d but %d vertices have a finite distance", r.Reached, c[1])
	}
	return nil
}

// groupCheckFailure words the failure key of multi.cu's check (rule <<
// 48 | vertex), with the number of failures over the group.
func groupCheckFailure(key uint64, count int64) error {
	v := devcheck.Index(key)
	var rule string
	switch devcheck.Rule(key) {
	case ruleSource:
		rule = fmt.Sprintf("source: Dist[%d] must be 0 and Parents[%d] the source itself", v, v)
	case ruleReach:
		rule = fmt.Sprintf("reach: vertex %d must have distance +Inf and parent -1, or a finite distance and a reached parent", v)
	case ruleTree:
		rule = fmt.Sprintf("parent tree: following parents from vertex %d does not reach the source (a cycle)", v)
	case ruleBound:
		rule = fmt.Sprintf("bound: an arc into vertex %d gives it a shorter distance than Dist[%d]", v, v)
	case ruleParentArc:
		rule = fmt.Sprintf("parent arc: vertex %d has no tight arc from its parent", v)
	default:
		rule = fmt.Sprintf("unknown failure %#x", key)
	}
	return fmt.Errorf("sssp: device check over the group: %s (%d failures over the group)", rule, count)
}

// check is one rank's share of Check; it returns the group's least
// failure key (MaxInt64 for none) and the group's failure count and
// reached vertices.
func (gr *groupRank) check(t *gpu.Thread, src int32) (int64, []int64, error) {
	ck, err := checkModule.Functions(gr.r.Device(), []string{kCkJump})
	if err != nil {
		return 0, nil, err
	}
	scratch := gr.mem.Sub()
	defer scratch.Free()
	gd, err := gr.gatherDist(t, scratch)
	if err != nil {
		return 0, nil, err
	}
	span := gr.bs * gr.size
	gp, err := scratch.AllocInt32s(span)
	if err != nil {
		return 0, nil, err
	}
	if err := gr.gatherBlocks(t, gr.parents, gp); err != nil {
		return 0, nil, err
	}
	anc, err := scratch.AllocInt32s(span)
	if err != nil {
		return 0, nil, err
	}
	mark, err := scratch.AllocUint8s(span)
	if err != nil {
		return 0, nil, err
	}
	ctlBuf, err := scratch.Uint64sFrom(devcheck.Initial(msckWords))
	if err != nil {
		return 0, nil, err
	}
	if err := mark.Fill(0); err != nil {
		return 0, nil, err
	}
	lo, nl, n := int64(gr.lo), int64(gr.nl), int64(gr.n)
	if err := gr.launch(t, "msssp_ck_vertices", gd, gp, lo, nl, n, src, anc, ctlBuf); err != nil {
		return 0, nil, err
	}
	ctl := make([]uint64, msckWords)
	rounds := bits.Len(uint(n)) + 1
	for round := 1; round <= rounds; round++ {
		if err := gr.Launch(t, ck[kCkJump], gr.grid, anc, n, uint64(round), ctlBuf); err != nil {
			return 0, nil, err
		}
		if round >= jumpsUnread && round < rounds {
			if err := ctlBuf.Download(ctl); err != nil {
				return 0, nil, err
			}
			if ctl[msckJumped] != uint64(round) {
				break
			}
		}
	}
	if err := gr.launch(t, "msssp_ck_tree", gd, anc, lo, nl, src, ctlBuf); err != nil {
		return 0, nil, err
	}
	if err := gr.launch(t, "msssp_ck_arcs_"+gr.wtag, gr.part.Offsets, gr.part.Adj, gr.weights, lo, nl, gd, gp, src,
		DefaultTolerance, mark, ctlBuf); err != nil {
		return 0, nil, err
	}
	markSpan, err := gpu.SpanOf(mark, 0, -1)
	if err != nil {
		return 0, nil, err
	}
	if err := gr.r.AllReduce(t, markSpan, markSpan, nccl.Max); err != nil {
		return 0, nil, err
	}
	if err := gr.launch(t, "msssp_ck_parent_arcs", gd, mark, lo, nl, src, ctlBuf); err != nil {
		return 0, nil, err
	}
	if err := ctlBuf.Download(ctl); err != nil {
		return 0, nil, err
	}
	counts, err := gr.AllReduce(t, []int64{int64(ctl[msckErrors]), int64(ctl[msckReach])}, nccl.Sum)
	if err != nil {
		return 0, nil, err
	}
	key := int64(math.MaxInt64)
	if ctl[ckErr] != ckNone {
		key = int64(ctl[ckErr])
	}
	least, err := gr.AllReduce(t, []int64{key}, nccl.Min)
	if err != nil {
		return 0, nil, err
	}
	return least[0], counts, nil
}
