package gpugen

import (
	"errors"
	"fmt"
	"time"

	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/gpu/nccl"
	"github.com/graphnb/graphnb/gpu/transform"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/graph/gen"
	"github.com/graphnb/graphnb/internal/card"
)

// RMATParts generates gen.RMAT(scale, edgeFactor, opts...) over the ranks
// of g, partitioned by vertex blocks: rank r's Part holds the rows
// gpu.Block(N, Size, r) of the graph RMAT would make on one device, edge
// for edge and bit for bit (targets global, weights of the plan's kind),
// and no device or host ever holds the whole graph. Arguments and
// options are checked as gen.RMAT checks them, with the same errors.
// Every rank of the group must call it (in every process of a group that
// spans several), with the same arguments.
//
// Each rank draws a contiguous, balanced share of the plan's chunks of
// edges (gen.PlanRMAT), sorts its arcs by (source, target), sends every
// other rank the arcs whose source is in that rank's block (the counts
// first, then the arcs and their weights: Rank.AllToAllV), sorts what it
// received and deduplicates it as RMAT does (the duplicates of an arc all
// reach its source's owner), writing its Part's CSR. A rank's arcs,
// drawn and received, are numbered in 64 bits: only memory bounds them.
// Memory: a rank needs about 17.5 + 2w bytes per arc it draws (the
// arcs, 8 + w bytes each, and the sort's scratch), then 8 + w per arc it
// draws and per arc it receives while exchanging, and about 17.5 + 2w per
// arc received while building its part (w = 4 for float32 weights, 8 for
// float64, 0 unweighted), and 1 GiB for NCCL's buffers; every rank's free
// memory is checked against its need before it draws and again once the
// counts are known, on every rank at once, so a graph that does not fit
// is refused on all ranks with an error wrapping ErrTooBig that names the
// rank and both figures, and the group stays usable. R-MAT scale 29,
// edge factor 16 (2^34 arcs) over 4 ranks draws 2^32 arcs on each and
// receives about as many: about 71 GiB a rank unweighted, 103 GiB with
// float32 weights, 135 GiB with float64. Without the vertex permutation
// (gen.PermuteVertices(true), what Graph500 uses) R-MAT's low vertices
// hold most arcs, so rank 0 receives far more than the others.
//
// An interrupt (package cancel) stops every rank between launches with an
// error matching cancel.ErrInterrupted; as for any failure inside
// gpu.Group.Run, the group is then broken (make a new one). What was
// allocated is freed on every error.
//
// On a group of the host device (gpu.NewGroup(gpu.Host())) the one Part
// is gen.RMAT's graph.
func RMATParts(g *gpu.Group, scale, edgeFactor int, opts ...gen.Option) (*gpu.PartGraph, error) {
	pg, _, err := RMATPartsTimed(g, scale, edgeFactor, opts...)
	return pg, err
}

// PartPhases are one rank's figures of a partitioned generation
// (RMATPartsTimed, SSCA2PartsTimed): the arcs it drew and received, and
// the wall time of each of its phases, each ended by a device
// synchronisation (a phase that ends in an exchange includes the wait
// for the slowest rank).
type PartPhases struct {
	Rank int
	// Drawn is the number of arcs the rank drew (both arcs of each of its
	// edges); Received the arcs it received from all ranks, itself
	// included (its part before deduplication); Kept the arcs of its part.
	Drawn, Received, Kept int64
	// Draw: the edges counted (SSCA#2), the edge counts and free memory
	// exchanged, the random streams' states, the edges drawn (buffers
	// allocated). Sort: the drawn arcs sorted and counted by owner.
	// SortReceived is about 0 where one rank sent all the arcs (a group
	// of one).
	// Exchange: the counts and free memory exchanged, the receive buffers
	// allocated, the arcs and weights exchanged. SortReceived: the
	// received arcs sorted. CSR: deduplication and the part's arrays.
	Draw, Sort, Exchange, SortReceived, CSR time.Duration
}

// Total is the sum of the phases.
func (p PartPhases) Total() time.Duration {
	return p.Draw + p.Sort + p.Exchange + p.SortReceived + p.CSR
}

// String is one line: "rank 0: drew …, received …, kept … arcs; draw …
// sort … exchange … sort_received … csr … ms".
func (p PartPhases) String() string {
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1e3 }
	return fmt.Sprintf("rank %d: drew %d, received %d, kept %d arcs; draw %.1f sort %.1f exchange %.1f sort_received %.1f csr %.1f ms (total %.1f)",
		p.Rank, p.Drawn, p.Received, p.Kept, ms(p.Draw), ms(p.Sort), ms(p.Exchange), ms(p.SortReceived), ms(p.CSR), ms(p.Total()))
}

// RMATPartsTimed is RMATParts that also returns the figures of each rank
// of this process (PartPhases), in rank order (none on the host group).
func RMATPartsTimed(g *gpu.Group, scale, edgeFactor int, opts ...gen.Option) (*gpu.PartGraph, []PartPhases, error) {
	if g == nil {
		return nil, nil, errNilGroup("RMATParts")
	}
	job, err := rmatJob(scale, edgeFactor, opts, g.Size())
	if err != nil {
		return nil, nil, err
	}
	return job.run(g)
}

// rmatJob is RMATParts' job over size ranks.
func rmatJob(scale, edgeFactor int, opts []gen.Option, size int) (*partJob, error) {
	p, err := gen.PlanRMAT(scale, edgeFactor, opts...)
	if err != nil {
		return nil, err
	}
	if len(p.Tables)/tableWords > maxTables {
		return nil, fmt.Errorf("gpugen: R-MAT scale %d needs %d alias tables, the kernel holds %d", scale, len(p.Tables)/tableWords, maxTables)
	}
	return &partJob{what: fmt.Sprintf("R-MAT scale %d, edge factor %d over %s", scale, edgeFactor, ranksOf(size)),
		scale: p.Scale, n: p.N, common: p.PlanCommon,
		source: func() partSource { return &rmatSource{p: p} },
		host:   func() (*graph.CSR, error) { return gen.RMAT(scale, edgeFactor, opts...) }}, nil
}

// SSCA2Parts is RMATParts for gen.SSCA2(scale, opts...): rank r's Part
// holds the rows gpu.Block(N, Size, r) of SSCA2's graph, bit for bit. Each
// rank counts, then writes, the edges of a balanced, contiguous share of
// the plan's chunks of vertices (gen.PlanSSCA2), numbered after those of
// the ranks before it (an exchange of the counts), draws their weights,
// and exchanges, sorts and builds its part as RMATParts does; its memory
// is checked once its edges are counted. On the host group the one Part
// is gen.SSCA2's graph.
func SSCA2Parts(g *gpu.Group, scale int, opts ...gen.Option) (*gpu.PartGraph, error) {
	pg, _, err := SSCA2PartsTimed(g, scale, opts...)
	return pg, err
}

// SSCA2PartsTimed is SSCA2Parts that also returns the figures of each
// rank of this process (PartPhases), in rank order (none on the host
// group).
func SSCA2PartsTimed(g *gpu.Group, scale int, opts ...gen.Option) (*gpu.PartGraph, []PartPhases, error) {
	if g == nil {
		return nil, nil, errNilGroup("SSCA2Parts")
	}
	job, err := ssca2Job(scale, opts, g.Size())
	if err != nil {
		return nil, nil, err
	}
	return job.run(g)
}

// ssca2Job is SSCA2Parts' job over size ranks.
func ssca2Job(scale int, opts []gen.Option, size int) (*partJob, error) {
	p, err := gen.PlanSSCA2(scale, opts...)
	if err != nil {
		return nil, err
	}
	if p.ChunkVertices%ssca2Part != 0 {
		return nil, fmt.Errorf("gpugen: SSCA2: chunks of %d vertices are not parts of %d", p.ChunkVertices, ssca2Part)
	}
	return &partJob{what: fmt.Sprintf("SSCA2 scale %d over %s", scale, ranksOf(size)),
		scale: p.Scale, n: p.N, common: p.PlanCommon,
		source: func() partSource { return &ssca2Source{p: p} },
		host:   func() (*graph.CSR, error) { return gen.SSCA2(scale, opts...) }}, nil
}

// ranksOf is "1 rank", "2 ranks", ….
func ranksOf(size int) string {
	if size == 1 {
		return "1 rank"
	}
	return fmt.Sprintf("%d ranks", size)
}

// errNilGroup is the error of a generation over a nil group.
func errNilGroup(fn string) error {
	return fmt.Errorf("gpugen: %s: nil group; make one with gpu.NewGroup(gpu.Devices()...) (gpu.NewGroup(gpu.Host()) for the CPU)", fn)
}

// partJob is a partitioned generation: its description for errors, the
// graph's key bits and vertices, its weights, each rank's generator and
// the host generator (for the host group).
type partJob struct {
	what     string
	scale, n int
	common   gen.PlanCommon
	source   func() partSource
	host     func() (*graph.CSR, error)
}

// run runs the job over g.
func (job *partJob) run(g *gpu.Group) (*gpu.PartGraph, []PartPhases, error) {
	if err := g.Err(); err != nil {
		return nil, nil, fmt.Errorf("gpugen: %s: %w", job.what, err)
	}
	if g.IsHost() {
		pg, err := hostParts(g, job.host)
		return pg, nil, err
	}
	ranks := g.Ranks()
	parts := make([]*gpu.Part, len(ranks))
	phases := make([]PartPhases, len(ranks))
	refused := make([]error, len(ranks))
	err := g.Run(func(r *gpu.Rank, t *gpu.Thread) error {
		i := localIndex(ranks, r)
		var err error
		parts[i], refused[i], err = job.part(r, t, &phases[i])
		return err
	})
	for _, r := range refused { // the same refusal on every rank
		if err == nil && r != nil {
			err = r
		}
	}
	if err != nil {
		return nil, nil, errors.Join(fmt.Errorf("gpugen: %s: %w", job.what, err), freeParts(parts))
	}
	pg, err := gpu.NewPartGraph(g, job.n, false, parts)
	if err != nil {
		return nil, nil, errors.Join(fmt.Errorf("gpugen: %s: %w", job.what, err), freeParts(parts))
	}
	return pg, phases, nil
}

// hostParts is a partitioned generation on the host group: the host
// generator's graph as its one part.
func hostParts(g *gpu.Group, generate func() (*graph.CSR, error)) (*gpu.PartGraph, error) {
	c, err := generate()
	if err != nil {
		return nil, err
	}
	dev := g.Devices()[0]
	part := &gpu.Part{Lo: 0, Hi: c.NumVertices()}
	fail := func(err error) (*gpu.PartGraph, error) {
		return nil, errors.Join(fmt.Errorf("gpugen: %w", err), freeParts([]*gpu.Part{part}))
	}
	if part.Offsets, err = dev.Int64sFrom(c.Offsets); err != nil {
		return fail(err)
	}
	if part.Adj, err = dev.Int32sFrom(c.Adj); err != nil {
		return fail(err)
	}
	switch {
	case c.Weights != nil:
		part.Weights, err = dev.Float32sFrom(c.Weights)
	case c.Weights64 != nil:
		part.Weights64, err = dev.Float64sFrom(c.Weights64)
	}
	if err != nil {
		return fail(err)
	}
	pg, err := gpu.NewPartGraph(g, c.NumVertices(), false, []*gpu.Part{part})
	if err != nil {
		return fail(err)
	}
	return pg, nil
}

// freeParts frees the parts made (nil entries skipped).
func freeParts(parts []*gpu.Part) error {
	var errs []error
	for _, p := range parts {
		if p != nil {
			errs = append(errs, p.Offsets.Free(), p.Adj.Free(), p.Weights.Free(), p.Weights64.Free())
		}
	}
	return errors.Join(errs...)
}

// localIndex is r's index among the group's ranks of this process.
func localIndex(ranks []*gpu.Rank, r *gpu.Rank) int {
	for i, q := range ranks {
		if q == r {
			return i
		}
	}
	panic("gpugen: a rank outside its group")
}

// chunkRange is rank's share [c0, c1) of chunks chunks over size ranks:
// contiguous, the counts differing by at most one.
func chunkRange(chunks, size, rank int) (c0, c1 int) {
	return rank * chunks / size, (rank + 1) * chunks / size
}

// localPlan is the plan of chunks [c0, c1) of p alone: their edges, and
// the states of their streams; the edges keep their global meaning.
func localPlan(p *gen.RMATPlan, c0, c1 int) *gen.RMATPlan {
	q := *p
	q.Chunks = c1 - c0
	q.Edges = min(c1*p.ChunkEdges, p.Edges) - min(c0*p.ChunkEdges, p.Edges)
	q.EdgeStates = p.EdgeStates[stateWords*c0 : stateWords*c1]
	if p.WeightStates != nil {
		q.WeightStates = p.WeightStates[stateWords*c0 : stateWords*c1]
	}
	return &q
}

// collectiveBytes is an allowance for the device memory NCCL allocates on
// a rank when a collective first needs it (the buffers of its
// connections, a few MiB per channel and peer), which no free memory
// measured before shows.
const collectiveBytes = 1 << 30

// drawBytes is the device memory a rank needs to draw and sort the arcs
// of edges edges with weights of wb bytes: the arcs and weights, the
// sort's scratch, the random streams' segment states (edge and weight
// streams), a MiB for the small buffers and collectiveBytes.
func drawBytes(edges, wb int64) int64 {
	arcs := 2 * edges
	segs := edges/segEdges + 2
	return arcs*(8+wb) + transform.SortScratchBytes(arcs, int(wb)) + 2*segs*stateWords*8 + 1<<20 + collectiveBytes
}

// receiveBytes is the device memory a rank that holds drawn arcs (sorted,
// the sort's scratch freed) needs besides them to receive received arcs
// and build its part of rows vertices: the receive buffers while the
// drawn arcs are held, then the sort and the CSR of the received arcs
// once the drawn ones are freed (pipelineBytes), and collectiveBytes for
// the exchange's connections.
func receiveBytes(wb, drawn, received int64, rows int) int64 {
	return max(received*(8+wb), pipelineBytes(received, rows, wb)-drawn*(8+wb)) + collectiveBytes
}

// partSource is what one rank of a partitioned generation draws: its
// share of R-MAT's (rmatSource) or SSCA#2's (ssca2Source) edges.
type partSource interface {
	// count prepares the rank's share on its device (buffers in d.tmp)
	// and returns its number of edges.
	count(d *run, rank, size int) (edges int64, err error)
	// draw writes both arcs of each of them, and their weights, in
	// buffers of d.tmp; first is the number of edges of the ranks before
	// this one and total the graph's.
	draw(d *run, first, total int64) (arcs, error)
}

// rmatSource draws a rank's chunks of an R-MAT plan.
type rmatSource struct {
	p *gen.RMATPlan
	q *gen.RMATPlan // the rank's chunks
}

func (s *rmatSource) count(_ *run, rank, size int) (int64, error) {
	c0, c1 := chunkRange(s.p.Chunks, size, rank)
	s.q = localPlan(s.p, c0, c1)
	return int64(s.q.Edges), nil
}

func (s *rmatSource) draw(d *run, _, _ int64) (a arcs, err error) {
	if s.q.Chunks == 0 {
		return allocArcs(d.tmp, 0, s.p.PlanCommon)
	}
	a.keys, a.w32, a.w64, err = d.rmatEdges(s.q)
	return a, err
}

// ssca2Source draws a rank's chunks of vertices of an SSCA#2 plan.
type ssca2Source struct {
	p *gen.SSCA2Plan
	c *ssca2Counted
}

func (s *ssca2Source) count(d *run, rank, size int) (int64, error) {
	c0, c1 := chunkRange(s.p.Chunks, size, rank)
	var err error
	s.c, err = d.ssca2Count(s.p, c0, c1)
	if err != nil {
		return 0, err
	}
	return int64(s.c.edges), nil
}

func (s *ssca2Source) draw(d *run, first, total int64) (a arcs, err error) {
	a.keys, a.w32, a.w64, err = d.ssca2Emit(s.p, s.c, uint64(first), uint64(total))
	return a, err
}

// arcExchanger sends each rank k its share (rg.send[k] arcs, in rank
// order) of rg's drawn arcs and weights and receives the arcs and
// weights of every rank (rg.recv[k] from rank k, in rank order) into
// rg.keys and rg.w32 or rg.w64: gpu.Rank's AllToAllV (rankExchanger), or
// a test's stand-in that runs several ranks on one device in turn.
type arcExchanger interface {
	exchange(t *gpu.Thread, rg *rankGen) error
}

// rankExchanger exchanges through a gpu.Rank's collectives.
type rankExchanger struct{ r *gpu.Rank }

func (x rankExchanger) exchange(t *gpu.Thread, rg *rankGen) error {
	pairs := []struct{ send, recv any }{{rg.drawn.keys, rg.keys}}
	switch {
	case rg.w32 != nil:
		pairs = append(pairs, struct{ send, recv any }{rg.drawn.w32, rg.w32})
	case rg.w64 != nil:
		pairs = append(pairs, struct{ send, recv any }{rg.drawn.w64, rg.w64})
	}
	for _, p := range pairs {
		send, err := gpu.SpanOf(p.send, 0, -1)
		if err != nil {
			return err
		}
		recv, err := gpu.SpanOf(p.recv, 0, -1)
		if err != nil {
			return err
		}
		if err := x.r.AllToAllV(t, send, rg.send, recv, rg.recv); err != nil {
			return err
		}
	}
	return nil
}

// arcs are arcs on the device: keys (source << scale | target) and the
// weights of the plan's kind (nil buffers where absent).
type arcs struct {
	keys *gpu.Uint64s
	w32  *gpu.Float32s
	w64  *gpu.Float64s
}

// rankGen is one rank's share of a partitioned generation, on its
// device's thread; its methods are the steps of partJob.part, in order.
type rankGen struct {
	*run
	src        partSource
	common     gen.PlanCommon
	rank, size int
	// lo and hi bound the rank's block of the graph's N vertices.
	lo, hi, N int
	// edges is each rank's number of edges; first the edges of the ranks
	// before this one, total the graph's.
	edges        []int64
	first, total int64
	// drawn are the arcs the rank drew, in drawnMem (freed once sent);
	// the embedded arcs are those it received, then its part's.
	drawn    arcs
	drawnMem *gpu.Allocations
	arcs
	// send[k] and recv[k] are the arcs sent to and received from rank k.
	send, recv []int
	// recvAll is each rank's received arcs.
	recvAll []int64
	phases  *PartPhases
	last    time.Time
}

// newRankGen prepares rank's share of job on the device thread t; tmp
// holds its scratch (freed by the caller).
func newRankGen(job *partJob, rank, size int, t *gpu.Thread, tmp *gpu.Allocations, phases *PartPhases) (*rankGen, error) {
	fn, err := kernels.Functions(t.Device(), kernelNames)
	if err != nil {
		return nil, err
	}
	rg := &rankGen{src: job.source(), common: job.common, rank: rank, size: size, N: job.n, phases: phases, drawnMem: tmp.Sub()}
	rg.lo, rg.hi = gpu.Block(job.n, size, rank)
	rg.run = &run{t: t, fn: fn, tmp: tmp, scale: job.scale, n: rg.hi - rg.lo}
	*phases = PartPhases{Rank: rank}
	return rg, nil
}

// lap synchronises the device and adds the time since the last lap to d.
func (rg *rankGen) lap(d *time.Duration) error {
	if err := rg.t.Synchronize(); err != nil {
		return err
	}
	now := time.Now()
	*d += now.Sub(rg.last)
	rg.last = now
	return nil
}

// weightBytes is the size of a weight of the graph.
func (rg *rankGen) weightBytes() int64 { return weightBytes(rg.common.Weights, rg.common.Float64) }

// drawer is the run that draws: its buffers in drawnMem.
func (rg *rankGen) drawer() *run {
	d := *rg.run
	d.tmp = rg.drawnMem
	return &d
}

// tooBig is the refusal of rank k's work for memory, the same on every
// rank: k needs need bytes (of device memory, or more device memory)
// for what it is doing and free are free.
func (rg *rankGen) tooBig(k int, need int64, memory, doing string, free int64) error {
	dev := ""
	if k == rg.rank {
		dev = fmt.Sprintf(" (%v)", rg.t.Device())
	}
	return fmt.Errorf("rank %d%s needs about %s %s %s, %s is free: close device-resident graphs and prepared algorithms you no longer need there, use more GPUs or lower the scale (%w)",
		k, dev, card.Bytes(need), memory, doing, card.Bytes(free), ErrTooBig)
}

// count counts the rank's edges and returns its contribution to the first
// exchange: with S ranks, its free device memory at index rank and its
// edges at S+rank (the others 0).
func (rg *rankGen) count() ([]int64, error) {
	rg.last = time.Now()
	info, err := rg.t.Device().Info()
	if err != nil {
		return nil, err
	}
	edges, err := rg.src.count(rg.drawer(), rg.rank, rg.size)
	if err != nil {
		return nil, err
	}
	vals := make([]int64, 2*rg.size)
	vals[rg.rank] = info.FreeMemory - rg.drawnMem.Bytes()
	vals[rg.size+rg.rank] = edges
	return vals, nil
}

// checkDraw takes the sum of every rank's count and refuses, on every
// rank alike, a generation whose drawing does not fit some rank's device.
func (rg *rankGen) checkDraw(all []int64) (refused error) {
	free := all[:rg.size]
	rg.edges = all[rg.size:]
	wb := rg.weightBytes()
	for k, e := range rg.edges {
		if k < rg.rank {
			rg.first += e
		}
		rg.total += e
		if need := drawBytes(e, wb); need > free[k] {
			return rg.tooBig(k, need, "of device memory", fmt.Sprintf("to draw and sort its %d arcs", 2*e), free[k])
		}
	}
	return nil
}

// draw draws the rank's edges (both arcs of each) and their weights.
func (rg *rankGen) draw() error {
	var err error
	if rg.drawn, err = rg.src.draw(rg.drawer(), rg.first, rg.total); err != nil {
		return err
	}
	rg.phases.Drawn = int64(rg.drawn.keys.Len())
	return rg.lap(&rg.phases.Draw)
}

// allocArcs allocates n arcs with weights of c's kind in mem.
func allocArcs(mem *gpu.Allocations, n int, c gen.PlanCommon) (arcs, error) {
	var a arcs
	var err error
	if a.keys, err = mem.AllocUint64s(n); err != nil {
		return a, err
	}
	switch {
	case c.Weights == gen.NoWeights:
	case c.Float64:
		a.w64, err = mem.AllocFloat64s(n)
	default:
		a.w32, err = mem.AllocFloat32s(n)
	}
	return a, err
}

// sortDrawn sorts the drawn arcs and counts those of each rank's block.
func (rg *rankGen) sortDrawn() error {
	if err := rg.sort(rg.drawn.keys, rg.drawn.w32, rg.drawn.w64); err != nil {
		return err
	}
	bounds, err := rg.drawnMem.AllocInt64s(rg.size + 1)
	if err != nil {
		return err
	}
	n := int64(rg.drawn.keys.Len())
	err = rg.launch(kBounds, int64(rg.size+1), rg.drawn.keys, n, rg.scale, int64(gpu.BlockSize(rg.N, rg.size)), rg.size, bounds)
	if err != nil {
		return err
	}
	b, err := bounds.ToHost()
	if err != nil {
		return err
	}
	rg.send = make([]int, rg.size)
	for k := range rg.size {
		rg.send[k] = int(b[k+1] - b[k])
	}
	return rg.lap(&rg.phases.Sort)
}

// counts is the rank's contribution to the second exchange: with S
// ranks, S·S counts of arcs (from rank s to rank d at s·S+d; the rank
// fills its row) and S free memories (the rank's at S·S+rank).
func (rg *rankGen) counts() ([]int64, error) {
	info, err := rg.t.Device().Info()
	if err != nil {
		return nil, err
	}
	size := rg.size
	vals := make([]int64, size*size+size)
	for k, c := range rg.send {
		vals[rg.rank*size+k] = int64(c)
	}
	vals[size*size+rg.rank] = info.FreeMemory
	return vals, nil
}

// checkCounts takes the sum of every rank's counts: the arcs each rank
// receives from each, and refuses, on every rank alike, a generation
// whose exchange or part does not fit some rank's device; the refusal of
// a rank that receives more than twice its share suggests the vertex
// permutation.
func (rg *rankGen) checkCounts(all []int64) (refused error) {
	size := rg.size
	free := all[size*size:]
	rg.recvAll = make([]int64, size)
	rg.recv = make([]int, size)
	for s := range size {
		for d := range size {
			rg.recvAll[d] += all[s*size+d]
		}
		rg.recv[s] = int(all[s*size+rg.rank])
	}
	wb := rg.weightBytes()
	for k := range size {
		lo, hi := gpu.Block(rg.N, size, k)
		b := rg.recvAll[k]
		if need := receiveBytes(wb, 2*rg.edges[k], b, hi-lo); need > free[k] {
			err := rg.tooBig(k, need, "more device memory", fmt.Sprintf("to receive its %d arcs and build its part", b), free[k])
			if size > 1 && b > 2*(2*rg.total)/int64(size) {
				err = fmt.Errorf("%w; the arcs of vertices %d … %d, %d of the graph's %d, go to rank %d: spread them with gen.PermuteVertices(true)", err, lo, hi-1, b, 2*rg.total, k)
			}
			return err
		}
	}
	return nil
}

// receive allocates the received arcs and exchanges.
func (rg *rankGen) receive(x arcExchanger) error {
	var err error
	rg.phases.Received = rg.recvAll[rg.rank]
	if rg.arcs, err = allocArcs(rg.tmp, int(rg.phases.Received), rg.common); err != nil {
		return err
	}
	if err := x.exchange(rg.t, rg); err != nil {
		return err
	}
	return rg.lap(&rg.phases.Exchange)
}

// freeDrawn frees the drawn arcs, once every rank has received them.
func (rg *rankGen) freeDrawn() error {
	rg.drawn = arcs{}
	return rg.drawnMem.Free()
}

// build sorts the received arcs (runs of sorted arcs, one per sender:
// sorted already when one rank sent them all) and writes the part's CSR.
func (rg *rankGen) build() (*gpu.Part, error) {
	senders := 0
	for _, c := range rg.recv {
		if c > 0 {
			senders++
		}
	}
	if senders > 1 {
		if err := rg.sort(rg.keys, rg.w32, rg.w64); err != nil {
			return nil, err
		}
	}
	if err := rg.lap(&rg.phases.SortReceived); err != nil {
		return nil, err
	}
	a, err := rg.csrArrays(rg.keys, rg.w32, rg.w64, rg.lo, rg.hi-rg.lo)
	if err != nil {
		return nil, err
	}
	part := &gpu.Part{Lo: rg.lo, Hi: rg.hi, Offsets: a.offsets, Adj: a.adj, Weights: a.w32, Weights64: a.w64}
	rg.phases.Kept = int64(a.adj.Len())
	if err := rg.lap(&rg.phases.CSR); err != nil {
		return nil, errors.Join(err, a.free())
	}
	return part, nil
}

// part is rank r's share of the job on its device thread t: its part, or
// a refusal (the same on every rank, the group intact), or an error.
func (job *partJob) part(r *gpu.Rank, t *gpu.Thread, phases *PartPhases) (part *gpu.Part, refused, err error) {
	tmp := gpu.NewAllocations(t.Device())
	defer func() { err = errors.Join(err, tmp.Free()) }()
	rg, err := newRankGen(job, r.Rank(), r.Size(), t, tmp, phases)
	if err != nil {
		return nil, nil, err
	}
	vals, err := rg.count()
	if err != nil {
		return nil, nil, err
	}
	all, err := r.AllReduceInt64(t, vals, nccl.Sum)
	if err != nil {
		return nil, nil, err
	}
	if refused := rg.checkDraw(all); refused != nil {
		return nil, refused, nil
	}
	if err := rg.draw(); err != nil {
		return nil, nil, err
	}
	if err := rg.sortDrawn(); err != nil {
		return nil, nil, err
	}
	if vals, err = rg.counts(); err != nil {
		return nil, nil, err
	}
	if all, err = r.AllReduceInt64(t, vals, nccl.Sum); err != nil {
		return nil, nil, err
	}
	if refused := rg.checkCounts(all); refused != nil {
		return nil, refused, nil
	}
	if err := rg.receive(rankExchanger{r}); err != nil {
		return nil, nil, err
	}
	// AllToAllV returned: every rank has its arcs from this one.
	if err := rg.freeDrawn(); err != nil {
		return nil, nil, err
	}
	part, err = rg.build()
	return part, nil, err
}
