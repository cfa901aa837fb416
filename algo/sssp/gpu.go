package sssp

import (
	_ "embed"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/graphnb/graphnb/algo/internal/prepared"
	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/gpu/transform"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/internal/card"
	"github.com/graphnb/graphnb/internal/par"
	"github.com/graphnb/graphnb/trace"
)

// kernelSource is the CUDA C of the GPU methods, compiled by NVRTC once
// per device (and cached on disk by package gpu).
//
//go:embed sssp.cu
var kernelSource string

const (
	// blockSize is the threads per block of every kernel (a multiple of
	// the warp size: the near-far kernels work in whole warps).
	blockSize = 256
	// studyL2 is the L2 size assumed for the default segment size when
	// the driver does not report one: the study's GTX Titan, 1.5 MiB.
	studyL2 = 1536 << 10
	// DefaultGPUDeltaFactor is the factor of NearFar's default Δ =
	// DefaultGPUDeltaFactor · (mean arc weight) / (mean out-degree): with
	// weights uniform in [0, w) a vertex of mean degree then has about
	// that many light arcs. A smaller factor scans fewer arcs in more
	// steps (launches); the window's widening in the tail of a run
	// (sssp.cu, "split") keeps the steps few where phases are small.
	// Measured on an H100 (BenchmarkGPUNearFarTune, R-MAT uniform
	// weights, 8 roots, with the widening and staged appends), ms a run
	// for factors 1 / 1.5 / 2 / 3 / 4: scale 22 5.53 / 5.51 / 5.51 / 5.56
	// / 5.83, scale 24 22.9 / 22.7 / 22.6 / 23.3 / 24.1.
	DefaultGPUDeltaFactor = 2
	// DefaultGroupDeltaFactor is DefaultGPUDeltaFactor for RunGroup,
	// whose host-driven phases do not widen: 4, as measured before the
	// widening (scale 22 on one H100: 8.2 ms a run against 8.8 with 2).
	DefaultGroupDeltaFactor = 4
)

// Tuning of the near-far kernels. Variables, not constants, so that
// BenchmarkGPUNearFarTune can sweep them; Prepare copies them.
var nearFarTuning = struct {
	// minSlots is the least number of queue slots (arcs) a warp takes in
	// a step (a multiple of 32): a step deals its slots out evenly, about
	// slots/warps each, but no fewer than this, so that small steps use
	// fewer warps, each with its search for its first entry amortised.
	minSlots int
	// batch is how many steps are launched between two reads of the
	// control words (a step with nothing to do returns at once, so up to
	// batch-1 launches may be idle at the end).
	//
	// 32 slots and 16 steps were measured best on an H100
	// (BenchmarkGPUNearFarTune, R-MAT float32 weights, Δ factor 4, 8
	// roots, ms a run for slots/batch 32/16, 32/8, 64/16, 64/8: scale 20
	// 4.97, 5.18, 4.99, 5.39; scale 22 8.16, 8.32, 8.31, 8.46; scale 24
	// 49.4, 50.0, 49.8, 50.8).
	batch int
	// blocksPerSM sizes the step kernel's grid: this many blocks per SM,
	// or, when 0, as many as one SM holds at once (residentBlocks), so
	// that every warp a step deals slots to runs from the start.
	blocksPerSM int
}{minSlots: 32, batch: 16, blocksPerSM: 0}

// Control words of the near-far kernels: sssp.cu's NF_* indices (a test
// compares them).
const (
	nfQ0       = 0  // 0..2: near-queue lengths, rotating by step
	nfSCnt     = 3  // settle-list length
	nfFCnt     = 4  // 4, 5: far-pile lengths
	nfPhase    = 6  // phase, from 1 (splits + 1)
	nfEpoch    = 7  // settle epoch, from 1 (settle steps + 1)
	nfThr      = 8  // threshold bits
	nfFMin     = 9  // lower bound on the far distances (bits)
	nfFKeep    = 10 // least distance a split keeps (bits)
	nfDone     = 11 // epilogue counter
	nfRounds   = 12 // light rounds with a non-empty near queue
	nfScanned  = 13 // 13, 14: arcs relaxed, by the step's parity
	nfWiden    = 15 // the window's widening s: T' = fmin + Δ·2^s
	nfPScan    = 16 // arcs relaxed when the phase began
	nfLowered  = 17 // 17, 18: distances lowered, by the step's parity
	nfCtlWords = 19

	// A step's entry in the log of a traced run (NF_T_*).
	nfTStart    = 0 // the step's start, ns of the GPU's global timer
	nfTNear     = 1 // near queue (entries << 32 | slots)
	nfTSettle   = 2 // settle list (entries << 32 | slots)
	nfTFar      = 3 // far pile's length
	nfTThr      = 4 // bits of T
	nfTPScanned = 5 // arcs relaxed by the steps of the previous step's parity, at the step's start
	nfTPLowered = 6 // distances lowered likewise
	nfTRound    = 7 // the step's number
	nfTEnd      = 8 // the first end word (the largest is the step's end, ns)
	nfTEnds     = 15
	nfTLogWords = 23
)

// Kernel names (sssp.cu). A CI test checks that every name kernelNames
// lists is declared in the source.
func distTag(f32 bool) string {
	if f32 {
		return "d32"
	}
	return "d64"
}

func weightTag(w64 bool) string {
	if w64 {
		return "w64"
	}
	return "w32"
}

func edgeInitKernel(f32 bool) string { return "sssp_edge_init_" + distTag(f32) }

// edgeLogKernel is a kernel's logged copy, which a traced edge sweep
// launches (sssp.cu, section 1b).
func edgeLogKernel(name string) string { return name + "_log" }

func edgeKernel(f32, w64, restrict bool) string {
	mode := "plain"
	if restrict {
		mode = "restrict"
	}
	return "sssp_edge_" + distTag(f32) + "_" + weightTag(w64) + "_" + mode
}

func nearFarInitKernel(f32 bool) string { return "sssp_nf_init_" + distTag(f32) }

func nearFarStepKernel(f32, w64 bool) string {
	return "sssp_nf_step_" + distTag(f32) + "_" + weightTag(w64)
}

// kernelNames lists every kernel the Go side may launch.
func kernelNames() []string {
	var out []string
	for _, f32 := range []bool{false, true} {
		out = append(out, edgeInitKernel(f32), edgeLogKernel(edgeInitKernel(f32)), nearFarInitKernel(f32))
		for _, w64 := range []bool{false, true} {
			for _, restrict := range []bool{false, true} {
				out = append(out, edgeKernel(f32, w64, restrict), edgeLogKernel(edgeKernel(f32, w64, restrict)))
			}
			out = append(out, nearFarStepKernel(f32, w64))
		}
	}
	return out
}

// base is the lifecycle Prepared shares with the other algorithms.
type base = prepared.Base

// kernels compiles sssp.cu once per device and process, after the launch
// log's header (its logged edge sweeps use it; the other kernels do not,
// and compile as they would alone).
var kernels = gpu.ModuleCache{Name: "sssp.cu", Source: gpu.PrependLaunchLog(kernelSource)}

// deviceModule returns sssp.cu compiled for dev.
func deviceModule(dev *gpu.Device) (*gpu.Module, error) {
	m, err := kernels.For(dev)
	if err != nil {
		return nil, fmt.Errorf("sssp: %w", err)
	}
	return m, nil
}

// checkGPUGraph returns an error for a graph or options the GPU methods
// cannot take: no graph, a directed graph for the edge sweep (the study's
// kernel relaxes both directions of each edge), negative or NaN weights,
// sizes beyond the kernels' indices, a negative segment size, a negative
// or non-finite Δ or Δ factor, or an unknown method. The host device
// applies the same rules, so a notebook behaves the same with and without
// a GPU.
func checkGPUGraph(g *graph.CSR, o Options) error {
	_, err := checkGPUGraphStats(g, o)
	return err
}

// checkGPUGraphStats is checkGPUGraph, also returning the weight scan.
func checkGPUGraphStats(g *graph.CSR, o Options) (weightStats, error) {
	if g == nil || len(g.Offsets) == 0 {
		return weightStats{}, errors.New("sssp: no graph (nil or without offsets)")
	}
	if err := checkGPUShape(g.NumVertices(), g.Directed, o); err != nil {
		return weightStats{}, err
	}
	ws, err := scanWeights(g)
	if err != nil {
		return weightStats{}, err
	}
	if ws.negArc >= 0 {
		return ws, gpuNegativeError(g, ws.negArc)
	}
	return ws, checkGPUSizes(g.NumVertices(), g.NumArcs(), o)
}

// gpuNegativeError is negativeError for the GPU methods.
func gpuNegativeError(g *graph.CSR, k int64) error {
	return negativeError(g, k, "the GPU Bellman-Ford",
		" (negative weights would need another method: on the CPU, BellmanFord takes them on a directed graph)")
}

// checkGPUShape is the part of checkGPUGraph before the weights: the
// vertex count, the method and its options, and a directed graph for the
// edge sweep.
func checkGPUShape(n int, directed bool, o Options) error {
	if n == 0 {
		return errors.New("sssp: the graph has no vertices, so no source")
	}
	switch o.Method {
	case EdgeSweep, Frontier, NearFar:
	default:
		return fmt.Errorf("sssp: unknown method %v (use EdgeSweep, Frontier or NearFar)", o.Method)
	}
	if o.SegmentSize < 0 {
		return fmt.Errorf("sssp: segment size P = %d must be positive, or 0 to pick it from the device's L2 cache", o.SegmentSize)
	}
	if !(o.Delta >= 0) || math.IsInf(o.Delta, 1) {
		return fmt.Errorf("sssp: near-far bucket width Δ = %g must be a positive number, or 0 for the default", o.Delta)
	}
	if !(o.DeltaFactor >= 0) || math.IsInf(o.DeltaFactor, 1) {
		return fmt.Errorf("sssp: near-far Δ factor %g must be a positive number, or 0 for the default (%g)", o.DeltaFactor, float64(DefaultGPUDeltaFactor))
	}
	if o.Method == EdgeSweep && directed {
		return errors.New("sssp: the SSSP study's edge-parallel Bellman-Ford relaxes both directions of each edge, " +
			"but this graph is directed: symmetrize it (g.Undirected(), or graph.Build with BuildOptions{Symmetrize: true}), " +
			"or use sssp.Options{Method: sssp.NearFar} or {Method: sssp.Frontier}, which follow arcs")
	}
	return nil
}

// checkGPUSizes is the part of checkGPUGraph after the weights: sizes
// beyond the kernels' indices.
func checkGPUSizes(n int, m int64, o Options) error {
	switch o.Method {
	case EdgeSweep:
		// The COO keeps each undirected edge once: arcs/2 edges.
		if m/2 > math.MaxInt32 {
			return fmt.Errorf("sssp: %d edges exceed the edge sweep's 32-bit edge index (at most %d)", m/2, math.MaxInt32)
		}
	default:
		// A queue's slots (its vertices' arcs, at least one each) are
		// counted in 32 bits.
		if int64(n)+m > math.MaxUint32 {
			return fmt.Errorf("sssp: a graph of %d vertices and %d arcs exceeds the near-far queues' 32-bit slot count (N + M < 2^32)", n, m)
		}
	}
	return nil
}

// Prepared is a graph prepared on a device for repeated single-source
// runs with one set of options: for the edge sweep the COO view (each
// undirected edge once), permuted when Permute is on, and uploaded; for
// near-far the CSR with each vertex's arcs reordered light first, and
// uploaded; for the frontier method the CSR uploaded; the distance, queue
// and control buffers allocated and the kernels compiled and loaded. On
// the host device it only holds the graph and the options (the CPU needs
// no preparation).
//
// Run may be called many times, from several goroutines (runs are
// serialised); Close frees the device memory. The graph must not change
// while it is prepared.
type Prepared struct {
	base
	mem      *gpu.Allocations // every device resource below
	g        *graph.CSR       // the host graph; nil for PrepareResident's until Graph asks
	resident *gpu.Graph       // PrepareResident's graph (borrowed), else nil
	n        int              // vertices
	m        int64            // arcs
	directed bool
	opts     Options
	segment  int     // P of the permutation, 0 when not permuted
	delta    float64 // near-far's Δ; +Inf for the frontier method

	// Device state; nil on the host.
	coo     *gpu.COO   // edge sweep
	csr     *gpu.Graph // frontier, near-far (light arcs first)
	weights any        // kernel argument: *gpu.Float32s, *gpu.Float64s or a nil *gpu.Float32s (unit weights)
	w64     bool
	dist32  *gpu.Float32s // float32 distances of a run (Float32 only)
	flags   *gpu.Int32s   // edge sweep: modif[1]
	// modifHost is the host's copy of the modif word, page-locked: the
	// study's loop reads it after every sweep, and a copy into page-locked
	// memory is a plain DMA, not a copy through the driver's staging
	// buffer.
	modifHost *gpu.Pinned
	// Traced edge sweeps (Options.Trace): the kernel's running counts of
	// lowered distances and, in its first word, the modif word of a
	// traced run (sssp.cu's bf_edge: edgeCountWords words), the host's
	// copy of them (page-locked, as modifHost) and the run's steps (both
	// kept from run to run), the log of their launches (its ring reused),
	// and the logged kernels (sssp.cu's *_log).
	lowered    *gpu.Uint64s
	countsHost *gpu.Pinned
	edgeCounts []uint64 // a view of countsHost
	edgeSteps  []trace.Step
	llog       *gpu.LaunchLog
	kInitLog   *gpu.Function
	kStepLog   *gpu.Function
	kInit      *gpu.Function
	kStep      *gpu.Function

	// Near-far and frontier (lend, sst, fstamp, squeue and far are nil
	// for the frontier method: every arc is light, nothing is far).
	lend     *gpu.Int64s // end of each vertex's light arcs
	lendHost []int64
	stamp    *gpu.Int32s // near-queue stamps
	sst      *gpu.Int32s // settle-list stamps
	fstamp   *gpu.Int32s // far-pile stamps
	queue    [2]*gpu.Uint64s
	squeue   *gpu.Uint64s
	far      [2]*gpu.Int32s
	ctl      *gpu.Uint64s
	minSlots int
	batch    int
	grid     int          // blocks per step launch
	last     nearFarStats // counters of the last run

	ck *checkState // Check's buffers, from the first Check

	// RunOnDevice (resident.go).
	offsets  *gpu.Int64s    // the CSR's offsets (degrees): csr's, or uploaded for the edge sweep
	rs       *residentState // its kernels and scratch, from the first run
	spareMu  sync.Mutex     // guards spare and spareOff
	spare    *resultBufs    // a closed result's buffers, for the next run
	spareOff bool           // set by Close: buffers are freed, not kept
}

// nearFarStats are the counters of a near-far or frontier run.
type nearFarStats struct {
	rounds, settles, splits int   // light rounds, settle steps, far-pile splits
	launches                int   // step launches, idle ones included
	scanned, lowered        int64 // arcs relaxed, distances lowered
}

// Prepare readies g on dev for Run with the options o (the zero Options:
// the study's plain kernel with float64 distances).
//
// On a GPU the edge sweep builds the COO view (g.UndirectedCOO), applies
// the segment permutation when Permute is on (P from SegmentSize, else
// from the device's L2 size), uploads it and allocates N distances. The
// near-far method picks Δ (Delta, else DeltaFactor or
// DefaultGPUDeltaFactor times the mean weight over the mean out-degree),
// copies the CSR with each vertex's arcs in two runs, light (weight < Δ)
// then heavy, each in its original order (O(M) on the host, in parallel),
// uploads it with the end of each vertex's light run, and allocates
// distances, three stamps per vertex, two near queues and a settle list
// of N 8-byte entries each and two far piles of N. The frontier method
// uploads the CSR as it is and allocates distances, a stamp per vertex and
// the two queues. All compile the kernels (once per device and process).
// The N distances allocated are float32 ones (Float32) only: float64 ones
// are computed in each run's result buffers (see RunOnDevice), which are
// not counted in Bytes.
// PrepTime reports the whole preparation, once. Device memory: Bytes.
//
// On the host device (dev.IsHost()) nothing is uploaded: Run computes with
// the CPU's BellmanFord (the same fixed point), so a notebook runs
// unchanged without a GPU; the method's switches and Float32 are then
// ignored (distances are float64) and parents are always filled.
//
// It returns an error for a nil device or graph, a graph without
// vertices, a directed graph with the edge sweep (symmetrize it, or use
// the NearFar or Frontier method), a negative or NaN weight, sizes beyond
// the kernels' indices (the edge sweep: 2^31 edges; the others: N + M
// below 2^32), a negative SegmentSize, a negative or non-finite
// Delta or DeltaFactor, a compile error or a device that runs out of
// memory.
func Prepare(dev *gpu.Device, g *graph.CSR, o Options) (*Prepared, error) {
	if dev == nil {
		return nil, errors.New("sssp: Prepare: nil device (use gpu.Default())")
	}
	start := time.Now()
	ws, err := checkGPUGraphStats(g, o)
	if err == nil {
		err = cancel.Check() // the weight scan stops early when interrupted
	}
	if err != nil {
		return nil, err
	}
	p := &Prepared{g: g, n: g.NumVertices(), m: g.NumArcs(), directed: g.Directed, opts: o, delta: math.Inf(1)}
	p.mem = prepared.Init(&p.base, "sssp", o.Label(), dev)
	if o.Method == NearFar {
		p.delta = nearFarDelta(p.n, p.m, ws, o)
	}
	if !dev.IsHost() {
		var err error
		if o.Method == EdgeSweep {
			err = p.prepareEdge()
		} else {
			err = p.prepareNearFar(p.hostLayout)
		}
		if err != nil {
			_ = p.mem.Free()
			return nil, fmt.Errorf("sssp: preparing gpu Bellman-Ford (%s) on %v: %w", p.Label(), dev, err)
		}
	}
	prepared.Done(&p.base, start)
	return p, nil
}

// nearFarDelta is NearFar's Δ: o.Delta, else the factor (o.DeltaFactor or
// DefaultGPUDeltaFactor) times the mean finite weight over the mean
// out-degree; 1 when that is not a positive number (no arcs, all weights
// zero or infinite).
func nearFarDelta(n int, m int64, ws weightStats, o Options) float64 {
	return deltaOf(n, m, ws, o, DefaultGPUDeltaFactor)
}

// deltaOf is nearFarDelta with the default factor given.
func deltaOf(n int, m int64, ws weightStats, o Options, defaultFactor float64) float64 {
	if o.Delta > 0 {
		return o.Delta
	}
	f := o.DeltaFactor
	if f == 0 {
		f = defaultFactor
	}
	if m == 0 {
		return 1
	}
	d := f * ws.mean / (float64(m) / float64(n))
	if !(d > 0) || math.IsInf(d, 1) {
		return 1
	}
	return d
}

// allocDist allocates the N float32 distances a run with the Float32
// option computes (float64 runs compute in their result's buffer).
func (p *Prepared) allocDist() error {
	if !p.opts.Float32 {
		return nil
	}
	var err error
	p.dist32, err = p.mem.AllocFloat32s(p.n)
	return err
}

// distArg is the distance buffer of a run as a kernel argument: the
// float32 scratch, or the result's float64 buffer d64.
func (p *Prepared) distArg(d64 *gpu.Float64s) any {
	if p.opts.Float32 {
		return p.dist32
	}
	return d64
}

// infArg is +Inf in the distance type, as a kernel argument.
func (p *Prepared) infArg() any {
	if p.opts.Float32 {
		return float32(math.Inf(1))
	}
	return math.Inf(1)
}

// setWeights picks the weight argument and kernel flavour of the uploaded
// weights.
func (p *Prepared) setWeights(w32 *gpu.Float32s, w64 *gpu.Float64s) {
	switch {
	case w64 != nil:
		p.weights, p.w64 = w64, true
	case w32 != nil:
		p.weights = w32
	default:
		p.weights = (*gpu.Float32s)(nil) // NULL: unit weights
	}
}

func (p *Prepared) prepareEdge() error {
	mod, err := deviceModule(p.Device())
	if err != nil {
		return err
	}
	f32 := p.opts.Float32
	if p.kInit, err = mod.Function(edgeInitKernel(f32)); err != nil {
		return err
	}
	if p.opts.Permute {
		if p.segment = p.opts.SegmentSize; p.segment == 0 {
			if p.segment, err = defaultSegmentSize(p.Device(), f32); err != nil {
				return err
			}
		}
	}
	if p.resident != nil {
		err = p.deviceCOO()
	} else {
		err = p.uploadCOO()
	}
	if err != nil {
		return err
	}
	p.setWeights(p.coo.Weights, p.coo.Weights64)
	step := edgeKernel(f32, p.w64, p.opts.TextureCache)
	if p.kStep, err = mod.Function(step); err != nil {
		return err
	}
	if p.kInitLog, err = mod.Function(edgeLogKernel(edgeInitKernel(f32))); err != nil {
		return err
	}
	if p.kStepLog, err = mod.Function(edgeLogKernel(step)); err != nil {
		return err
	}
	if err := p.allocDist(); err != nil {
		return err
	}
	if p.resident != nil {
		p.offsets = p.resident.Offsets // borrowed, like the graph
	} else if p.offsets, err = p.mem.Int64sFrom(p.g.Offsets); err != nil { // degrees, for RunOnDevice's Reached
		return err
	}
	if p.flags, err = p.mem.AllocInt32s(1); err != nil {
		return err
	}
	if p.modifHost, err = p.mem.AllocPinned(4); err != nil {
		return err
	}
	if p.opts.Trace {
		if p.lowered, err = p.mem.AllocUint64s(edgeCountWords); err != nil {
			return err
		}
	}
	return nil
}

// uploadCOO builds the COO view of the host graph, permutes it
// (p.segment > 0) and uploads it as p.coo.
func (p *Prepared) uploadCOO() error {
	coo, err := p.g.UndirectedCOO()
	if err != nil {
		return err
	}
	if coo.NumEdges() > math.MaxInt32 {
		return fmt.Errorf("%d edges exceed the kernel's 32-bit edge index", coo.NumEdges())
	}
	if p.segment > 0 {
		if coo, err = graph.PermuteCOO(coo, p.segment); err != nil {
			return err
		}
	}
	p.coo, err = p.mem.UploadCOO(coo)
	return err
}

// deviceCOO is uploadCOO for a resident graph, on the device (package
// gpu/transform, bit-identical to graph.CSR.UndirectedCOO and
// graph.PermuteCOO): flipping Permute costs no host work.
func (p *Prepared) deviceCOO() error {
	if edges := p.resident.Arcs / 2; edges > math.MaxInt32 {
		return fmt.Errorf("%d edges exceed the kernel's 32-bit edge index", edges)
	}
	coo, err := transform.UndirectedCOO(p.resident)
	if err != nil {
		return err
	}
	if coo.Edges > math.MaxInt32 {
		coo.Close()
		return fmt.Errorf("%d edges exceed the kernel's 32-bit edge index", coo.Edges)
	}
	if p.segment > 0 {
		perm, err := transform.PermuteCOO(coo, p.segment)
		coo.Close()
		if err != nil {
			return err
		}
		coo = perm
	}
	if err := p.mem.Own(coo.Bytes(), coo.Close); err != nil {
		return err
	}
	p.coo = coo
	return nil
}

// defaultSegmentSize is graph.SegmentSizeFor the device's L2 cache.
func defaultSegmentSize(dev *gpu.Device, f32 bool) (int, error) {
	l2 := int64(studyL2)
	if info, err := dev.Info(); err == nil && info.L2Bytes > 0 {
		l2 = info.L2Bytes
	}
	elem := 8
	if f32 {
		elem = 4
	}
	return graph.SegmentSizeFor(l2, elem)
}

// hostLayout makes the near-far layout on the host (lightFirst) and
// uploads it, or uploads the graph as it is for the frontier method:
// p.csr, p.lend and p.lendHost.
func (p *Prepared) hostLayout() error {
	g := p.g
	if p.opts.Method == NearFar {
		g, p.lendHost = lightFirst(p.g, p.delta)
		if err := cancel.Check(); err != nil { // lightFirst stops early
			return err
		}
		var err error
		if p.lend, err = p.mem.Int64sFrom(p.lendHost); err != nil {
			return err
		}
	}
	var err error
	p.csr, err = p.mem.Upload(g)
	return err
}

// prepareNearFar lays the graph out with layout (which sets p.csr and,
// for near-far, p.lend) and allocates the buffers of the near-far method,
// or of the frontier method (Δ = +Inf: no layout, no settle list, no far
// piles).
func (p *Prepared) prepareNearFar(layout func() error) error {
	mod, err := deviceModule(p.Device())
	if err != nil {
		return err
	}
	f32 := p.opts.Float32
	if p.kInit, err = mod.Function(nearFarInitKernel(f32)); err != nil {
		return err
	}
	p.minSlots, p.batch = nearFarTuning.minSlots, nearFarTuning.batch
	n := p.n
	if err := layout(); err != nil {
		return err
	}
	p.offsets = p.csr.Offsets
	if p.opts.Method == NearFar {
		for _, b := range []**gpu.Int32s{&p.sst, &p.fstamp, &p.far[0], &p.far[1]} {
			if *b, err = p.mem.AllocInt32s(n); err != nil {
				return err
			}
		}
		if p.squeue, err = p.mem.AllocUint64s(n); err != nil {
			return err
		}
	}
	p.setWeights(p.csr.Weights, p.csr.Weights64)
	if p.kStep, err = mod.Function(nearFarStepKernel(f32, p.w64)); err != nil {
		return err
	}
	if err := p.allocDist(); err != nil {
		return err
	}
	if p.stamp, err = p.mem.AllocInt32s(n); err != nil {
		return err
	}
	for i := range p.queue {
		if p.queue[i], err = p.mem.AllocUint64s(n); err != nil {
			return err
		}
	}
	words := nfCtlWords
	if p.opts.Trace { // the step log's ring after the control words
		words += (p.batch + 1) * nfTLogWords
	}
	if p.ctl, err = p.mem.AllocUint64s(words); err != nil {
		return err
	}
	info, err := p.Device().Info()
	if err != nil {
		return err
	}
	sms := max(info.SMs, 1)
	perSM := nearFarTuning.blocksPerSM
	if perSM <= 0 {
		perSM = residentBlocks(p.kStep, info, blockSize)
	}
	p.grid = sms * perSM
	return nil
}

// residentBlocks estimates how many blocks of `block` threads of kernel f
// one SM holds at once: 64 Ki registers per SM, given out per warp in
// units of 256, and at most 2048 threads per SM (1536 on compute
// capability 8.6 to 8.9, 1024 on 7.5) and 32 blocks. It returns 4 when
// the kernel's attributes are unavailable.
func residentBlocks(f *gpu.Function, info gpu.Info, block int) int {
	a, err := f.Attributes()
	if err != nil || a.Registers <= 0 {
		return 4
	}
	threads := 2048
	switch {
	case info.ComputeMajor == 7 && info.ComputeMinor == 5:
		threads = 1024
	case info.ComputeMajor == 8 && info.ComputeMinor >= 6:
		threads = 1536
	}
	warps := (block + 31) / 32
	perWarp := (a.Registers*32 + 255) / 256 * 256
	n := min(65536/(perWarp*warps), threads/block, 32)
	return max(n, 1)
}

// lightFirst returns g with each vertex's arcs in two runs, light (weight
// < delta) then heavy, each in the original order, and lend[v], the end
// of v's light run (an index into Adj). The offsets are g's; a graph
// without weights (unit weights) is returned as it is, every arc light or
// every arc heavy. O(M), in parallel over vertex ranges balanced by arcs.
func lightFirst(g *graph.CSR, delta float64) (*graph.CSR, []int64) {
	n := g.NumVertices()
	lend := make([]int64, n)
	switch {
	case g.Weights64 != nil:
		out := &graph.CSR{Offsets: g.Offsets, Adj: make([]int32, len(g.Adj)), Weights64: make([]float64, len(g.Weights64)), Directed: g.Directed}
		partitionArcs(g.Offsets, g.Adj, g.Weights64, out.Adj, out.Weights64, lend, delta)
		return out, lend
	case g.Weights != nil:
		out := &graph.CSR{Offsets: g.Offsets, Adj: make([]int32, len(g.Adj)), Weights: make([]float32, len(g.Weights)), Directed: g.Directed}
		partitionArcs(g.Offsets, g.Adj, g.Weights, out.Adj, out.Weights, lend, delta)
		return out, lend
	}
	light := 1 < delta
	par.For(n, func(lo, hi int) {
		for v := lo; v < hi; v++ {
			if light {
				lend[v] = g.Offsets[v+1]
			} else {
				lend[v] = g.Offsets[v]
			}
		}
	})
	return g, lend
}

// partitionArcs writes each vertex's arcs (adj, ws) into (adjOut, wsOut),
// those of weight < delta first, stably, and their end into lend.
func partitionArcs[W weight](off []int64, adj []int32, ws []W, adjOut []int32, wsOut []W, lend []int64, delta float64) {
	par.ForWeighted(off, func(lo, hi int) {
		for v := lo; v < hi; v++ {
			k := off[v]
			for a := off[v]; a < off[v+1]; a++ {
				if float64(ws[a]) < delta {
					adjOut[k], wsOut[k] = adj[a], ws[a]
					k++
				}
			}
			lend[v] = k
			for a := off[v]; a < off[v+1]; a++ {
				if !(float64(ws[a]) < delta) {
					adjOut[k], wsOut[k] = adj[a], ws[a]
					k++
				}
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
	err := errors.Join(p.dropSpare(), p.base.Close(), p.llog.Close())
	p.llog = nil
	return err
}

// Delta returns NearFar's bucket width Δ (the default's value when
// Options.Delta is 0), +Inf for the other methods.
func (p *Prepared) Delta() float64 {
	if p.opts.Method != NearFar {
		return math.Inf(1)
	}
	return p.delta
}

// Options returns the options the graph was prepared with.
func (p *Prepared) Options() Options { return p.opts }

// SegmentSize returns P of the permutation, 0 when the edges are not
// permuted (or on the host).
func (p *Prepared) SegmentSize() int { return p.segment }

// Graph returns the prepared graph.
//
// For a graph prepared by PrepareResident it is the device graph's host
// copy (gpu.Graph.Host), made on the first call; nil if that copy fails.
func (p *Prepared) Graph() *graph.CSR {
	if p.g == nil && p.resident != nil {
		if h, err := p.resident.Host(); err == nil {
			return h
		}
	}
	return p.g
}

// String describes the prepared graph in one line.
func (p *Prepared) String() string {
	return fmt.Sprintf("sssp: %s prepared on %v: %d vertices, %d arcs, %s on the device, prepared in %v",
		p.Label(), p.Device(), p.n, p.m, card.Bytes(p.Bytes()), p.PrepTime().Round(time.Microsecond))
}

// Run computes shortest paths from src on the prepared graph.
//
// Result.Algorithm is "gpu Bellman-Ford (" + Label() + ")"; Time is the
// GPU time of the distance computation (initialisation and the iteration
// loop, host round trips of the loop included), measured with CUDA
// events; TreeTime the parents. PrepTime is 0: nothing is prepared per
// run, and the preparation, spent once, is PrepTime() (on the host device
// PrepTime is BellmanFord's own per-run weight scan and COO view).
// Iterations counts the launches that did work: for the edge sweep every
// launch, the last one changing nothing (the study's iterations; the
// benign races of its kernel make it vary by a few from run to run); for
// the frontier method the rounds with a non-empty frontier (the source
// alone is round 1); for near-far the rounds, settle steps and far-pile
// splits (Phases is the splits plus one, Delta the Δ used).
// ArcsScanned is 2·edges per launch for the edge sweep, the arcs relaxed
// by the rounds and settle steps for the others. TEPS is
// graph.Rate(ComponentEdges, stored arcs, Time).
//
// Dist holds the distances as float64 (float32 ones widened; +Inf for
// unreached vertices). With float64 distances they equal the CPU
// algorithms' bit for bit (the same float64 sums; see sssp.cu); with
// float32 ones they pass CheckTolerance(g, r, 1e-5). Parents are nil
// unless the Parents option is on; they are then built on the device
// from the tight arcs (in float32 arithmetic for float32 distances),
// after the timed part, as RunOnDevice describes. Run is RunOnDevice,
// DeviceResult.Result (the one copy of Dist and Parents to the host) and
// DeviceResult.Close.
//
// It returns an error for a source outside [0, N), a closed Prepared, a
// device error, or cancellation (every launch polls cancel.Check; the
// error matches cancel.ErrInterrupted).
func (p *Prepared) Run(src int32) (*Result, error) {
	dr, err := p.RunOnDevice(src)
	if err != nil {
		return nil, err
	}
	r, err := dr.Result()
	if err = errors.Join(err, dr.Close()); err != nil {
		return nil, err
	}
	return r, nil
}

// runHost is Run on the host device: the CPU's edge-parallel BellmanFord.
// With Options.Trace the result has the CPU sweeps' trace (whatever the
// method: the sweeps are what ran).
func (p *Prepared) runHost(src int32) (*Result, error) {
	r, err := bellmanFord(p.g, src, p.opts.Trace)
	if err != nil {
		return nil, err
	}
	r.Algorithm += "; host device standing in for gpu Bellman-Ford (" + p.Label() + ")"
	if r.Trace != nil {
		r.Trace.Algorithm = r.Algorithm
	}
	return r, nil
}

// runEdge is the study's host loop: launch, read modif, until a launch
// changed nothing. An untraced run launches the study's kernels alone
// and reads the modif word (4 bytes) after each; a traced run
// (Options.Trace) launches their logged copies instead (runEdgeTraced).
func (p *Prepared) runEdge(r *Result, d64 *gpu.Float64s) error {
	if p.opts.Trace {
		return p.runEdgeTraced(r, d64)
	}
	modif := p.modifHost.Int32s()
	run := edgeRun{
		launch: func(t *gpu.Thread, _ int, f *gpu.Function, grid gpu.Dim, args ...any) error {
			return t.Launch(f, grid, gpu.D1(blockSize), 0, args...)
		},
		kInit: p.kInit, kStep: p.kStep, dist: p.distArg(d64), flags: p.flags,
		lowered: uint64(0), // NULL: the kernels count nothing
		read: func(iter int) (bool, error) {
			err := p.flags.Download(modif)
			return modif[0] == int32(iter), err
		},
	}
	var iters int
	dur, err := p.Device().Time(func(t *gpu.Thread) error {
		var err error
		iters, err = p.edgeSweeps(t, r.Source, run)
		return err
	})
	if err != nil {
		return err
	}
	p.edgeResult(r, dur, iters)
	return nil
}

// edgeLauncher launches one kernel of an edge sweep run on the device
// thread t with blockSize threads a block; step is the sweep's index
// from 0, -1 for the init launch.
type edgeLauncher func(t *gpu.Thread, step int, f *gpu.Function, grid gpu.Dim, args ...any) error

// edgeRun is what a run of the edge sweep launches and reads: its
// kernels and their launcher, the distance, modif and count arguments
// (lowered: a NULL pointer untraced), the logged sweeps' stamp_from
// argument (sssp.cu, section 1b; nil for the study's kernels), and read,
// called after sweep iter (from 1) to download its modif word and report
// whether the sweep lowered a distance.
type edgeRun struct {
	launch               edgeLauncher
	kInit, kStep         *gpu.Function
	dist, flags, lowered any
	stampFrom            any
	read                 func(iter int) (bool, error)
}

// edgeSweeps is the study's loop on the device thread t: the init
// launch, then one sweep a launch, each followed by run.read, until a
// sweep changes nothing. It returns the sweeps launched (the last one
// changing nothing).
func (p *Prepared) edgeSweeps(t *gpu.Thread, src int32, run edgeRun) (int, error) {
	n, m := p.n, int(p.coo.Edges)
	limit := 4*n + 64 // far above any real run: a guard against a kernel bug
	if err := run.launch(t, -1, run.kInit, gpu.Blocks(n, blockSize), run.dist, n, src, p.infArg(), run.flags); err != nil {
		return 0, err
	}
	grid := gpu.Blocks(m, blockSize)
	// The sweeps' arguments, boxed once: only iter changes.
	args := []any{p.coo.Start, p.coo.End, p.weights, run.dist}
	if p.opts.TextureCache { // distR and distW
		args = append(args, run.dist)
	}
	args = append(args, run.flags, run.lowered, m, 0)
	iterArg := len(args) - 1
	if run.stampFrom != nil {
		args = append(args, run.stampFrom)
	}
	for iter := 1; ; iter++ {
		if iter > limit {
			return 0, fmt.Errorf("no convergence after %d launches over %d edges (a kernel bug: please report it)", limit, m)
		}
		args[iterArg] = iter
		if err := run.launch(t, iter-1, run.kStep, grid, args...); err != nil {
			return 0, err
		}
		changed, err := run.read(iter)
		if err != nil {
			return 0, err
		}
		if !changed {
			return iter, nil
		}
	}
}

// edgeResult sets an edge sweep run's time, sweeps and arcs scanned.
func (p *Prepared) edgeResult(r *Result, dur time.Duration, iters int) {
	r.Time, r.Iterations = dur, iters
	r.ArcsScanned = 2 * p.coo.Edges * int64(iters)
}

// edgeStampBlocks is how many of a traced sweep's last blocks stamp its
// end in the launch log (the logged kernels' stamp_from argument is the
// grid less this, at least 0: a grid of fewer blocks stamps from every
// block). The others skip the timer read and the atomic on their way
// out, which every block of a grid of 262,144 (R-MAT scale 22) would
// otherwise pay, and the end words' atomics at the kernel's end queue on
// fewer blocks.
//
// Why the last blocks end last: the GPU dispatches a grid's blocks in
// index order as SMs free up, and a sweep's blocks do equal work (each
// thread relaxes one arc: two distance gathers, at most one write, one
// barrier), so a block ends about a wave after the blocks a wave before
// it; 4096 blocks are about four waves of the blocks a GPU holds at once
// (an H100 holds 132 SMs × 8 blocks of the sweep: 1056; a wave lasts
// about 3 µs at R-MAT scale 20 and 22), so no earlier block should still
// run when the last of them ends.
//
// What it could miss: an earlier block delayed past several waves (a
// long stall on contended distance words of a hub, an SM taken by other
// work on a shared GPU, a GPU holding more than edgeStampBlocks blocks at
// once); dispatch in index order is what GPUs do, not what CUDA promises.
// Such a sweep's end would be stamped early, its time short by that
// block's lateness; its start (block 0's) and the run's time
// (Result.Time, Device.Time's) are unaffected. TestGPUTailStamp
// (tailcheck_test.go) checks it on a GPU: a test-only build has the
// other blocks report their ends too, and the test fails where one ended
// more than max(2 µs, 1% of the sweep) after the logged end (R-MAT
// scale 20).
//
// Cost on an H100 (BenchmarkGPUTraceStudy, R-MAT, 16 sources; the
// trace's cost in % of a run, mean/median, which the sweep counts'
// variation between runs of one source sways by ±1.5 points; and the
// time a sweep, untraced → traced): 4096 blocks, scale 20 0.94/1.67 and
// 1.58/2.18, scale 22 −1.41/−1.22 and −1.68/−1.23; 8192 blocks, scale 20
// 3.1/3.2, 0.67/−0.94, 1.07/−0.01, 1.60/0.81, 197.7 → 201.9 µs; 2048
// blocks 0.96/0.48, 1.83/2.14, 0.04/−0.08, 2.82/2.87, 198.3 → 200.7 µs;
// 1024 blocks 4.0/3.2, 1.4/2.2; every block stamping 6.7–7.4 at scale 20
// and 3.8–6.8 at 22, 199.9 → 215.7 µs; CUDA events around each launch,
// as before, 3.4–4.3 at scale 20.
//
// A variable, not a constant, for tests: the fake-GPU test runs 1 (the
// last block alone stamps, so a small graph's sweeps have blocks that do
// not), and a test binary reads GRAPHNB_SSSP_STAMP_BLOCKS
// (edgetrace_test.go).
var edgeStampBlocks = 4096

// edgeStampFrom is the logged sweep's stamp_from argument for a grid of
// blocks blocks: the first block that stamps the sweep's end.
func edgeStampFrom(blocks int) int { return max(0, blocks-edgeStampBlocks) }

// runEdgeTraced is runEdge for a traced run: a trace.Step per sweep
// (its arcs tested and the distances it lowered) and a trace.Launch per
// launch, timed by the launch log: the run launches the logged copies of
// the study's kernels (sssp.cu, section 1b: the same code between the
// log's stamps), each sweep's span by the GPU's global timer from its
// block 0's start to the latest end of its last edgeStampBlocks blocks,
// the init launch's to the first sweep's start; the host records no
// event and reads the log once, after the run. The kernels count the
// distances they lower in running counts (sssp.cu's bf_edge), zeroed
// before the run, whose buffer's first word is the run's modif word: one
// download after each sweep reads both, and a sweep's count is the
// difference of the sums. Every buffer the host uses is made before the
// timed part (the log's ring, the count and step buffers, kept from run
// to run); the trace's steps are copied out after it. Result.Time is
// Device.Time's, like an untraced run's.
func (p *Prepared) runEdgeTraced(r *Result, d64 *gpu.Float64s) error {
	run, err := p.tracedEdgeRun(d64)
	if err != nil {
		return err
	}
	var iters int
	dur, err := p.Device().Time(func(t *gpu.Thread) error {
		var err error
		iters, err = p.edgeSweeps(t, r.Source, run)
		return err
	})
	launches, lerr := p.edgeLaunches(err)
	if err = errors.Join(err, lerr); err != nil {
		return err
	}
	m := p.coo.Edges
	for i := range launches {
		launches[i].Bytes, launches[i].Gather = p.edgeSweepBytes(launches[i].Step < 0)
	}
	p.edgeResult(r, dur, iters)
	r.Trace = trace.FromLaunches(r.Algorithm, 2*m, dur, slices.Clone(p.edgeSteps), launches)
	return nil
}

// tracedEdgeRun readies a traced run: the count buffer made (a search
// prepared untraced) and zeroed, the launch log, the logged kernels and
// their launcher, the step buffer emptied, and read, which appends a
// step per sweep.
func (p *Prepared) tracedEdgeRun(d64 *gpu.Float64s) (edgeRun, error) {
	if err := p.readyEdgeTrace(); err != nil {
		return edgeRun{}, err
	}
	m := 2 * p.coo.Edges
	p.edgeSteps = p.edgeSteps[:0]
	run := edgeRun{
		kInit: p.kInitLog, kStep: p.kStepLog, dist: p.distArg(d64), flags: p.lowered, lowered: p.lowered,
		stampFrom: edgeStampFrom(gpu.Blocks(int(p.coo.Edges), blockSize).X),
	}
	run.launch = func(t *gpu.Thread, step int, f *gpu.Function, grid gpu.Dim, args ...any) error {
		if step < 0 { // the first sweep follows at once: its start ends the init's time
			return p.llog.LaunchOpen(t, nil, step, f, grid, gpu.D1(blockSize), 0, args...)
		}
		return p.llog.LaunchOn(t, nil, step, f, grid, gpu.D1(blockSize), 0, args...)
	}
	var before uint64 // the running count before the sweep read next
	run.read = func(iter int) (bool, error) {
		if err := p.lowered.Download(p.edgeCounts); err != nil {
			return false, err
		}
		total := edgeCountSum(p.edgeCounts)
		p.edgeSteps = append(p.edgeSteps, trace.Step{Kind: "sweep", Inspected: m, Updated: int64(total - before)})
		before = total
		return int32(uint32(p.edgeCounts[0])) == int32(iter), nil // the int modif word: the first word's low half (little-endian)
	}
	return run, nil
}

// readyEdgeTrace makes what a traced run uses and the host would
// otherwise make in the timed part: the count buffer (a search prepared
// untraced), zeroed, the host's copy of it, room for the steps, and the
// launch log (its ring).
func (p *Prepared) readyEdgeTrace() error {
	var err error
	if p.lowered == nil { // prepared untraced
		if p.lowered, err = p.mem.AllocUint64s(edgeCountWords); err != nil {
			return err
		}
	}
	if err := p.lowered.Fill(0); err != nil {
		return err
	}
	if p.edgeCounts == nil {
		if p.countsHost, err = p.mem.AllocPinned(8 * edgeCountWords); err != nil {
			return err
		}
		p.edgeCounts = p.countsHost.Uint64s()
		p.edgeSteps = make([]trace.Step, 0, 64)
	}
	_, err = p.Device().KeepLaunchLog(&p.llog)
	return err
}

// edgeLaunches reads a traced run's launches with their times, after
// the timed part, or drops them when the run failed (runErr): they would
// otherwise open the next run's trace.
func (p *Prepared) edgeLaunches(runErr error) ([]trace.Launch, error) {
	if runErr != nil {
		p.llog.Drop()
		return nil, nil
	}
	return p.llog.Launches()
}

// nearSlots is the number of slots v brings to a near queue (sssp.cu's
// near_slots): its light arcs, at least one when it has arcs, none
// without.
// It reads the host graph: p.g must be set.
func (p *Prepared) nearSlots(v int32) int64 {
	o0, o1 := p.g.Offsets[v], p.g.Offsets[v+1]
	if o1 == o0 {
		return 0
	}
	le := o1
	if p.lendHost != nil {
		le = p.lendHost[v]
	}
	return max(1, le-o0)
}

// runNearFar launches steps in batches until the near queue, the settle
// list and the far piles are all empty (sssp.cu, section 2).
func (p *Prepared) runNearFar(r *Result, d64 *gpu.Float64s) error {
	n := p.n
	src := r.Source
	slots, err := p.sourceSlots(src) // the source alone is round 1, even without arcs
	if err != nil {
		return err
	}
	dist := p.distArg(d64)
	thr := any(p.delta)
	if p.opts.Float32 {
		thr = float32(p.delta)
	}
	// A traced run has the steps log themselves (sssp.cu, NF_TLOG: each
	// step's counts and its span on the device) in a ring of tcap
	// entries after the control words, read with them after each batch:
	// no events, no second copy, no launch more than an untraced run's.
	ctl := make([]uint64, p.ctl.Len())
	tcap := p.batch + 1
	// The log's addresses are boxed once, not at every launch: a traced
	// run's launches allocate no more than an untraced run's (between
	// two batches the GPU waits for the host). The init kernel zeroes
	// step 1's entry (tent1) and each step the next one's, so the ring
	// needs no memset of its own.
	var tlog, tent1 any = uint64(0), uint64(0) // null pointers: untraced
	var ring []uint64
	var log []nfLogStep
	if p.opts.Trace {
		base := p.ctl.Ptr() + 8*nfCtlWords
		tlog, tent1, ring = base, base+8*nfTLogWords, ctl[nfCtlWords:]
		log = make([]nfLogStep, 0, 8*tcap)
	}
	// Far above any real run: a guard against a kernel bug. (A Δ far
	// below the weights' spacing makes a phase per distinct distance,
	// a few steps each; still below this.)
	limit := 16*n + 4096
	var launches int
	dur, err := p.Device().Time(func(t *gpu.Thread) error {
		if err := t.Launch(p.kInit, gpu.Blocks(max(n, nfCtlWords, nfTLogWords), blockSize), gpu.D1(blockSize), 0,
			dist, p.stamp, p.sst, p.fstamp, n, src, thr, p.queue[1], slots, p.ctl, tent1); err != nil {
			return err
		}
		launch := func(step int) error {
			return t.Launch(p.kStep, gpu.D1(p.grid), gpu.D1(blockSize), 0,
				p.csr.Offsets, p.lend, p.csr.Adj, p.weights, dist, p.stamp, p.sst, p.fstamp,
				p.queue[step%2], p.queue[(step+1)%2], p.squeue, p.far[0], p.far[1], p.ctl,
				step, p.minSlots, thr, tlog, tcap)
		}
		// readLog appends the steps first..end-1 of the log (a batch),
		// read with the control words after step end-1. A step's counts
		// are the running counts of its parity after it (in the next
		// step's entry, or, for the batch's last step, the control
		// words) less those before it (sssp.cu, NF_T_PSCANNED); its time
		// runs to the next step's start, and the batch's last step's to
		// its latest end (only that step logs ends).
		var before [2][2]uint64 // [parity]{arcs relaxed, distances lowered} before the step read next
		readLog := func(first, end int) error {
			entry := func(r int) nfLogEntry { return nfLogEntry(ring[(r%tcap)*nfTLogWords:][:nfTLogWords]) }
			for r := first; ring != nil && r < end; r++ {
				e := entry(r)
				if e[nfTRound] != uint64(r) {
					return fmt.Errorf("the trace's step log holds step %d where step %d belongs (a kernel bug: please report it)", e[nfTRound], r)
				}
				par := r & 1
				after := [2]uint64{ctl[nfScanned+par], ctl[nfLowered+par]}
				stop := e.end()
				if r+1 < end {
					next := entry(r + 1)
					after = [2]uint64{next[nfTPScanned], next[nfTPLowered]}
					stop = next[nfTStart]
				}
				if e[nfTStart] == 0 || stop < e[nfTStart] {
					return fmt.Errorf("the trace's step log entry of step %d is incomplete: start %d, end %d (a kernel bug: please report it)", r, e[nfTStart], stop)
				}
				if after[0] < before[par][0] || after[1] < before[par][1] {
					return fmt.Errorf("the trace's step log has step %d's counts going down: %v after, %v before (a kernel bug: please report it)", r, after, before[par])
				}
				log = append(log, nfLogStep{e, time.Duration(stop - e[nfTStart]), int64(after[0] - before[par][0]), int64(after[1] - before[par][1])})
				before[par] = after
			}
			return nil
		}
		for step := 1; ; {
			first := step
			for range p.batch {
				if err := launch(step); err != nil {
					return err
				}
				step++
				launches++
			}
			if err := p.ctl.Download(ctl); err != nil {
				return err
			}
			if err := readLog(first, step); err != nil {
				return err
			}
			if ctl[nfQ0+step%3] == 0 && ctl[nfSCnt] == 0 && ctl[nfFCnt]+ctl[nfFCnt+1] == 0 {
				return nil
			}
			if step > limit {
				return fmt.Errorf("queues not empty after %d steps (a kernel bug: please report it)", limit)
			}
		}
	})
	if err != nil {
		return err
	}
	if ring != nil {
		r.Trace = p.nearFarTrace(r.Algorithm, dur, log)
	}
	p.last = nearFarStats{
		rounds:   int(ctl[nfRounds]),
		settles:  int(ctl[nfEpoch]) - 1,
		splits:   int(ctl[nfPhase]) - 1,
		launches: launches,
		scanned:  int64(ctl[nfScanned] + ctl[nfScanned+1]),
		lowered:  int64(ctl[nfLowered] + ctl[nfLowered+1]),
	}
	r.Time = dur
	r.Iterations = p.last.rounds + p.last.settles + p.last.splits
	r.ArcsScanned = p.last.scanned
	if p.opts.Method == NearFar {
		r.Delta = p.delta
		r.Phases = p.last.splits + 1
	}
	return nil
}

// Run computes shortest paths from src on dev with the options o:
// Prepare, Prepared.Run, Close. The result's PrepTime includes the
// preparation, made for this run alone. To run from several sources,
// Prepare once and call Run for each (the preparation is often longer
// than a run).
func Run(dev *gpu.Device, g *graph.CSR, src int32, o Options) (*Result, error) {
	if err := checkInput(g, src); err != nil {
		return nil, err
	}
	p, err := Prepare(dev, g, o)
	if err != nil {
		return nil, err
	}
	r, err := p.Run(src)
	if err = errors.Join(err, p.Close()); err != nil {
		return nil, err
	}
	r.PrepTime += p.PrepTime()
	return r, nil
}

// nfLogEntry is one step's entry in a traced near-far or frontier run's
// log (sssp.cu, NF_T_*).
type nfLogEntry [nfTLogWords]uint64

// end is the step's end: the latest of its blocks' end words.
func (e nfLogEntry) end() uint64 { return slices.Max(e[nfTEnd : nfTEnd+nfTEnds]) }

// idle reports a step that found every queue and pile empty.
func (e nfLogEntry) idle() bool { return e[nfTNear] == 0 && e[nfTSettle] == 0 && e[nfTFar] == 0 }

// nfLogStep is a step of a traced run as read from the log: its entry,
// and its time and counts worked out from its neighbours' entries.
type nfLogStep struct {
	entry            nfLogEntry
	time             time.Duration // from its start to the next step's (the batch's last: to its end)
	scanned, lowered int64         // arcs relaxed, distances lowered
}

// nearFarTrace makes a traced run's Trace from its step log: a step per
// step that did work (light round, settle step or split; idle steps are
// left out), each with its time on the GPU's global timer (its start to
// the next step's start, or, for a batch's last step, to its last
// block's end: the host's read of the control words after a batch is in
// no step), and a launch per step with that time.
func (p *Prepared) nearFarTrace(algorithm string, runTime time.Duration, log []nfLogStep) *trace.Trace {
	steps := make([]trace.Step, 0, len(log))
	launches := make([]trace.Launch, 0, len(log))
	threshold := func(bits uint64) float64 {
		if p.opts.Float32 {
			return float64(math.Float32frombits(uint32(bits)))
		}
		return math.Float64frombits(bits)
	}
	for _, ls := range log {
		e := ls.entry
		if e.idle() {
			continue
		}
		var s trace.Step
		switch {
		case e[nfTNear] != 0:
			s = trace.Step{Kind: "light", Frontier: int64(e[nfTNear] >> 32), FrontierArcs: int64(e[nfTNear] & 0xffffffff)}
		case e[nfTSettle] != 0:
			s = trace.Step{Kind: "settle", Frontier: int64(e[nfTSettle] >> 32), FrontierArcs: int64(e[nfTSettle] & 0xffffffff)}
		default:
			s = trace.Step{Kind: "split", Frontier: int64(e[nfTFar])}
		}
		s.Inspected, s.Updated = ls.scanned, ls.lowered
		s.Why = fmt.Sprintf("T %.4g, far pile %d", threshold(e[nfTThr]), e[nfTFar])
		s.Time = ls.time
		l := trace.Launch{Name: p.kStep.Name(), Grid: [3]int{p.grid, 1, 1}, Block: [3]int{blockSize, 1, 1}, Step: len(steps), Time: s.Time}
		l.Bytes, l.Gather = p.nearFarStepBytes(s)
		launches = append(launches, l)
		steps = append(steps, s)
	}
	return &trace.Trace{Algorithm: algorithm, Arcs: p.m, Steps: steps, Launches: launches, Time: runTime}
}

// The traced edge sweep's counts (sssp.cu's BF_COUNT_SLOTS and
// BF_COUNT_STRIDE; TestKernelSource compares them): slot k of the
// running counts of lowered distances is word (k+1)·edgeCountStride of
// a buffer of edgeCountWords words, whose word 0 holds the run's modif
// word.
const (
	edgeCountSlots  = 16
	edgeCountStride = 16
	edgeCountWords  = (edgeCountSlots + 1) * edgeCountStride
)

// edgeCountSum is the running count of lowered distances in a traced
// edge sweep's counts buffer: its slots summed.
func edgeCountSum(counts []uint64) uint64 {
	var sum uint64
	for k := 1; k <= edgeCountSlots; k++ {
		sum += counts[k*edgeCountStride]
	}
	return sum
}

// The byte models of the traced launches (Options.Trace): what a launch
// must move by construction, its useful bytes, with the part read by
// random lookups (trace.Launch.Bytes, Gather). The scattered writes of
// lowered distances and the queue appends' few words are left out: the
// models are lower bounds, exact for what every launch must read.

// elemSizes are the bytes of a distance and of a weight (0: unit weights).
func (p *Prepared) elemSizes() (dist, weight int64) {
	dist, weight = 8, 4
	if p.opts.Float32 {
		dist = 4
	}
	switch {
	case p.w64:
		weight = 8
	case p.weights == (*gpu.Float32s)(nil):
		weight = 0
	}
	return dist, weight
}

// edgeSweepBytes is the model of an edge sweep launch (sssp_edge_*): per
// edge of the COO view its two endpoints, its weight and its start's
// distance, streamed (the view lists a vertex's edges together, in
// vertex order, or in segments of them with Permute, so consecutive
// threads read the same or neighbouring distances), and its end's
// distance, gathered; for the init launch, every distance written.
func (p *Prepared) edgeSweepBytes(init bool) (bytes, gather int64) {
	d, w := p.elemSizes()
	if init {
		return int64(p.n) * d, 0
	}
	m := p.coo.Edges
	gather = m * d
	return m*(8+w+d) + gather, gather
}

// nearFarStepBytes is the model of a near-far step (sssp_nf_step_*) that
// made step s: a light round or settle step streams its queue's entries
// (8 bytes each) and the arcs it relaxed (target and weight), and gathers
// for each entry its vertex's offsets, light end (near-far only), stamp
// and distance, and
// for each arc its target's distance; a split streams the far pile (4
// bytes a vertex) and gathers each one's distance.
func (p *Prepared) nearFarStepBytes(s trace.Step) (bytes, gather int64) {
	d, w := p.elemSizes()
	if s.Kind == "split" {
		return s.Frontier * (4 + d), s.Frontier * d
	}
	perVertex := 16 + 4 + d // offsets, stamp, distance
	if p.lend != nil {
		perVertex += 8 // the light arcs' end (near-far; the frontier method has none)
	}
	gather = s.Frontier*perVertex + s.Inspected*d
	return s.Frontier*8 + s.Inspected*(4+w) + gather, gather
}
