package mst

import (
	_ "embed"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sort"
	"sync/atomic"
	"time"

	"github.com/graphnb/graphnb/algo/internal/prepared"
	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/internal/card"
	"github.com/graphnb/graphnb/internal/par"
	"github.com/graphnb/graphnb/trace"
)

// kernelSource is the CUDA C of the GPU Borůvka, compiled by NVRTC once
// per device (and cached on disk by package gpu).
//
//go:embed boruvka.cu
var kernelSource string

const (
	// blockSize is the threads per block of every kernel (whole warps:
	// the find-minimum kernels use warp collectives).
	blockSize = 256
	// scanBlocksPerSM sizes the grid-stride grid of the warp scan.
	scanBlocksPerSM = 8
	// defaultProbeLen is how many arcs the one-thread-per-vertex probe
	// tests before it hands a segment to the warp scan.
	defaultProbeLen = 4
	// maxRounds guards the round loop: a round that merges trees at least
	// halves them, so 2^31 vertices need at most 31 rounds.
	maxRounds = 64
	// memoryHeadroom is kept free when the cap is the device's free memory.
	memoryHeadroom = 256 << 20
)

// Weight kinds, counter words and trace counts, as boruvka.cu numbers
// them (W_*, CNT_*, TR_*): counterWords int32 words, the trace's four
// uint64 counts from word cntTrace on, each over trSlots slots.
const (
	wNone = 0
	wRank = 1
	wF32  = 2
	wF64  = 3

	cntTrees     = 0
	cntLong      = 1
	cntBad       = 2
	cntTrace     = 4
	trSlots      = 16
	counterWords = cntTrace + 2*4*trSlots

	trProbeArcs  = 0
	trProbeCands = 1
	trScanArcs   = 2
	trScanCands  = 3
)

// noKey marks "no candidate"; noEdgeIdx an arc without an edge index (a
// self-loop), which is why a graph may have at most 2^32−2 edges.
const (
	noKey     = math.MaxUint64
	noEdgeIdx = math.MaxUint32
)

// kernelNames lists every kernel the Go side launches.
func kernelNames() []string {
	return []string{
		"mst_init", "mst_reset",
		"mst_probe_plain", "mst_probe_comp", "mst_scan_plain", "mst_scan_comp",
		"mst_merge_host", "mst_min_edge", "mst_hook", "mst_cycles", "mst_jump",
		"mst_renumber", "mst_relabel",
	}
}

// kernelBuilds are the two builds of boruvka.cu (its "the two builds"
// comment says why): untraced runs launch kernelBuilds.Untraced's
// kernels, which hold no trace code; traced runs (Options.Trace)
// kernelBuilds.Traced's, whose kernels log their spans (gpu.LaunchLog)
// and count the find-minimum step's arcs and candidates.
var kernelBuilds = gpu.NewTracedBuilds("boruvka.cu", kernelSource, "MST_TRACED")

// deviceModule returns boruvka.cu compiled for dev, the traced build if
// traced.
func deviceModule(dev *gpu.Device, traced bool) (*gpu.Module, error) {
	m, err := kernelBuilds.For(dev, traced)
	if err != nil {
		return nil, fmt.Errorf("mst: %w", err)
	}
	return m, nil
}

// kernels are the loaded functions of one build of boruvka.cu, for one
// Prepared (the probe and scan of its id kind).
type kernels struct {
	init, reset, probe, scan, merge, minEdge, hook, cycles, jump, renumber, relabel *gpu.Function
}

// base is the lifecycle Prepared shares with the other algorithms.
type base = prepared.Base

// Prepared is a graph prepared on a device for the GPU Borůvka with one
// set of options: the study's transformations applied (local sort by
// weight, optionally ranks, renumbering and compressed ids), the arrays
// uploaded, the kernels compiled and loaded, the host's share (hybrid or
// beyond the memory cap) kept in host memory. On the host device it only
// holds the graph and the options.
//
// Run may be called many times, from several goroutines (runs are
// serialised); Close frees the device memory. The graph must not change
// while it is prepared.
type Prepared struct {
	base
	mem  *gpu.Allocations // every device resource below
	g    *graph.CSR       // the input (from PrepareResident: nil until the first Run needs it)
	rg   *gpu.Graph       // the resident input of PrepareResident (nil from Prepare)
	arcs int64            // the input's arcs
	opts Options

	hostTime time.Duration // host's share of the last run (base's lock)
	// Traced runs (Options.Trace): the launch log (its ring reused from
	// run to run; every kernel logs its span, gpu/launchlog.cuh), and
	// during a run the round its launches belong to (base's lock).
	launchLog *gpu.LaunchLog
	tracing   bool
	round     int

	// The edge numbering: g0 is g with its lists sorted by id; the edges
	// of vertex a to larger ids are arcs upper[a]..Offsets[a+1] of g0 and
	// have the indices at[a]..at[a+1].
	g0        *graph.CSR
	upper, at []int64
	n         int
	edges     int64

	wkind      int
	compressed bool
	noCompress string                  // why compression was asked for but not applied
	hostFrom   int                     // vertices [hostFrom, n) are the host's
	compLo     int                     // the host reads the labels of vertices [compLo, n)
	sufMin     []int32                 // sufMin[v]: the lowest label vertices v.. read (read through sufMinAt)
	sufMinLoad func() ([]int32, error) // makes sufMin on demand (PrepareResident), else nil
	sufMinErr  error                   // sufMinLoad's error
	probeLen   int
	scanGrid   int

	// The host's share: vertices hostFrom.., their arcs with relative
	// offsets hOff, weight keys (hW32: rank or float bits, packed keys;
	// hW64: double bits, split keys) and edge indices.
	hOff  []int64
	hAdj  []int32
	hW32  []uint32
	hW64  []uint64
	hEidx []uint32
	hCur  []int64
	hComp []int32 // labels of vertices compLo..n-1
	hK    []uint64
	hE    []uint32
	hTo   []int32

	// Device arrays (nil on the host).
	dOff           *gpu.Int64s
	dAdj           *gpu.Int32s
	dBase          *gpu.Uint32s
	dLo, dHi       *gpu.Uint8s
	dW32           *gpu.Uint32s
	dWf            *gpu.Float32s
	dWd            *gpu.Float64s
	dEidx          *gpu.Uint32s
	comp, compTail *gpu.Int32s
	cur            *gpu.Uint32s
	candK          *gpu.Uint64s
	candE          *gpu.Uint32s
	candTo, long   *gpu.Int32s
	best           *gpu.Uint64s
	bestE          *gpu.Uint32s
	parent, newID  *gpu.Int32s
	inForest       *gpu.Uint32s
	counters       *gpu.Int32s
	dHK            *gpu.Uint64s
	dHE            *gpu.Uint32s
	dHTo           *gpu.Int32s
	stream         *gpu.Stream
	// The kernels of boruvka.cu's two builds, loaded when first needed
	// (builds[0] untraced, builds[1] traced: nil until then), and those
	// of the run in progress or the last one (base's lock).
	builds [2]*kernels
	k      *kernels
}

// checkInput returns an error for a graph or options no variant can take:
// no graph, a directed graph, a CPU share outside [0, 1], a negative
// memory cap. The host device applies the same rules.
func checkInput(g *graph.CSR, o Options) error {
	if g == nil || len(g.Offsets) == 0 {
		return errors.New("mst: no graph (nil or without offsets)")
	}
	if g.Directed {
		return errDirected
	}
	return o.check()
}

// errDirected is the error for a directed input.
var errDirected = errors.New("mst: the GPU Borůvka needs an undirected graph but this one is directed: symmetrize it first " +
	"(g.Undirected(), or graph.Build with BuildOptions{Symmetrize: true})")

// Prepare readies g on dev for Run with the options o (the zero Options:
// the plain GPU algorithm).
//
// On a GPU it sorts each neighbour list by id if needed (a graph from
// graph.Build already is), numbers the undirected edges by (smaller end,
// larger end), renumbers the vertices (Renumber), sorts every list by
// (weight, edge number) (graph.SortByWeight, ties put in edge order),
// ranks the weights (WeightRanks), compresses the ids where it can
// (Compress), splits the vertices between the GPU and the host (Hybrid,
// MemoryCap), uploads the GPU's part and allocates the working arrays,
// and compiles the kernels (once per device and process). PrepTime
// reports all of it; Bytes the device memory held.
//
// On the host device (dev.IsHost()) nothing is prepared: Run computes the
// forest with the CPU's Boruvka (the same algorithm), so a notebook runs
// unchanged without a GPU.
//
// It returns an error for a nil device or graph, a directed graph, bad
// options, and on a GPU for a graph whose arcs are not symmetric (an arc
// without its reverse, or of another weight), that repeats an arc, has a
// NaN weight or 2^32−1 edges or more, for arrays that do not fit under
// the memory cap even with every neighbour list on the host (wrapping
// gpu.ErrOutOfMemory), a compile error or a device error.
func Prepare(dev *gpu.Device, g *graph.CSR, o Options) (*Prepared, error) {
	if dev == nil {
		return nil, errors.New("mst: Prepare: nil device (use gpu.Default())")
	}
	start := time.Now()
	if err := checkInput(g, o); err != nil {
		return nil, err
	}
	p := newPrepared(dev, g, o)
	if !dev.IsHost() {
		if err := p.prepareDevice(); err != nil {
			_ = p.mem.Free()
			return nil, fmt.Errorf("mst: preparing gpu Borůvka (%s) on %v: %w", p.Label(), dev, err)
		}
	}
	prepared.Done(&p.base, start)
	return p, nil
}

// newPrepared returns g with options o on dev, before the preparation.
func newPrepared(dev *gpu.Device, g *graph.CSR, o Options) *Prepared {
	p := &Prepared{g: g, opts: o, n: g.NumVertices(), arcs: g.NumArcs(), probeLen: defaultProbeLen}
	p.mem = prepared.Init(&p.base, "mst", o.Label(), dev)
	return p
}

// transformed is the host side of a preparation: the graph with its
// lists sorted by (weight, edge index) in the ids the device uses, the
// weight ranks (WeightRanks), the edge index of every arc, and the
// compressed ids (nil unless Compress applies).
type transformed struct {
	gs     *graph.CSR
	ranks  []uint32
	eidx   []uint32
	packed *graph.CompressedAdj
}

// prepareDevice is Prepare on a GPU.
func (p *Prepared) prepareDevice() error {
	tr, err := p.transform()
	if err != nil {
		return err
	}
	return p.upload(tr)
}

// transform applies the study's input transformations on the host (see
// Prepare) and sets the edge numbering, the weight kind and whether the
// ids are compressed. It returns cancel's error when interrupted: its
// parallel loops stop early then, and SortByWeight panics.
func (p *Prepared) transform() (_ *transformed, err error) {
	defer cancel.Recover(&err)
	g0, err := sortedByID(p.g)
	if err != nil {
		return nil, err
	}
	p.g0 = g0
	if p.upper, p.at, err = upperArcs(g0); err != nil {
		return nil, err
	}
	n := p.n
	p.edges = p.at[n]
	if p.edges >= noEdgeIdx {
		return nil, fmt.Errorf("%d edges exceed the 32-bit edge index (at most %d); use Kruskal", p.edges, int64(noEdgeIdx)-1)
	}
	g1, oldID := g0, []int32(nil)
	if p.opts.Renumber {
		var newID []int32
		if newID, oldID, err = graph.RCMOrder(g0); err != nil {
			return nil, err
		}
		if g1, err = g0.Renumber(newID); err != nil {
			return nil, err
		}
	}
	if err := cancel.Check(); err != nil {
		return nil, err
	}
	tr := &transformed{gs: g1.SortByWeight()}
	gs := tr.gs
	if tr.eidx, err = p.edgeIndex(gs, oldID); err != nil {
		return nil, err
	}
	orderTies(gs, tr.eidx)
	if err := cancel.Check(); err != nil {
		return nil, err
	}
	switch {
	case !gs.Weighted():
		p.wkind = wNone
	case p.opts.WeightRanks:
		if tr.ranks, err = gs.WeightRanks(); err != nil {
			return nil, err
		}
		p.wkind = wRank
	case gs.Weights != nil:
		p.wkind = wF32
	default:
		p.wkind = wF64
	}
	p.sufMin = suffixMinNeighbour(gs)
	if p.opts.Compress {
		if tr.packed, err = graph.Compress(gs); errors.Is(err, cancel.ErrInterrupted) {
			return nil, err
		} else if err != nil {
			p.noCompress = "ids not compressed: a neighbour list spans " + fmt.Sprint(graph.CompressSpan) + " ids or more"
			tr.packed = nil
		}
		p.compressed = tr.packed != nil
	}
	if err := cancel.Check(); err != nil { // a loop above stopped early
		return nil, err
	}
	return tr, nil
}

// upload plans the split between the GPU and the host, compiles the
// kernels, uploads the GPU's part and allocates the working arrays.
func (p *Prepared) upload(tr *transformed) error {
	gs, ranks, eidx, packed := tr.gs, tr.ranks, tr.eidx, tr.packed
	if err := p.plan(gs.Offsets); err != nil {
		return err
	}
	ng := p.hostFrom
	arcsG := gs.Offsets[ng]

	// Kernels first: a compile error should not wait for the uploads.
	if err := p.loadKernels(); err != nil {
		return err
	}

	// The GPU's vertices and arcs.
	d := p.mem
	var err error
	if p.dOff, err = d.Int64sFrom(gs.Offsets[:ng+1]); err != nil {
		return err
	}
	if p.compressed {
		if p.dBase, err = d.Uint32sFrom(packed.Base[:ng]); err != nil {
			return err
		}
		if p.dLo, err = d.Uint8sFrom(packed.Low[:arcsG]); err != nil {
			return err
		}
		if p.dHi, err = d.Uint8sFrom(packed.High[:(arcsG+3)/4]); err != nil {
			return err
		}
	} else if p.dAdj, err = d.Int32sFrom(gs.Adj[:arcsG]); err != nil {
		return err
	}
	switch p.wkind {
	case wRank:
		p.dW32, err = d.Uint32sFrom(ranks[:arcsG])
	case wF32:
		p.dWf, err = d.Float32sFrom(gs.Weights[:arcsG])
	case wF64:
		p.dWd, err = d.Float64sFrom(gs.Weights64[:arcsG])
	}
	if err != nil {
		return err
	}
	if p.dEidx, err = d.Uint32sFrom(eidx[:arcsG]); err != nil {
		return err
	}
	if err := p.allocWork(); err != nil {
		return err
	}

	// The host's vertices and arcs.
	if p.n > ng {
		p.hostShare(gs, ranks, eidx)
	}
	return cancel.Check() // hostShare stops early when interrupted
}

// loadKernels compiles the build of boruvka.cu the prepared options run
// (once per device and process) and loads its kernels; the other build
// is loaded on the first run that needs it (a Prepared whose options
// change between runs: BenchmarkGPUTrace).
func (p *Prepared) loadKernels() error {
	k, err := p.kernelsFor(p.opts.Trace)
	if err != nil {
		return err
	}
	p.k = k
	sms := 0
	if info, err := p.Device().Info(); err == nil {
		sms = info.SMs
	}
	if sms <= 0 {
		sms = 132
	}
	p.scanGrid = sms * scanBlocksPerSM
	return nil
}

// kernelsFor returns the kernels of the traced or the untraced build,
// compiling and loading them on first use.
func (p *Prepared) kernelsFor(traced bool) (*kernels, error) {
	b := 0
	if traced {
		b = 1
	}
	if p.builds[b] != nil {
		return p.builds[b], nil
	}
	mod, err := deviceModule(p.Device(), traced)
	if err != nil {
		return nil, err
	}
	adjKind := "plain"
	if p.compressed {
		adjKind = "comp"
	}
	k := &kernels{}
	for _, f := range []struct {
		dst  **gpu.Function
		name string
	}{
		{&k.init, "mst_init"}, {&k.reset, "mst_reset"},
		{&k.probe, "mst_probe_" + adjKind}, {&k.scan, "mst_scan_" + adjKind},
		{&k.merge, "mst_merge_host"}, {&k.minEdge, "mst_min_edge"}, {&k.hook, "mst_hook"},
		{&k.cycles, "mst_cycles"}, {&k.jump, "mst_jump"}, {&k.renumber, "mst_renumber"},
		{&k.relabel, "mst_relabel"},
	} {
		if *f.dst, err = mod.Function(f.name); err != nil {
			return nil, err
		}
	}
	p.builds[b] = k
	return k, nil
}

// allocWork allocates the working arrays of the rounds (after plan).
func (p *Prepared) allocWork() error {
	d, n, ng := p.mem, p.n, p.hostFrom
	split := p.split()
	h := n - ng
	allocs := []func() error{
		func() (err error) { p.comp, err = d.AllocInt32s(n); return },
		func() (err error) { p.cur, err = d.AllocUint32s(ng); return },
		func() (err error) { p.candK, err = d.AllocUint64s(ng); return },
		func() (err error) { p.candTo, err = d.AllocInt32s(ng); return },
		func() (err error) { p.long, err = d.AllocInt32s(ng); return },
		func() (err error) { p.best, err = d.AllocUint64s(n); return },
		func() (err error) { p.parent, err = d.AllocInt32s(n); return },
		func() (err error) { p.newID, err = d.AllocInt32s(n); return },
		func() (err error) { p.inForest, err = d.AllocUint32s(int((p.edges + 31) / 32)); return },
		func() (err error) { p.counters, err = d.AllocInt32s(counterWords); return },
	}
	if split {
		allocs = append(allocs,
			func() (err error) { p.candE, err = d.AllocUint32s(ng); return },
			func() (err error) { p.bestE, err = d.AllocUint32s(n); return })
	}
	if h > 0 {
		allocs = append(allocs,
			func() (err error) { p.dHK, err = d.AllocUint64s(h); return },
			func() (err error) { p.dHTo, err = d.AllocInt32s(h); return },
			func() (err error) { p.compTail, err = d.AllocInt32s(n - int(p.sufMinAt(ng))); return },
			func() (err error) { p.stream, err = d.NewStream(); return })
		if split {
			allocs = append(allocs, func() (err error) { p.dHE, err = d.AllocUint32s(h); return })
		}
	}
	for _, f := range allocs {
		if err := f(); err != nil {
			return err
		}
	}
	return nil
}

// split reports whether candidate keys are split (double weights compared
// as they are): the weight's bits and the edge index do not fit one word.
func (p *Prepared) split() bool { return p.wkind == wF64 }

// weightBytes is the device bytes per arc of the weight keys.
func (p *Prepared) weightBytes() int64 {
	switch p.wkind {
	case wRank, wF32:
		return 4
	case wF64:
		return 8
	}
	return 0
}

// deviceBytes is the device memory the arrays take when the first ng of
// the n vertices, with arcs arcs, are the GPU's.
func (p *Prepared) deviceBytes(ng int, arcs int64) int64 {
	n, h := int64(p.n), int64(p.n-ng)
	g := int64(ng)
	b := 4*n + 16*n + (p.edges+31)/32*4 + 4*counterWords // comp; best, parent, newID; bitmap; counters
	b += 8*(g+1) + 20*g                                  // offsets; cur, candK, candTo, long list
	if h > 0 {
		b += 12*h + 4*(n-int64(p.sufMinAt(ng))) // host candidates (key, tree); labels it reads
	}
	if p.split() {
		b += 4*n + 4*g + 4*h // bestE, candE, hE
	}
	if p.compressed {
		b += 4*g + arcs + (arcs+3)/4
	} else {
		b += 4 * arcs
	}
	return b + (p.weightBytes()+4)*arcs // weight keys, edge indices
}

// sufMinAt returns sufMin[v] (0 ≤ v ≤ n). Without sufMin (PrepareResident
// makes it on demand), entries 0 (always 0: vertex 0 reads label 0) and n
// (n) are answered as they are and any other makes sufMin with sufMinLoad
// first (0 returned on an error, kept in sufMinErr).
func (p *Prepared) sufMinAt(v int) int32 {
	if p.sufMin != nil {
		return p.sufMin[v]
	}
	switch {
	case v >= p.n:
		return int32(p.n)
	case v <= 0:
		return 0
	}
	if p.loadSufMin() != nil {
		return 0
	}
	return p.sufMin[v]
}

// loadSufMin makes sufMin with sufMinLoad unless it is made, recording
// and returning the error.
func (p *Prepared) loadSufMin() error {
	if p.sufMin != nil || p.sufMinErr != nil {
		return p.sufMinErr
	}
	if p.sufMinLoad == nil {
		return errors.New("mst: internal error: no suffix minimum and no way to make it")
	}
	p.sufMin, p.sufMinErr = p.sufMinLoad()
	return p.sufMinErr
}

// plan sets hostFrom: the hybrid split (the vertex boundary nearest to
// where the host's last CPUShare of the arcs begins), lowered until the
// device arrays fit under the memory cap; off are the prepared offsets.
func (p *Prepared) plan(off []int64) error {
	return p.planAt(func(v int) int64 { return off[v] })
}

// planAt is plan with the offsets read through off, which it calls for
// off(n) only unless there is a hybrid share or the arrays do not fit.
func (p *Prepared) planAt(off func(v int) int64) error {
	n := p.n
	arcs := off(n)
	from := n
	if share := p.opts.share(); share >= 1 {
		from = 0
	} else if share > 0 {
		// The vertex boundary nearest to the GPU's share of the arcs.
		target := int64(math.Round((1 - share) * float64(arcs)))
		from = sort.Search(n+1, func(v int) bool { return off(v) >= target })
		if from > 0 && target-off(from-1) < off(from)-target {
			from--
		}
	}
	limit := p.opts.MemoryCap
	if limit == 0 {
		info, err := p.Device().Info()
		if err != nil {
			return err
		}
		limit = max(info.FreeMemory-memoryHeadroom, 0)
	}
	if need := p.deviceBytes(0, 0); need > limit {
		return fmt.Errorf("%w: the per-vertex arrays of %d vertices need %s of device memory, over the %s cap "+
			"(even with every neighbour list on the host); free device memory or raise MemoryCap",
			gpu.ErrOutOfMemory, n, card.Bytes(need), card.Bytes(limit))
	}
	// The largest ng ≤ from whose arrays fit. (Not a binary search: the
	// labels the host reads can shrink as ng grows.)
	ng := from
	for ng > 0 && p.deviceBytes(ng, off(ng)) > limit {
		ng--
	}
	p.hostFrom = ng
	return nil
}

// hostShare keeps the host's vertices' arcs, weight keys and edge
// indices (copies, so the full arrays can go) and its working arrays.
func (p *Prepared) hostShare(gs *graph.CSR, ranks, eidx []uint32) {
	n, from := p.n, p.hostFrom
	h := n - from
	a0 := gs.Offsets[from]
	p.hOff = make([]int64, h+1)
	for i := range p.hOff {
		p.hOff[i] = gs.Offsets[from+i] - a0
	}
	p.hAdj = slices.Clone(gs.Adj[a0:])
	p.hEidx = slices.Clone(eidx[a0:])
	m := len(p.hAdj)
	switch p.wkind {
	case wRank:
		p.hW32 = slices.Clone(ranks[a0:])
	case wF32:
		p.hW32 = make([]uint32, m)
		par.For(m, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				p.hW32[i] = ordered32(gs.Weights[a0+int64(i)])
			}
		})
	case wF64:
		p.hW64 = make([]uint64, m)
		par.For(m, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				p.hW64[i] = ordered64(gs.Weights64[a0+int64(i)])
			}
		})
	}
	p.hCur = make([]int64, h)
	p.compLo = int(p.sufMinAt(from))
	p.hComp = make([]int32, n-p.compLo)
	p.hK = make([]uint64, h)
	p.hTo = make([]int32, h)
	if p.split() {
		p.hE = make([]uint32, h)
	}
}

// ordered32 maps a float32 to bits whose unsigned order is the numeric
// order, −0 and +0 alike (boruvka.cu's ordered_f32).
func ordered32(w float32) uint32 {
	b := math.Float32bits(w)
	if w == 0 {
		b = 0
	}
	if b>>31 != 0 {
		return ^b
	}
	return b | 1<<31
}

// ordered64 is ordered32 for float64 (boruvka.cu's ordered_f64).
func ordered64(w float64) uint64 {
	b := math.Float64bits(w)
	if w == 0 {
		b = 0
	}
	if b>>63 != 0 {
		return ^b
	}
	return b | 1<<63
}

// suffixMinNeighbour returns s with s[v] the smallest of v, ..., n-1 and
// their neighbours (s[n] = n): the host, given vertices v.., reads the
// labels of vertices s[v]...
func suffixMinNeighbour(g *graph.CSR) []int32 {
	n := g.NumVertices()
	s := make([]int32, n+1)
	par.ForWeighted(g.Offsets, func(lo, hi int) {
		for v := lo; v < hi; v++ {
			m := int32(v)
			for _, x := range g.Adj[g.Offsets[v]:g.Offsets[v+1]] {
				m = min(m, x)
			}
			s[v] = m
		}
	})
	s[n] = int32(n)
	for v := n - 1; v >= 0; v-- {
		s[v] = min(s[v], s[v+1])
	}
	return s
}

// sortedByID returns g when every neighbour list is strictly increasing
// (as graph.Build makes them), else a copy with the lists sorted by id. A
// repeated arc is an error.
func sortedByID(g *graph.CSR) (*graph.CSR, error) {
	var unsorted atomic.Bool
	dup := atomic.Int64{}
	dup.Store(math.MaxInt64)
	scan := func(g *graph.CSR) error {
		return par.ForWeighted(g.Offsets, func(lo, hi int) {
			for v := lo; v < hi; v++ {
				nb := g.Adj[g.Offsets[v]:g.Offsets[v+1]]
				for i := 1; i < len(nb); i++ {
					switch {
					case nb[i] == nb[i-1]:
						atomicMinInt64(&dup, int64(v))
					case nb[i] < nb[i-1]:
						unsorted.Store(true)
					}
				}
			}
		})
	}
	if err := scan(g); err != nil {
		return nil, err
	}
	if dup.Load() == math.MaxInt64 && !unsorted.Load() {
		return g, nil
	}
	if dup.Load() == math.MaxInt64 {
		id := make([]int32, g.NumVertices())
		for i := range id {
			id[i] = int32(i)
		}
		s, err := g.Renumber(id) // sorts every list by id
		if err != nil {
			return nil, err
		}
		unsorted.Store(false)
		if err := scan(s); err != nil {
			return nil, err
		}
		if dup.Load() == math.MaxInt64 {
			return s, nil
		}
		g = s
	}
	v := int32(dup.Load())
	nb := slices.Clone(g.Neighbors(v))
	slices.Sort(nb)
	for i := 1; i < len(nb); i++ {
		if nb[i] == nb[i-1] {
			return nil, fmt.Errorf("vertex %d has the arc to %d twice: merge repeated arcs first (graph.Build keeps the lightest)", v, nb[i])
		}
	}
	return nil, fmt.Errorf("vertex %d repeats an arc: merge repeated arcs first (graph.Build keeps the lightest)", v)
}

// atomicMinInt64 lowers *x to v if v is smaller.
func atomicMinInt64(x *atomic.Int64, v int64) {
	for {
		old := x.Load()
		if v >= old || x.CompareAndSwap(old, v) {
			return
		}
	}
}

// upperArcs returns, for each vertex a of g (lists sorted by id), the
// index of its first arc to a larger id, and the prefix sums at of the
// numbers of such arcs: edge {a, b}, a < b, has the index at[a] + its
// position among a's arcs to larger ids (the order of
// graph.CSR.UndirectedCOO); cancel's error when interrupted.
func upperArcs(g *graph.CSR) (upper, at []int64, err error) {
	n := g.NumVertices()
	upper = make([]int64, n)
	at = make([]int64, n+1)
	err = par.For(n, func(lo, hi int) {
		for a := lo; a < hi; a++ {
			nb := g.Adj[g.Offsets[a]:g.Offsets[a+1]]
			j, _ := slices.BinarySearch(nb, int32(a)+1)
			upper[a] = g.Offsets[a] + int64(j)
			at[a+1] = int64(len(nb) - j)
		}
	})
	if err != nil {
		return nil, nil, err
	}
	for a := 0; a < n; a++ {
		at[a+1] += at[a]
	}
	return upper, at, nil
}

// edgeIndex returns the edge index of every arc of gs (the graph with
// lists sorted by weight, in new ids when oldID is not nil), noEdgeIdx
// for self-loops. It checks on the way that every arc has its reverse
// with the same weight and that no weight is NaN.
func (p *Prepared) edgeIndex(gs *graph.CSR, oldID []int32) ([]uint32, error) {
	g0, upper, at := p.g0, p.upper, p.at
	orig := func(v int32) int32 { return v }
	if oldID != nil {
		orig = func(v int32) int32 { return oldID[v] }
	}
	eidx := make([]uint32, len(gs.Adj))
	var lower atomic.Int64
	bad := atomic.Int64{} // first vertex of gs with a problem
	bad.Store(math.MaxInt64)
	err := par.ForWeighted(gs.Offsets, func(lo, hi int) {
		var low int64
		for x := lo; x < hi; x++ {
			u := orig(int32(x))
			for k := gs.Offsets[x]; k < gs.Offsets[x+1]; k++ {
				v := orig(gs.Adj[k])
				if u == v {
					eidx[k] = noEdgeIdx
					continue
				}
				a, b := min(u, v), max(u, v)
				nb := g0.Adj[upper[a]:g0.Offsets[a+1]]
				j, ok := slices.BinarySearch(nb, b)
				w := gs.ArcWeight(k)
				if !ok || w != w || g0.ArcWeight(upper[a]+int64(j)) != w {
					atomicMinInt64(&bad, int64(x))
					break
				}
				if u > v {
					low++
				}
				eidx[k] = uint32(at[a] + int64(j))
			}
		}
		lower.Add(low)
	})
	if err != nil {
		return nil, err
	}
	if x := bad.Load(); x != math.MaxInt64 {
		return nil, arcError(gs, g0, int32(x), orig, upper)
	}
	if lower.Load() != p.edges {
		return nil, asymmetryError(g0, upper)
	}
	return eidx, nil
}

// arcError names the problem of vertex x of gs found by edgeIndex.
func arcError(gs, g0 *graph.CSR, x int32, orig func(int32) int32, upper []int64) error {
	u := orig(x)
	for k := gs.Offsets[x]; k < gs.Offsets[x+1]; k++ {
		v := orig(gs.Adj[k])
		if u == v {
			continue
		}
		w := gs.ArcWeight(k)
		if w != w {
			return fmt.Errorf("the arc %d→%d has a NaN weight", u, v)
		}
		a, b := min(u, v), max(u, v)
		nb := g0.Adj[upper[a]:g0.Offsets[a+1]]
		j, ok := slices.BinarySearch(nb, b)
		if !ok {
			return fmt.Errorf("the arc %d→%d has no reverse arc %d→%d: the graph is not symmetric (build it with graph.Build and BuildOptions{Symmetrize: true})", u, v, v, u)
		}
		if w2 := g0.ArcWeight(upper[a] + int64(j)); w2 != w {
			return fmt.Errorf("the arc %d→%d weighs %g but its reverse weighs %g: the graph is not symmetric (build it with graph.Build and BuildOptions{Symmetrize: true})", u, v, w, w2)
		}
	}
	return fmt.Errorf("vertex %d: an arc without a matching reverse (internal error)", u)
}

// asymmetryError names an arc a→b (a < b) of g0 without its reverse.
func asymmetryError(g0 *graph.CSR, upper []int64) error {
	for a := range upper {
		for k := upper[a]; k < g0.Offsets[a+1]; k++ {
			b := g0.Adj[k]
			lowerB := g0.Adj[g0.Offsets[b]:upper[b]]
			if _, ok := slices.BinarySearch(lowerB, int32(a)); !ok {
				return fmt.Errorf("the arc %d→%d has no reverse arc %d→%d: the graph is not symmetric (build it with graph.Build and BuildOptions{Symmetrize: true})", a, b, b, a)
			}
		}
	}
	return errors.New("the arcs are not symmetric (internal error: no arc without a reverse found)")
}

// orderTies puts every run of equal weights of gs's lists in increasing
// edge index, so that each list is sorted by (weight, edge index), the
// order of the candidate keys. graph.SortByWeight already orders ties by
// neighbour id, which is the edge order in the input's ids; after
// renumbering it is not.
func orderTies(gs *graph.CSR, eidx []uint32) {
	type arc struct {
		e   uint32
		v   int32
		w   float32
		w64 float64
	}
	par.ForWeighted(gs.Offsets, func(lo, hi int) {
		var buf []arc
		for x := lo; x < hi; x++ {
			end := gs.Offsets[x+1]
			for s := gs.Offsets[x]; s < end; {
				t := s + 1
				sorted := true
				for t < end && gs.ArcWeight(t) == gs.ArcWeight(s) {
					if eidx[t] < eidx[t-1] {
						sorted = false
					}
					t++
				}
				if !sorted {
					buf = buf[:0]
					for k := s; k < t; k++ {
						a := arc{e: eidx[k], v: gs.Adj[k]}
						if gs.Weights != nil {
							a.w = gs.Weights[k]
						}
						if gs.Weights64 != nil {
							a.w64 = gs.Weights64[k]
						}
						buf = append(buf, a)
					}
					slices.SortFunc(buf, func(a, b arc) int { return int(int64(a.e) - int64(b.e)) })
					for i, a := range buf {
						k := s + int64(i)
						eidx[k], gs.Adj[k] = a.e, a.v
						if gs.Weights != nil {
							gs.Weights[k] = a.w
						}
						if gs.Weights64 != nil {
							gs.Weights64[k] = a.w64
						}
					}
				}
				s = t
			}
		}
	})
}

// Close frees the device memory; later Runs fail. Close is idempotent
// and accepts a nil Prepared.
func (p *Prepared) Close() error {
	if p == nil {
		return nil
	}
	err := p.base.Close()
	return errors.Join(err, p.launchLog.Close())
}

// Options returns the options the graph was prepared with.
func (p *Prepared) Options() Options { return p.opts }

// Graph returns the prepared graph.
//
// After PrepareResident it is the resident graph's host copy
// (gpu.Graph.Host), made on the first call that needs it; nil when that
// copy fails.
func (p *Prepared) Graph() *graph.CSR {
	if p.rg != nil {
		g, err := p.rg.Host()
		if err != nil {
			return nil
		}
		return g
	}
	return p.g
}

// Compressed reports whether the neighbour ids are stored compressed on
// the device (Compress on and every list within graph.CompressSpan ids).
func (p *Prepared) Compressed() bool { return p.compressed }

// HostVertices returns how many vertices the host handles in the
// find-minimum step (hybrid mode, or beyond the memory cap); 0 on the
// host device, where the host does everything.
func (p *Prepared) HostVertices() int {
	if p.Device().IsHost() {
		return 0
	}
	return p.n - p.hostFrom
}

// HostTime returns the time the last Run spent on the host's share of the
// find-minimum step (copying the tree labels, scanning, uploading the
// candidates), summed over rounds; in hybrid mode the GPU's kernels run
// meanwhile. Zero without a host share.
func (p *Prepared) HostTime() time.Duration {
	prepared.Lock(&p.base)
	defer prepared.Unlock(&p.base)
	return p.hostTime
}

// String describes the prepared graph in one line.
func (p *Prepared) String() string {
	s := fmt.Sprintf("mst: %s prepared on %v: %d vertices, %d arcs, %s on the device, prepared in %v",
		p.Label(), p.Device(), p.n, p.arcs, card.Bytes(p.Bytes()), p.PrepTime().Round(time.Microsecond))
	if hv := p.HostVertices(); hv > 0 {
		s += fmt.Sprintf(", %d vertices on the host", hv)
	}
	if p.noCompress != "" {
		s += ", " + p.noCompress
	}
	return s
}

// notes is what Result.Algorithm adds to the label: ids left
// uncompressed, vertices on the host beyond the hybrid share.
func (p *Prepared) notes() string {
	s := ""
	if p.noCompress != "" {
		s += "; " + p.noCompress
	}
	if hv := p.n - p.hostFrom; hv > 0 {
		s += fmt.Sprintf("; %d of %d vertices found their minimum on the host", hv, p.n)
	}
	return s
}

// Run computes the minimum spanning forest of the prepared graph.
//
// Result.Algorithm is "gpu Borůvka (" + Label() + ")", with notes when
// compression did not apply or vertices were left to the host. Time is
// the GPU time of the rounds, measured with CUDA events (host round trips
// and, in hybrid mode, the host's share and its copies included).
// PrepTime is 0: nothing is prepared per run, and the preparation, spent
// once, is PrepTime() (on the host device PrepTime is Boruvka's own
// per-run edge ranking and rank-sorted lists). Iterations counts the
// rounds that merged trees, as Boruvka does (without renumbering the two
// take the same rounds). Edges are sorted by (W, U, V) and equal Kruskal's exactly:
// every variant orders edges by (weight, smaller end, larger end) in the
// input's ids. Edges are collected after the timed part.
//
// It returns an error for a closed Prepared, a device error, an internal
// inconsistency found on the way (a round that merged no trees yet added
// edges, or a forest whose size disagrees with the tree count: please
// report those), or cancellation (every launch polls cancel.Check; the
// error matches cancel.ErrInterrupted).
func (p *Prepared) Run() (*Result, error) {
	prepared.Lock(&p.base)
	defer prepared.Unlock(&p.base)
	if err := prepared.Open(&p.base); err != nil {
		return nil, err
	}
	if err := cancel.Check(); err != nil {
		return nil, fmt.Errorf("mst: %w", err)
	}
	if p.Device().IsHost() {
		return p.runHost()
	}
	r := &Result{Algorithm: "gpu Borůvka (" + p.Label() + ")" + p.notes()}
	if err := p.rounds(r); err != nil {
		return nil, fmt.Errorf("mst: %s: %w", r.Algorithm, err)
	}
	r.finishCounts(p.arcs/2, p.arcs)
	return r, nil
}

// runHost is Run on the host device: the CPU's Boruvka, its PrepTime
// its own per-run preparation (PrepTime() is not added).
func (p *Prepared) runHost() (*Result, error) {
	r, err := boruvka(p.g, p.opts.Trace)
	if err != nil {
		return nil, err
	}
	r.Algorithm += "; host device standing in for gpu Borůvka (" + p.Label() + ")"
	if r.Trace != nil {
		r.Trace.Algorithm = r.Algorithm
	}
	return r, nil
}

// launch launches f on stream s (nil: the default stream) with blocks of
// blockSize threads, logged in a traced run (every kernel of both builds
// of boruvka.cu takes the log's two entries last: NULL untraced, where
// the untraced build ignores them).
func (p *Prepared) launch(t *gpu.Thread, s *gpu.Stream, f *gpu.Function, grid gpu.Dim, args ...any) error {
	return p.activeLog().LaunchOn(t, s, p.round, f, grid, gpu.D1(blockSize), 0, args...)
}

// launchOpen is launch for a kernel on the default stream that the next
// logged launch follows at once on the same stream (gpu.LaunchLog's
// LaunchOpen): traced, it logs its start only, and its time runs to the
// next launch's start. The launches before host work or a copy (init,
// relabel), and those of a round with a host share (its own stream runs
// beside the host), log their ends: a launch's end stamps, a barrier and
// an atomic on every block's way out, cost a traced run about a point at
// R-MAT scale 20 (H100).
func (p *Prepared) launchOpen(t *gpu.Thread, f *gpu.Function, grid gpu.Dim, args ...any) error {
	return p.activeLog().LaunchOpen(t, nil, p.round, f, grid, gpu.D1(blockSize), 0, args...)
}

// launchDefault is launchOpen when open, else launch on the default
// stream.
func (p *Prepared) launchDefault(t *gpu.Thread, open bool, f *gpu.Function, grid gpu.Dim, args ...any) error {
	if open {
		return p.launchOpen(t, f, grid, args...)
	}
	return p.launch(t, nil, f, grid, args...)
}

// activeLog is the launch log in a traced run, nil (launches unlogged)
// otherwise.
func (p *Prepared) activeLog() *gpu.LaunchLog {
	if !p.tracing {
		return nil
	}
	return p.launchLog
}

// tracedArg is the find-minimum kernels' trace argument: in a traced
// run the address of the trace counts in the counter words, a null
// pointer otherwise (the untraced build ignores it).
func (p *Prepared) tracedArg() any {
	if p.tracing {
		return p.counters.Ptr() + 4*cntTrace
	}
	return uint64(0)
}

// traceCount is trace count i (trProbeArcs, …) of the counter words
// cnt, as the kernels add to it: the sum of its trSlots slots, each a
// uint64 over two int32 words, the low one first.
func traceCount(cnt []int32, i int) int64 {
	var sum uint64
	for s := range trSlots {
		w := cntTrace + 2*(i*trSlots+s)
		sum += uint64(uint32(cnt[w])) | uint64(uint32(cnt[w+1]))<<32
	}
	return int64(sum)
}

// wArg is the weight keys as a kernel argument (NULL when unweighted).
func (p *Prepared) wArg() any {
	switch {
	case p.dW32 != nil:
		return p.dW32
	case p.dWf != nil:
		return p.dWf
	case p.dWd != nil:
		return p.dWd
	}
	return (*gpu.Uint32s)(nil)
}

// rounds runs the Borůvka rounds and fills r's Edges, Trees, Iterations
// and Time.
func (p *Prepared) rounds(r *Result) error {
	n, ng := p.n, p.hostFrom
	trees, rounds := n, 0
	cnt := make([]int32, counterWords)
	var hostTime time.Duration
	clear(p.hCur) // the host's low indices, like mst_init's
	blocks := func(x int) gpu.Dim { return gpu.Blocks(x, blockSize) }
	// A traced run: the traced build's kernels (compiled on the first
	// traced run), a step per round, its launches logged (each kernel's
	// span by the GPU's clock), the arcs and candidates of the
	// find-minimum step counted for the steps and the launches' byte
	// models. An untraced run launches the untraced build: no trace code.
	p.tracing = p.opts.Trace
	defer func() { p.tracing = false }()
	k, err := p.kernelsFor(p.tracing)
	if err != nil {
		return err
	}
	p.k = k
	var steps []trace.Step
	var work []roundWork
	if p.tracing {
		if _, err := p.Device().KeepLaunchLog(&p.launchLog); err != nil {
			return err
		}
	}
	p.round = -1
	dur, err := p.Device().Time(func(t *gpu.Thread) error {
		if err := p.launch(t, nil, p.k.init, blocks(n), p.comp, p.cur, p.compTail, n, ng, p.compLo); err != nil {
			return err
		}
		if err := p.inForest.Fill(0); err != nil {
			return err
		}
		for trees > 1 {
			if rounds >= maxRounds {
				return fmt.Errorf("still %d trees after %d rounds (a kernel bug: please report it)", trees, rounds)
			}
			p.round = len(steps)
			hostBefore := hostTime
			probeNext := ng > 0 && ng == n // the GPU's probe follows on this stream
			if err := p.launchDefault(t, probeNext, p.k.reset, blocks(trees), p.best, p.bestE, p.parent, p.counters, trees); err != nil {
				return err
			}
			host, err := p.findMinimum(t, &hostTime)
			if err != nil {
				return err
			}
			if p.split() {
				if err := p.launchOpen(t, p.k.minEdge, blocks(n), p.candK, p.candE, p.candTo, p.dHK, p.dHE, p.dHTo,
					p.comp, p.best, p.bestE, ng, n); err != nil {
					return err
				}
			}
			kernels := []struct {
				f    *gpu.Function
				grid gpu.Dim
				args []any
			}{
				{p.k.hook, blocks(n), []any{p.candK, p.candE, p.candTo, p.dHK, p.dHE, p.dHTo, p.comp, p.best, p.bestE, p.parent, ng, n}},
				{p.k.cycles, blocks(trees), []any{p.parent, trees}},
				{p.k.jump, blocks(trees), []any{p.parent, p.best, p.bestE, p.inForest, p.counters, trees}},
				{p.k.renumber, blocks(trees), []any{p.parent, p.newID, p.counters, trees}},
				{p.k.relabel, blocks(n), []any{p.comp, p.parent, p.newID, p.compTail, n, p.compLo}},
			}
			for i, s := range kernels {
				// the round's next kernel follows, the counters' copy the last
				if err := p.launchDefault(t, i < len(kernels)-1, s.f, s.grid, s.args...); err != nil {
					return err
				}
			}
			if err := p.counters.Download(cnt); err != nil {
				return err
			}
			next := int(cnt[cntTrees])
			if cnt[cntBad] != 0 {
				return fmt.Errorf("round %d: the trees' hooks formed a cycle (a kernel bug: please report it)", rounds+1)
			}
			if next < 1 || next > trees {
				return fmt.Errorf("round %d left %d trees of %d (a kernel bug: please report it)", rounds+1, next, trees)
			}
			if p.tracing {
				w := roundWork{
					probeArcs: traceCount(cnt, trProbeArcs), probeCands: traceCount(cnt, trProbeCands),
					scanArcs: traceCount(cnt, trScanArcs), scanCands: traceCount(cnt, trScanCands),
					long: int64(cnt[cntLong]), hostCands: host.cands,
				}
				work = append(work, w)
				steps = append(steps, trace.Step{Kind: "round", Frontier: int64(trees), Inspected: w.probeArcs + w.scanArcs + host.read,
					Updated: int64(trees - next), HostTime: hostTime - hostBefore})
			}
			if next == trees {
				break // no tree has an outgoing edge: a spanning forest
			}
			rounds++
			trees = next
		}
		return nil
	})
	p.hostTime = hostTime
	if p.tracing {
		// A failed run's launches are dropped: they would otherwise
		// open the next run's trace.
		if err != nil {
			p.launchLog.Drop()
		} else {
			var launches []trace.Launch
			if launches, err = p.launchLog.Launches(); err == nil {
				p.modelBytes(launches, steps, work)
				r.Trace = trace.FromLaunches(r.Algorithm, p.arcs, dur, steps, launches)
			}
		}
	}
	if err != nil {
		return err
	}
	if p.g0 == nil { // PrepareResident: the edges are read on the device
		if r.Edges, err = p.forestEdgesOnDevice(); err != nil {
			return err
		}
	} else {
		words, err := p.inForest.ToHost()
		if err != nil {
			return fmt.Errorf("downloading the forest: %w", err)
		}
		r.Edges = p.forestEdges(words)
	}
	if err := cancel.Check(); err != nil { // forestEdges stops early
		return err
	}
	if len(r.Edges) != n-trees {
		return fmt.Errorf("the forest has %d edges but %d vertices in %d trees need %d (a kernel bug: please report it)",
			len(r.Edges), n, trees, n-trees)
	}
	r.Time, r.Trees, r.Iterations = dur, trees, rounds
	return nil
}

// hostWork is what the host's share of a find-minimum step did: the
// arcs it read and the candidates it found.
type hostWork struct{ read, cands int64 }

// findMinimum is step 1 of a round (and step 2 for the host's share):
// the probe and the warp scan on the GPU's vertices; with a host share,
// those run on their own stream while the host copies the tree labels,
// scans its vertices in goroutines and uploads its candidates, which
// mst_merge_host then offers to their trees.
//
// It returns what the host's share did (nothing without one).
func (p *Prepared) findMinimum(t *gpu.Thread, hostTime *time.Duration) (host hostWork, err error) {
	n, ng := p.n, p.hostFrom
	h := n - ng
	var stream *gpu.Stream
	if h > 0 {
		stream = p.stream
	}
	if ng > 0 {
		var args []any
		if p.compressed {
			args = []any{p.dOff, p.dBase, p.dLo, p.dHi}
		} else {
			args = []any{p.dOff, p.dAdj}
		}
		args = append(args, p.comp, p.cur, p.wkind, p.wArg(), p.dEidx, p.candK, p.candE, p.candTo, p.best)
		probe := append(append([]any{}, args...), p.long, p.counters, p.tracedArg(), ng, p.probeLen)
		scan := append(append([]any{}, args...), p.long, p.counters, p.tracedArg())
		if h == 0 { // the scan, then the round's next kernel, follow on this stream
			if err := p.launchOpen(t, p.k.probe, gpu.Blocks(ng, blockSize), probe...); err != nil {
				return host, err
			}
			return host, p.launchOpen(t, p.k.scan, gpu.D1(p.scanGrid), scan...)
		}
		if err := p.launch(t, stream, p.k.probe, gpu.Blocks(ng, blockSize), probe...); err != nil {
			return host, err
		}
		if err := p.launch(t, stream, p.k.scan, gpu.D1(p.scanGrid), scan...); err != nil {
			return host, err
		}
	}
	if h == 0 {
		return host, nil
	}
	start := time.Now()
	if err := p.compTail.Download(p.hComp); err != nil {
		return host, err
	}
	host = p.hostFind()
	if err := p.dHK.Upload(p.hK); err != nil {
		return host, err
	}
	if err := p.dHTo.Upload(p.hTo); err != nil {
		return host, err
	}
	if p.dHE != nil {
		if err := p.dHE.Upload(p.hE); err != nil {
			return host, err
		}
	}
	*hostTime += time.Since(start)
	return host, p.launch(t, nil, p.k.merge, gpu.Blocks(h, blockSize), p.dHK, p.comp, p.best, ng, h)
}

// hostFind is the find-minimum step of the host's vertices (the GPU's
// probe and scan, in goroutines): each advances its low index past the
// arcs inside its tree and offers the first that leaves it. It returns
// the arcs it read and the candidates it found.
func (p *Prepared) hostFind() hostWork {
	comp, from, lo := p.hComp, p.hostFrom, int32(p.compLo)
	var read, cands atomic.Int64
	par.ForWeighted(p.hOff, func(a, b int) {
		var r, found int64
		defer func() { read.Add(r); cands.Add(found) }()
		for i := a; i < b; i++ {
			c := comp[from+i-int(lo)]
			k0, e := p.hOff[i]+p.hCur[i], p.hOff[i+1]
			k := k0
			for k < e && comp[p.hAdj[k]-lo] == c {
				k++
			}
			p.hCur[i] = k - p.hOff[i]
			r += k - k0
			if k == e {
				p.hK[i] = noKey
				continue
			}
			r++
			found++
			p.hTo[i] = comp[p.hAdj[k]-lo]
			edge := p.hEidx[k]
			switch {
			case p.hW64 != nil:
				p.hK[i], p.hE[i] = p.hW64[k], edge
			case p.hW32 != nil:
				p.hK[i] = uint64(p.hW32[k])<<32 | uint64(edge)
			default:
				p.hK[i] = uint64(edge)
			}
		}
	})
	return hostWork{read: read.Load(), cands: cands.Load()}
}

// forestEdges turns the bitmap of forest edges into Edges sorted by
// (W, U, V), in the input's ids, with the input's weights.
func (p *Prepared) forestEdges(words []uint32) []Edge {
	const chunkWords = 1 << 12
	chunks := (len(words) + chunkWords - 1) / chunkWords
	pos := make([]int, chunks+1)
	par.ForChunks(len(words), chunkWords, func(c, lo, hi int) {
		k := 0
		for _, w := range words[lo:hi] {
			k += bits.OnesCount32(w)
		}
		pos[c+1] = k
	})
	for c := 0; c < chunks; c++ {
		pos[c+1] += pos[c]
	}
	out := make([]Edge, pos[chunks])
	g0, at, upper := p.g0, p.at, p.upper
	par.ForChunks(len(words), chunkWords, func(c, lo, hi int) {
		j := pos[c]
		a := -1
		for i := lo; i < hi; i++ {
			for w := words[i]; w != 0; w &= w - 1 {
				e := int64(i)*32 + int64(bits.TrailingZeros32(w))
				if a < 0 || at[a+1] <= e {
					a = sort.Search(len(at)-1, func(x int) bool { return at[x+1] > e })
				}
				k := upper[a] + e - at[a]
				out[j] = Edge{U: int32(a), V: g0.Adj[k], W: g0.ArcWeight(k)}
				j++
			}
		}
	})
	if err := sortEdges(out); err != nil {
		// sortEdges fails only when interrupted; the sort then completes
		// with the plain comparison so the result stays well formed.
		slices.SortFunc(out, compare)
	}
	return out
}

// Run computes the minimum spanning forest of g on dev with the options
// o: Prepare, Prepared.Run, Close. The result's PrepTime includes
// the preparation (Prepared.PrepTime), made for this run alone. To run
// several times, Prepare once and call Run for each (the preparation is
// longer than a run).
func Run(dev *gpu.Device, g *graph.CSR, o Options) (*Result, error) {
	p, err := Prepare(dev, g, o)
	if err != nil {
		return nil, err
	}
	r, err := p.Run()
	if err = errors.Join(err, p.Close()); err != nil {
		return nil, err
	}
	r.PrepTime += p.PrepTime()
	return r, nil
}
