package mst

import (
	_ "embed"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/graphnb/graphnb/algo/internal/devcheck"
	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/gpu/nccl"
	"github.com/graphnb/graphnb/graph"
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
type GroupOptions struct{}

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
// the host: Edges and Weight equal Kruskal's bit for bit. Device memory
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
		return runGroupHost(pg)
	}
	res := &GroupResult{Algorithm: fmt.Sprintf("gpu Borůvka over a %s", pg.Group), N: pg.N, Arcs: pg.Arcs, pg: pg}
	if pg.N == 0 {
		return res, nil
	}
	ranks := make([]*groupRank, len(pg.Parts))
	for i, p := range pg.Parts {
		ranks[i] = &groupRank{r: p.Rank, part: p, n: pg.N, size: pg.Group.Size(), first: i == 0}
	}
	var mu sync.Mutex
	var stop error
	var forest []uint64
	err := pg.Group.Run(func(r *gpu.Rank, t *gpu.Thread) error {
		gr := ranks[localIndex(pg, r)]
		err := gr.run(t)
		if err == nil && gr.first {
			forest = gr.forest
		}
		err = errors.Join(err, gr.free())
		var as agreedStop
		if errors.As(err, &as) {
			mu.Lock()
			stop = as.err
			mu.Unlock()
			return nil
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("mst: RunGroup: %w", err)
	}
	if stop != nil {
		return nil, stop
	}
	for _, gr := range ranks {
		res.Ranks = append(res.Ranks, gr.stats)
		if gr.stats.Time > res.Time {
			res.Time, res.CommTime = gr.stats.Time, gr.stats.CommTime
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

// weightOfKey inverts ordered64: the weight whose ordered bits are key.
func weightOfKey(key uint64) float64 {
	if key>>63 != 0 {
		return math.Float64frombits(key &^ (1 << 63))
	}
	return math.Float64frombits(^key)
}

// runGroupHost is RunGroup on a group of the host device: Boruvka on the
// one part.
func runGroupHost(pg *gpu.PartGraph) (*GroupResult, error) {
	g, err := pg.Host()
	if err != nil {
		return nil, fmt.Errorf("mst: RunGroup on the host: %w", err)
	}
	r, err := Boruvka(g)
	if err != nil {
		return nil, err
	}
	return &GroupResult{Algorithm: r.Algorithm + "; host group standing in for gpu Borůvka over a group", N: pg.N, Arcs: pg.Arcs,
		Edges: r.Edges, Weight: r.Weight, Trees: r.Trees, Rounds: r.Iterations, Time: r.Time, TEPS: r.TEPS,
		Ranks: []RankStats{{Time: r.Time}}, pg: pg, host: g}, nil
}

// localIndex is r's index among pg's parts.
func localIndex(pg *gpu.PartGraph, r *gpu.Rank) int {
	for i, p := range pg.Parts {
		if p.Rank == r {
			return i
		}
	}
	return -1
}

// agreedStop is an error every rank of the group meets at the same
// point, having agreed on it through a collective (a NaN weight, an
// interrupt): the ranks stop without breaking the group.
type agreedStop struct{ err error }

func (e agreedStop) Error() string { return e.err.Error() }

// groupRank is one rank's state of a run or a check.
type groupRank struct {
	r       *gpu.Rank
	part    *gpu.Part
	n, size int
	first   bool // this process's first rank: it hands over the forest
	mem     *gpu.Allocations
	fn      map[string]*gpu.Function
	grid    gpu.Dim
	weights any // *gpu.Float32s, *gpu.Float64s, or a nil *gpu.Float32s (unit)
	wtag    string

	comp, hook, root *gpu.Int32s
	wkey, ekey, fe   *gpu.Uint64s
	ctl              *gpu.Uint64s
	ctlHost          []uint64

	forest      []uint64 // (ekey, wkey) pairs of the forest, on the first rank
	rounds      int
	stats       RankStats
	commTime    time.Duration
	interrupted bool
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
// vertices (see launchOn).
func (gr *groupRank) launch(t *gpu.Thread, name string, args ...any) error {
	return gr.launchOn(t, gr.fn[name], gr.grid, args...)
}

// launchOn launches f. A launch refused because of an interrupt (every
// launch polls cancel.Check) is noted and skipped, not returned: the
// rank goes on to the next agreement (comm), where the whole group
// agrees to stop, instead of leaving the other ranks waiting.
func (gr *groupRank) launchOn(t *gpu.Thread, f *gpu.Function, g gpu.Dim, args ...any) error {
	if gr.interrupted {
		return nil
	}
	err := t.Launch(f, g, gpu.D1(ckBlock), 0, args...)
	if errors.Is(err, cancel.ErrInterrupted) {
		gr.interrupted = true
		return nil
	}
	return err
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
	gr.commTime += time.Since(start)
	gr.stats.ReducedBytes += int64(8 * buf.Len())
	return err
}

// commWidth is the length of every comm: one per rank, and the flag.
func (gr *groupRank) commWidth() int { return gr.size + 1 }

// comm sums one value per rank over the group (vals[k] is rank k's
// slot; this rank fills its own) with the group's agreement on
// interrupts: it carries whether this rank was interrupted and returns
// an agreedStop on every rank when any was. Its time counts as
// communication.
func (gr *groupRank) comm(t *gpu.Thread, mine int64) ([]int64, error) {
	send := make([]int64, gr.commWidth())
	send[gr.r.Rank()] = mine
	if gr.interrupted || cancel.Check() != nil {
		send[gr.size] = 1
	}
	start := time.Now()
	out, err := gr.r.AllReduceInt64(t, send, nccl.Sum)
	gr.commTime += time.Since(start)
	if err != nil {
		return nil, err
	}
	if out[gr.size] != 0 {
		return nil, agreedStop{fmt.Errorf("mst: RunGroup: %w", cancel.ErrInterrupted)}
	}
	return out[:gr.size], nil
}

// run is one rank's RunGroup: the rounds, then (first rank) the forest's
// download.
func (gr *groupRank) run(t *gpu.Thread) error {
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
	for round := 1; ; round++ {
		if round > maxRounds {
			return fmt.Errorf("no convergence after %d rounds (a bug: please report it)", maxRounds)
		}
		if round == groupTuning.interruptAtRound && gr.r.Rank() == 0 {
			gr.interrupted = true
		}
		if err := gr.wkey.Fill(noKey); err != nil {
			return err
		}
		if err := gr.ekey.Fill(noKey); err != nil {
			return err
		}
		for pass, key := range []*gpu.Uint64s{gr.wkey, gr.ekey} {
			if m > 0 {
				if err := gr.launchOn(t, gr.fn[minArcs], arcGrid, gr.part.Offsets, gr.part.Adj, gr.weights, lo, nl, m,
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
		nan, err := gr.comm(t, int64(ctl[mmNaN]))
		if err != nil {
			return err
		}
		for k, c := range nan {
			if c > 0 {
				return agreedStop{fmt.Errorf("mst: RunGroup: %d arcs of rank %d's part have a NaN weight; a minimum spanning forest needs ordered weights", c, k)}
			}
		}
		if ctl[mmForest] > uint64(gr.fe.Len()/2) {
			return fmt.Errorf("the forest has %d edges on %d vertices: the hooks formed a cycle (a bug: please report it)", ctl[mmForest], gr.n)
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
	gr.stats = RankStats{Rank: gr.r.Rank(), Time: time.Since(start), CommTime: gr.commTime, ReducedBytes: gr.stats.ReducedBytes}
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
// multiModule.
func groupCheckKernelNames() []string { return nil }
