package mst

import (
	_ "embed"
	"errors"
	"fmt"
	"math"
	"slices"
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

// multiBody is the CUDA C of RunGroup and of its check's part-wise rules
// (multi.cu).
//
//go:embed multi.cu
var multiBody string

// multiModule compiles multi.cu after check.cu (whose kernels the group
// check launches from this module, and whose helpers multi.cu's check
// kernels call) and the shared check helpers.
var multiModule = gpu.ModuleCache{Name: "mst_multi.cu", Source: devcheck.Source(checkBody + "\n" + multiBody)}

// Control words of multi.cu (a test compares them with its MM_* defines).
const (
	mmForest = 1
	mmJumped = 2
	mmNaN    = 3
	mmWords  = 4
)

// multiKernelNames lists the kernels of multi.cu the Go side launches.
func multiKernelNames() []string {
	return []string{"mmst_init", "mmst_min_w32", "mmst_min_w64", "mmst_hook", "mmst_choose", "mmst_jump", "mmst_relabel"}
}

// groupTuning holds test switches of RunGroup: interruptAtRound makes
// rank 0 alone behave as if interrupted at the start of that round (an
// interrupt the other ranks do not see), so that a test can check the
// group's agreement on stopping.
var groupTuning = struct{ interruptAtRound int }{}

// GroupOptions are RunGroup's options; there are none yet (the zero
// value runs the algorithm as documented).
type GroupOptions struct {
	// Trace asks for GroupResult.Trace: one step ("round") per Borůvka
	// round, as the one-device run's — the trees at its start (Frontier),
	// the arcs it read (every rank reads each of its arcs twice a round:
	// the minimum weight, then the minimum edge of that weight), the
	// edges it added — with the round's wall time and in Step.Comm its
	// time in collectives (the host's clock), both the slowest rank's of
	// this process. A host group traces its CPU Borůvka.
	Trace bool
}

// RankStats are one rank's figures of a RunGroup.
type RankStats struct {
	Rank int
	// Time is the rank's rounds (host clock, device synchronised), and
	// CommTime the part of it spent in collectives: the host clock around
	// each AllReduce and AllReduceInt64 (the device synchronised before
	// each, so kernel time is not counted there).
	Time, CommTime time.Duration
	// ReducedBytes is what the rank passed to the all-reduces: two
	// arrays of 8 bytes per vertex of the graph per round.
	ReducedBytes int64
}

// GroupResult is a minimum spanning forest computed over a group by
// RunGroup: the forest, gathered on the host, and the run's figures.
type GroupResult struct {
	Algorithm string
	// N is the number of vertices, Arcs the arcs over all ranks.
	N    int
	Arcs int64
	// Edges are the forest's edges sorted by (W, U, V) ascending, and
	// Weight their total, summed in that order: both identical, bit for
	// bit, to Kruskal's on the same graph.
	Edges  []Edge
	Weight float64
	// Trees is the number of trees, isolated vertices included (the
	// graph's connected components); Rounds the Borůvka rounds that
	// merged trees.
	Trees, Rounds int
	// Time is the rounds over the group (the slowest rank of this
	// process), CommTime that rank's time in collectives. Gathering the
	// forest and sorting it on the host (ForestTime) is outside Time.
	Time, CommTime, ForestTime time.Duration
	// TEPS is graph.Rate(Arcs/2, Arcs, Time).
	TEPS graph.TEPS
	// Ranks are the figures of this process's ranks, in rank order.
	Ranks []RankStats
	// Trace is the run's record when GroupOptions.Trace asked for one
	// (nil otherwise).
	Trace *trace.Trace

	pg   *gpu.PartGraph
	host *graph.CSR // a host group's graph
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
	return fmt.Sprintf("%s: spanning forest of %d tree(s), %d edges, weight %.6g, %d rounds, %v (%.0f%% in collectives), %sTEPS (arcs/s)",
		r.Algorithm, r.Trees, len(r.Edges), r.Weight, r.Rounds, r.Time.Round(time.Microsecond), 100*r.CommShare(),
		graph.SI(r.TEPS.ArcsPerSecond))
}

// Result returns the forest as an ordinary Result (Iterations the
// rounds), e.g. for Check on the host.
func (r *GroupResult) Result() *Result {
	return &Result{Algorithm: r.Algorithm, Edges: r.Edges, Weight: r.Weight, Trees: r.Trees, Iterations: r.Rounds,
		Time: r.Time, TEPS: r.TEPS}
}

// Close releases the result. RunGroup frees the ranks' device memory
// before it returns, so Close frees nothing today; it is there so that
// every group algorithm's result is used alike. Idempotent.
func (r *GroupResult) Close() error { return nil }

// RunGroup computes the minimum spanning forest of pg, an undirected
// graph split by vertex blocks over a group, with Borůvka's algorithm:
//
//   - every rank keeps the component labels of all N vertices (int32, a
//     label being a vertex id: the component's root);
//   - each round, every rank finds for each component the minimum
//     outgoing arc among its own arcs in the package's strict order
//     (weight, then the smaller end, then the larger): first the least
//     weight (its ordered bits in a uint64), reduced with a minimum over
//     the group (an AllReduce of N words), then among the arcs of that
//     weight the least (smaller end, larger end) packed in a uint64,
//     reduced likewise, so every rank holds every component's edge;
//   - hooking (a component to the component across its edge; a mutual
//     pair keeps the smaller label as root), pointer jumping and
//     relabelling run identically on every rank, with no exchange;
//   - the round's edges (a mutual pair's once) are appended to the
//     forest, kept on every rank; it stops when no component has an
//     outgoing arc.
//
// The forest is downloaded from this process's first rank and sorted on
// the host: Edges and Weight equal Kruskal's bit for bit (but for the
// sign of a zero weight: the strict order does not tell −0 from +0, and
// the forest's zeros are +0). Device memory
// is 44 bytes per vertex of the graph on each rank, freed before
// RunGroup returns. Each round costs two AllReduces of 8·N bytes and one
// AllReduceInt64.
//
// A group of the host device runs the package's CPU Boruvka on pg's one
// part. The graph must be undirected, with at most 2^31−1 vertices and no
// NaN weight. Interrupts (package cancel) are agreed over the group once
// a round, so every rank stops after the same round with an error
// matching cancel.ErrInterrupted and the group stays usable; a failing
// rank breaks the group and every rank returns its error.
func RunGroup(pg *gpu.PartGraph, o GroupOptions) (*GroupResult, error) {
	if pg == nil || pg.Group == nil {
		return nil, errors.New("mst: RunGroup: no partitioned graph")
	}
	if pg.Directed {
		return nil, errors.New("mst: RunGroup needs an undirected graph but this one is directed: split the symmetrized graph (g.Undirected()) over the group")
	}
	if pg.N > math.MaxInt32 {
		return nil, fmt.Errorf("mst: RunGroup: %d vertices exceed the 32-bit vertex numbers", pg.N)
	}
	if err := cancel.Check(); err != nil {
		return nil, fmt.Errorf("mst: RunGroup: %w", err)
	}
	if pg.Group.IsHost() {
		return runGroupHost(pg, o.Trace)
	}
	res := &GroupResult{Algorithm: fmt.Sprintf("gpu Borůvka over a %s", pg.Group), N: pg.N, Arcs: pg.Arcs, pg: pg}
	if pg.N == 0 {
		return res, nil
	}
	var forest []uint64
	ranks, err := runRanks(pg, "RunGroup", func(gr *groupRank, t *gpu.Thread) error {
		err := gr.run(t, o.Trace)
		if err == nil && gr.first {
			forest = gr.forest
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	for i, gr := range ranks {
		res.Ranks = append(res.Ranks, gr.stats)
		if gr.stats.Time > res.Time || i == 0 {
			res.Time, res.CommTime = gr.stats.Time, gr.stats.CommTime
			if o.Trace {
				res.Trace = &trace.Trace{Algorithm: res.Algorithm, Arcs: pg.Arcs, Steps: gr.steps, Time: gr.stats.Time}
			}
		}
	}
	res.Rounds = ranks[0].rounds
	start := time.Now()
	edges := make([]Edge, len(forest)/2)
	for i := range edges {
		e := forest[2*i]
		edges[i] = Edge{U: int32(e >> 32), V: int32(uint32(e)), W: weightOfKey(forest[2*i+1])}
	}
	if err := sortEdges(edges); err != nil {
		return nil, fmt.Errorf("mst: RunGroup: %w", err)
	}
	res.Edges, res.Weight, res.Trees = edges, sumWeights(edges), pg.N-len(edges)
	res.ForestTime = time.Since(start)
	res.TEPS = graph.Rate(pg.Arcs/2, pg.Arcs, res.Time)
	return res, nil
}

// runRanks runs f on a new groupRank of each of this process's ranks of
// pg (Group.Run) and frees their memory. A groupstep.Stop (every rank
// stopped at the same point) is returned as its error, the group intact;
// other errors, which break the group, are wrapped with what (the
// operation's name).
func runRanks(pg *gpu.PartGraph, what string, f func(gr *groupRank, t *gpu.Thread) error) ([]*groupRank, error) {
	ranks := make([]*groupRank, len(pg.Parts))
	for i, p := range pg.Parts {
		ranks[i] = &groupRank{r: p.Rank, part: p, n: pg.N, arcs: pg.Arcs, size: pg.Group.Size(), first: i == 0, what: what,
			Agreement: groupstep.Agreement{Rank: p.Rank, What: "mst: " + what, Block: ckBlock}}
	}
	var mu sync.Mutex
	var stop error
	err := pg.Group.Run(func(r *gpu.Rank, t *gpu.Thread) error {
		gr := ranks[groupstep.PartIndex(pg, r)]
		return groupstep.Keep(&mu, &stop, errors.Join(f(gr, t), gr.free()))
	})
	if err != nil {
		return nil, fmt.Errorf("mst: %s: %w", what, err)
	}
	return ranks, stop
}

// weightOfKey inverts ordered64: the weight whose ordered bits are key.
func weightOfKey(key uint64) float64 {
	if key>>63 != 0 {
		return math.Float64frombits(key &^ (1 << 63))
	}
	return math.Float64frombits(^key)
}

// runGroupHost is RunGroup on a group of the host device: Boruvka on the
// one part.
func runGroupHost(pg *gpu.PartGraph, traced bool) (*GroupResult, error) {
	g, err := pg.Host()
	if err != nil {
		return nil, fmt.Errorf("mst: RunGroup on the host: %w", err)
	}
	r, err := boruvka(g, traced)
	if err != nil {
		return nil, err
	}
	return &GroupResult{Algorithm: r.Algorithm + "; host group standing in for gpu Borůvka over a group", N: pg.N, Arcs: pg.Arcs,
		Edges: r.Edges, Weight: r.Weight, Trees: r.Trees, Rounds: r.Iterations, Time: r.Time, TEPS: r.TEPS,
		Ranks: []RankStats{{Time: r.Time}}, Trace: r.Trace, pg: pg, host: g}, nil
}

// groupRank is one rank's state of a run or a check.
type groupRank struct {
	r       *gpu.Rank
	part    *gpu.Part
	n, size int
	arcs    int64  // the whole graph's
	first   bool   // this process's first rank: it hands over the forest
	what    string // "RunGroup" or "GroupResult.Check", for messages
	mem     *gpu.Allocations
	fn      map[string]*gpu.Function
	grid    gpu.Dim
	weights any // *gpu.Float32s, *gpu.Float64s, or a nil *gpu.Float32s (unit)
	wtag    string

	comp, hook, root *gpu.Int32s
	wkey, ekey, fe   *gpu.Uint64s
	ctl              *gpu.Uint64s
	ctlHost          []uint64

	forest []uint64 // (ekey, wkey) pairs of the forest, on the first rank
	rounds int
	steps  []trace.Step // a traced run's rounds (GroupOptions.Trace)
	stats  RankStats
	// Agreement launches the kernels and agrees on stopping: its
	// Interrupted is set by a launch that met an interrupt, its CommTime
	// counts the AllReduceInt64 calls.
	groupstep.Agreement
}

// prepare compiles the kernels and picks the weights.
func (gr *groupRank) prepare() error {
	dev := gr.r.Device()
	fn, err := multiModule.Functions(dev, append(multiKernelNames(), groupCheckKernelNames()...))
	if err != nil {
		return fmt.Errorf("mst: %w", err)
	}
	gr.fn = fn
	gr.grid = grid(int64(gr.n))
	gr.mem = gpu.NewAllocations(dev)
	switch {
	case gr.part.Weights64 != nil:
		gr.weights, gr.wtag = gr.part.Weights64, "w64"
	case gr.part.Weights != nil:
		gr.weights, gr.wtag = gr.part.Weights, "w32"
	default:
		gr.weights, gr.wtag = (*gpu.Float32s)(nil), "w32"
	}
	return nil
}

// alloc allocates the run's buffers.
func (gr *groupRank) alloc() error {
	var err error
	n := gr.n
	for _, b := range []**gpu.Int32s{&gr.comp, &gr.hook, &gr.root} {
		if *b, err = gr.mem.AllocInt32s(n); err != nil {
			return err
		}
	}
	for _, b := range []**gpu.Uint64s{&gr.wkey, &gr.ekey} {
		if *b, err = gr.mem.AllocUint64s(n); err != nil {
			return err
		}
	}
	if gr.fe, err = gr.mem.AllocUint64s(2 * max(n-1, 1)); err != nil {
		return err
	}
	gr.ctlHost = make([]uint64, mmWords)
	gr.ctl, err = gr.mem.AllocUint64s(mmWords)
	return err
}

// free frees the rank's buffers.
func (gr *groupRank) free() error {
	if gr.mem == nil {
		return nil
	}
	return gr.mem.Free()
}

// launch launches a grid-stride kernel of multiModule over the graph's
// vertices (see groupstep.Agreement.Launch).
func (gr *groupRank) launch(t *gpu.Thread, name string, args ...any) error {
	return gr.Launch(t, gr.fn[name], gr.grid, args...)
}

// reduceMin replaces buf (N words) by its minimum over the group, timed
// as communication.
func (gr *groupRank) reduceMin(t *gpu.Thread, buf *gpu.Uint64s) error {
	s, err := gpu.SpanOf(buf, 0, -1)
	if err != nil {
		return err
	}
	if err := t.Synchronize(); err != nil {
		return err
	}
	start := time.Now()
	err = gr.r.AllReduce(t, s, s, nccl.Min)
	gr.CommTime += time.Since(start)
	gr.stats.ReducedBytes += int64(8 * buf.Len())
	return err
}

// slots returns every rank's value mine, in rank order (AllReduce).
func (gr *groupRank) slots(t *gpu.Thread, mine int64) ([]int64, error) {
	vals := make([]int64, gr.size)
	vals[gr.r.Rank()] = mine
	return gr.AllReduce(t, vals, nccl.Sum)
}

// run is one rank's RunGroup: the rounds, then (first rank) the forest's
// download.
func (gr *groupRank) run(t *gpu.Thread, traced bool) error {
	if err := gr.prepare(); err != nil {
		return err
	}
	if err := gr.alloc(); err != nil {
		return err
	}
	n, lo, nl, m := int64(gr.n), int64(gr.part.Lo), int64(gr.part.Hi-gr.part.Lo), int64(gr.part.Adj.Len())
	if err := gr.ctl.Fill(0); err != nil {
		return err
	}
	if err := t.Synchronize(); err != nil {
		return err
	}
	start := time.Now()
	if err := gr.launch(t, "mmst_init", gr.comp, n); err != nil {
		return err
	}
	minArcs := "mmst_min_" + gr.wtag
	arcGrid := grid((m + ckChunk - 1) / ckChunk)
	ctl := gr.ctlHost
	edges := uint64(0)
	gr.steps = gr.steps[:0]
	for round := 1; ; round++ {
		if round > maxRounds {
			return fmt.Errorf("no convergence after %d rounds (a bug: please report it)", maxRounds)
		}
		roundStart, roundComm := time.Now(), gr.CommTime
		if round == groupTuning.interruptAtRound && gr.r.Rank() == 0 {
			gr.Interrupted = true
		}
		if err := gr.wkey.Fill(noKey); err != nil {
			return err
		}
		if err := gr.ekey.Fill(noKey); err != nil {
			return err
		}
		for pass, key := range []*gpu.Uint64s{gr.wkey, gr.ekey} {
			if m > 0 {
				if err := gr.Launch(t, gr.fn[minArcs], arcGrid, gr.part.Offsets, gr.part.Adj, gr.weights, lo, nl, m,
					gr.comp, gr.wkey, gr.ekey, int32(pass), gr.ctl); err != nil {
					return err
				}
			}
			if err := gr.reduceMin(t, key); err != nil {
				return err
			}
		}
		if err := gr.launch(t, "mmst_hook", gr.comp, gr.wkey, gr.ekey, n, gr.hook); err != nil {
			return err
		}
		if err := gr.launch(t, "mmst_choose", gr.hook, gr.wkey, gr.ekey, n, gr.root, gr.fe, uint64(gr.fe.Len()/2), gr.ctl); err != nil {
			return err
		}
		if err := gr.ctl.Download(ctl); err != nil {
			return err
		}
		nan, err := gr.slots(t, int64(ctl[mmNaN]))
		if err != nil {
			return err
		}
		for k, c := range nan {
			if c > 0 {
				return groupstep.Stop{Err: fmt.Errorf("mst: RunGroup: %d arcs of rank %d's part have a NaN weight; a minimum spanning forest needs ordered weights", c, k)}
			}
		}
		if ctl[mmForest] > uint64(gr.fe.Len()/2) {
			return fmt.Errorf("the forest has %d edges on %d vertices: the hooks formed a cycle (a bug: please report it)", ctl[mmForest], gr.n)
		}
		if traced {
			// The round ends at its next collective (the forest's size is
			// this rank's, every rank the same): its time so far.
			gr.steps = append(gr.steps, trace.Step{Kind: "round", Frontier: int64(gr.n) - int64(edges), Inspected: 2 * gr.arcs,
				Updated: int64(ctl[mmForest] - edges), Time: time.Since(roundStart), Comm: gr.CommTime - roundComm})
		}
		if ctl[mmForest] == edges {
			break // no component has an outgoing arc
		}
		edges = ctl[mmForest]
		gr.rounds = round
		if err := gr.jump(t); err != nil {
			return err
		}
		if err := gr.launch(t, "mmst_relabel", gr.comp, gr.root, n); err != nil {
			return err
		}
	}
	if err := t.Synchronize(); err != nil {
		return err
	}
	gr.stats = RankStats{Rank: gr.r.Rank(), Time: time.Since(start), CommTime: gr.CommTime, ReducedBytes: gr.stats.ReducedBytes}
	if gr.first {
		fe := make([]uint64, gr.fe.Len())
		if err := gr.fe.Download(fe); err != nil {
			return err
		}
		gr.forest = fe[:2*edges]
	}
	return nil
}

// jump runs pointer jumping on root until no pointer moves.
func (gr *groupRank) jump(t *gpu.Thread) error {
	n := int64(gr.n)
	ctl := gr.ctlHost
	for pass := uint64(1); ; pass++ {
		if pass > 64 { // a forest of < 2^31 nodes needs at most 32 passes
			return errors.New("pointer jumping did not converge: the hooks formed a cycle (a bug: please report it)")
		}
		if err := gr.launch(t, "mmst_jump", gr.root, n, pass, gr.ctl); err != nil {
			return err
		}
		if err := gr.ctl.Download(ctl); err != nil {
			return err
		}
		if ctl[mmJumped] != pass {
			return nil
		}
	}
}

// groupCheckKernelNames lists the kernels GroupResult.Check launches from
// multiModule: check.cu's and multi.cu's part-wise rules.
func groupCheckKernelNames() []string {
	return append(slices.Clone(checkKernelNames), "mmst_ck_edges_w32", "mmst_ck_edges_w64", "mmst_ck_span",
		"mmst_ck_minimal_w32", "mmst_ck_minimal_w64", "mmst_ck_explain_w32", "mmst_ck_explain_w64")
}

// Check validates the forest as a minimum spanning forest of the
// group's graph, on the group's devices, independently of the Borůvka:
// the rules of DeviceCheck.Check, each rank checking its own part.
//
//   - rule 1 (edges): every edge has 0 ≤ U < V < N (on the host, where
//     Edges are), and each forest edge is an arc U→V of the part of U's
//     rank with exactly the weight W (that rank checks it: every rank
//     receives the whole forest, 16 bytes per edge);
//   - rule 2 (forest): no cycle: every rank labels the trees with
//     check.cu's lock-free union-find, which leaves N − len(Edges) trees
//     exactly when there is none; the offending edge is then named by a
//     union-find on the host (the forest has fewer than N edges);
//   - rule 3 (spanning): each arc of each rank's part joins two vertices
//     of one tree, so the trees are the graph's components, and Trees
//     their number;
//   - rule 4 (Weight is the sum of the edges within WeightTolerance) on
//     the host;
//   - rule 5 (the cycle property) when the graph is weighted: every rank
//     roots the forest and builds the lifting tables with check.cu's
//     kernels (as DeviceCheck does, on the whole forest), then checks the
//     edges of its own part: none is lighter than the heaviest forest
//     edge on the forest path between its ends.
//
// The failures are reduced over the group (a minimum of the failure
// keys, AllReduceInt64), so every rank reports the same, lowest one: an
// error naming the rule and the forest edge or the arc (its global
// index: the arcs of the lower ranks first), explained by the rank that
// holds it. Device memory per rank: DeviceCheck's, about 100 bytes per
// vertex plus 8 or 12 per vertex and lifting level, freed before Check
// returns. On a host group it is the CPU's Check. Interrupts are agreed
// over the group as in RunGroup.
func (r *GroupResult) Check() error {
	if r == nil {
		return errors.New("mst: GroupResult.Check: no result")
	}
	if r.host != nil {
		return Check(r.host, r.Result())
	}
	n, f := r.N, len(r.Edges)
	if n == 0 {
		if f != 0 || r.Trees != 0 || r.Weight != 0 {
			return fmt.Errorf("mst: device check over the group: the graph has no vertices, but the result has %d edges, %d trees and weight %g", f, r.Trees, r.Weight)
		}
		return nil
	}
	if f >= n {
		return forestError(n, r.Edges) // a cycle, at least
	}
	for i, e := range r.Edges {
		if e.U < 0 || int(e.V) >= n || e.U >= e.V {
			return fmt.Errorf("mst: device check over the group: rule 1 (edges): forest edge %d (%d–%d) must have 0 ≤ U < V < %d", i, e.U, e.V, n)
		}
	}
	eu, ev, ew := make([]int32, f), make([]int32, f), make([]float64, f)
	for i, e := range r.Edges {
		eu[i], ev[i], ew[i] = e.U, e.V, e.W
	}
	outs := make([]groupCheckOut, len(r.pg.Parts))
	if _, err := runRanks(r.pg, "GroupResult.Check", func(gr *groupRank, t *gpu.Thread) error {
		var err error
		outs[groupstep.PartIndex(r.pg, gr.r)], err = gr.check(t, eu, ev, ew)
		return err
	}); err != nil {
		return err
	}
	o := outs[0]
	fail := func() error {
		return fmt.Errorf("mst: device check over the group: %s", failureText(o.key, o.info, r.Edges, n))
	}
	if o.key != ckNone && devcheck.Rule(o.key) <= ruleWeight {
		return fail()
	}
	if f != n-o.roots {
		return forestError(n, r.Edges)
	}
	if o.key != ckNone && devcheck.Rule(o.key) <= ruleSpan {
		return fail()
	}
	if r.Trees != o.roots {
		return fmt.Errorf("mst: device check over the group: rule 3 (spanning): result says %d trees, but the graph has %d connected components", r.Trees, o.roots)
	}
	if err := weightError(r.Weight, r.Edges); err != nil {
		return fmt.Errorf("mst: device check over the group: %w", err)
	}
	if o.key != ckNone {
		return fail()
	}
	return nil
}

// groupCheckOut is what a rank's check found, the same on every rank:
// the forest's trees, the least failure key over the group, and its
// explanation (failureText's info).
type groupCheckOut struct {
	roots int
	key   uint64
	info  []int64
}

// check is one rank's share of GroupResult.Check.
func (gr *groupRank) check(t *gpu.Thread, eu, ev []int32, ew []float64) (groupCheckOut, error) {
	o := groupCheckOut{key: ckNone}
	if err := gr.prepare(); err != nil {
		return o, err
	}
	n, f := int64(gr.n), int64(len(eu))
	lo, nl, m := int64(gr.part.Lo), int64(gr.part.Hi-gr.part.Lo), int64(gr.part.Adj.Len())
	arcs, err := gr.slots(t, m)
	if err != nil {
		return o, err
	}
	var base int64
	for _, a := range arcs[:gr.r.Rank()] {
		base += a
	}
	p := gr.part
	c := &DeviceCheck{g: &gpu.Graph{N: gr.n, Weights: p.Weights, Weights64: p.Weights64}, mem: gr.mem, fn: gr.fn}
	if err := c.alloc(gr.n, int(f)); err != nil {
		return o, err
	}
	ctl := devcheck.Initial(ckWords)
	for _, err := range []error{c.eu.Upload(eu), c.ev.Upload(ev), c.ew.Upload(ew), c.ctl.Upload(ctl)} {
		if err != nil {
			return o, err
		}
	}
	fn, chunks := gr.fn, grid((m+ckChunk-1)/ckChunk)
	for _, l := range []struct {
		f    string
		grid gpu.Dim
		args []any
	}{
		{kCkUFInit, grid(n), []any{c.comp, n}},
		{kCkUFUnion, grid(f), []any{c.eu, c.ev, f, n, c.comp}},
		{kCkUFFlatten, grid(n), []any{c.comp, n, c.ctl}},
		{"mmst_ck_edges_" + gr.wtag, grid(f), []any{p.Offsets, p.Adj, gr.weights, lo, nl, c.eu, c.ev, c.ew, f, c.ctl}},
		{"mmst_ck_span", chunks, []any{p.Offsets, p.Adj, lo, nl, m, uint64(base), c.comp, c.ctl}},
	} {
		if err := gr.Launch(t, fn[l.f], l.grid, l.args...); err != nil {
			return o, err
		}
	}
	if err := c.ctl.Download(ctl); err != nil {
		return o, err
	}
	o.roots = int(ctl[ckRoots])
	if o.key, err = gr.leastKey(t, ctl[ckErr]); err != nil {
		return o, err
	}
	if weighted := p.Weights != nil || p.Weights64 != nil; o.key == ckNone && f > 0 && f == n-int64(o.roots) && weighted {
		if err := gr.interruptible(c.rootForest(t, int(f))); err != nil {
			return o, err
		}
		if err := gr.Launch(t, fn["mmst_ck_minimal_"+gr.wtag], chunks, p.Offsets, p.Adj, gr.weights, lo, nl, m, uint64(base),
			int32(c.levels), c.upPtr, c.mxPt, c.pathWeights(), c.rin, c.rout, c.ctl); err != nil {
			return o, err
		}
		if err := c.ctl.Download(ctl); err != nil {
			return o, err
		}
		if o.key, err = gr.leastKey(t, ctl[ckErr]); err != nil {
			return o, err
		}
	}
	if o.key != ckNone {
		o.info, err = gr.explain(t, c, o.key, eu, base, m)
	}
	return o, err
}

// interruptible notes an error of an interrupt as gr.Interrupted (the
// next agreement stops every rank) and returns the others.
func (gr *groupRank) interruptible(err error) error {
	if errors.Is(err, cancel.ErrInterrupted) {
		gr.Interrupted = true
		return nil
	}
	return err
}

// leastKey is the least of the ranks' failure keys (ckNone for none).
func (gr *groupRank) leastKey(t *gpu.Thread, key uint64) (uint64, error) {
	k := int64(math.MaxInt64) // keys are below 2^63; none is the most
	if key != ckNone {
		k = int64(key)
	}
	least, err := gr.AllReduce(t, []int64{k}, nccl.Min)
	if err != nil || least[0] == math.MaxInt64 {
		return ckNone, err
	}
	return uint64(least[0]), nil
}

// explain returns the explanation of failure key (failureText's info):
// written by the rank that holds the forest edge's U (rule 1's weight)
// or the arc (rules 3 and 5), and summed over the group, so that every
// rank has it.
func (gr *groupRank) explain(t *gpu.Thread, c *DeviceCheck, key uint64, eu []int32, base, m int64) ([]int64, error) {
	rule, idx := int(devcheck.Rule(key)), int64(devcheck.Index(key))
	k := int64(-1)
	switch {
	case rule == ruleWeight && int(eu[idx]) >= gr.part.Lo && int(eu[idx]) < gr.part.Hi:
		k = idx
	case (rule == ruleSpan || rule == ruleMinimal) && idx >= base && idx < base+m:
		k = idx - base
	}
	info := make([]int64, 6)
	if k >= 0 {
		p := gr.part
		err := t.Launch(gr.fn["mmst_ck_explain_"+gr.wtag], gpu.D1(1), gpu.D1(32), 0, int32(rule), k, p.Offsets, p.Adj, gr.weights,
			int64(p.Lo), int64(p.Hi-p.Lo), c.eu, c.ev, c.comp, int32(c.levels), c.upPtr, c.mxPt, c.pathWeights(), c.rin, c.rout, c.info)
		if err := gr.interruptible(err); err != nil {
			return nil, err
		}
		if !gr.Interrupted {
			if err := c.info.Download(info); err != nil {
				return nil, err
			}
		}
	}
	return gr.AllReduce(t, info, nccl.Sum)
}
