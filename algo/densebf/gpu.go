package densebf

import (
	_ "embed"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/graphnb/graphnb/algo/internal/prepared"
	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/internal/card"
	"github.com/graphnb/graphnb/internal/membudget"
	"github.com/graphnb/graphnb/trace"
)

// kernelSource is the CUDA C of the GPU methods, compiled by NVRTC in
// two builds (kernelBuilds: gpu.TracedBuilds), each once per device (and
// cached on disk by package gpu).
//
//go:embed densebf.cu
var kernelSource string

const (
	// initBlock is the block size of the initialisation kernel.
	initBlock = 256
	// naiveBlock is BF_Naive's block size: one thread per vertex, so a
	// small block spreads the few threads over more multiprocessors.
	naiveBlock = 128
	// minGroupBlock is the fewest threads per block of Reduce and
	// ReduceCoarse: a group size below it puts several groups (vertices)
	// in a block (at most 32 blocks fit on a multiprocessor, so blocks of
	// 32 threads would leave half of its threads idle).
	minGroupBlock = 128
	// sharedPerThread is the dynamic shared memory of Reduce and
	// ReduceCoarse: one 4-byte value and one 4-byte index per thread.
	sharedPerThread = 8
)

// Kernel names (densebf.cu). A CI test checks that every name kernelNames
// lists is declared in the source.
func typeTag(f32 bool) string {
	if f32 {
		return "f32"
	}
	return "i32"
}

func initKernel(f32 bool) string { return "densebf_init_" + typeTag(f32) }

func stepKernel(m Method, vec, f32 bool) string {
	switch m {
	case Reduce:
		return "densebf_reduce_" + typeTag(f32)
	case ReduceCoarse:
		if vec {
			return "densebf_coarse_vec_" + typeTag(f32)
		}
		return "densebf_coarse_" + typeTag(f32)
	}
	return "densebf_naive_" + typeTag(f32)
}

// kernelNames lists every kernel the Go side may launch.
func kernelNames() []string {
	var out []string
	for _, f32 := range []bool{false, true} {
		out = append(out, initKernel(f32), stepKernel(Naive, false, f32), stepKernel(Reduce, false, f32),
			stepKernel(ReduceCoarse, false, f32), stepKernel(ReduceCoarse, true, f32))
	}
	return out
}

// kernelBuilds are the two builds of densebf.cu (its "the two builds"
// comment says why): untraced runs launch kernelBuilds.Untraced's
// kernels, which hold no trace code; traced runs (Options.Trace)
// kernelBuilds.Traced's, whose kernels count the distances they lower
// and log their spans (gpu.LaunchLog).
var kernelBuilds = gpu.NewTracedBuilds("densebf.cu", kernelSource, "DENSEBF_TRACED")

// deviceModule returns densebf.cu compiled for dev, the traced build if
// traced.
func deviceModule(dev *gpu.Device, traced bool) (*gpu.Module, error) {
	m, err := kernelBuilds.For(dev, traced)
	if err != nil {
		return nil, fmt.Errorf("densebf: %w", err)
	}
	return m, nil
}

// kernelSet is the two kernels a run launches, from one build of
// densebf.cu: the initialisation and the method's iteration.
type kernelSet struct {
	init, step *gpu.Function
}

// shape is the launch geometry of the iteration kernel for n vertices.
type shape struct {
	group    int  // M, threads per vertex (0 for Naive)
	perBlock int  // G, vertices per block and round (groups per block; Naive: threads per block)
	block    int  // threads per block
	grid     int  // blocks; below ⌈n/G⌉, each group settles a vertex per round (densebf.cu, "Rounds")
	shared   int  // bytes of dynamic shared memory
	vec      bool // ReduceCoarse with 16-byte loads
}

// Reduce's geometry changes at reduceLargeN vertices: below, M = 32 in
// blocks of minGroupBlock threads (G = 4); from there, M = 64 in blocks
// of reduceBlock threads (G = 8). Options.GroupSize gives the
// measurements.
const (
	reduceLargeN = 2048
	reduceBlock  = 512
)

// defaultGroupSize is M when Options.GroupSize is 0 (Options.GroupSize
// documents the rule and the measurements behind it), for n ≥ 1 vertices
// and, for ReduceCoarse, 16-byte loads (vec) or not; 0 for Naive.
//
//   - Reduce: 32 below n = 2048, 64 from there.
//   - ReduceCoarse: one load per thread and vertex (n entries, or n/4
//     16-byte vectors, rounded up to a multiple of 32), between 32 and
//     DefaultMaxGroupSize (256 from n = 1024 with 16-byte loads).
func defaultGroupSize(m Method, n int, vec bool) int {
	switch m {
	case Reduce:
		if n >= reduceLargeN {
			return 2 * GroupMultiple
		}
		return GroupMultiple
	case ReduceCoarse:
		need := n
		if vec {
			need = (n + 3) / 4
		}
		g := (need + GroupMultiple - 1) / GroupMultiple * GroupMultiple
		return min(max(g, GroupMultiple), DefaultMaxGroupSize)
	}
	return 0
}

// perBlockFor is G, the vertices of a block (its groups) for group size
// M on n vertices: Reduce fills blocks of reduceBlock threads from
// reduceLargeN vertices (G = 8 at M = 64: a block's loads of a row take
// a whole 32-byte sector of 8 columns), blocks of minGroupBlock below,
// as ReduceCoarse always does; at least one group.
func perBlockFor(m Method, n, group int) int {
	if m == Reduce && n >= reduceLargeN {
		return max(1, reduceBlock/group)
	}
	return max(1, minGroupBlock/group)
}

// shapeFor returns the launch geometry for options o (valid) and n ≥ 1
// vertices: a group per vertex (one round), G groups per block.
func shapeFor(o Options, n int) shape {
	if o.Method == Naive {
		return shape{perBlock: naiveBlock, block: naiveBlock, grid: (n + naiveBlock - 1) / naiveBlock}
	}
	s := shape{vec: o.Method == ReduceCoarse && !o.ScalarLoads && n%4 == 0}
	s.group = o.GroupSize
	if s.group == 0 {
		s.group = defaultGroupSize(o.Method, n, s.vec)
	}
	s.perBlock = perBlockFor(o.Method, n, s.group)
	s.block = s.perBlock * s.group
	s.grid = (n + s.perBlock - 1) / s.perBlock
	s.shared = s.block * sharedPerThread
	return s
}

// base is the lifecycle Prepared shares with the other algorithms.
type base = prepared.Base

// Prepared is a matrix prepared on a device for repeated single-source
// runs with one set of options: validated, laid out for the method
// (transposed for ReduceCoarse), uploaded, with the distance, predecessor
// and flag buffers allocated and the kernels compiled and loaded. On the
// host device it only holds the matrix and the options.
//
// Run may be called many times, from several goroutines (runs are
// serialised); Close frees the device memory. The GPU holds a copy of the
// matrix, but Prepared keeps d for the host device: d must not change
// while it is prepared.
type Prepared struct {
	base
	mem    *gpu.Allocations // every device buffer below
	d      *graph.Dense
	n      int
	f32    bool
	opts   Options
	shape  shape
	upload time.Duration

	// Device state; nil on the host.
	mI32   *gpu.Int32s
	mF32   *gpu.Float32s
	sigI32 [2]*gpu.Int32s
	sigF32 [2]*gpu.Float32s
	pred   *gpu.Int32s
	flag   *gpu.Int32s
	// parity holds the two parity words of densebf.cu's idle test
	// (parityWords ints; word (it&1)·parityStride holds the last
	// iteration of it's parity that changed a vertex).
	parity *gpu.Int32s
	ck     *checkState // the device check's buffers (devcheck.go), made by the first Check

	// The kernels of densebf.cu's two builds (builds[0] untraced,
	// builds[1] traced), loaded by Prepare for its options and the other
	// by the first run that needs it (a Prepared whose Options.Trace
	// changes between runs: BenchmarkGPUTrace); nil until then.
	builds [2]*kernelSet

	// Traced runs (Options.Trace): the kernels' count of lowered
	// distances per iteration (N + 1 ints, entry 0 unused, zeroed by the
	// init kernel) and the page-locked host memory a run reads them into
	// (made by Prepare, or by the first traced run), and the launch log,
	// made by the first traced run, its ring reused by the next ones and
	// freed by Close.
	lowered     *gpu.Int32s
	loweredHost *gpu.Pinned
	launchLog   *gpu.LaunchLog

	// forwardOnly makes ReduceCoarse take the rows in the same order
	// every iteration (the benchmarks' comparison; by default even
	// iterations take them backwards).
	forwardOnly bool
}

// Prepare readies the matrix d on dev for Run with the options o (the
// zero Options: BF_Naive).
//
// It validates d as Run does (graph.Dense.Inspect: O(N²)). On a GPU it
// compiles the kernels (once per device and process), transposes d on the
// host for ReduceCoarse (Naive and Reduce read it as given), uploads it
// (4·N² bytes, timed with CUDA events: UploadTime, which every run counts
// in Result.CopyTime) and allocates two distance arrays, the
// predecessors, the change flag and the idle test's two parity words
// (densebf.cu's idle; 12·N + 260 bytes), and with Options.Trace the
// per-iteration counts of lowered distances (4·N + 4 bytes more, and as
// much page-locked host memory to read them into, outside Bytes; the
// first traced Run makes the launch log's 64 KiB ring, outside Bytes).
// It compiles and loads the build of densebf.cu its options run (the
// traced build with Options.Trace); a run with the other setting of
// Options.Trace loads the other build, and a first traced run of an
// untraced preparation allocates the counts. PrepTime reports the whole
// preparation. Device memory: Bytes.
//
// On the host device (dev.IsHost()) nothing is uploaded: Run computes
// with the CPU's Run (the same dense pull iterations), so a notebook runs
// unchanged without a GPU.
//
// It returns an error for a nil device, invalid options (Options.Validate),
// a malformed or empty matrix, a compile error or a device that runs out
// of memory.
func Prepare(dev *gpu.Device, d *graph.Dense, o Options) (*Prepared, error) {
	if dev == nil {
		return nil, errors.New("densebf: Prepare: nil device (use gpu.Default())")
	}
	start := time.Now()
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if _, err := d.Inspect(); err != nil {
		return nil, fmt.Errorf("densebf: Prepare: %w", err)
	}
	if d.N == 0 {
		return nil, errors.New("densebf: Prepare: the matrix has no vertices, so no source")
	}
	p := &Prepared{d: d, n: d.N, f32: d.F32 != nil, opts: o, shape: shapeFor(o, d.N)}
	p.mem = prepared.Init(&p.base, "densebf", o.Label(), dev)
	if !dev.IsHost() {
		if err := p.prepareGPU(); err != nil {
			_ = p.mem.Free()
			return nil, fmt.Errorf("densebf: preparing gpu dense Bellman-Ford (%s) on %v: %w", p.Label(), dev, err)
		}
	}
	prepared.Done(&p.base, start)
	return p, nil
}

func (p *Prepared) prepareGPU() error {
	if _, err := p.kernelsFor(p.opts.Trace); err != nil {
		return err
	}
	var err error
	n := p.n
	coarse := p.opts.Method == ReduceCoarse
	if coarse {
		// The transposed copy of the matrix, on the host.
		if err := membudget.Check(fmt.Sprintf("densebf: preparing %s on %d vertices", p.Label(), n), membudget.Bytes(int64(n)*int64(n), 4)); err != nil {
			return err
		}
	}
	if p.f32 {
		host := p.d.F32
		if coarse {
			if host, err = transpose(host, n, float32(math.Inf(1))); err != nil {
				return err
			}
		}
		if p.mF32, err = p.mem.AllocFloat32s(n * n); err != nil {
			return err
		}
		if p.upload, err = p.Device().Time(func(*gpu.Thread) error { return p.mF32.Upload(host) }); err != nil {
			return err
		}
		for i := range p.sigF32 {
			if p.sigF32[i], err = p.mem.AllocFloat32s(n); err != nil {
				return err
			}
		}
	} else {
		host := p.d.I32
		if coarse {
			if host, err = transpose(host, n, graph.InfI32); err != nil {
				return err
			}
		}
		if p.mI32, err = p.mem.AllocInt32s(n * n); err != nil {
			return err
		}
		if p.upload, err = p.Device().Time(func(*gpu.Thread) error { return p.mI32.Upload(host) }); err != nil {
			return err
		}
		for i := range p.sigI32 {
			if p.sigI32[i], err = p.mem.AllocInt32s(n); err != nil {
				return err
			}
		}
	}
	if p.pred, err = p.mem.AllocInt32s(n); err != nil {
		return err
	}
	if p.flag, err = p.mem.AllocInt32s(1); err != nil {
		return err
	}
	if p.parity, err = p.mem.AllocInt32s(parityWords); err != nil {
		return err
	}
	if p.opts.Trace {
		err = p.allocCounts()
	}
	return err
}

// allocCounts allocates the counts of lowered distances, on the device
// and in page-locked host memory (N + 1 ints each).
func (p *Prepared) allocCounts() error {
	var err error
	if p.lowered, err = p.mem.AllocInt32s(p.n + 1); err != nil {
		return fmt.Errorf("allocating the counts of lowered distances: %w", err)
	}
	if p.loweredHost, err = p.mem.AllocPinned(4 * int64(p.n+1)); err != nil {
		return fmt.Errorf("allocating the host's copy of the counts of lowered distances: %w", err)
	}
	return nil
}

// kernelsFor returns the kernels of the traced or the untraced build
// for p's method and shape, compiling (once per device and process) and
// loading them on first use.
func (p *Prepared) kernelsFor(traced bool) (*kernelSet, error) {
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
	k := &kernelSet{}
	if k.init, err = mod.Function(initKernel(p.f32)); err != nil {
		return nil, err
	}
	if k.step, err = mod.Function(stepKernel(p.opts.Method, p.shape.vec, p.f32)); err != nil {
		return nil, err
	}
	p.builds[b] = k
	return k, nil
}

// matrixArg is the uploaded matrix as a kernel argument.
func (p *Prepared) matrixArg() any {
	if p.f32 {
		return p.mF32
	}
	return p.mI32
}

// sigArg is distance array i (0 or 1) as a kernel argument.
func (p *Prepared) sigArg(i int) any {
	if p.f32 {
		return p.sigF32[i]
	}
	return p.sigI32[i]
}

// sigToHost downloads distance array i as float64 (+Inf: unreached).
func (p *Prepared) sigToHost(i int) ([]float64, error) {
	if p.f32 {
		s, err := p.sigF32[i].ToHost()
		if err != nil {
			return nil, err
		}
		out := make([]float64, len(s))
		for v, x := range s {
			out[v] = float64(x)
		}
		return out, nil
	}
	s, err := p.sigI32[i].ToHost()
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(s))
	for v, x := range s {
		out[v] = float64(x)
		if x >= graph.InfI32 {
			out[v] = math.Inf(1)
		}
	}
	return out, nil
}

// Close frees the device memory and the launch log's ring (traced
// runs); later Runs fail. Close is idempotent and accepts a nil
// Prepared.
func (p *Prepared) Close() error {
	if p == nil {
		return nil
	}
	err := errors.Join(p.base.Close(), p.launchLog.Close())
	p.launchLog = nil
	return err
}

// UploadTime returns the GPU time of the matrix upload (0 on the host),
// which every run counts in Result.CopyTime.
func (p *Prepared) UploadTime() time.Duration { return p.upload }

// Options returns the options the matrix was prepared with.
func (p *Prepared) Options() Options { return p.opts }

// GroupSize returns M, the threads per vertex the kernel runs with (the
// default when Options.GroupSize is 0); 0 for Naive and on the host.
func (p *Prepared) GroupSize() int {
	if p.Device().IsHost() {
		return 0
	}
	return p.shape.group
}

// VectorLoads reports whether the kernel loads 16 bytes per access
// (ReduceCoarse without ScalarLoads, N a multiple of 4, on a GPU).
func (p *Prepared) VectorLoads() bool { return p.shape.vec && !p.Device().IsHost() }

// Matrix returns the prepared matrix.
func (p *Prepared) Matrix() *graph.Dense { return p.d }

// algorithm is Result.Algorithm of a GPU run: "gpu dense Bellman-Ford
// (LABEL)", with the M the kernel uses when it is the default and
// "16-byte loads" when they are used.
func (p *Prepared) algorithm() string {
	s := "gpu dense Bellman-Ford (" + p.Label()
	var extra []string
	if p.opts.Method != Naive && p.opts.GroupSize == 0 {
		extra = append(extra, fmt.Sprintf("M=%d", p.shape.group))
	}
	if p.shape.vec {
		extra = append(extra, "16-byte loads")
	}
	for i, e := range extra {
		if i == 0 {
			s += "; "
		} else {
			s += ", "
		}
		s += e
	}
	return s + ")"
}

// String describes the prepared matrix in one line.
func (p *Prepared) String() string {
	kind := "int32"
	if p.f32 {
		kind = "float32"
	}
	return fmt.Sprintf("densebf: %s prepared on %v: %d vertices (%s), %s on the device, prepared in %v",
		p.Label(), p.Device(), p.n, kind, card.Bytes(p.Bytes()), p.PrepTime().Round(time.Microsecond))
}

// Run computes shortest distances from src on the prepared matrix.
//
// The GPU runs the iterations of the CPU's Run (see the package doc) with
// the method's kernel, one launch per iteration into the other distance
// array, reading the change flag every FlagInterval launches; it stops
// after an iteration that changed nothing, or after iteration N, which
// changing something means a negative cycle reachable from src: then, as
// Run, it returns a *NegativeCycleError naming the same vertex (found on
// the host from the last two distance arrays and the predecessors).
//
// Dist, Parents and Iterations equal the CPU Run's exactly, for int32 and
// float32 matrices (the same additions in the matrix's type, the same
// tie-breaking to the smallest j), so the result passes Check. Result:
// Algorithm "gpu dense Bellman-Ford (" + Label() + …; Time is the GPU
// time of the initialisation and the iterations, flag reads included,
// measured with CUDA events; CopyTime is UploadTime plus this run's
// download of Dist and Parents (events too); Time + CopyTime is the
// study's measure. PrepTime is 0: nothing is prepared per run, and
// the preparation, spent once, is PrepTime() (the one-shot RunGPU adds
// it). Idle launches after the last iteration (a FlagInterval above 1,
// the default) are timed but not counted.
//
// With Options.Trace the result has Result.Trace: a step per iteration,
// timed by its launch's span in the launch log (the GPU's own clock, no
// event between launches; Options.Trace says how), with the distances
// it lowered as the kernel counted them. A traced run launches the
// traced build of densebf.cu, an untraced one the untraced build, which
// holds no trace code (densebf.cu, "the two builds").
//
// On the host device it returns the CPU Run's result, with Algorithm
// saying so and PrepTime the CPU Run's own (its validation and
// transposition, per run; PrepTime() is not added); with Options.Trace,
// the trace of those CPU iterations (wall times), under the same
// Algorithm.
//
// It returns an error for a source outside [0, N), a closed Prepared, a
// device error, or cancellation (every launch polls cancel.Check; the
// error matches cancel.ErrInterrupted).
func (p *Prepared) Run(src int32) (*Result, error) {
	prepared.Lock(&p.base)
	defer prepared.Unlock(&p.base)
	if err := prepared.Open(&p.base); err != nil {
		return nil, err
	}
	if src < 0 || int(src) >= p.n {
		return nil, fmt.Errorf("densebf: Run: source %d is not a vertex of this %d-vertex matrix (use 0..%d)", src, p.n, p.n-1)
	}
	if err := cancel.Check(); err != nil {
		return nil, fmt.Errorf("densebf: %w", err)
	}
	if p.Device().IsHost() {
		r, err := run(p.d, src, p.opts.Trace)
		if err != nil {
			return nil, err
		}
		r.Algorithm += "; host device standing in for gpu dense Bellman-Ford (" + p.Label() + ")"
		if r.Trace != nil {
			r.Trace.Algorithm = r.Algorithm
		}
		return r, nil
	}
	r := &Result{Algorithm: p.algorithm(), Source: src}
	iters, last, negCycle, err := p.iterate(r)
	if err != nil {
		return nil, fmt.Errorf("densebf: %s from %d: %w", r.Algorithm, src, err)
	}
	r.Iterations = iters
	down, launches, err := p.collect(r, iters, last)
	if err != nil {
		return nil, fmt.Errorf("densebf: %s from %d: %w", r.Algorithm, src, err)
	}
	if p.opts.Trace && !negCycle {
		p.traceGPU(r, iters, launches)
	}
	if negCycle {
		prev, err := p.sigToHost((last - 1) % 2)
		if err != nil {
			return nil, fmt.Errorf("densebf: %s from %d: downloading the distances: %w", r.Algorithm, src, err)
		}
		v := 0
		for v < p.n-1 && prev[v] == r.Dist[v] {
			v++
		}
		return nil, &NegativeCycleError{Source: src, Vertex: onPredCycle(r.Parents, int32(v))}
	}
	r.CopyTime = p.upload + down
	return r, nil
}

// iterate runs the initialisation and the iterations, timed into r.Time.
// It returns the iteration count (the last one changed nothing), the
// number of the last iteration launched (its output array is last % 2)
// and whether iteration N changed something (a negative cycle). A traced
// run (Options.Trace) leaves its launches in p's launch log for collect
// (a failed one drops them).
//
// An untraced run launches the untraced build of densebf.cu with NULL
// trace arguments. A traced run launches the traced build: the kernels
// count the distances they lower into p.lowered (zeroed by the init
// kernel: no host memset before the run) and log their spans through
// p's launch log, by the GPU's own clock (no CUDA event between
// launches). A launch that another
// launch follows at once — the initialisation, and an iteration that is
// not the last before a read of the change flag — is open
// (gpu.LaunchLog.LaunchOpen: its time runs to the next launch's start);
// the last before a flag read is closed (its own span), since the host's
// read comes between it and the next.
func (p *Prepared) iterate(r *Result) (iters, last int, negCycle bool, err error) {
	traced := p.opts.Trace
	k, err := p.kernelsFor(traced)
	if err != nil {
		return 0, 0, false, err
	}
	var log *gpu.LaunchLog // nil: untraced, the launches unlogged
	var lowered any = uint64(0)
	if traced {
		if log, lowered, err = p.traceState(); err != nil {
			return 0, 0, false, fmt.Errorf("tracing: %w", err)
		}
	}
	r.Time, err = p.Device().Time(func(t *gpu.Thread) error {
		var err error
		iters, last, negCycle, err = p.launches(t, k, log, r.Source, lowered)
		return err
	})
	if traced && err != nil {
		// A failed run's launches are dropped, so that they do not
		// open the next run's trace.
		log.Drop()
	}
	return iters, last, negCycle, err
}

// traceState readies a traced run: the launch log (made by the first
// traced run) and the counts of lowered distances (made by the first
// traced run of a Prepared prepared untraced; the init kernel zeroes
// them); it returns them, the counts as the kernels' argument.
func (p *Prepared) traceState() (*gpu.LaunchLog, any, error) {
	log, err := p.Device().KeepLaunchLog(&p.launchLog)
	if err != nil {
		return nil, nil, err
	}
	if p.lowered == nil {
		if err := p.allocCounts(); err != nil {
			return nil, nil, err
		}
	}
	return log, p.lowered, nil
}

// collect downloads the results of a run of iters iterations whose last
// launched iteration is last into r (Dist, Parents), timed with CUDA
// events (the returned duration, CopyTime's share), and returns the
// launches of a traced run from p's launch log.
//
// A traced run adds no synchronisation of its own: before the download,
// it queues on the default stream the copies of the counts of lowered
// distances the run made (iters + 1 ints) and of the launch log's entries
// (gpu.LaunchLog.QueueRead) into page-locked host memory, so that the
// download's synchronous copies, queued after them, wait for them too;
// the log then only parses its copy. The counts' copy comes before the
// log's event on the stream, so Launches, which waits for that event
// (at once, after the download), vouches for the counts too. All of it
// runs in one call on the device thread. On an error a traced run's
// launches are dropped.
func (p *Prepared) collect(r *Result, iters, last int) (time.Duration, []trace.Launch, error) {
	traced := p.opts.Trace
	var down time.Duration
	var launches []trace.Launch
	err := p.Device().Exec(func(t *gpu.Thread) error {
		if traced {
			if err := p.lowered.DownloadAsync(nil, 0, p.loweredHost.Int32s()[:iters+1]); err != nil {
				return fmt.Errorf("tracing: queueing the read of the counts of lowered distances: %w", err)
			}
			if err := p.launchLog.QueueRead(t, nil); err != nil {
				return fmt.Errorf("tracing: %w", err)
			}
		}
		var err error
		down, err = p.Device().Time(func(*gpu.Thread) error {
			var err error
			if r.Dist, err = p.sigToHost(last % 2); err != nil {
				return err
			}
			r.Parents, err = p.pred.ToHost()
			return err
		})
		if err != nil {
			return fmt.Errorf("downloading the results: %w", err)
		}
		if traced {
			if launches, err = p.launchLog.Launches(); err != nil {
				return fmt.Errorf("tracing: %w", err)
			}
		}
		return nil
	})
	if err != nil && traced {
		p.launchLog.Drop()
	}
	return down, launches, err
}

// launches launches the initialisation and the iterations of a run from
// src on t (iterate's timed region) with the kernels k, logged in log
// (nil: untraced), lowered the iteration kernels' count argument (NULL
// untraced). It returns what iterate does.
func (p *Prepared) launches(t *gpu.Thread, k *kernelSet, log *gpu.LaunchLog, src int32, lowered any) (iters, last int, negCycle bool, err error) {
	n, s := p.n, p.shape
	interval := p.opts.flagInterval()
	word := []int32{0}
	alternate := 1 // ReduceCoarse: even iterations take the rows backwards (densebf.cu)
	if p.forwardOnly {
		alternate = 0
	}
	launch := func(open bool, step int, f *gpu.Function, grid gpu.Dim, block, shared int, args ...any) error {
		if open {
			return log.LaunchOpen(t, nil, step, f, grid, gpu.D1(block), shared, args...)
		}
		return log.LaunchOn(t, nil, step, f, grid, gpu.D1(block), shared, args...)
	}
	// The first iteration follows the initialisation at once (n ≥ 1).
	if err := launch(true, -1, k.init, gpu.Blocks(n, initBlock), initBlock, 0, p.sigArg(0), p.pred, n, src, p.flag, p.parity, lowered); err != nil {
		return 0, 0, false, err
	}
	it := 0
	for {
		first := it + 1
		for b := 0; b < interval && it < n; b++ {
			it++
			open := b+1 < interval && it < n // another iteration follows before the flag read
			// The first launch after a flag read that showed a change
			// runs; the others may be idle (densebf.cu).
			check := b > 0
			if err := launch(open, it-1, k.step, gpu.D1(s.grid), s.block, p.stepShared(), p.stepArgs(it, check, alternate, lowered)...); err != nil {
				return 0, 0, false, err
			}
		}
		if err := p.flag.Download(word); err != nil {
			return 0, 0, false, err
		}
		changed := int(word[0])
		switch {
		case changed < first-1 || changed > it:
			return 0, 0, false, fmt.Errorf("the change flag reads %d after iterations %d..%d (a kernel bug: please report it)", changed, first, it)
		case changed < it:
			return changed + 1, it, false, nil
		case it == n:
			return n, n, true, nil
		}
	}
}

// The parity words of densebf.cu's idle test (PARITY_STRIDE; TestKernelSource
// compares): two words a cache line apart.
const (
	parityStride = 32
	parityWords  = 2 * parityStride
)

// stepShared is the dynamic shared memory of an iteration's launch.
func (p *Prepared) stepShared() int {
	if p.opts.Method == Naive {
		return 0
	}
	return p.shape.shared
}

// stepArgs are the arguments of iteration it's launch (densebf.cu's
// iteration kernels, the trace's entries left to the launch log): σ from
// array (it-1)%2 into array it%2; check makes it idle when iteration
// it-1 changed nothing; alternate is ReduceCoarse's (1: even iterations
// take the rows backwards); lowered the count argument (NULL untraced).
func (p *Prepared) stepArgs(it int, check bool, alternate int, lowered any) []any {
	in, out := p.sigArg((it-1)%2), p.sigArg(it%2)
	c := 0
	if check {
		c = 1
	}
	switch p.opts.Method {
	case Naive:
		return []any{p.matrixArg(), in, out, p.pred, p.n, it, p.flag, p.parity, c, lowered}
	case Reduce:
		return []any{p.matrixArg(), in, out, p.pred, p.n, p.shape.group, it, p.flag, p.parity, c, lowered}
	default:
		return []any{p.matrixArg(), in, out, p.pred, p.n, p.shape.group, it, p.flag, p.parity, c, alternate, lowered}
	}
}

// traceGPU sets r.Trace of a traced run of iters iterations from its
// launches (the launch log's, in order) and the kernels' counts of lowered
// distances (read into p.loweredHost by collect): step i is iteration
// i+1, its time its launch's, the launch's Bytes BytesPerIteration. The
// idle launches after the last iteration (FlagInterval > 1) are left out.
func (p *Prepared) traceGPU(r *Result, iters int, launches []trace.Launch) {
	counts := p.loweredHost.Int32s()[:iters+1]
	nn := int64(p.n) * int64(p.n)
	steps := make([]trace.Step, iters)
	for i := range steps {
		steps[i] = trace.Step{Kind: stepKind, Inspected: nn, Updated: int64(counts[i+1])}
	}
	kept := launches[:0]
	per := BytesPerIteration(p.n, p.opts)
	for _, l := range launches {
		if l.Step < iters {
			if l.Step >= 0 {
				l.Bytes = per // a streamed matrix: no gather
			}
			kept = append(kept, l)
		}
	}
	r.Trace = trace.FromLaunches(r.Algorithm, nn, r.Time, steps, kept)
}

// RunGPU computes shortest distances from src over the matrix d on dev
// with the options o: Prepare, Prepared.Run, Close. The result's
// PrepTime includes the preparation (Prepared.PrepTime), made for this
// run alone. To run from several sources, Prepare once and call Run for
// each (the preparation, the upload above all, is often longer than a
// run). It is named RunGPU because Run is the CPU's.
func RunGPU(dev *gpu.Device, d *graph.Dense, src int32, o Options) (*Result, error) {
	if d != nil && d.N > 0 && (src < 0 || int(src) >= d.N) {
		return nil, fmt.Errorf("densebf: RunGPU: source %d is not a vertex of this %d-vertex matrix (use 0..%d)", src, d.N, d.N-1)
	}
	p, err := Prepare(dev, d, o)
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
