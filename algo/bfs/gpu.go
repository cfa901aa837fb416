package bfs

import (
	_ "embed"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/graphnb/graphnb/algo/internal/prepared"
	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/gpu/transform"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/internal/card"
	"github.com/graphnb/graphnb/trace"
)

// The CUDA sources: the edge scan, the level count and the
// direction-optimizing kernels (bfs.cu), and the dynamic-parallelism
// parent and child kernels (dp.cu, compiled as relocatable code and linked
// with the device runtime).
var (
	//go:embed bfs.cu
	bfsSource string
	//go:embed dp.cu
	dpSource string
	// chunksHeader is chunks.cuh, the chunk walk bfs.cu and multi.cu
	// share, compiled before each (withChunks).
	//go:embed chunks.cuh
	chunksHeader string
)

// Method is how a GPU BFS expands its levels.
type Method int

const (
	// EdgeScan is the BFS study's level-synchronous kernel (docs/studies.md §2):
	// one launch per level sweeps every undirected edge of a COO list,
	// levels kept as unsigned char.
	EdgeScan Method = iota
	// DynamicParallelism is the study's §2 variant: on levels with fewer
	// than DPThreshold frontier vertices, one thread per vertex launches
	// a child grid over its own arcs (device-side launches); larger
	// levels use the edge scan.
	DynamicParallelism
	// DirectionOptimizingGPU is the modern baseline: Beamer's
	// direction-optimizing BFS with a frontier queue (top-down) and a
	// frontier bitmap (bottom-up), on the CSR.
	DirectionOptimizingGPU
)

// String returns "edge scan", "dynamic parallelism" or
// "direction-optimizing".
func (m Method) String() string {
	switch m {
	case EdgeScan:
		return "edge scan"
	case DynamicParallelism:
		return "dynamic parallelism"
	case DirectionOptimizingGPU:
		return "direction-optimizing"
	}
	return "Method(" + strconv.Itoa(int(m)) + ")"
}

// ---- kernels ----

// Kernel names, as declared in bfs.cu and dp.cu (a test checks them).
const (
	kInit8     = "bfs_init_u8"
	kScan8     = "bfs_scan_u8"
	kScan8RO   = "bfs_scan_u8_ro"
	kScan32    = "bfs_scan_i32"
	kScan32RO  = "bfs_scan_i32_ro"
	kWiden     = "bfs_widen"
	kCount8    = "bfs_count_u8"
	kCount32   = "bfs_count_i32"
	kFinish8   = "bfs_finish_u8"
	kFinish32  = "bfs_finish_i32"
	kParInit   = "bfs_parents_init"
	kParCOO    = "bfs_parents_coo"
	kDOInit    = "do_init"
	kDOPlan    = "do_plan"
	kDOTD      = "do_td"
	kDOTDBig   = "do_td_big"
	kDOBU      = "do_bu"
	kDOConvert = "do_convert"
	// A traced do_convert launch is named by what it did.
	kDOQ2BM     = "do_convert (queue to bitmap)"
	kDOBM2Q     = "do_convert (bitmap to queue)"
	kDPParent8  = "dp_parent_u8"
	kDPParent32 = "dp_parent_i32"
)

var (
	bfsKernelNames = []string{kInit8, kScan8, kScan8RO, kScan32, kScan32RO, kWiden, kCount8, kCount32,
		kFinish8, kFinish32, kParInit, kParCOO, kDOInit, kDOPlan, kDOTD, kDOTDBig, kDOBU, kDOConvert}
	dpKernelNames = []string{kDPParent8, kDPParent32}
	// studyKernelNames are the kernels of bfs.cu that a search of the
	// study's methods launches, what a traced one takes from the traced
	// build (the search's results are made by the untraced build's).
	studyKernelNames = []string{kInit8, kScan8, kScan8RO, kScan32, kScan32RO, kWiden, kCount8, kCount32}
)

// Control words shared with the kernels (the #defines of bfs.cu and
// dp.cu; a test compares them).
const (
	ctlCount   = 2 // bfs.cu CTL_COUNT: vertices counted on a level
	ctlTail    = 0 // bfs.cu CTL_TAIL: next frontier size (direction-optimizing)
	ctlMF      = 1 // bfs.cu CTL_MF: arcs leaving the next frontier
	ctlNBig    = 2 // bfs.cu CTL_NBIG: high-degree top-down vertices
	ctlQTail   = 3 // bfs.cu CTL_QTAIL: queue length from do_convert (bitmap to queue)
	ctlRead    = 4 // bfs.cu CTL_READ: arcs a bottom-up step read
	ctlBigArcs = 5 // bfs.cu CTL_BIGARCS: arcs of do_td_big's vertices (traced)
	ctlTried   = 0 // dp.cu CTL_TRIED: child launches attempted
	ctlRan     = 1 // dp.cu CTL_RAN: child grids that ran
	ctlOver    = 3 // dp.cu CTL_OVER: frontier vertices past the child-grid cap
	ctlWords   = 6

	dpMaxChildren = 1536 // dp.cu DP_MAX_CHILDREN
)

// The direction-optimizing search's state words, level records and
// modes (bfs.cu ST_*, LV_*, MODE_*; a test compares them), and its batch.
const (
	stDone    = 0 // bfs.cu ST_DONE: the search is over
	stDepth   = 1 // ST_DEPTH: the level planned last; when done, the levels
	stNF      = 2 // ST_NF
	stMF      = 3 // ST_MF
	stMU      = 4 // ST_MU
	stPrevNF  = 5 // ST_PREVNF
	stMode    = 6 // ST_MODE
	stQP      = 7 // ST_QP
	stBP      = 8 // ST_BP
	stBlocks  = 9 // ST_BLOCKS: blocks of a level's last kernel done
	stHead    = 16
	lvNF      = 0 // LV_NF: the level's frontier vertices
	lvMF      = 1 // LV_MF: their arcs
	lvMU      = 2 // LV_MU: the arcs of the vertices not reached by then
	lvPrevNF  = 3 // LV_PREVNF: the frontier before
	lvMode    = 4 // LV_MODE
	lvTail    = 5 // LV_TAIL: the vertices the level reached
	lvRead    = 6 // LV_READ: the arcs a bottom-up level read
	lvNBig    = 7 // LV_NBIG: the vertices handed to do_td_big
	lvBigArcs = 8 // LV_BIGARCS: their arcs (traced)
	lvWords   = 9
	modeBU    = 1 // MODE_BU: the level runs bottom-up
	modeDown  = 2 // MODE_DOWN: it turned bottom-up
	modeUp    = 4 // MODE_UP: it turned top-down

	// doBatch is how many levels the host launches between two reads of
	// the search's state: R-MAT and Kronecker searches take 6 to 8 levels,
	// so most finish in one batch; a level past the last costs its
	// four launches passing through (about 10 µs on an H100).
	doBatch = 8
	// doRing is the level records' ring: a batch's records stay until
	// the host has read them.
	doRing = 2 * doBatch
	// stWords is the state buffer: the head and the ring.
	stWords = stHead + doRing*lvWords
)

// Launch geometry and search constants.
const (
	blockSize = 256 // bfs.cu BFS_BLOCK: threads per block of every launch
	// The top-down tiers (bfs.cu TD_*): a frontier vertex of tdWarpDeg
	// arcs or more is expanded by its warp, one of tdBigDeg or more (of
	// tdWarpDeg or more on a frontier of at most tdSmallFrontier
	// vertices) by the whole grid.
	tdWarpDeg       = 32
	tdBigDeg        = 256
	tdSmallFrontier = 2048
	// blocksPerSM sizes the grid-stride kernels: enough resident threads
	// to fill an SM (2048 threads on Hopper).
	blocksPerSM = 8
	// maxLevel8 is the deepest level unsigned char levels hold (255 means
	// unvisited): expanding level 254 needs int levels.
	maxLevel8 = 254
)

// studyTraced is the macro of the traced builds of bfs.cu and dp.cu
// (bfs.cu's "two builds" comment): defined, the study's kernels take the
// launch log's arguments and log their spans.
const studyTraced = "BFS_STUDY_TRACED"

// The two builds of each kernel file, compiled once per device and
// process on first use (gpu caches the images on disk, so a later process
// loads them without compiling; a failed compilation is not remembered).
// Untraced runs of EdgeScan and DynamicParallelism, the
// direction-optimizing search (whose kernels log through arguments of
// theirs in either build) and the work after a search launch the
// untraced builds, whose study kernels are the study's, with no trace
// code; traced runs of the study's methods launch the traced builds'
// (studyKernelNames, dp.cu's parents).
var (
	// bfsCompiled is what NVRTC compiles for either build of bfs.cu.
	bfsCompiled = gpu.PrependLaunchLog(withChunks(bfsSource))
	bfsBuilds   = &gpu.TracedBuilds{
		Untraced: gpu.ModuleCache{Name: "graphnb_bfs", Source: bfsCompiled},
		Traced: gpu.ModuleCache{Name: "graphnb_bfs (traced)", Source: bfsCompiled,
			Options: []gpu.CompileOption{gpu.Define(studyTraced, "1")}},
	}
	dpBuilds = &gpu.TracedBuilds{
		Untraced: gpu.ModuleCache{Name: "graphnb_bfs_dp", Source: dpSource,
			Options: []gpu.CompileOption{gpu.DynamicParallelism()}},
		Traced: gpu.ModuleCache{Name: "graphnb_bfs_dp (traced)", Source: gpu.PrependLaunchLog(dpSource),
			Options: []gpu.CompileOption{gpu.DynamicParallelism(), gpu.Define(studyTraced, "1")}},
	}
)

// withChunks returns a kernel file's text after chunks.cuh's, what NVRTC
// compiles for bfs.cu and multi.cu.
func withChunks(source string) string { return chunksHeader + "\n" + source }

// kernelsFor returns bfs.cu's kernels (and dp.cu's when dp is set) by
// name, compiled for dev: every kernel of the untraced builds, or the
// study's kernels of the traced builds when traced.
func kernelsFor(dev *gpu.Device, dp, traced bool) (fn, dpfn map[string]*gpu.Function, err error) {
	names := bfsKernelNames
	if traced {
		names = studyKernelNames
	}
	if fn, err = bfsBuilds.Build(traced).Functions(dev, names); err != nil {
		return nil, nil, fmt.Errorf("bfs: compiling the GPU BFS kernels: %w", err)
	}
	if dp {
		if dpfn, err = dpBuilds.Build(traced).Functions(dev, dpKernelNames); err != nil {
			return nil, nil, fmt.Errorf("bfs: compiling the dynamic-parallelism kernels: %w", err)
		}
	}
	return fn, dpfn, nil
}

// lookup returns m's kernels of the given names by name.
func lookup(m *gpu.Module, names []string) (map[string]*gpu.Function, error) {
	fn := make(map[string]*gpu.Function, len(names))
	for _, name := range names {
		f, err := m.Function(name)
		if err != nil {
			return nil, fmt.Errorf("bfs: %w", err)
		}
		fn[name] = f
	}
	return fn, nil
}

// ---- preparation ----

// base is the lifecycle Prepared shares with the other algorithms.
type base = prepared.Base

// Prepared is a graph made ready for repeated GPU searches with one
// variant: its COO or CSR arrays and the search state on the device. Run
// it from as many sources as needed, then Close it. On the host device it
// holds only the graph, and Run uses the CPU. Runs and checks on one
// Prepared are serialised.
type Prepared struct {
	base
	mem      *gpu.Allocations // every device resource below but dg's arrays and the pool's buffers
	g        *graph.CSR       // the host graph: Prepare's, or the copy PrepareResident needed (else nil)
	dg       *gpu.Graph       // PrepareResident's graph: off and adj are its arrays
	opt      Options
	host     bool
	n        int
	arcs     int64
	directed bool
	fn       map[string]*gpu.Function // bfs.cu's kernels, the untraced build
	dpfn     map[string]*gpu.Function // dp.cu's kernels (DynamicParallelism), the untraced build
	// The traced builds' study kernels (bfs.cu's studyKernelNames, dp.cu's
	// parents), for traced runs of EdgeScan and DynamicParallelism: loaded
	// by Prepare with Options.Trace, else by the first traced run.
	tracedFn, tracedDPFn map[string]*gpu.Function
	sms                  int
	p                    int // segment size of the permutation (0: not permuted)
	dpMin                int // DPThreshold in effect

	// EdgeScan and DynamicParallelism.
	coo     *gpu.COO
	levels8 *gpu.Uint8s
	modif   *gpu.Int32s
	stats   *gpu.Uint64s // degree sum and level counts of a finished search
	ctl     *gpu.Uint64s
	// The CSR: offsets for every method, arcs for DynamicParallelism and
	// direction-optimizing.
	off *gpu.Int64s
	adj *gpu.Int32s
	// Direction-optimizing.
	vis, front, next *gpu.Uint32s
	qa, qb, big      *gpu.Int32s
	// st holds the search's state words and level records (stWords),
	// stHost their copy, read once per batch of levels (page-locked).
	st     *gpu.Uint64s
	stHost []uint64

	pool resultPool // buffers of closed DeviceResults, for the next run
	// launchLog logs the launches of traced runs (Options.Trace): the
	// direction-optimizing search's step kernels, every launch of the
	// edge scan and dynamic parallelism. Made at the first traced run and
	// kept for the next: its ring is reused.
	launchLog *gpu.LaunchLog
	notes     []levelNote // a traced run's levels; the room kept for the next
	ck        *checkState // Check's buffers, from the first Check
}

// Prepare readies g for GPU BFS with the given options on dev: it
// compiles the kernels (once per device and process; NVRTC's images are
// cached on disk), builds the COO with each undirected edge once
// (EdgeScan, DynamicParallelism), permutes it (Permute), and uploads what
// the method needs with its search state. PrepTime reports the time taken
// without compilation. On the host device Prepare keeps g and Run runs the
// CPU DirectionOptimizing with o (its Alpha, Beta and TopDownOnly), so a
// notebook runs unchanged without a GPU.
//
// Device memory: EdgeScan 8 bytes per undirected edge and 9 per vertex
// (the COO, the offsets, the levels); DynamicParallelism adds the arcs (4
// per arc); the direction-optimizing method the CSR (8(N+1) + 4 per arc), 12
// bytes per vertex (two queues, a list of high-degree vertices) and three
// N-bit bitmaps. Each DeviceResult holds 4 bytes per vertex of levels, 4
// more with parents, of its own (see RunOnDevice).
//
// It returns an error for a nil or empty graph, bad options, a directed
// graph with EdgeScan or DynamicParallelism (they relax both directions
// of each edge: use g.Undirected(), or DirectionOptimizingGPU), and
// device errors (compilation, out of memory).
func Prepare(dev *gpu.Device, g *graph.CSR, o Options) (*Prepared, error) {
	if dev == nil {
		return nil, errors.New("bfs: no device (use gpu.Default())")
	}
	if g == nil || len(g.Offsets) == 0 {
		return nil, errors.New("bfs: no graph (nil or without offsets)")
	}
	p, err := newPrepared(dev, g.NumVertices(), g.NumArcs(), g.Directed, o)
	if err != nil {
		return nil, err
	}
	p.g = g
	if p.host {
		return p, nil
	}
	if err := p.setUp(dev); err != nil {
		return nil, err
	}
	return p, nil
}

// PrepareResident readies g, a graph already on its device, for GPU BFS:
// the Prepared behaves as Prepare(g.Device(), host, o) on g's host copy
// (the same levels, the same checks and errors). The direction-optimizing
// method reads g's offsets and arcs where they are, with no host round
// trip and no copy. EdgeScan and DynamicParallelism build their COO view
// and its permutation (Permute) on the device too (package gpu/transform,
// bit-identical to graph.CSR.UndirectedCOO and graph.PermuteCOO);
// DynamicParallelism reads g's CSR where it is.
//
// The Prepared uses g's arrays without owning them: keep g open while the
// Prepared is in use (a run after g.Close fails with a freed-buffer
// error); Prepared.Bytes counts only what it allocated. On the host
// device PrepareResident is Prepare(dev, g.Host(), o).
func PrepareResident(g *gpu.Graph, o Options) (*Prepared, error) {
	if g == nil || g.Device() == nil || g.Offsets == nil || g.Adj == nil {
		return nil, errors.New("bfs: no graph (a nil or empty gpu.Graph; make one with dev.Upload or a device generator)")
	}
	dev := g.Device()
	if dev.IsHost() {
		h, err := g.Host()
		if err != nil {
			return nil, fmt.Errorf("bfs: %w", err)
		}
		return Prepare(dev, h, o)
	}
	p, err := newPrepared(dev, g.N, g.Arcs, g.Directed, o)
	if err != nil {
		return nil, err
	}
	p.dg, p.off, p.adj = g, g.Offsets, g.Adj
	if err := p.setUp(dev); err != nil {
		return nil, err
	}
	return p, nil
}

// newPrepared checks the graph's shape and the options and returns a
// Prepared with its lifecycle set up (nothing allocated yet).
func newPrepared(dev *gpu.Device, n int, arcs int64, directed bool, o Options) (*Prepared, error) {
	if dev == nil {
		return nil, errors.New("bfs: no device (use gpu.Default())")
	}
	if n == 0 {
		return nil, errors.New("bfs: the graph has no vertices")
	}
	if err := o.check(); err != nil {
		return nil, err
	}
	if directed && o.Method != DirectionOptimizingGPU {
		return nil, fmt.Errorf("bfs: the GPU %s relaxes both directions of each edge, but this graph is directed; use g.Undirected() or bfs.Options{Method: bfs.DirectionOptimizingGPU}", o.Method)
	}
	p := &Prepared{opt: o, n: n, arcs: arcs, directed: directed, host: dev.IsHost()}
	p.mem = prepared.Init(&p.base, "bfs", o.Label(), dev)
	p.dpMin = o.DPThreshold
	if p.dpMin == 0 {
		p.dpMin = DefaultDPThreshold
	}
	return p, nil
}

// setUp compiles the kernels and makes the method's arrays (see upload),
// timing the latter as PrepTime.
func (p *Prepared) setUp(dev *gpu.Device) error {
	var err error
	if p.fn, p.dpfn, err = kernelsFor(dev, p.opt.Method == DynamicParallelism, false); err != nil {
		return err
	}
	if p.opt.Trace {
		if _, _, err := p.tracedKernels(); err != nil {
			return err
		}
	}
	info, err := dev.Info()
	if err != nil {
		return fmt.Errorf("bfs: %w", err)
	}
	p.sms = max(info.SMs, 1)
	start := time.Now()
	if err := p.upload(info); err != nil {
		_ = p.mem.Free()
		return err
	}
	prepared.Done(&p.base, start)
	return nil
}

// tracedKernels returns the traced builds' study kernels (bfs.cu's, and
// dp.cu's for DynamicParallelism), loading them at the first call; nil
// for the direction-optimizing method, whose kernels log in either build.
func (p *Prepared) tracedKernels() (fn, dpfn map[string]*gpu.Function, err error) {
	if p.opt.Method == DirectionOptimizingGPU {
		return nil, nil, nil
	}
	if p.tracedFn == nil {
		fn, dpfn, err := kernelsFor(p.Device(), p.opt.Method == DynamicParallelism, true)
		if err != nil {
			return nil, nil, err
		}
		p.tracedFn, p.tracedDPFn = fn, dpfn
	}
	return p.tracedFn, p.tracedDPFn, nil
}

// upload builds and copies the method's arrays: the COO from p.g, the CSR
// from p.g unless p.off and p.adj are set (PrepareResident), and the
// search state.
func (p *Prepared) upload(info gpu.Info) error {
	g, mem, n := p.g, p.mem, p.n
	var err error
	if p.opt.Method != DirectionOptimizingGPU {
		if p.opt.Permute {
			p.p = p.opt.SegmentSize
			if p.p == 0 {
				if p.p, err = graph.SegmentSizeFor(max(info.L2Bytes, 1), 1); err != nil {
					return fmt.Errorf("bfs: %w", err)
				}
			}
		}
		if p.dg != nil {
			err = p.deviceCOO()
		} else {
			err = p.uploadCOO(g)
		}
		if err != nil {
			return err
		}
		if p.levels8, err = mem.AllocUint8s(n); err != nil {
			return fmt.Errorf("bfs: %w", err)
		}
		if p.modif, err = mem.AllocInt32s(1); err != nil {
			return fmt.Errorf("bfs: %w", err)
		}
	}
	if p.ctl, err = mem.AllocUint64s(ctlWords); err != nil {
		return fmt.Errorf("bfs: %w", err)
	}
	if p.off == nil {
		if p.off, err = mem.Int64sFrom(g.Offsets); err != nil {
			return fmt.Errorf("bfs: %w", err)
		}
	}
	if p.opt.Method == EdgeScan {
		return nil
	}
	if p.adj == nil {
		if p.adj, err = mem.Int32sFrom(g.Adj); err != nil {
			return fmt.Errorf("bfs: %w", err)
		}
	}
	if p.opt.Method == DynamicParallelism {
		return nil
	}
	words := (n + 31) / 32
	allocs := []struct {
		u32 **gpu.Uint32s
		i32 **gpu.Int32s
		n   int
	}{{u32: &p.vis, n: words}, {u32: &p.front, n: words}, {u32: &p.next, n: words},
		{i32: &p.qa, n: n}, {i32: &p.qb, n: n}, {i32: &p.big, n: n}}
	for _, a := range allocs {
		if a.u32 != nil {
			*a.u32, err = mem.AllocUint32s(a.n)
		} else {
			*a.i32, err = mem.AllocInt32s(a.n)
		}
		if err != nil {
			return fmt.Errorf("bfs: %w", err)
		}
	}
	if p.st, err = mem.AllocUint64s(stWords); err != nil {
		return fmt.Errorf("bfs: %w", err)
	}
	pinned, err := mem.AllocPinned(8 * stWords)
	if err != nil {
		return fmt.Errorf("bfs: %w", err)
	}
	p.stHost = pinned.Uint64s()
	return nil
}

// uploadCOO builds the COO view of g on the host, permutes it (p.p > 0)
// and uploads it.
func (p *Prepared) uploadCOO(g *graph.CSR) error {
	coo, err := g.UndirectedCOO()
	if err != nil {
		return fmt.Errorf("bfs: %w", err)
	}
	if p.p > 0 {
		if coo, err = graph.PermuteCOO(coo, p.p); err != nil {
			return fmt.Errorf("bfs: %w", err)
		}
	}
	if p.coo, err = p.mem.UploadCOO(coo); err != nil {
		return fmt.Errorf("bfs: %w", err)
	}
	return nil
}

// deviceCOO is uploadCOO for a resident graph, on the device
// (transform.UndirectedCOO and PermuteCOO, bit-identical to the host's).
func (p *Prepared) deviceCOO() error {
	coo, err := transform.UndirectedCOO(p.dg)
	if err != nil {
		return fmt.Errorf("bfs: %w", err)
	}
	if p.p > 0 {
		perm, err := transform.PermuteCOO(coo, p.p)
		coo.Close()
		if err != nil {
			return fmt.Errorf("bfs: %w", err)
		}
		coo = perm
	}
	if err := p.mem.Own(coo.Bytes(), coo.Close); err != nil {
		return fmt.Errorf("bfs: %w", err)
	}
	p.coo = coo
	return nil
}

// Options returns the options in effect.
func (p *Prepared) Options() Options { return p.opt }

// Close frees the device memory, the buffers kept for later results
// included; later Runs return an error. DeviceResults stay readable (they
// own their buffers) until their own Close. Close is idempotent and
// accepts a nil Prepared.
func (p *Prepared) Close() error {
	if p == nil {
		return nil
	}
	err := p.base.Close()
	err = errors.Join(err, p.launchLog.Close())
	p.launchLog = nil
	return errors.Join(err, p.pool.close())
}

// String describes the prepared variant.
func (p *Prepared) String() string {
	if p.host {
		return fmt.Sprintf("bfs prepared %q on the host (the CPU direction-optimizing BFS runs in its place)", p.Label())
	}
	seg := ""
	if p.p > 0 {
		seg = fmt.Sprintf(", segment size P = %d", p.p)
	}
	return fmt.Sprintf("bfs prepared %q on %v: %s of device memory%s, prepared in %v", p.Label(), p.Device(),
		card.Bytes(p.Bytes()), seg, p.PrepTime().Round(time.Microsecond))
}

// Run is a one-shot GPU BFS of g from src: Prepare, Run, Close. The
// result's PrepTime holds the preparation, made for this run alone.
func Run(dev *gpu.Device, g *graph.CSR, src int32, o Options) (*Result, error) {
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

// Run searches from src and returns the levels, the frontier size of every
// level and, with the Parents option, a BFS tree: RunOnDevice, then the
// result's download (DeviceResult.Result) and Close. Time covers the
// search loop measured with GPU events (initialising the levels included;
// the parents of the edge-scan methods and the copy back excluded). The
// preparation is Prepared's PrepTime, spent once: a result's PrepTime
// does not repeat it. Every level polls cancel.Check. It returns an error
// for a source outside [0, N), a closed Prepared, cancellation
// (errors.Is(err, cancel.ErrInterrupted)) and device errors.
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

// RunOnDevice searches from src like Run but leaves the levels and
// parents on the device, in buffers of the DeviceResult's own (4 bytes per
// vertex each), and copies back only the bookkeeping: a few words per
// level. Everything Run derives from the levels is computed there — the
// Result's int levels (-1: unreached), the parents (recorded by the
// direction-optimizing search as it claims each vertex; for EdgeScan and
// DynamicParallelism each reached vertex takes its lowest-numbered
// neighbour one level up, computed after the timed search), the frontier
// sizes, Reached and ComponentEdges — so a sweep does no O(N) host work.
// Validate the result with CheckDevice, read it with Result, and Close it:
// its buffers then serve the next run of p. On the host device the CPU
// DirectionOptimizing runs and the DeviceResult holds its Result. Errors
// as Run's.
func (p *Prepared) RunOnDevice(src int32) (*DeviceResult, error) {
	if err := validSource(p.n, src); err != nil {
		return nil, err
	}
	prepared.Lock(&p.base)
	defer prepared.Unlock(&p.base)
	if err := prepared.Open(&p.base); err != nil {
		return nil, err
	}
	if p.host {
		r, err := DirectionOptimizing(p.g, src, p.opt)
		if err != nil {
			return nil, err
		}
		r.Note = fmt.Sprintf("host device: the CPU direction-optimizing BFS ran in place of gpu BFS (%s)", p.Label())
		return hostDeviceResult(r), nil
	}
	levels, parents, err := p.pool.take(p.Device(), p.n, p.opt.Parents)
	if err != nil {
		return nil, p.runError(src, err)
	}
	var r *Result
	switch p.opt.Method {
	case DirectionOptimizingGPU:
		r, err = p.runDO(src, levels, parents)
	default:
		r, err = p.runScan(src, levels, parents)
	}
	if err != nil {
		p.pool.give(levels, parents)
		return nil, err
	}
	for _, s := range r.FrontierSizes {
		r.Reached += s
	}
	r.TEPS = graph.Rate(r.ComponentEdges, p.arcs, r.Time)
	return newDeviceResult(r, p.n, levels, parents, &p.pool), nil
}

// ---- EdgeScan and DynamicParallelism ----

// grid returns the grid of a grid-stride kernel over n items.
func (p *Prepared) grid(n int) gpu.Dim {
	g := gpu.Blocks(n, blockSize)
	g.X = min(g.X, p.sms*blocksPerSM)
	return g
}

// runScan runs EdgeScan or DynamicParallelism from src, leaving the int
// levels in out and, when parents is not nil, the parents in parents;
// the Result it returns has the bookkeeping but no levels or parents.
func (p *Prepared) runScan(src int32, out, parents *gpu.Int32s) (*Result, error) {
	n, k, dpk := p.n, p.fn, p.dpfn
	m := p.coo.Edges
	dp := p.opt.Method == DynamicParallelism
	r := &Result{Source: src, Algorithm: "gpu BFS (" + p.Label() + ")"}
	// A traced run launches the traced builds' kernels, which log their
	// own spans on the device (gpu.LaunchLog: an entry a launch, in the
	// step of its level, -1 for set-up), and notes each level's kind: the
	// host records nothing between launches, and reads the log once,
	// after the search. A launch that the level's count follows at once
	// is open (LaunchOpen): dynamic parallelism's parent, whose grid
	// completes only after its child grids, and a scan before the count;
	// its time runs to the count's start. The others (the set-up, a scan
	// the host then waits for, the counts) stamp their own end.
	var log *gpu.LaunchLog // nil: untraced, the untraced builds' kernels
	step := -1
	var kinds []string
	if p.opt.Trace {
		var err error
		if k, dpk, err = p.tracedKernels(); err != nil {
			return nil, p.runError(src, err)
		}
		if log, err = p.Device().KeepLaunchLog(&p.launchLog); err != nil {
			return nil, p.runError(src, err)
		}
	}
	scan8, scan32 := k[kScan8], k[kScan32]
	if p.opt.TextureCache {
		scan8, scan32 = k[kScan8RO], k[kScan32RO]
	}
	scanGrid := gpu.Blocks(int((m+3)/4), blockSize)
	vertexGrid := gpu.Blocks(n, blockSize)
	block := gpu.D1(blockSize)
	var (
		wide        bool    // the search went on in out with int levels
		counts      []int64 // DynamicParallelism: vertices per level, from the device
		childLevels []int   // levels expanded by child grids
		redone      []int   // levels finished by the scan after the child grids
		ctl         = make([]uint64, ctlWords)
		modif       = make([]int32, 1)
	)
	// launch queues f, logged when traced, open when the count follows
	// it at once.
	launch := func(t *gpu.Thread, open bool, f *gpu.Function, grid gpu.Dim, args ...any) error {
		r.Launches++
		switch {
		case log == nil:
			return t.LaunchOn(nil, f, grid, block, 0, args...)
		case open:
			return log.LaunchOpen(t, nil, step, f, grid, block, 0, args...)
		}
		return log.Launch(t, step, f, grid, block, 0, args...)
	}
	// levels returns the current level array as a kernel argument.
	levels := func() any {
		if wide {
			return out
		}
		return p.levels8
	}
	// scan queues the edge scan of level iter, open when the count
	// follows it at once.
	scan := func(t *gpu.Thread, iter int, open bool) error {
		r.EdgeScans++
		f := scan8
		if wide {
			f = scan32
		}
		lv := levels()
		return launch(t, open, f, scanGrid, p.coo.Start, p.coo.End, m, lv, lv, iter, p.modif)
	}
	// countNext counts level iter+1 into ctl[ctlCount] and reads the
	// control words back (the step's one synchronisation).
	countNext := func(t *gpu.Thread, iter int) error {
		f := k[kCount8]
		if wide {
			f = k[kCount32]
		}
		if err := launch(t, false, f, p.grid(n), levels(), int64(n), iter+1, p.ctl); err != nil {
			return err
		}
		return p.ctl.Download(ctl)
	}
	dur, err := p.Device().Time(func(t *gpu.Thread) error {
		if err := launch(t, false, k[kInit8], vertexGrid, p.levels8, int64(n), src); err != nil {
			return err
		}
		if err := p.modif.Fill(-1); err != nil {
			return err
		}
		frontier := int64(1)
		if dp {
			counts = append(counts, 1)
		}
		for iter := 0; ; iter++ {
			if err := cancel.Check(); err != nil {
				return err
			}
			if iter == maxLevel8 && !wide {
				// Levels deeper than 254 need int levels: go on in out.
				if err := launch(t, false, k[kWiden], vertexGrid, p.levels8, out, int64(n)); err != nil {
					return err
				}
				wide = true
			}
			r.Iterations++
			step = iter
			kinds = append(kinds, ScanStepKind)
			if !dp {
				if err := scan(t, iter, false); err != nil {
					return err
				}
				if err := p.modif.Download(modif); err != nil {
					return err
				}
				if modif[0] != int32(iter) {
					return nil
				}
				continue
			}
			if err := p.ctl.Fill(0); err != nil {
				return err
			}
			useDP := frontier < int64(p.dpMin)
			if useDP {
				f := dpk[kDPParent8]
				if wide {
					f = dpk[kDPParent32]
				}
				if err := launch(t, true, f, vertexGrid, p.off, p.adj, int64(n), levels(), iter, p.ctl); err != nil {
					return err
				}
				childLevels = append(childLevels, iter)
				kinds[iter] = ChildGridsStepKind
			} else if err := scan(t, iter, true); err != nil {
				return err
			}
			if err := countNext(t, iter); err != nil {
				return err
			}
			if useDP {
				launched := ctl[ctlTried] - ctl[ctlOver]
				r.ChildGrids += int64(launched)
				if ctl[ctlOver] != 0 || ctl[ctlRan] != launched {
					// Some frontier vertices were not expanded (past the
					// cap, or a device launch failed): finish the level
					// with the scan, which is idempotent, and count again.
					redone = append(redone, iter)
					kinds[iter] = ChildGridsStepKind + " + " + ScanStepKind
					if err := scan(t, iter, false); err != nil {
						return err
					}
					if err := p.ctl.Fill(0); err != nil {
						return err
					}
					if err := countNext(t, iter); err != nil {
						return err
					}
				}
			}
			frontier = int64(ctl[ctlCount])
			if frontier == 0 {
				return nil
			}
			counts = append(counts, frontier)
		}
	})
	var launches []trace.Launch
	if log != nil {
		if err != nil {
			log.Drop() // its launches may not all have run
		} else {
			launches, err = log.Launches()
		}
	}
	if err != nil {
		return nil, p.runError(src, err)
	}
	r.Time = dur
	// The edge scan's levels are 0..Iterations-1 (its last scan found no
	// new vertex); dynamic parallelism counted its own, and a traced run
	// counts them again with their arcs.
	nhist := r.Iterations
	if dp && log == nil {
		nhist = 0
	}
	stats, err := p.finishScan(src, wide, out, parents, nhist, log != nil)
	if err != nil {
		return nil, p.runError(src, err)
	}
	if log != nil {
		r.Trace = p.scanTrace(r.Algorithm, dur, kinds, stats[1:1+nhist], stats[1+nhist:1+2*nhist], launches)
	}
	r.ComponentEdges = int64(stats[0])
	if dp {
		r.FrontierSizes = counts
	} else {
		r.FrontierSizes = make([]int64, nhist)
		for l := range r.FrontierSizes {
			r.FrontierSizes[l] = int64(stats[1+l])
		}
	}
	var notes []string
	if wide {
		r.Algorithm += " + int32 levels (depth ≥ 254)"
		notes = append(notes, "levels deeper than 253 do not fit unsigned char: continued with int32 levels from level 254")
	}
	if dp {
		notes = append(notes, fmt.Sprintf("child grids at levels %s; edge scan at the others", levelList(childLevels)))
		if len(redone) > 0 {
			notes = append(notes, fmt.Sprintf("levels %s were finished by the edge scan (child-grid cap of %d or a failed device launch)", levelList(redone), dpMaxChildren))
		}
	}
	r.Note = strings.Join(notes, "; ")
	return r, nil
}

// The kinds of the steps of a traced EdgeScan or DynamicParallelism
// search (Options.Trace).
const (
	// ScanStepKind is a level expanded by the edge scan: every edge read,
	// both ends tested.
	ScanStepKind = "edge scan"
	// ChildGridsStepKind is a level of DynamicParallelism expanded by
	// child grids launched from the device, one per frontier vertex over
	// its arcs; "child grids + edge scan" when the scan had to finish the
	// level (the cap on child grids, or a failed device launch).
	ChildGridsStepKind = "child grids"
)

// scanTrace makes a traced scan search's trace: step l is level l, with
// its kind, its vertices and arcs (counted after the search from the
// levels), the next level's vertices as those it reached, the arcs it
// read (an edge scan every edge's two arcs; child grids the frontier's
// arcs; both for a level the scan finished) and the time of its
// launches (the launch log's spans, runScan says how).
func (p *Prepared) scanTrace(algorithm string, dur time.Duration, kinds []string, sizes, arcs []uint64, launches []trace.Launch) *trace.Trace {
	steps := make([]trace.Step, len(kinds))
	for l, kind := range kinds {
		s := trace.Step{Kind: kind, Frontier: int64(sizes[l]), FrontierArcs: int64(arcs[l])}
		if l+1 < len(sizes) {
			s.Updated = int64(sizes[l+1])
		}
		if kind != ChildGridsStepKind {
			s.Inspected += 2 * p.coo.Edges
		}
		if kind != ScanStepKind {
			s.Inspected += s.FrontierArcs
		}
		steps[l] = s
	}
	for i := range launches {
		launches[i].Bytes, launches[i].Gather = scanLaunchBytes(launches[i], int64(p.n), p.coo.Edges, steps)
	}
	return trace.FromLaunches(algorithm, p.arcs, dur, steps, launches)
}

// finishScan turns the search's levels into the Result's in out (from
// levels8, or in place when wide), derives the parents when parents is
// not nil, and returns the reductions: the component's degree sum (halved
// on the undirected graphs the scans take), then the vertices of levels
// 0..nhist-1, then, with arcs, their degree sums (the frontiers' arcs).
func (p *Prepared) finishScan(src int32, wide bool, out, parents *gpu.Int32s, nhist int, arcs bool) ([]uint64, error) {
	n, k, block := p.n, p.fn, gpu.D1(blockSize)
	words, withArcs := nhist+1, int32(0)
	if arcs {
		words, withArcs = 2*nhist+1, 1
	}
	if p.stats == nil || p.stats.Len() < words {
		s, err := p.mem.AllocUint64s(max(words, 64))
		if err != nil {
			return nil, err
		}
		if p.stats != nil {
			_ = p.stats.Free()
		}
		p.stats = s
	}
	var stats []uint64
	err := p.Device().Exec(func(t *gpu.Thread) error {
		if err := p.stats.Fill(0); err != nil {
			return err
		}
		var err error
		if wide {
			err = t.Launch(k[kFinish32], p.grid(n), block, 0, out, p.off, int64(n), p.stats, nhist, withArcs)
		} else {
			err = t.Launch(k[kFinish8], p.grid(n), block, 0, p.levels8, out, p.off, int64(n), p.stats, nhist, withArcs)
		}
		if err != nil {
			return err
		}
		if parents != nil {
			if err := t.Launch(k[kParInit], p.grid(n), block, 0, out, parents, int64(n), src); err != nil {
				return err
			}
			if err := t.Launch(k[kParCOO], p.grid(int(p.coo.Edges)), block, 0, p.coo.Start, p.coo.End, p.coo.Edges, out, parents); err != nil {
				return err
			}
		}
		stats, err = p.stats.ToHost()
		return err
	})
	if err != nil {
		return nil, err
	}
	stats[0] /= 2
	return stats, nil
}

func (p *Prepared) runError(src int32, err error) error {
	return fmt.Errorf("bfs: gpu BFS (%s) from %d: %w", p.Label(), src, err)
}

// ---- direction-optimizing ----

// runDO runs the direction-optimizing search from src, leaving the levels
// in levels and, when parents is not nil, the parents in parents; the
// Result it returns has the bookkeeping but no levels or parents.
//
// The device drives the search (bfs.cu, "The device drives the search"):
// the host launches do_init and do_plan (level 0), then doBatch levels at
// a time — per level do_convert, do_td, do_bu and do_td_big, each working
// only on a level of its kind, do_td_big's last block deciding the next
// level — and reads the state words and the level records once per
// batch. A directed graph or TopDownOnly launches neither do_convert nor
// do_bu.
func (p *Prepared) runDO(src int32, levels, parents *gpu.Int32s) (*Result, error) {
	n, k := p.n, p.fn
	words := (n + 31) / 32
	r := &Result{Source: src, Algorithm: "gpu BFS (" + p.Label() + ")"}
	if p.directed {
		r.Algorithm = "gpu BFS (" + p.Label() + "; directed graph: top-down only)"
	}
	// A traced run has its step kernels log their span on the device
	// (gpu.LaunchLog): the host records nothing between launches and
	// reads the log after the run.
	var log *gpu.LaunchLog // nil: untraced, the kernels get NULL entries
	if p.opt.Trace {
		var err error
		if log, err = p.Device().KeepLaunchLog(&p.launchLog); err != nil {
			return nil, p.runError(src, err)
		}
	}
	alpha, beta, _ := p.opt.gpuSwitchParams() // checked by Prepare
	fixedTD := p.directed || p.opt.TopDownOnly
	// do_convert works on one or two levels of a search: a block an SM
	// makes its many launches that pass through cheaper.
	block, wide, narrow, buGrid := gpu.D1(blockSize), gpu.D1(p.sms*blocksPerSM), gpu.D1(p.sms), p.grid(words*32)
	// The step kernels' arguments, boxed once a run: only the level
	// (argument at) changes. (The first, small levels may wait for the
	// host's launches: a launch call costs the host microseconds.)
	type stepArgs struct {
		args []any
		at   int
	}
	convertArgs := stepArgs{[]any{p.qa, p.qb, p.front, p.next, int64(words), p.ctl, p.st, 0}, 7}
	tdArgs := stepArgs{[]any{p.qa, p.qb, p.off, p.adj, levels, parents, p.vis, p.big, p.ctl, p.st, 0}, 10}
	buArgs := stepArgs{[]any{p.off, p.adj, levels, parents, p.vis, p.front, p.next, int64(n), int64(words), p.ctl, p.st, 0}, 11}
	bigArgs := stepArgs{[]any{p.big, p.qa, p.qb, p.off, p.adj, levels, parents, p.vis, p.ctl, p.st, 0,
		int64(n), int64(alpha), int64(beta), fixedTD, doRing}, 10}
	st := p.stHost
	recs := make([]doRecord, 0, 16)
	dur, err := p.Device().Time(func(t *gpu.Thread) error {
		launch := func(f *gpu.Function, grid gpu.Dim, args ...any) error {
			r.Launches++
			return t.Launch(f, grid, block, 0, args...)
		}
		// stepLaunch launches a step kernel of level d with its log
		// arguments.
		stepLaunch := func(d int, f *gpu.Function, grid gpu.Dim, a stepArgs) error {
			r.Launches++
			a.args[a.at] = d
			return log.Launch(t, d, f, grid, block, 0, a.args...)
		}
		if err := launch(k[kDOInit], gpu.Blocks(n, blockSize), levels, parents, p.vis, p.front, int64(n), int64(words), src, p.qa); err != nil {
			return err
		}
		if err := launch(k[kDOPlan], gpu.D1(1), p.off, src, p.ctl, p.st, int64(n), p.arcs, int64(alpha), int64(beta),
			fixedTD, doRing); err != nil {
			return err
		}
		for depth := 0; ; depth += doBatch {
			if err := cancel.Check(); err != nil {
				return err
			}
			for d := depth; d < depth+doBatch; d++ {
				if !fixedTD {
					if err := stepLaunch(d, k[kDOConvert], narrow, convertArgs); err != nil {
						return err
					}
				}
				if err := stepLaunch(d, k[kDOTD], wide, tdArgs); err != nil {
					return err
				}
				if !fixedTD {
					if err := stepLaunch(d, k[kDOBU], buGrid, buArgs); err != nil {
						return err
					}
				}
				// The level's last kernel: it plans the next level.
				if err := stepLaunch(d, k[kDOTDBig], wide, bigArgs); err != nil {
					return err
				}
			}
			if err := p.st.Download(st); err != nil {
				return err
			}
			last, done := depth+doBatch, st[stDone] != 0
			if done {
				last = int(st[stDepth])
			}
			if last < depth || last > depth+doBatch {
				return fmt.Errorf("the device's search state says %d levels after levels %d to %d (a kernel bug: please report it)",
					last, depth, depth+doBatch-1)
			}
			for d := depth; d < last; d++ {
				recs = append(recs, doRecord(st[stHead+(d%doRing)*lvWords:]))
			}
			if done {
				return nil
			}
		}
	})
	if err != nil {
		if log != nil {
			log.Drop()
		}
		return nil, p.runError(src, err)
	}
	r.Time = dur
	notes := p.notes[:0] // the traced levels
	visited := int64(0)  // vertices reached before the level's, and its
	for _, rec := range recs {
		nf, mf := int64(rec[lvNF]), int64(rec[lvMF])
		r.FrontierSizes = append(r.FrontierSizes, nf)
		r.ComponentEdges += mf
		r.Iterations++
		dir := TopDownStep
		if rec[lvMode]&modeBU != 0 {
			dir = BottomUpStep
		}
		r.Directions = append(r.Directions, dir)
		visited += nf
		if log != nil {
			note := levelNote{mu: int64(rec[lvMU]), prevNF: int64(rec[lvPrevNF]), dir: dir}
			switch {
			case rec[lvMode]&modeDown != 0:
				note.switched = switchedDown
			case rec[lvMode]&modeUp != 0:
				note.switched = switchedUp
			}
			note.lvl = doLevel{n: int64(n), words: int64(words), frontier: nf, arcs: mf, unvisited: int64(n) - visited,
				read: int64(rec[lvRead]), reached: int64(rec[lvTail]), big: int64(rec[lvNBig]), bigArcs: int64(rec[lvBigArcs]),
				parents: parents != nil}
			notes = append(notes, note)
		}
	}
	if log != nil {
		logged, err := log.Launches()
		if err != nil {
			return nil, p.runError(src, err)
		}
		r.Trace = trace.FromLaunches(r.Algorithm, p.arcs, dur, doSteps(notes, int64(n), alpha, beta), doLaunches(logged, notes))
		p.notes = notes[:0]
	}
	// Every reached vertex's arcs were counted once, when it was claimed.
	if !p.directed {
		r.ComponentEdges /= 2
	}
	return r, nil
}

// doRecord is a copy of a level's record as plan_next and plan_level
// wrote it (LV_* words).
type doRecord [lvWords]uint64

// doSteps makes the trace steps of a search's levels from their notes,
// with the switch parameters α and β.
func doSteps(notes []levelNote, n, alpha, beta int64) []trace.Step {
	steps := make([]trace.Step, len(notes))
	for i, nt := range notes {
		steps[i] = nt.step(n, alpha, beta)
	}
	return steps
}

// doLaunches keeps the logged launches that worked — do_td and do_td_big
// on top-down levels, do_bu on bottom-up ones, do_convert where the
// direction switched (named kDOQ2BM or kDOBM2Q by what it did) — with
// their byte models, and drops those that passed through (another
// direction's kernels, the levels after the last).
func doLaunches(logged []trace.Launch, notes []levelNote) []trace.Launch {
	kept := logged[:0]
	for _, l := range logged {
		if l.Step < 0 || l.Step >= len(notes) {
			continue
		}
		nt := notes[l.Step]
		switch l.Name {
		case kDOConvert:
			switch nt.switched {
			case switchedDown:
				l.Name = kDOQ2BM
			case switchedUp:
				l.Name = kDOBM2Q
			default:
				continue
			}
		case kDOTD, kDOTDBig:
			if nt.dir != TopDownStep {
				continue
			}
		case kDOBU:
			if nt.dir != BottomUpStep {
				continue
			}
		}
		l.Bytes, l.Gather = nt.lvl.launchBytes(l.Name)
		kept = append(kept, l)
	}
	return kept
}

// levelNote is what a traced direction-optimizing search notes of a
// level while it runs: the level's counts (its byte models' too), its
// direction and, when it switched, the values the test compared. Its step
// (and the reason, formatted) is made after the run, so that the host
// does no more between two levels than it must while the GPU waits.
type levelNote struct {
	lvl        doLevel
	dir        Direction
	switched   int   // 0, switchedDown or switchedUp
	mu, prevNF int64 // the arcs of unvisited vertices, the level before's frontier
}

const (
	switchedDown = 1 + iota // turned bottom-up: m_f > m_u/α, growing
	switchedUp              // turned top-down: n_f < n/β, shrinking
)

// step is the level's trace step in a graph of n vertices, with the
// switch parameters α and β.
func (nt levelNote) step(n, alpha, beta int64) trace.Step {
	l := nt.lvl
	s := trace.Step{Kind: nt.dir.String(), Frontier: l.frontier, FrontierArcs: l.arcs, Inspected: l.arcs, Updated: l.reached}
	if nt.dir == BottomUpStep {
		s.Inspected = l.read
	}
	switch nt.switched {
	case switchedDown:
		s.Why = switchDown(l.arcs, nt.mu, alpha, l.frontier, nt.prevNF)
	case switchedUp:
		s.Why = switchUp(l.frontier, nt.prevNF, n, beta)
	}
	return s
}

// levelList renders level numbers compactly: "0–2, 5, 7–9".
func levelList(ls []int) string {
	if len(ls) == 0 {
		return "none"
	}
	var parts []string
	for i := 0; i < len(ls); {
		j := i
		for j+1 < len(ls) && ls[j+1] == ls[j]+1 {
			j++
		}
		if j == i {
			parts = append(parts, strconv.Itoa(ls[i]))
		} else {
			parts = append(parts, strconv.Itoa(ls[i])+"–"+strconv.Itoa(ls[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}
