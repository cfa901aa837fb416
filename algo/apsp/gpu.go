package apsp

import (
	_ "embed"
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/graphnb/graphnb/algo/internal/prepared"
	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/internal/card"
	"github.com/graphnb/graphnb/internal/membudget"
	"github.com/graphnb/graphnb/internal/par"
	"github.com/graphnb/graphnb/trace"
)

// kernelSource is the CUDA C of the GPU methods, compiled by NVRTC once
// per device and configuration (and cached on disk by package gpu); a
// configuration's traced build (config.traced) compiles it after the
// launch log's header (gpu.PrependLaunchLog).
//
//go:embed fw.cu
var kernelSource string

const (
	// elementBlock is the block size of the element-wise kernels.
	elementBlock = 256
	// maxElementGrid caps the grid of the grid-stride kernels.
	maxElementGrid = 1 << 16
)

// config is one compiled flavour of fw.cu (its -D options).
type config struct {
	tile            int
	pred, hops, neg bool
	// dpx: the int32 products use Hopper's DPX instructions (FW_DPX).
	dpx bool
	// traced: the traced build (FW_TRACED, fw.cu's "the two builds"),
	// whose in-core kernels log their spans in a gpu.LaunchLog: what
	// traced in-core runs launch. The untraced build, the same source
	// without the log's header and without FW_TRACED, holds no trace
	// code.
	traced bool
}

// dpxOff makes prepareGPU compile the generic products on every device
// (tests of the generic int32 code on a DPX device).
var dpxOff bool

// hasDPX reports whether a device of compute capability major.minor runs
// the DPX instructions in hardware: 9.0 (Hopper) and later. Before it
// NVRTC would emulate them with several instructions each, no faster
// than the generic code.
func hasDPX(in gpu.Info) bool { return in.ComputeMajor >= 9 && !dpxOff }

func bit(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// compileOptions are the -D options of c: FW_TRACED only for the traced
// build.
func (c config) compileOptions() []gpu.CompileOption {
	opts := []gpu.CompileOption{
		gpu.Define("FW_TILE", strconv.Itoa(c.tile)),
		gpu.Define("FW_PRED", bit(c.pred)),
		gpu.Define("FW_HOPS", bit(c.hops)),
		gpu.Define("FW_NEG", bit(c.neg)),
		gpu.Define("FW_DPX", bit(c.dpx)),
	}
	if c.traced {
		opts = append(opts, gpu.Define("FW_TRACED", "1"))
	}
	return opts
}

// source is the text NVRTC compiles for c: fw.cu, after the launch log's
// header for the traced build.
func (c config) source() (name, src string) {
	if c.traced {
		return "fw.cu (traced)", gpu.PrependLaunchLog(kernelSource)
	}
	return "fw.cu", kernelSource
}

// planes is the number of n×n planes a run keeps: distances, then
// predecessors and hop counts when kept.
func (c config) planes() int {
	p := 1
	if c.pred {
		p++
	}
	if c.hops {
		p++
	}
	return p
}

// kernelNames lists every kernel the Go side may launch (a CI test checks
// that fw.cu declares each).
func kernelNames() []string {
	out := []string{"fw_compact", "fw_copy", "fw_csr_scan"}
	for _, base := range []string{"fw_init", "fw_plain", "fw_phase1", "fw_phase2", "fw_phase3", "fw_mp", "fw_csr_count", "fw_csr_fill", "fw_rebuild", "fw_rebuild_rows", "fw_rebuild_warp"} {
		out = append(out, base+"_i32", base+"_f32")
	}
	return out
}

type moduleKey struct {
	dev *gpu.Device
	cfg config
}

// modules caches the compiled kernels per device and configuration.
var modules struct {
	sync.Mutex
	m map[moduleKey]*gpu.Module
}

func deviceModule(dev *gpu.Device, cfg config) (*gpu.Module, error) {
	modules.Lock()
	defer modules.Unlock()
	key := moduleKey{dev, cfg}
	if m := modules.m[key]; m != nil {
		return m, nil
	}
	name, src := cfg.source()
	m, err := dev.Compile(name, src, cfg.compileOptions()...)
	if err != nil {
		return nil, fmt.Errorf("compiling the GPU kernels: %w", err)
	}
	if modules.m == nil {
		modules.m = map[moduleKey]*gpu.Module{}
	}
	modules.m[key] = m
	return m, nil
}

// kernels are the functions of one configuration (one build of it) and
// element type.
type kernels struct {
	init, plain, phase1, phase2, phase3, mp, compact, copy *gpu.Function
	// the predecessors' rebuild (rebuild.go)
	csrCount, csrScan, csrFill, rebuild, rebuildRows, rebuildWarp *gpu.Function
	// rebuildBlock is a staged rebuild kernel's threads per block, for
	// this build's function (planRebuild; 0 for fw_rebuild).
	rebuildBlock int
}

func loadKernels(dev *gpu.Device, cfg config, f32 bool) (*kernels, error) {
	m, err := deviceModule(dev, cfg)
	if err != nil {
		return nil, err
	}
	suffix := "_i32"
	if f32 {
		suffix = "_f32"
	}
	k := &kernels{}
	for _, f := range []struct {
		dst  **gpu.Function
		name string
	}{
		{&k.init, "fw_init" + suffix}, {&k.plain, "fw_plain" + suffix}, {&k.phase1, "fw_phase1" + suffix},
		{&k.phase2, "fw_phase2" + suffix}, {&k.phase3, "fw_phase3" + suffix}, {&k.mp, "fw_mp" + suffix},
		{&k.compact, "fw_compact"}, {&k.copy, "fw_copy"},
		{&k.csrCount, "fw_csr_count" + suffix}, {&k.csrScan, "fw_csr_scan"}, {&k.csrFill, "fw_csr_fill" + suffix}, {&k.rebuild, "fw_rebuild" + suffix},
		{&k.rebuildRows, "fw_rebuild_rows" + suffix}, {&k.rebuildWarp, "fw_rebuild_warp" + suffix},
	} {
		if *f.dst, err = m.Function(f.name); err != nil {
			return nil, err
		}
	}
	return k, nil
}

// elementGrid is the grid of a grid-stride kernel over count entries.
func elementGrid(count int64) gpu.Dim {
	b := (count + elementBlock - 1) / elementBlock
	return gpu.D1(int(max(1, min(b, maxElementGrid))))
}

// matrixInfo is what Prepare learns from scanning the input.
type matrixInfo struct {
	n   int
	f32 bool
	// neg: some entry is negative.
	neg bool
	// mayCycle: without the hop tie-break, predecessors could form a
	// cycle: some finite off-diagonal entry is ≤ 0 (zero-weight cycles),
	// or float32 sums may round (an entry is not a whole number, or
	// (N-1)·max|entry| reaches 2^24).
	mayCycle bool
	// nonPos: some finite off-diagonal entry is ≤ 0.
	nonPos bool
	// arcs is the number of finite off-diagonal entries.
	arcs int64
}

// scanMatrix validates d as the CPU algorithms do and fills matrixInfo.
func scanMatrix(d *graph.Dense, who string) (matrixInfo, error) {
	neg, maxAbs, err := inspect(d, who)
	if err != nil {
		return matrixInfo{}, err
	}
	n := d.N
	info := matrixInfo{n: n, f32: d.F32 != nil, neg: neg}
	var nonPos, fraction atomic.Bool
	var arcs atomic.Int64
	err = par.ForChunks(n, max(1, 65536/max(n, 1)), func(_, lo, hi int) {
		np, fr := false, false
		var m int64
		for i := lo; i < hi; i++ {
			for j := 0; j < n; j++ {
				if i == j {
					continue
				}
				if d.F32 != nil {
					w := d.F32[i*n+j]
					if math.IsInf(float64(w), 1) {
						continue
					}
					m++
					np = np || w <= 0
					fr = fr || w != float32(math.Trunc(float64(w)))
				} else if w := d.I32[i*n+j]; w < graph.InfI32 {
					m++
					np = np || w <= 0
				}
			}
		}
		arcs.Add(m)
		if np {
			nonPos.Store(true)
		}
		if fr {
			fraction.Store(true)
		}
	})
	if err != nil {
		return matrixInfo{}, fmt.Errorf("apsp: %s: %w", who, err)
	}
	inexact := info.f32 && (fraction.Load() || float64(max(n-1, 1))*maxAbs >= 1<<24)
	info.nonPos, info.arcs = nonPos.Load(), arcs.Load()
	info.mayCycle = info.nonPos || inexact
	return info, nil
}

// base is the lifecycle Prepared shares with the other algorithms.
type base = prepared.Base

// Prepared is a matrix prepared on a device for all-pairs shortest paths
// with one set of options: validated, the kernels compiled and loaded,
// the device buffers (and for the out-of-core method the pinned host
// memory and streams) allocated. On the host device it only holds the
// matrix and the options.
//
// Run may be called many times, from several goroutines (runs are
// serialised); Close frees the memory. The matrix must not change while
// it is prepared.
type Prepared struct {
	base
	mem  *gpu.Allocations // every device resource below, and the fallback's
	d    *graph.Dense
	opts Options
	info matrixInfo
	cap  int64 // device bytes the run may use (0: unknown, no check)

	// Device state; nil on the host.
	cfg                  config
	k                    *kernels
	np                   int         // padded side of the in-core matrix
	dist, pred, hops, io *gpu.Int32s // in core; io holds the compact n×n input and output when np > n
	rebuild              bool        // in core: distances-only products, predecessors rebuilt (rebuild.go)
	csr                  *csrState   // the rebuild's arcs by column
	rebuildPlan          rebuildPlan // the rebuild's kernel (rebuild.go)
	smem                 int         // shared memory a block may opt in to, bytes (the rebuild's block)
	ooc                  *oocState   // out of core
	fallback             *Prepared   // the same with the hop tie-break, once predecessors formed a cycle
	ck                   *checkState // the device check's buffers (devcheck.go), made by the first Check

	// Traced in-core runs launch kt, the traced build's kernels (k is
	// the untraced build's: untraced and out-of-core runs, the
	// download), loaded by Prepare with Options.Trace or by the first
	// traced run, and time them through launchLog, made by the first
	// traced run, its ring reused by the next and freed by Close.
	kt        *kernels
	launchLog *gpu.LaunchLog
}

// Prepare readies the matrix d on dev for Run with the options o (the
// zero Options: the study's plain kernel with parents).
//
// It validates d as FloydWarshall does, compiles the kernels for the
// configuration (tile, predecessors, int32 or float32, negative entries;
// once per device and process), and allocates on the device the padded
// matrix: for n vertices padded to np (a multiple of the tile for the
// blocked methods), 4·np² bytes of distances and as many of predecessors,
// plus 4·n² bytes for the compact input and output when np > n, plus,
// where the run rebuilds the predecessors from the distances (see
// Options.PredecessorsInProduct), the matrix's m arcs by column:
// 40·np + 8 + 8·m bytes (Bytes); the rebuild is chosen here, and only
// when it fits in core with the rest. A method that keeps the matrix in
// core fails when that exceeds the memory cap (Options.MemoryCap, else
// the device's free memory); OutOfCoreGPU then plans K×K blocks that
// fit, allocates them and 4·np² bytes of pinned host memory per plane.
// With Options.Trace an in-core preparation also compiles and loads the
// traced build of the kernels (see Options.Trace; a traced run of a
// Prepared made without it does so first, outside the run's time).
// PrepTime reports it all.
//
// On the host device (dev.IsHost()) nothing is allocated: Run computes
// with the CPU's FloydWarshall (PlainGPU) or Blocked (the other methods,
// with the option's tile, else the CPU's default), so a notebook runs
// unchanged without a GPU.
//
// It returns an error for a nil device, a malformed matrix (see Blocked),
// a negative diagonal entry (a *NegativeCycleError), unknown options, a
// matrix that does not fit the memory cap in core, a cap too small even
// out of core, a compile error or a device that runs out of memory.
func Prepare(dev *gpu.Device, d *graph.Dense, o Options) (*Prepared, error) {
	return prepare1(dev, d, time.Now(), o)
}

func prepare1(dev *gpu.Device, d *graph.Dense, start time.Time, o Options) (*Prepared, error) {
	if dev == nil {
		return nil, errors.New("apsp: Prepare: nil device (use gpu.Default())")
	}
	if err := o.check(); err != nil {
		return nil, err
	}
	info, err := scanMatrix(d, "Prepare")
	if err != nil {
		return nil, err
	}
	p := &Prepared{d: d, opts: o, info: info}
	p.mem = prepared.Init(&p.base, "apsp", o.Label(), dev)
	if !dev.IsHost() {
		// A run downloads the distances and the predecessors to the host.
		need := membudget.Bytes(int64(info.n)*int64(info.n), 8)
		if err := membudget.Check(fmt.Sprintf("apsp: the result of %s on %d vertices", p.Label(), info.n), need); err != nil {
			return nil, err
		}
		if err := p.prepareGPU(false); err != nil {
			_ = p.mem.Free()
			return nil, fmt.Errorf("apsp: preparing %s on %v: %w", p.Label(), dev, err)
		}
	}
	prepared.Done(&p.base, start)
	return p, nil
}

// PrepareGraph is Prepare on the weight matrix of g (g.Dense): int32 when
// every weight is a whole number small enough, float32 otherwise or when
// Options.Float32 is set. The conversion counts in PrepTime.
func PrepareGraph(dev *gpu.Device, g *graph.CSR, o Options) (*Prepared, error) {
	start := time.Now()
	d, err := graphMatrix(g, o.Float32)
	if err != nil {
		return nil, err
	}
	return prepare1(dev, d, start, o)
}

// graphMatrix returns g's weight matrix, int32 when it can be and
// float32 is not asked for.
func graphMatrix(g *graph.CSR, f32 bool) (*graph.Dense, error) {
	if g == nil || len(g.Offsets) == 0 {
		return nil, errors.New("apsp: no graph (nil or without offsets)")
	}
	if !f32 {
		if d, err := g.Dense(true); err == nil {
			return d, nil
		}
	}
	d, err := g.Dense(false)
	if err != nil {
		return nil, fmt.Errorf("apsp: %w", err)
	}
	return d, nil
}

// roundUp rounds n up to a multiple of m.
func roundUp(n, m int) int { return (n + m - 1) / m * m }

// inCoreBytes is the device memory of an in-core run.
func inCoreBytes(n, np, planes int) int64 {
	b := int64(planes) * int64(np) * int64(np) * 4
	if np != n {
		b += int64(n) * int64(n) * 4
	}
	return b
}

// prepareGPU compiles and allocates; hops selects the tie-break flavour.
func (p *Prepared) prepareGPU(hops bool) error {
	o := p.opts
	n := p.info.n
	pred := !o.DistancesOnly
	p.rebuild = p.rebuildCandidate(hops)
	p.cfg = config{tile: o.productTile(pred && !p.rebuild), pred: pred && !p.rebuild, hops: hops && pred, neg: p.info.neg}
	p.cap = o.MemoryCap
	if in, err := p.Device().Info(); err == nil {
		p.cfg.dpx = hasDPX(in)
		if p.cap == 0 {
			p.cap = in.FreeMemory
		}
		p.smem = in.MaxSharedPerBlockOptin
	}
	if p.cap > 0 && p.inCoreNeed() > p.cap && (p.rebuild || p.cfg.tile != o.tile()) {
		// the rebuild's arcs, or the distances-only tile's padding, do not
		// fit in core: the products with predecessors and the default tile,
		// in core or streamed.
		p.rebuild, p.cfg.pred, p.cfg.tile = false, pred, o.tile()
	}
	var err error
	if p.k, err = loadKernels(p.Device(), p.cfg, p.info.f32); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	planes := p.cfg.planes()
	p.np = p.paddedSide()
	if need := p.inCoreNeed(); p.cap > 0 && need > p.cap {
		if o.Method != OutOfCoreGPU {
			return fmt.Errorf("the %s method keeps the whole matrix on the device: %d vertices (padded to %d) need %s, but the memory cap is %s: use apsp.Options{Method: apsp.OutOfCoreGPU}",
				o.Method, n, p.np, card.Bytes(need), card.Bytes(p.cap))
		}
		plan, err := planFor(n, p.cfg.tile, planes, p.cap)
		if err != nil {
			return err
		}
		return p.prepareOOC(plan)
	}
	alloc := func() (*gpu.Int32s, error) { return p.mem.AllocInt32s(p.np * p.np) }
	if p.dist, err = alloc(); err != nil {
		return err
	}
	if p.cfg.pred || p.rebuild {
		if p.pred, err = alloc(); err != nil {
			return err
		}
	}
	if p.cfg.hops {
		if p.hops, err = alloc(); err != nil {
			return err
		}
	}
	if p.np != n {
		if p.io, err = p.mem.AllocInt32s(n * n); err != nil {
			return err
		}
	}
	if p.rebuild {
		if err := p.allocCSR(); err != nil {
			return err
		}
		if err := p.planRebuild(); err != nil {
			return err
		}
	}
	if o.Trace {
		// the traced build's compile belongs to the preparation.
		if _, err := p.tracedKernels(); err != nil {
			return err
		}
	}
	return nil
}

// tracedKernels returns the traced build's kernels of p's configuration
// (kt), compiling (once per device and process) and loading them on
// first use, the staged rebuild kernel's block sized for its function.
func (p *Prepared) tracedKernels() (*kernels, error) {
	if p.kt != nil {
		return p.kt, nil
	}
	cfg := p.cfg
	cfg.traced = true
	k, err := loadKernels(p.Device(), cfg, p.info.f32)
	if err != nil {
		return nil, err
	}
	if p.rebuild {
		if err := p.sizeRebuildBlock(k); err != nil {
			return nil, err
		}
	}
	p.kt = k
	return k, nil
}

// paddedSide is the side of the in-core matrix: n, padded to a multiple
// of the tile for the blocked methods.
func (p *Prepared) paddedSide() int {
	if p.opts.Method == PlainGPU {
		return p.info.n
	}
	return roundUp(p.info.n, p.cfg.tile)
}

// inCoreNeed is the device memory of an in-core run of p's configuration:
// its planes (a predecessor plane for the rebuild too), the compact
// buffer, the rebuild's CSR.
func (p *Prepared) inCoreNeed() int64 {
	n, np := p.info.n, p.paddedSide()
	planes := p.cfg.planes()
	if !p.rebuild {
		return inCoreBytes(n, np, planes)
	}
	return inCoreBytes(n, np, planes+1) + csrBytes(np, p.info.arcs)
}

// Close frees the device and pinned memory; later Runs fail. Close is
// idempotent and accepts a nil Prepared.
func (p *Prepared) Close() error {
	if p == nil {
		return nil
	}
	err := errors.Join(p.base.Close(), p.launchLog.Close())
	p.launchLog = nil
	if p.fallback != nil { // its memory is p's, its launch log its own
		err = errors.Join(err, p.fallback.launchLog.Close())
		p.fallback.launchLog = nil
	}
	return err
}

// Options returns the options the matrix was prepared with.
func (p *Prepared) Options() Options { return p.opts }

// Matrix returns the prepared matrix.
func (p *Prepared) Matrix() *graph.Dense { return p.d }

// OutOfCore reports whether runs stream the matrix through the device
// (OutOfCoreGPU with a matrix larger than the cap), and then the blocks:
// q×q blocks of k×k entries, up to g blocks per transfer.
func (p *Prepared) OutOfCore() (streamed bool, k, q, g int) {
	if p.ooc == nil {
		return false, 0, 0, 0
	}
	pl := p.ooc.plan
	return true, pl.K, pl.q, pl.G
}

// String describes the prepared matrix in one line.
func (p *Prepared) String() string {
	kind := "int32"
	if p.info.f32 {
		kind = "float32"
	}
	s := fmt.Sprintf("apsp: %s prepared on %v: %d vertices, %s, %s on the device", p.Label(), p.Device(), p.info.n, kind, card.Bytes(p.Bytes()))
	if streamed, k, q, _ := p.OutOfCore(); streamed {
		s += fmt.Sprintf(", streamed in %d×%d blocks of %d", q, q, k)
	}
	return s + fmt.Sprintf(", prepared in %v", p.PrepTime().Round(time.Microsecond))
}

// algorithm is Result.Algorithm of a GPU run.
func (p *Prepared) algorithm() string {
	var s string
	switch p.opts.Method {
	case PlainGPU:
		s = "gpu plain Floyd-Warshall"
	case BlockedGPU:
		s = fmt.Sprintf("gpu blocked Floyd-Warshall (tile %d)", p.cfg.tile)
	default:
		if p.ooc != nil {
			pl := p.ooc.plan
			s = fmt.Sprintf("gpu out-of-core blocked Floyd-Warshall (tile %d, %d×%d blocks of %d, up to %d per copy)", p.cfg.tile, pl.q, pl.q, pl.K, pl.G)
		} else {
			s = fmt.Sprintf("gpu out-of-core blocked Floyd-Warshall (tile %d; the matrix fits, so in core)", p.cfg.tile)
		}
	}
	if p.usesDPX() {
		s += ", DPX"
	}
	if p.opts.DistancesOnly {
		s += ", distances only"
	}
	if p.rebuild {
		s += ", predecessors rebuilt from distances"
	}
	if p.cfg.hops {
		s += ", ties broken by hop count"
	}
	return s
}

// usesDPX reports whether the run's products use DPX instructions (see
// fw.cu's FW_DPX): the blocked methods on an int32 matrix compiled with
// FW_DPX, except with the hop tie-break and except distances only with
// negative entries (the clamped sum is no DPX form).
func (p *Prepared) usesDPX() bool {
	c := p.cfg
	return c.dpx && !p.info.f32 && p.opts.Method != PlainGPU && !c.hops && (c.pred || !c.neg)
}

// Run computes all-pairs shortest paths of the prepared matrix.
//
// Result.Algorithm names the method ("gpu blocked Floyd-Warshall (tile
// 64)"), with ", DPX" when its products use Hopper's DPX instructions
// (int32 on compute capability 9.0 and later; see fw.cu); Time is the GPU time of the computation measured with CUDA
// events (in core: the initialisation kernel and the launch loop; out of
// core: the kernels alone); CopyTime is what the copies add: in core the
// upload of the input before and the download of the result after, out
// of core the streamed run's time beyond its kernels (copies that did not
// overlap them, waits) plus the host's unpacking of the result. Time +
// CopyTime is the time with copies. PrepTime is only what this run
// prepared by itself: 0 in core; out of core, the host's packing of the
// input into blocks; on the host device, the CPU algorithm's own
// validation and copy. The run that first needs the hop tie-break (see
// below) adds its preparation. Prepare's time, spent once, is
// PrepTime(); the one-shot Run and RunGraph add it.
//
// Dist has the input's element type. For int32 it equals the CPU
// algorithms' exactly; float32 sums are grouped differently (tiles,
// blocks) and agree within Check's tolerance. Parents (nil with
// DistancesOnly) is a valid predecessor matrix: where several shortest
// paths tie it may name another predecessor than the CPU. A blocked run
// in core on a sparse matrix with positive weights computes the
// distances alone and rebuilds the predecessors from them and the arcs
// (a tight in-arc per entry; Algorithm then ends with "predecessors
// rebuilt from distances"; Options.PredecessorsInProduct keeps them in
// the products instead). When the input
// allows zero-weight cycles (a zero or negative entry) or float32
// rounding, Run checks the predecessors for cycles and, if it finds one,
// runs again with ties broken by hop count, as the CPU does (the
// algorithm then says so; later runs of the Prepared use the tie-break
// from the start, and the first one also prepares it: more memory, more
// time, that run's PrepTime).
//
// It returns a *NegativeCycleError (errors.Is ErrNegativeCycle) when a
// distance from a vertex to itself turns negative, naming the vertex the
// CPU's FloydWarshall names (it reruns on the host to find it), an error
// for a closed Prepared or a device error, and, wrapped,
// cancel.ErrInterrupted: every launch polls cancel.Check.
func (p *Prepared) Run() (*Result, error) {
	r, err := p.run()
	if err != nil {
		return nil, err
	}
	if r.Trace != nil {
		r.Trace.Algorithm = r.Algorithm // as the result names it, notes included
	}
	// The host's packing and checks stop early when interrupted.
	if err := cancel.Check(); err != nil {
		return nil, fmt.Errorf("apsp: %s: %w", p.Label(), err)
	}
	return r, nil
}

func (p *Prepared) run() (*Result, error) {
	prepared.Lock(&p.base)
	defer prepared.Unlock(&p.base)
	if err := prepared.Open(&p.base); err != nil {
		return nil, err
	}
	if err := cancel.Check(); err != nil {
		return nil, fmt.Errorf("apsp: %w", err)
	}
	if p.Device().IsHost() {
		return p.runHost()
	}
	// The fallback runs as p's options say now (Options.Trace may change
	// between runs: BenchmarkGPUTrace), not as they were when it was made.
	traced := p.opts.Trace
	if p.fallback != nil {
		// an earlier run needed the tie-break; this matrix always will.
		return p.fallback.runOnce(traced)
	}
	r, err := p.runOnce(traced)
	if err != nil {
		return nil, err
	}
	if p.info.neg {
		if v := negativeDiagonal(r.Dist); v >= 0 {
			return nil, p.negativeCycle(v)
		}
	}
	if r.Parents != nil && p.info.mayCycle && predCycleRow(r.Parents, p.info.n) >= 0 {
		fb, err := p.hopsFallback()
		switch {
		case errors.Is(err, cancel.ErrInterrupted):
			return nil, fmt.Errorf("apsp: %w", err)
		case err != nil:
			// The hop tie-break needs a hop count per entry, which a
			// tight memory cap may not leave room for: the host rebuilds
			// distances and predecessors with the CPU's blocked FW (its
			// tie-break), and the result says so.
			cpu, cerr := Blocked(p.d, p.cfg.tile)
			if cerr != nil {
				return nil, fmt.Errorf("apsp: %s: predecessors formed a cycle on a tie; the hop tie-break does not fit (%v) and the host's rerun failed: %w", p.Label(), err, cerr)
			}
			r.Dist, r.Parents = cpu.Dist, cpu.Parents
			r.Algorithm += "; predecessors rebuilt on the host (ties formed a cycle and the hop tie-break does not fit: " + err.Error() + ")"
		default:
			if r, err = fb.runOnce(traced); err != nil {
				return nil, err
			}
			r.PrepTime += fb.PrepTime() // prepared by this run, once
		}
	}
	return r, nil
}

// hopsFallback returns the Prepared with the hop tie-break, made on first
// use and kept.
func (p *Prepared) hopsFallback() (*Prepared, error) {
	if p.fallback != nil {
		return p.fallback, nil
	}
	start := time.Now()
	fb := &Prepared{d: p.d, opts: p.opts, info: p.info}
	fb.mem = prepared.InitSub(&fb.base, &p.base)
	if err := fb.prepareGPU(true); err != nil {
		_ = fb.mem.Free()
		return nil, err
	}
	prepared.Done(&fb.base, start)
	p.fallback = fb
	return fb, nil
}

// runOnce is one GPU run, in or out of core, traced or not.
func (p *Prepared) runOnce(traced bool) (*Result, error) {
	if p.info.n == 0 {
		return p.emptyResult(), nil
	}
	var r *Result
	var err error
	if p.ooc != nil {
		r, err = p.runOOC(traced)
	} else {
		r, err = p.runInCore(traced)
	}
	if err != nil {
		// leave no work queued behind a failed or interrupted run.
		_ = p.Device().Synchronize()
		return nil, fmt.Errorf("apsp: %s: %w", p.algorithm(), err)
	}
	return r, nil
}

// emptyResult is the result of a matrix with no vertices.
func (p *Prepared) emptyResult() *Result {
	dist := &graph.Dense{}
	if p.info.f32 {
		dist.F32 = []float32{}
	} else {
		dist.I32 = []int32{}
	}
	r := &Result{Algorithm: p.algorithm(), Dist: dist}
	if !p.opts.DistancesOnly {
		r.Parents = []int32{}
	}
	if p.opts.Method != PlainGPU {
		r.Tile = p.cfg.tile
	}
	return r
}

// newResult allocates the result of a run over n vertices.
func (p *Prepared) newResult() *Result {
	n := p.info.n
	dist := &graph.Dense{N: n}
	if p.info.f32 {
		dist.F32 = make([]float32, n*n)
	} else {
		dist.I32 = make([]int32, n*n)
	}
	r := &Result{Algorithm: p.algorithm(), Dist: dist}
	if !p.opts.DistancesOnly {
		r.Parents = make([]int32, n*n)
	}
	if p.opts.Method != PlainGPU {
		r.Tile = p.cfg.tile
	}
	return r
}

// bits returns the entries of d as int32 bit patterns (a view, not a
// copy: float32 entries reinterpreted), the form the kernels' 4-byte
// planes travel in.
func bits(d *graph.Dense) []int32 {
	if d.I32 != nil {
		return d.I32
	}
	if len(d.F32) == 0 {
		return nil
	}
	return unsafe.Slice((*int32)(unsafe.Pointer(&d.F32[0])), len(d.F32))
}

// runInCore uploads the input, runs the method on the whole matrix and
// downloads the result. A traced run launches the traced build's
// kernels, logged in the launch log (see Options.Trace: every logged
// launch but the run's last is open, its time running to the next
// logged launch's start, since the launches follow one another on the
// default stream with nothing between them), but for PlainGPU's
// unlogged launches (plainLaunches), whose entries' Counts it sets
// after reading the log; an untraced one the untraced build's, unlogged
// (a nil log).
func (p *Prepared) runInCore(traced bool) (*Result, error) {
	n := p.info.n
	r := p.newResult()
	k := p.k
	var log *gpu.LaunchLog
	if traced {
		var err error
		if k, err = p.tracedKernels(); err != nil {
			return nil, err
		}
		if log, err = p.Device().KeepLaunchLog(&p.launchLog); err != nil {
			return nil, fmt.Errorf("tracing: %w", err)
		}
	}
	t0 := time.Now()
	if err := p.input().Upload(bits(p.d)); err != nil {
		return nil, err
	}
	copyIn := time.Since(t0)
	dur, err := p.Device().Time(func(t *gpu.Thread) error { return p.inCoreLaunches(t, k, log) })
	if log != nil {
		// A failed run's launches are dropped: they would otherwise open
		// the next run's trace.
		if err != nil {
			log.Drop()
		} else {
			var launches []trace.Launch
			if launches, err = log.Launches(); err == nil {
				err = p.countPlain(launches)
			}
			if err == nil {
				p.addLaunchBytes(launches)
				r.Time = dur
				r.Trace = trace.FromLaunches(r.Algorithm, int64(n)*int64(n), dur, p.inCoreSteps(), launches)
			}
		}
	}
	if err != nil {
		return nil, err
	}
	t1 := time.Now()
	if err := p.download(r); err != nil {
		return nil, err
	}
	r.Time, r.CopyTime = dur, copyIn+time.Since(t1)
	return r, nil
}

// input is the in-core buffer the input is uploaded to: the compact
// n×n buffer when the matrix is padded, else the distances (fw_init
// initialises them in place).
func (p *Prepared) input() *gpu.Int32s {
	if p.np == p.info.n {
		return p.dist
	}
	return p.io
}

// inCoreLaunches queues an in-core run's kernels of k on the default
// stream, logged in log (nil: unlogged), back to back: fw_init (set-up),
// then fw_plain per k (plainLaunches: traced, one logged a k-block), or
// the CSR's kernels where the run rebuilds the predecessors (set-up),
// the rounds, and the rebuild. Every logged launch but the last is open
// (gpu.LaunchLog.LaunchOpen): the next logged launch follows it at once
// (unlogged launches between them at most), with no host work, copy or
// other stream between them; the last is closed, so that the log can
// time it.
func (p *Prepared) inCoreLaunches(t *gpu.Thread, k *kernels, log *gpu.LaunchLog) error {
	n, np := p.info.n, p.np
	if err := log.LaunchOpen(t, nil, -1, k.init, elementGrid(int64(np)*int64(np)), gpu.D1(elementBlock), 0, p.input(), n, p.dist, p.pred, p.hops, np); err != nil {
		return err
	}
	if p.opts.Method == PlainGPU {
		return p.plainLaunches(t, k, log)
	}
	if p.rebuild {
		// the arcs by column, before the products overwrite the matrix.
		if err := p.buildCSR(t, k, log); err != nil {
			return err
		}
	}
	nb := np / p.cfg.tile
	if err := p.blockedRounds(t, nil, k, log, !p.rebuild, p.dist, p.pred, p.hops, 0, np, nb); err != nil {
		return err
	}
	if p.rebuild {
		return p.rebuildPred(t, k, log, nb)
	}
	return nil
}

// plainLaunches queues PlainGPU's fw_plain launches, one per k, on the
// default stream. Untraced (a nil log) all are k's, unlogged. Traced,
// the log holds one entry per entry of plainEntries: its first k
// launched from k, the traced build, open, its time running to the next
// logged launch's start; the entry's other k's follow it from p.k, the
// untraced build, unlogged (a nil log: NULL entries), so that their
// threads run no trace code at all; the run's last launch (k = n−1) is
// an entry of its own, closed, so that the log can time it.
func (p *Prepared) plainLaunches(t *gpu.Thread, k *kernels, log *gpu.LaunchLog) error {
	n := p.info.n
	grid, block := gpu.D2((n+31)/32, (n+7)/8), gpu.D2(32, 8)
	var unlogged *gpu.LaunchLog
	for _, e := range plainEntries(n) {
		launch := log.LaunchOpen
		if e.k == n-1 {
			launch = log.LaunchOn // the run's last
		}
		if err := launch(t, nil, e.k/traceKBlock, k.plain, grid, block, 0, p.dist, p.pred, p.hops, n, e.k); err != nil {
			return err
		}
		for kk := e.k + 1; kk < e.k+e.count; kk++ {
			if err := unlogged.LaunchOpen(t, nil, -1, p.k.plain, grid, block, 0, p.dist, p.pred, p.hops, n, kk); err != nil {
				return err
			}
		}
	}
	return nil
}

// plainEntry is one logged fw_plain launch of a traced PlainGPU run: the
// k it launches, and the launches it stands for (trace.Launch.Count):
// itself and the unlogged k's after it.
type plainEntry struct{ k, count int }

// plainEntries are the logged launches of a traced PlainGPU run over n
// vertices: one per k-block of traceKBlock k's (its first k, standing
// for the block), but that the run's last k, n−1, is an entry of its
// own (count 1), taken from its block's entry unless it is the block's
// first. Their counts sum to n.
func plainEntries(n int) []plainEntry {
	var out []plainEntry
	for k := 0; k < n; k += traceKBlock {
		c := min(traceKBlock, n-k)
		if k+c < n || c == 1 {
			out = append(out, plainEntry{k, c})
			continue
		}
		out = append(out, plainEntry{k, c - 1}, plainEntry{n - 1, 1})
	}
	return out
}

// blockedRounds queues the rounds of blocked Floyd-Warshall over the
// nb×nb tiles at base (ld entries per row) on stream s (nil: the default
// stream) with k's kernels: for each diagonal tile, phase 1, then
// phases 2 and 3. The log (nil: unlogged) logs each launch as a launch
// of step b, the round's, open (gpu.LaunchLog.LaunchOpen: each follows
// the one before it at once on s) but for the last when closeLast (the
// run's last launch, or one that host work or a copy follows).
func (p *Prepared) blockedRounds(t *gpu.Thread, s *gpu.Stream, k *kernels, log *gpu.LaunchLog, closeLast bool, d, pr, h *gpu.Int32s, base int64, ld, nb int) error {
	block := gpu.D2(16, 16)
	launch := func(last bool, step int, f *gpu.Function, grid gpu.Dim) error {
		if last && closeLast {
			return log.LaunchOn(t, s, step, f, grid, block, 0, d, pr, h, base, ld, step)
		}
		return log.LaunchOpen(t, s, step, f, grid, block, 0, d, pr, h, base, ld, step)
	}
	for b := 0; b < nb; b++ {
		last := b == nb-1
		if err := launch(last && nb == 1, b, k.phase1, gpu.D1(1)); err != nil {
			return err
		}
		if nb == 1 {
			continue
		}
		if err := launch(false, b, k.phase2, gpu.D2(nb-1, 2)); err != nil {
			return err
		}
		if err := launch(last, b, k.phase3, gpu.D2(nb-1, nb-1)); err != nil {
			return err
		}
	}
	return nil
}

// inCoreSteps are the steps of a traced in-core run, their times left to
// its launches (trace.FromLaunches): a "k-block" of traceKBlock k's per
// step for PlainGPU, a "round" per diagonal tile for the blocked
// methods, each inspecting its k's times the entries the kernels sweep
// (the padded matrix of the blocked methods).
func (p *Prepared) inCoreSteps() []trace.Step {
	n, np := p.info.n, p.np
	var steps []trace.Step
	if p.opts.Method == PlainGPU {
		for k := 0; k < n; k += traceKBlock {
			steps = append(steps, trace.Step{Kind: kindKBlock, Inspected: relaxations(min(traceKBlock, n-k), n)})
		}
		return steps
	}
	for b := 0; b < np/p.cfg.tile; b++ {
		steps = append(steps, trace.Step{Kind: kindRound, Inspected: relaxations(p.cfg.tile, np)})
	}
	if p.rebuild {
		steps = append(steps, p.rebuildStep())
	}
	return steps
}

// download copies the n×n distances and predecessors into r, through the
// compact buffer when the matrix is padded.
func (p *Prepared) download(r *Result) error {
	n, np := p.info.n, p.np
	planes := []struct {
		buf *gpu.Int32s
		dst []int32
	}{{p.dist, bits(r.Dist)}}
	if r.Parents != nil {
		planes = append(planes, struct {
			buf *gpu.Int32s
			dst []int32
		}{p.pred, r.Parents})
	}
	for _, pl := range planes {
		if np == n {
			if err := pl.buf.Download(pl.dst); err != nil {
				return err
			}
			continue
		}
		if err := p.k.compact.Launch(elementGrid(int64(n)*int64(n)), gpu.D1(elementBlock), 0, pl.buf, np, p.io, n); err != nil {
			return err
		}
		if err := p.io.Download(pl.dst); err != nil {
			return err
		}
	}
	return nil
}

// runHost is Run on the host device: the CPU's algorithms, their PrepTime
// their own per-run preparation (PrepTime() is not added).
func (p *Prepared) runHost() (*Result, error) {
	var r *Result
	var err error
	if p.opts.Method == PlainGPU {
		r, err = runPlain(p.d, p.opts.Trace)
	} else {
		r, err = runBlocked(p.d, p.opts.Tile, p.opts.Trace)
	}
	if err != nil {
		return nil, err
	}
	r.Algorithm += "; host device standing in for gpu " + p.Label()
	if r.Trace != nil {
		r.Trace.Algorithm = r.Algorithm
	}
	if p.opts.DistancesOnly {
		r.Parents = nil
	}
	return r, nil
}

// negativeDiagonal returns a vertex whose distance to itself is negative,
// or -1.
func negativeDiagonal(d *graph.Dense) int {
	for i := 0; i < d.N; i++ {
		if d.At(i, i) < 0 {
			return i
		}
	}
	return -1
}

// negativeCycle returns the error of a run that found D[v][v] < 0: the
// CPU's FloydWarshall names the vertex (the k of the first step that
// makes a diagonal entry negative, which lies on the cycle).
func (p *Prepared) negativeCycle(v int) error {
	_, err := FloydWarshall(p.d)
	if err != nil {
		return err
	}
	return &NegativeCycleError{Vertex: v}
}

// predCycleRow returns the first row s whose predecessors, followed from
// some vertex, loop without reaching s (or leave [0, n)), or -1.
// O(n²) time, rows in parallel.
func predCycleRow(pred []int32, n int) int {
	var first atomic.Int64
	first.Store(int64(n))
	par.ForChunks(n, max(1, 4096/max(n, 1)), func(_, lo, hi int) {
		state := make([]uint8, n)
		var walk []int32
		for s := lo; s < hi && int64(s) < first.Load(); s++ {
			if rowHasCycle(pred[s*n:(s+1)*n], s, state, &walk) {
				for {
					cur := first.Load()
					if int64(s) >= cur || first.CompareAndSwap(cur, int64(s)) {
						break
					}
				}
				return
			}
		}
	})
	if f := first.Load(); f < int64(n) {
		return int(f)
	}
	return -1
}

// rowHasCycle follows row s of a predecessor matrix from every vertex:
// state 0 unknown, 1 on the current walk, 2 known to end at s or at -1.
func rowHasCycle(row []int32, s int, state []uint8, walk *[]int32) bool {
	n := len(row)
	clear(state)
	state[s] = 2
	for j := 0; j < n; j++ {
		w := (*walk)[:0]
		v := int32(j)
		for state[v] == 0 {
			state[v] = 1
			w = append(w, v)
			p := row[v]
			if p < 0 {
				break
			}
			if int(p) >= n {
				return true
			}
			v = p
		}
		if state[v] == 1 && row[v] >= 0 {
			return true
		}
		for _, x := range w {
			state[x] = 2
		}
		*walk = w
	}
	return false
}

// Run computes all-pairs shortest paths of d on dev with the options o:
// Prepare, Prepared.Run, Close. The result's PrepTime includes
// the preparation (Prepared.PrepTime), made for this run alone. To run
// the same matrix several times, Prepare once and call Run for each.
func Run(dev *gpu.Device, d *graph.Dense, o Options) (*Result, error) {
	p, err := Prepare(dev, d, o)
	if err != nil {
		return nil, err
	}
	return runOneShot(p)
}

// RunGraph computes all-pairs shortest paths of g's weight matrix on dev
// (see PrepareGraph for its element type): PrepareGraph, Prepared.Run,
// Close. The result's PrepTime includes the preparation, the conversion
// to a matrix included (Prepared.PrepTime).
func RunGraph(dev *gpu.Device, g *graph.CSR, o Options) (*Result, error) {
	p, err := PrepareGraph(dev, g, o)
	if err != nil {
		return nil, err
	}
	return runOneShot(p)
}

// runOneShot runs p once, closes it and adds its preparation to the
// result's PrepTime. A failed Close fails the run.
func runOneShot(p *Prepared) (*Result, error) {
	r, err := p.Run()
	if err = errors.Join(err, p.Close()); err != nil {
		return nil, err
	}
	r.PrepTime += p.PrepTime()
	return r, nil
}
