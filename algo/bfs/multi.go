package bfs

import (
	_ "embed"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/gpu/nccl"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/trace"
)

// BFS over a group of GPUs (gpu.Group): a direction-optimizing search on a
// graph split by vertex blocks (gpu.PartGraph), every rank expanding its
// own vertices, and its Graph500 check on the devices. multi.cu has the
// kernels and the layout of the per-rank arrays.

//go:embed multi.cu
var multiSource string

// Kernels of multi.cu.
const (
	kMBInit     = "mb_init"
	kMBMerge    = "mb_merge"
	kMBTDWalk   = "mb_td_walk"
	kMBTDPack   = "mb_td_pack"
	kMBTDApply  = "mb_td_apply"
	kMBBU       = "mb_bu"
	kMBCKClear  = "mbck_clear"
	kMBCKBlock  = "mbck_block"
	mbMaxRanks  = 64 // multi.cu MB_MAX_RANKS
	mbckRules   = 6  // multi.cu MBCK_RULES
	mbckReached = 12 // multi.cu MBCK_REACHED
	mbckArcs    = 13 // multi.cu MBCK_ARCS
	mbckWords   = 14 // multi.cu MBCK_WORDS
	mbNF        = 0  // multi.cu MB_NF
	mbMF        = 1  // multi.cu MB_MF
	mbRead      = 2  // multi.cu MB_READ: arcs a traced bottom-up step read
	mbNBig      = 3  // multi.cu MB_NBIG
	mbGNF       = 4  // the group's MB_NF (an AllReduce of every rank's)
	mbGMF       = 5  // the group's MB_MF
	mbGRead     = 6  // the group's MB_READ
	mbCtlWords  = 8  // multi.cu MB_CTL_WORDS
)

var multiKernelNames = []string{kMBInit, kMBMerge, kMBTDWalk, kMBTDPack, kMBTDApply, kMBBU, kMBCKClear, kMBCKBlock}

// groupBigDegree is the degree above which a top-down step spreads a
// frontier vertex's arcs over the whole grid instead of one warp (tests
// lower it to reach that path on small graphs).
var groupBigDegree int64 = 1024

// multiKernels caches multi.cu's kernels per device.
var multiKernels sync.Map // *gpu.Device → map[string]*gpu.Function

func multiKernelsFor(dev *gpu.Device) (map[string]*gpu.Function, error) {
	if v, ok := multiKernels.Load(dev); ok {
		return v.(map[string]*gpu.Function), nil
	}
	m, err := dev.Compile("graphnb_bfs_multi", withChunks(multiSource))
	if err != nil {
		return nil, fmt.Errorf("bfs: compiling the group BFS kernels: %w", err)
	}
	fn, err := lookup(m, multiKernelNames)
	if err != nil {
		return nil, err
	}
	multiKernels.Store(dev, fn)
	return fn, nil
}

// GroupOptions are the knobs of a search over a group.
type GroupOptions struct {
	// Alpha and Beta tune the direction switch as in Options (0: DefaultAlpha,
	// DefaultBeta), applied to the whole graph's frontier.
	Alpha, Beta int
	// TopDownOnly keeps every step top-down.
	TopDownOnly bool
	// Trace asks for GroupResult.Trace: one step per level, as in
	// Options.Trace — its direction and why it switched, the whole
	// graph's frontier and its arcs, the arcs read (a top-down step all of
	// the frontier's; a bottom-up step's counted by mb_bu, one atomic per
	// block, summed over the group with the level's sizes), the vertices
	// reached — with the level's wall time (the host's clock, from the
	// step's launch to its sizes read back: round trips included) and in
	// Step.Comm its time in collectives (events; the AllReduce of the
	// sizes included), both the slowest rank's of this process (the one
	// whose search took the run's Time). A group trace has no launches.
	// A host group traces its CPU search.
	Trace bool
}

// GroupPrepared is a partitioned graph made ready for searches over its
// group: each rank's levels, parents, bitmaps and exchange buffers live on
// its device and are reused by every Run. Its methods are collectives:
// call them in every process of the group, in the same order.
type GroupPrepared struct {
	pg          *gpu.PartGraph
	opt         GroupOptions
	alpha, beta int64
	ranks       []*rankState // this process's ranks
	host        *graph.CSR   // a host group's whole graph
	runs        int          // Run calls so far: a result is valid until the next
	closed      bool
}

// rankState is one rank's buffers (multi.cu describes the layout).
type rankState struct {
	r      *gpu.Rank
	part   *gpu.Part
	fn     map[string]*gpu.Function
	lo, nl int64 // first vertex, vertices of the block
	bsize  int64 // gpu.BlockSize: entries of levels and parents
	sms    int

	levels, parents *gpu.Int32s
	vis, cur, nxt   *gpu.Uint32s    // size·bsize bits each
	q, big          *gpu.Int32s     // the block's frontier, and its vertices of many arcs
	ctl             [2]*gpu.Uint64s // mb_merge's words and their sums over the group: level L's in ctl[L&1]
	counts          *gpu.Uint64s    // pairs per owner rank, the pairs staged, mb_td_pack's cursor per owner rank
	sizes           *gpu.Uint64s    // every rank's counts (size × size)
	stage           *gpu.Int32s     // (target, source) pairs as found, grown on demand
	send, recv      *gpu.Int32s     // pairs grouped by owner rank, and received
	glv             *gpu.Int32s     // every vertex's level, for the check
	comm            commTimer
	ck              *gpu.Uint64s
}

// PrepareGroup readies pg (an undirected graph, e.g. from
// gpugen.RMATParts) for searches over its group, allocating each rank's
// buffers on its device: 4 arrays of a block (levels, parents, queue, and
// the check's gathered levels of every vertex, made at the first Check)
// and three bitmaps of every vertex; top-down steps of a group of several
// ranks also grow a staging and a send buffer of up to 12 bytes per arc of
// the rank's largest top-down frontier (each with room to spare), and a
// receive buffer. A group of the host device searches its one part with
// DirectionOptimizing.
func PrepareGroup(pg *gpu.PartGraph, o GroupOptions) (*GroupPrepared, error) {
	if pg == nil || pg.Group == nil {
		return nil, errors.New("bfs: PrepareGroup: nil partitioned graph; make one with gpugen.RMATParts")
	}
	if err := pg.Group.Err(); err != nil {
		return nil, err
	}
	if pg.Directed {
		return nil, errors.New("bfs: PrepareGroup: the graph is directed; a search over a group needs an undirected graph (bottom-up steps read a vertex's arcs as its in-arcs); search a directed graph on one GPU with bfs.Prepare")
	}
	if size := pg.Group.Size(); size > mbMaxRanks {
		return nil, fmt.Errorf("bfs: PrepareGroup: a group of %d ranks; the kernels count per rank in shared memory for at most %d", size, mbMaxRanks)
	}
	alpha, beta, err := Options{Alpha: o.Alpha, Beta: o.Beta}.switchParams()
	if err != nil {
		return nil, err
	}
	p := &GroupPrepared{pg: pg, opt: o, alpha: alpha, beta: beta}
	if pg.Group.IsHost() {
		if p.host, err = pg.Host(); err != nil {
			return nil, err
		}
		return p, nil
	}
	size := pg.Group.Size()
	bsize := int64(gpu.BlockSize(pg.N, size))
	for _, part := range pg.Parts {
		rs := &rankState{r: part.Rank, part: part, lo: int64(part.Lo), nl: int64(part.Hi - part.Lo), bsize: bsize}
		p.ranks = append(p.ranks, rs)
		if err := rs.alloc(size); err != nil {
			return nil, errors.Join(fmt.Errorf("bfs: PrepareGroup: rank %d: %w", rs.r.Rank(), err), p.Close())
		}
	}
	return p, nil
}

// alloc compiles the kernels and allocates the rank's buffers.
func (rs *rankState) alloc(size int) error {
	dev := rs.r.Device()
	info, err := dev.Info()
	if err != nil {
		return err
	}
	rs.sms = max(info.SMs, 1)
	if rs.fn, err = multiKernelsFor(dev); err != nil {
		return err
	}
	words := int(int64(size) * rs.bsize / 32)
	b := int(rs.bsize)
	if rs.levels, err = dev.AllocInt32s(b); err != nil {
		return err
	}
	if rs.parents, err = dev.AllocInt32s(b); err != nil {
		return err
	}
	if rs.q, err = dev.AllocInt32s(b); err != nil {
		return err
	}
	if rs.big, err = dev.AllocInt32s(b); err != nil {
		return err
	}
	for _, bm := range []**gpu.Uint32s{&rs.vis, &rs.cur, &rs.nxt} {
		if *bm, err = dev.AllocUint32s(words); err != nil {
			return err
		}
	}
	for i := range rs.ctl {
		if rs.ctl[i], err = dev.AllocUint64s(mbCtlWords); err != nil {
			return err
		}
	}
	if rs.counts, err = dev.AllocUint64s(2*size + 1); err != nil {
		return err
	}
	if rs.sizes, err = dev.AllocUint64s(size * size); err != nil {
		return err
	}
	rs.ck, err = dev.AllocUint64s(mbckWords)
	return err
}

func (rs *rankState) free() error {
	return errors.Join(rs.comm.close(), rs.levels.Free(), rs.parents.Free(), rs.q.Free(), rs.big.Free(), rs.vis.Free(), rs.cur.Free(), rs.nxt.Free(),
		rs.ctl[0].Free(), rs.ctl[1].Free(), rs.counts.Free(), rs.sizes.Free(), rs.stage.Free(), rs.send.Free(), rs.recv.Free(), rs.glv.Free(), rs.ck.Free())
}

// Close frees every rank's buffers; idempotent. The graph stays.
func (p *GroupPrepared) Close() error {
	if p.closed {
		return nil
	}
	p.closed = true
	var errs []error
	for _, rs := range p.ranks {
		errs = append(errs, rs.free())
	}
	return errors.Join(errs...)
}

// GroupResult is a search over a group. Its levels and parents stay on the
// ranks' devices (Result gathers them) and are valid until the next Run
// of the same GroupPrepared.
type GroupResult struct {
	// Source, FrontierSizes, Directions, Iterations, Reached and
	// ComponentEdges are as in Result, over the whole graph.
	Source         int32
	FrontierSizes  []int64
	Directions     []Direction
	Iterations     int
	Reached        int64
	ComponentEdges int64
	// Time is the search's wall time (host clock, from the first launch to
	// the last level's end, the slowest of this process's ranks); Comm is
	// the longest GPU time one of them spent in collectives (waiting for
	// the others included; timed with events from the end of the work
	// queued before each collective to its end, so not the kernels whose
	// results it carries).
	Time, Comm time.Duration
	// Exchanged is the bytes this process's ranks sent to other ranks:
	// frontier pairs and their share of the gathered frontier bitmaps.
	Exchanged int64
	// TEPS is graph.Rate(ComponentEdges, the graph's arcs, Time).
	TEPS graph.TEPS
	// Ranks is the group's size.
	Ranks int
	// Trace is the search's record when GroupOptions.Trace asked for one
	// (nil otherwise).
	Trace *trace.Trace

	p    *GroupPrepared
	run  int
	host *Result // a host group's result
}

// CommShare is Comm / Time, the share of the search's time spent in
// collectives (0 when Time is 0; 0 for a host group, which has none).
func (r *GroupResult) CommShare() float64 {
	if r.Time <= 0 {
		return 0
	}
	return r.Comm.Seconds() / r.Time.Seconds()
}

// String is a one-line summary.
func (r *GroupResult) String() string {
	if r == nil {
		return "bfs: <nil group result>"
	}
	return fmt.Sprintf("bfs over %d rank(s) from %d: %d vertices reached in %d levels, %v (%.0f%% in collectives), %s",
		r.Ranks, r.Source, r.Reached, len(r.FrontierSizes), r.Time, 100*r.CommShare(), r.TEPS)
}

// rankOut is what one rank's search reports.
type rankOut struct {
	time, comm time.Duration
	sent       int64
	steps      []trace.Step // traced: the levels, Time and Comm this rank's
}

// Run searches from src over the group. Every process of the group calls
// it with the same src.
func (p *GroupPrepared) Run(src int32) (*GroupResult, error) {
	if p.closed {
		return nil, errors.New("bfs: GroupPrepared is closed; prepare the graph again")
	}
	if src < 0 || int(src) >= p.pg.N {
		return nil, fmt.Errorf("bfs: source %d out of range [0, %d)", src, p.pg.N)
	}
	p.runs++
	res := &GroupResult{Source: src, Ranks: p.pg.Group.Size(), p: p, run: p.runs}
	if p.host != nil {
		r, err := DirectionOptimizing(p.host, src, Options{Alpha: p.opt.Alpha, Beta: p.opt.Beta, TopDownOnly: p.opt.TopDownOnly, Trace: p.opt.Trace})
		if err != nil {
			return nil, err
		}
		res.host, res.FrontierSizes, res.Directions, res.Iterations, res.Trace = r, r.FrontierSizes, r.Directions, r.Iterations, r.Trace
		res.Reached, res.ComponentEdges, res.Time, res.TEPS = r.Reached, r.ComponentEdges, r.Time, r.TEPS
		return res, nil
	}
	outs := make([]rankOut, len(p.ranks))
	var mu sync.Mutex
	err := p.pg.Group.Run(func(r *gpu.Rank, t *gpu.Thread) error {
		for i, rs := range p.ranks {
			if rs.r == r {
				// Every rank takes the same decisions from the same reduced
				// values; the first to finish fills the shared record.
				return p.runRank(rs, t, src, &outs[i], res, &mu)
			}
		}
		return fmt.Errorf("bfs: rank %d has no buffers", r.Rank())
	})
	if err != nil {
		return nil, fmt.Errorf("bfs: search from %d over %d ranks: %w", src, res.Ranks, err)
	}
	for _, o := range outs {
		res.Time = max(res.Time, o.time)
		res.Comm = max(res.Comm, o.comm)
		res.Exchanged += o.sent
	}
	res.TEPS = graph.Rate(res.ComponentEdges, p.pg.Arcs, res.Time)
	if p.opt.Trace {
		res.Trace = groupTrace(fmt.Sprintf("gpu BFS over %d rank(s) (direction-optimizing)", res.Ranks), p.pg.Arcs, res.Time, outs)
	}
	return res, nil
}

// groupTrace makes the trace of a group search from its ranks' traced
// levels: the counts are the group's (every rank has the same), the times
// those of the slowest rank (whose search took the run's Time), so that
// the steps add up to at most the run.
func groupTrace(algorithm string, arcs int64, runTime time.Duration, outs []rankOut) *trace.Trace {
	slow := 0
	for i, o := range outs {
		if o.time > outs[slow].time {
			slow = i
		}
	}
	steps := slices.Clone(outs[slow].steps)
	return &trace.Trace{Algorithm: algorithm, Arcs: arcs, Steps: steps, Time: runTime}
}

// runRank is one rank's search (see multi.cu for the buffers).
func (p *GroupPrepared) runRank(rs *rankState, t *gpu.Thread, src int32, out *rankOut, res *GroupResult, mu *sync.Mutex) error {
	fn := rs.fn
	size := rs.r.Size()
	rank := rs.r.Rank()
	lw := rs.bsize / 32    // words of the rank's block
	nw := int64(size) * lw // words of a bitmap of every vertex
	blockOff := uint64(int64(rank) * lw * 4)
	grid := gpu.D1(rs.sms * blocksPerSM)
	block := gpu.D1(blockSize)
	launch := func(name string, g gpu.Dim, args ...any) error { return t.Launch(fn[name], g, block, 0, args...) }
	comm := &rs.comm
	comm.reset(p.opt.Trace)
	ctl := make([]uint64, mbCtlWords)
	counts := make([]uint64, size*size)
	// merge ends level L (see mb_merge) and reads its frontier's sizes.
	var nql, nbig, nf, mf, mfl int64
	merge := func(level int32) error {
		err := launch(kMBMerge, grid, rs.nxt, rs.vis, nw, int64(rank)*lw, lw, rs.lo, rs.part.Offsets, groupBigDegree,
			rs.q, rs.big, rs.cur.Ptr()+blockOff, rs.ctl[level&1], rs.ctl[(level+1)&1], rs.counts, 2*size+1)
		if err != nil {
			return err
		}
		if nql, nbig, nf, mf, err = rs.frontierSizes(t, rs.ctl[level&1], ctl, comm); err != nil {
			return err
		}
		mfl = int64(ctl[mbMF])
		rs.cur, rs.nxt = rs.nxt, rs.cur
		return nil
	}
	start := time.Now()
	if err := launch(kMBInit, grid, rs.levels, rs.parents, rs.bsize, rs.lo, src, rs.vis, rs.cur, rs.nxt, nw,
		rs.ctl[0], rs.ctl[1], rs.counts, 2*size+1); err != nil {
		return err
	}
	// The first frontier: the source, listed by its owner.
	if err := merge(0); err != nil {
		return err
	}
	arcs := p.pg.Arcs
	mu0 := arcs - mf
	compArcs := mf
	var sizes []int64
	var dirs []Direction
	var steps []trace.Step // traced only
	bottomUp, prevNF := false, int64(0)
	var sent int64
	for level := int32(1); nf > 0; level++ {
		if err := cancel.Check(); err != nil {
			return err
		}
		levelStart := time.Now()
		comm.level = int(level) - 1
		sizes = append(sizes, nf)
		st := trace.Step{Frontier: nf, FrontierArcs: mf, Inspected: mf}
		switched := 0 // traced: formatted after the level, while the GPUs work
		switch {
		case !bottomUp && !p.opt.TopDownOnly && turnsDown(nf, prevNF, mf, mu0, p.alpha):
			switched = switchedDown
			bottomUp = true
		case bottomUp && turnsUp(nf, prevNF, int64(p.pg.N), p.beta):
			switched = switchedUp
			bottomUp = false
		}
		levelMu, levelPrev := mu0, prevNF
		prevNF = nf
		// nxt's block words are zero (mb_merge cleared them).
		if bottomUp {
			dirs = append(dirs, BottomUpStep)
			readCtl := uint64(0) // NULL: untraced, mb_bu counts nothing
			if p.opt.Trace {
				readCtl = rs.ctl[level&1].Ptr()
			}
			if err := launch(kMBBU, grid, rs.part.Offsets, rs.part.Adj, rs.nl, rs.lo, level, rs.levels, rs.parents, rs.vis, rs.cur, rs.nxt.Ptr()+blockOff, readCtl); err != nil {
				return err
			}
		} else {
			dirs = append(dirs, TopDownStep)
			n, err := p.topDown(rs, t, launch, nql, nbig, mfl, level, counts, comm)
			if err != nil {
				return err
			}
			sent += n
		}
		// Everyone's new vertices, to every rank.
		if size > 1 {
			nxtSpan, err := gpu.SpanOf(rs.nxt, int(int64(rank)*lw), int(lw))
			if err != nil {
				return err
			}
			nxtAll, err := gpu.SpanOf(rs.nxt, 0, -1)
			if err != nil {
				return err
			}
			// Queued: mb_merge reads it in stream order; frontierSizes
			// waits for both collectives of the level at once.
			if err := comm.time(t, func() error { return rs.r.AllGatherQueued(t, nxtSpan, nxtAll) }); err != nil {
				return err
			}
			sent += 4 * lw * int64(size-1)
		}
		if err := merge(level); err != nil {
			return err
		}
		if p.opt.Trace {
			st.Kind, st.Updated, st.Time = dirs[len(dirs)-1].String(), nf, time.Since(levelStart)
			if bottomUp {
				st.Inspected = int64(ctl[mbGRead])
			}
			switch switched {
			case switchedDown:
				st.Why = switchDown(st.FrontierArcs, levelMu, p.alpha, st.Frontier, levelPrev)
			case switchedUp:
				st.Why = switchUp(st.Frontier, levelPrev, int64(p.pg.N), p.beta)
			}
			steps = append(steps, st)
		}
		mu0 -= mf
		compArcs += mf
	}
	elapsed := time.Since(start)
	if err := comm.settle(); err != nil {
		return err
	}
	for i := range steps {
		steps[i].Comm = min(comm.perLevel(i), steps[i].Time)
	}
	out.time, out.comm, out.sent, out.steps = elapsed, comm.total, sent, steps
	mu.Lock()
	defer mu.Unlock()
	if res.FrontierSizes == nil {
		res.FrontierSizes, res.Directions, res.Iterations = sizes, dirs, len(sizes)
		for _, s := range sizes {
			res.Reached += s
		}
		res.ComponentEdges = compArcs / 2
	}
	return nil
}

// frontierSizes reads the sizes mb_merge counted into words: the rank's
// frontier vertices (nql) and those of many arcs (nbig), and the whole
// frontier's vertices and arcs (nf, mf), summed over the group on the
// device: one AllReduce (none in a group of one), queued, one wait for
// the level's queued collectives and one download, the level's only
// round trip besides a top-down step's counts. The AllReduce is timed by
// comm.
func (rs *rankState) frontierSizes(t *gpu.Thread, words *gpu.Uint64s, ctl []uint64, comm *commTimer) (nql, nbig, nf, mf int64, err error) {
	if rs.r.Size() > 1 {
		local, err := gpu.SpanOf(words, mbNF, 3)
		if err != nil {
			return 0, 0, 0, 0, err
		}
		group, err := gpu.SpanOf(words, mbGNF, 3)
		if err != nil {
			return 0, 0, 0, 0, err
		}
		if err := comm.time(t, func() error { return rs.r.AllReduceQueued(t, local, group, nccl.Sum) }); err != nil {
			return 0, 0, 0, 0, err
		}
		// The level's queued collectives done (a failed rank times out
		// here rather than hanging the download).
		if err := rs.r.Wait(t); err != nil {
			return 0, 0, 0, 0, err
		}
	}
	if err := words.Download(ctl); err != nil {
		return 0, 0, 0, 0, err
	}
	if rs.r.Size() == 1 {
		ctl[mbGNF], ctl[mbGMF], ctl[mbGRead] = ctl[mbNF], ctl[mbMF], ctl[mbRead]
	}
	return int64(ctl[mbNF]), int64(ctl[mbNBig]), int64(ctl[mbGNF]), int64(ctl[mbGMF]), nil
}

// topDown is a top-down step of one rank: one walk over the arcs of the
// block's frontier (nql vertices in rs.q, nbig of them also in rs.big,
// mfl arcs) claims its unvisited targets in the block at once and stages
// a (target, source) pair for each of the others; the pairs are grouped
// by owner, their numbers gathered (one AllGather, one wait and one
// download: the step's round trip), the pairs exchanged (queued) and
// claimed by their owners. It returns the bytes sent
// to other ranks; comm times its collectives.
func (p *GroupPrepared) topDown(rs *rankState, t *gpu.Thread, launch func(string, gpu.Dim, ...any) error,
	nql, nbig, mfl int64, level int32, counts []uint64, comm *commTimer) (int64, error) {
	size, rank := rs.r.Size(), rs.r.Rank()
	grid := gpu.D1(rs.sms * blocksPerSM)
	dev := rs.r.Device()
	var err error
	// At most one pair per arc of the frontier; none in a group of one.
	staged := 2 * mfl
	if size == 1 {
		staged = 0
	}
	if rs.stage, err = grow(dev, rs.stage, staged); err != nil {
		return 0, err
	}
	if nql > 0 {
		if err := launch(kMBTDWalk, grid, rs.q, nql, rs.big, nbig, groupBigDegree, rs.part.Offsets, rs.part.Adj, rs.lo, rs.vis, rs.bsize, size, rank,
			level, rs.levels, rs.parents, rs.nxt.Ptr()+uint64(int64(rank)*rs.bsize/32*4), rs.counts, rs.counts.Ptr()+uint64(8*size), rs.stage); err != nil {
			return 0, err
		}
	}
	if size == 1 {
		return 0, nil // every target is the rank's own
	}
	if rs.send, err = grow(dev, rs.send, 2*mfl); err != nil {
		return 0, err
	}
	if nql > 0 {
		if err := launch(kMBTDPack, grid, rs.stage, rs.counts, rs.bsize, size, rs.counts.Ptr()+uint64(8*(size+1)), rs.send); err != nil {
			return 0, err
		}
	}
	// Every rank's counts: sizes[i·size+k] is what rank i sends to rank k.
	mine, err := gpu.SpanOf(rs.counts, 0, size)
	if err != nil {
		return 0, err
	}
	all, err := gpu.SpanOf(rs.sizes, 0, -1)
	if err != nil {
		return 0, err
	}
	if err := comm.time(t, func() error { return rs.r.AllGatherQueued(t, mine, all) }); err != nil {
		return 0, err
	}
	if err := rs.r.Wait(t); err != nil {
		return 0, err
	}
	if err := rs.sizes.Download(counts); err != nil {
		return 0, err
	}
	sendCounts, recvCounts := make([]int, size), make([]int, size)
	var nrecv, sent int64
	for k := 0; k < size; k++ {
		out, in := int64(counts[rank*size+k]), int64(counts[k*size+rank])
		sendCounts[k], recvCounts[k] = int(2*out), int(2*in)
		nrecv += in
		if k != rank {
			sent += 8 * out
		}
	}
	if rs.recv, err = grow(dev, rs.recv, 2*nrecv); err != nil {
		return 0, err
	}
	sendSpan, err := gpu.SpanOf(rs.send, 0, -1)
	if err != nil {
		return 0, err
	}
	recvSpan, err := gpu.SpanOf(rs.recv, 0, -1)
	if err != nil {
		return 0, err
	}
	// Queued: mb_td_apply reads the pairs in stream order.
	if err := comm.time(t, func() error { return rs.r.AllToAllVQueued(t, sendSpan, sendCounts, recvSpan, recvCounts) }); err != nil {
		return 0, err
	}
	if nrecv > 0 {
		blockOff := uint64(int64(rank) * rs.bsize / 32 * 4)
		if err := launch(kMBTDApply, grid, rs.recv, nrecv, rs.lo, level, rs.levels, rs.parents, rs.nxt.Ptr()+blockOff); err != nil {
			return 0, err
		}
	}
	return sent, nil
}

// commTimer sums the GPU time of a rank's collectives: an event before
// and one after each, read when the pool is full and at the end of a
// search (all done by then), so timing adds no host round trip. A
// collective's time runs from the end of the work queued before it to
// its own end: its transfers and its wait for the other ranks, not the
// kernels whose results it carries (a host clock around the call, which
// waits for them, would count those too).
type commTimer struct {
	events []*gpu.Event // pairs: before, after
	used   int          // events recorded since the last settle
	total  time.Duration
	// Traced searches: level is the step the next pair belongs to (-1:
	// the set-up), levels the recorded pairs' steps, byLevel their times
	// summed per step.
	traced  bool
	level   int
	levels  []int
	byLevel []time.Duration
}

// reset starts a search: nothing timed, pairs noted per level if traced.
func (c *commTimer) reset(traced bool) {
	c.total, c.used, c.traced, c.level = 0, 0, traced, -1
	c.levels, c.byLevel = c.levels[:0], c.byLevel[:0]
}

// perLevel is the settled time of step i's pairs.
func (c *commTimer) perLevel(i int) time.Duration {
	if i < len(c.byLevel) {
		return c.byLevel[i]
	}
	return 0
}

// commEvents is the most events a commTimer holds (half of them pairs'
// starts): enough for the levels of an R-MAT search between settles.
const commEvents = 256

// time runs the collective f between two events.
func (c *commTimer) time(t *gpu.Thread, f func() error) error {
	if c.used+2 > commEvents {
		if err := c.settle(); err != nil {
			return err
		}
	}
	for len(c.events) < c.used+2 {
		e, err := t.Device().NewEvent()
		if err != nil {
			return err
		}
		c.events = append(c.events, e)
	}
	if err := t.Record(c.events[c.used], nil); err != nil {
		return err
	}
	if err := f(); err != nil {
		return err
	}
	if err := t.Record(c.events[c.used+1], nil); err != nil {
		return err
	}
	c.used += 2
	if c.traced {
		c.levels = append(c.levels, c.level)
	}
	return nil
}

// settle adds the recorded pairs' times to total (waiting for the last).
func (c *commTimer) settle() error {
	for i := 0; i+1 < c.used; i += 2 {
		d, err := gpu.Elapsed(c.events[i], c.events[i+1])
		if err != nil {
			return err
		}
		c.total += d
		if c.traced {
			if l := c.levels[i/2]; l >= 0 {
				for len(c.byLevel) <= l {
					c.byLevel = append(c.byLevel, 0)
				}
				c.byLevel[l] += d
			}
		}
	}
	c.used = 0
	c.levels = c.levels[:0]
	return nil
}

// close destroys the events.
func (c *commTimer) close() error {
	var errs []error
	for _, e := range c.events {
		errs = append(errs, e.Close())
	}
	c.events = nil
	return errors.Join(errs...)
}

// grow returns b if it holds n elements, else a new buffer of at least n
// (with room to spare, so that a sweep reallocates rarely).
func grow(dev *gpu.Device, b *gpu.Int32s, n int64) (*gpu.Int32s, error) {
	if b != nil && int64(b.Len()) >= n {
		return b, nil
	}
	if err := b.Free(); err != nil {
		return nil, err
	}
	return dev.AllocInt32s(int(max(n+n/2, 1024)))
}

// Check validates r on the devices by the Graph500 rules (as Check does on
// the host): the source is the root, every reached vertex's parent is one
// level up and joined to it by an arc, unreached vertices have no parent,
// no arc joins a reached and an unreached vertex or levels more than one
// apart; and the reached vertices and component edges agree with r's.
// Each rank checks its block's vertices and arcs against every vertex's
// levels (gathered from all ranks); the violations are summed over the
// group. A failure names the rule and the least vertex that broke it.
func (p *GroupPrepared) Check(r *GroupResult) error {
	if r == nil || r.p != p {
		return errors.New("bfs: GroupPrepared.Check: the result is not of this GroupPrepared")
	}
	if r.run != p.runs {
		return fmt.Errorf("bfs: GroupPrepared.Check: the result of run %d was overwritten by run %d; check a result before the next Run", r.run, p.runs)
	}
	if p.host != nil {
		return Check(p.host, r.host)
	}
	sums := make([]int64, mbckWords)
	err := p.pg.Group.Run(func(gr *gpu.Rank, t *gpu.Thread) error {
		for _, rs := range p.ranks {
			if rs.r == gr {
				s, err := p.checkRank(rs, t, r.Source)
				if err == nil && gr == p.ranks[0].r {
					copy(sums, s)
				}
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("bfs: checking the search from %d: %w", r.Source, err)
	}
	rules := []string{
		"the source must have level 0 and be its own parent",
		"an unreached vertex must have level -1 and parent -1",
		"a reached vertex other than the source must have a parent one level up",
		"no arc may join a reached and an unreached vertex (the tree must span the component)",
		"an arc must join levels at most 1 apart",
		"a vertex's parent must be one of its neighbours",
	}
	var errs []error
	for i, rule := range rules {
		if n := sums[2*i]; n > 0 {
			errs = append(errs, fmt.Errorf("%d vertices break the rule %q, the first %d", n, rule, sums[2*i+1]))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("bfs: the search from %d over %d ranks is wrong: %w", r.Source, r.Ranks, errors.Join(errs...))
	}
	if sums[mbckReached] != r.Reached || sums[mbckArcs]/2 != r.ComponentEdges {
		return fmt.Errorf("bfs: the search from %d over %d ranks reports %d vertices and %d component edges; the check counts %d and %d",
			r.Source, r.Ranks, r.Reached, r.ComponentEdges, sums[mbckReached], sums[mbckArcs]/2)
	}
	return nil
}

// checkRank gathers every vertex's level, checks the rank's block and
// reduces the check's words over the group: counts and totals summed,
// first vertices the least.
func (p *GroupPrepared) checkRank(rs *rankState, t *gpu.Thread, src int32) ([]int64, error) {
	size := rs.r.Size()
	var err error
	if rs.glv == nil {
		if rs.glv, err = rs.r.Device().AllocInt32s(int(int64(size) * rs.bsize)); err != nil {
			return nil, err
		}
	}
	mine, err := gpu.SpanOf(rs.levels, 0, -1)
	if err != nil {
		return nil, err
	}
	all, err := gpu.SpanOf(rs.glv, 0, -1)
	if err != nil {
		return nil, err
	}
	if err := rs.r.AllGather(t, mine, all); err != nil {
		return nil, err
	}
	fn := rs.fn
	if err := t.Launch(fn[kMBCKClear], gpu.D1(1), gpu.D1(32), 0, rs.ck); err != nil {
		return nil, err
	}
	if err := t.Launch(fn[kMBCKBlock], gpu.D1(rs.sms*blocksPerSM), gpu.D1(blockSize), 0, rs.part.Offsets, rs.part.Adj,
		rs.nl, rs.lo, int64(p.pg.N), src, rs.levels, rs.parents, rs.glv, rs.ck); err != nil {
		return nil, err
	}
	ck := make([]uint64, mbckWords)
	if err := rs.ck.Download(ck); err != nil {
		return nil, err
	}
	sum := make([]int64, mbckWords)
	least := make([]int64, mbckRules)
	for i, w := range ck {
		switch {
		case i < 2*mbckRules && i%2 == 1:
			least[i/2] = math.MaxInt64
			if w != math.MaxUint64 {
				least[i/2] = int64(w)
			}
		default:
			sum[i] = int64(w)
		}
	}
	if sum, err = rs.r.AllReduceInt64(t, sum, nccl.Sum); err != nil {
		return nil, err
	}
	if least, err = rs.r.AllReduceInt64(t, least, nccl.Min); err != nil {
		return nil, err
	}
	for i, v := range least {
		sum[2*i+1] = v
	}
	return sum, nil
}

// Result gathers the levels and parents of every rank into an ordinary
// Result (for the host checker, rendering, or comparing with one GPU). It
// needs every rank in this process, and r must be the latest run.
func (r *GroupResult) Result() (*Result, error) {
	p := r.p
	if r.host != nil {
		return r.host, nil
	}
	if r.run != p.runs {
		return nil, fmt.Errorf("bfs: GroupResult.Result: run %d was overwritten by run %d", r.run, p.runs)
	}
	if len(p.ranks) != r.Ranks {
		return nil, fmt.Errorf("bfs: GroupResult.Result: this process holds %d of %d ranks; gather where all ranks are", len(p.ranks), r.Ranks)
	}
	n := p.pg.N
	out := &Result{
		Algorithm: fmt.Sprintf("gpu BFS over %d ranks (direction-optimizing, 1D)", r.Ranks), Source: r.Source,
		Levels: make([]int32, 0, n), Parents: make([]int32, 0, n),
		FrontierSizes: r.FrontierSizes, Directions: r.Directions, Iterations: r.Iterations,
		Reached: r.Reached, ComponentEdges: r.ComponentEdges, Time: r.Time, TEPS: r.TEPS,
	}
	for _, rs := range p.ranks {
		lv, err := rs.levels.ToHost()
		if err != nil {
			return nil, err
		}
		par, err := rs.parents.ToHost()
		if err != nil {
			return nil, err
		}
		out.Levels = append(out.Levels, lv[:rs.nl]...)
		out.Parents = append(out.Parents, par[:rs.nl]...)
	}
	return out, nil
}
