package sssp

import (
	_ "embed"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/graphnb/graphnb/algo/internal/devcsr"
	"github.com/graphnb/graphnb/algo/internal/prepared"
	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/trace"
)

// residentBody is the device work around the searches (resident.cu): the
// weight statistics and light-first split of PrepareResident, the parents,
// widening and counts after each run.
//
//go:embed resident.cu
var residentBody string

// residentSource is what NVRTC compiles: csr.cuh's row search
// (algo/internal/devcsr), then resident.cu. A module of its own, compiled
// without fused multiply-adds.
var residentSource = devcsr.Prepend(residentBody)

var residentModule = gpu.ModuleCache{Name: "sssp_resident.cu", Source: residentSource,
	Options: []gpu.CompileOption{gpu.Flag("--fmad=false")}}

// Control words and constants of resident.cu (a test compares them).
const (
	rsReached = 0   // RS_REACHED
	rsDegrees = 1   // RS_DEGREES
	rsAdopted = 2   // RS_ADOPTED
	rsLeft    = 3   // RS_LEFT
	rsLowest  = 4   // RS_LOWEST
	rsSlots   = 5   // RS_SLOTS
	rsBigs    = 6   // RS_BIGS
	rsWords   = 8   // RS_WORDS
	rsTile    = 256 // RS_TILE: arcs per warp tile of the parents' strict pass
	rsBig     = 1024
)

// residentKernelNames lists the kernels of resident.cu the Go side
// launches.
func residentKernelNames() []string {
	out := []string{"sssprs_wstats_w32", "sssprs_wstats_w64", "sssprs_wstats_total",
		"sssprs_split_w32", "sssprs_split_w64", "sssprs_split_big_w32", "sssprs_split_big_w64", "sssprs_lend_unit",
		"sssprs_slots", "sssprs_widen", "sssprs_reset", "sssprs_collect_d64", "sssprs_collect_d32",
		"sssprs_parents_init_d64", "sssprs_parents_init_d32", "sssprs_commit"}
	for _, f32 := range []bool{false, true} {
		for _, w64 := range []bool{false, true} {
			for _, form := range []string{"parents", "parents_undirected", "parents_coo", "adopt_pull"} {
				out = append(out, parentsKernel(form, f32, w64))
			}
		}
	}
	return out
}

// parentsKernel names a kernel of the parent tree: form "parents" (a pass
// over a CSR's arcs), "parents_undirected" (the strict pass of an undirected
// CSR), "parents_coo" (a pass over a COO's edges) or "adopt_pull" (an
// adoption round of an undirected CSR), for the distances' and weights'
// types.
func parentsKernel(form string, f32, w64 bool) string {
	return "sssprs_" + form + "_" + distTag(f32) + "_" + weightTag(w64)
}

// residentKernels compiles resident.cu on dev and returns its kernels by
// name.
func residentKernels(dev *gpu.Device) (map[string]*gpu.Function, error) {
	return residentModule.Functions(dev, residentKernelNames())
}

// residentState is RunOnDevice's share of a Prepared, made by the first
// run: resident.cu's kernels, with Parents the adoption candidates and
// two lists of orphans (12 bytes per vertex), and the control words.
type residentState struct {
	fn      map[string]*gpu.Function
	sms     int
	cand    *gpu.Int32s
	orphans [2]*gpu.Int32s // the orphans of a round, and those it leaves
	ctl     *gpu.Uint64s
}

// residentState returns p's, making it on first use. Call with p's lock.
func (p *Prepared) residentState() (*residentState, error) {
	if p.rs != nil {
		return p.rs, nil
	}
	fn, err := residentKernels(p.Device())
	if err != nil {
		return nil, err
	}
	info, err := p.Device().Info()
	if err != nil {
		return nil, err
	}
	rs := &residentState{fn: fn, sms: info.SMs}
	if p.opts.Parents {
		for _, b := range []**gpu.Int32s{&rs.cand, &rs.orphans[0], &rs.orphans[1]} {
			if *b, err = p.mem.AllocInt32s(p.n); err != nil {
				return nil, err
			}
		}
	}
	if rs.ctl, err = p.mem.AllocUint64s(rsWords); err != nil {
		return nil, err
	}
	p.rs = rs
	return rs, nil
}

// grid is the grid of a grid-stride kernel of resident.cu over n items.
func (rs *residentState) grid(n int) gpu.Dim { return checkGrid(max(n, 1), rs.sms) }

// reset zeroes the control words, RS_LOWEST set to none, in stream
// order (a kernel: no host copy).
func (rs *residentState) reset(t *gpu.Thread) error {
	return t.Launch(rs.fn["sssprs_reset"], gpu.D1(1), gpu.D1(32), 0, rs.ctl)
}

// sourceSlots returns the near-queue slots of src (nearSlots, at least
// 1): from the host graph when p has one, else computed on the device
// (one word read back).
func (p *Prepared) sourceSlots(src int32) (uint32, error) {
	if p.g != nil {
		return uint32(max(1, p.nearSlots(src))), nil
	}
	rs, err := p.residentState()
	if err != nil {
		return 0, err
	}
	ctl := make([]uint64, rsWords)
	err = p.Device().Exec(func(t *gpu.Thread) error {
		if err := t.Launch(rs.fn["sssprs_slots"], gpu.D1(1), gpu.D1(32), 0, p.csr.Offsets, p.lend, src, rs.ctl); err != nil {
			return err
		}
		return rs.ctl.Download(ctl)
	})
	return uint32(ctl[rsSlots]), err
}

// resultBufs are the device buffers of a DeviceResult: N float64
// distances, and N parents with the Parents option.
type resultBufs struct {
	dist    *gpu.Float64s
	parents *gpu.Int32s
}

func (b *resultBufs) free() error { return errors.Join(b.dist.Free(), b.parents.Free()) }

// takeBufs returns the spare buffers of a closed result, or new ones.
func (p *Prepared) takeBufs() (*resultBufs, error) {
	p.spareMu.Lock()
	b := p.spare
	p.spare = nil
	p.spareMu.Unlock()
	if b != nil {
		return b, nil
	}
	b = &resultBufs{}
	var err error
	if b.dist, err = p.Device().AllocFloat64s(p.n); err == nil && p.opts.Parents {
		b.parents, err = p.Device().AllocInt32s(p.n)
	}
	if err != nil {
		return nil, errors.Join(err, b.free())
	}
	return b, nil
}

// putBufs keeps b as the spare, or frees it when there is one already or
// p is closed.
func (p *Prepared) putBufs(b *resultBufs) error {
	p.spareMu.Lock()
	if p.spare == nil && !p.spareOff {
		p.spare, b = b, nil
	}
	p.spareMu.Unlock()
	if b == nil {
		return nil
	}
	return b.free()
}

// dropSpare frees the spare buffers and stops keeping any (Close).
func (p *Prepared) dropSpare() error {
	p.spareMu.Lock()
	b := p.spare
	p.spare, p.spareOff = nil, true
	p.spareMu.Unlock()
	if b == nil {
		return nil
	}
	if err := b.free(); err != nil {
		return fmt.Errorf("sssp: freeing the device memory of %s on %v: %w", p.Label(), p.Device(), err)
	}
	return nil
}

// DeviceResult is a run of RunOnDevice whose distances (float64, N) and
// parents (int32, N, with the Parents option) stay in device memory: the
// exported fields are Result's small ones, filled without copying the
// arrays back; Result copies them on request; CheckDevice validates them
// where they are. Close frees them. Methods are safe for concurrent use.
type DeviceResult struct {
	// Algorithm, Source, Iterations, Delta, Reached, ComponentEdges,
	// Time, PrepTime, TreeTime, TEPS, ArcsScanned and Phases are Result's
	// fields of the same names (see Result and Prepared.Run), and so is
	// Trace. On a GPU, TreeTime is the parent construction on the device.
	Algorithm      string
	Source         int32
	Iterations     int
	Delta          float64
	Reached        int64
	ComponentEdges int64
	Time           time.Duration
	PrepTime       time.Duration
	TreeTime       time.Duration
	TEPS           graph.TEPS
	ArcsScanned    int64
	Phases         int
	Trace          *trace.Trace

	p      *Prepared
	mu     sync.Mutex  // guards the rest
	bufs   *resultBufs // nil on the host device and once closed
	res    *Result     // the downloaded result (the host device's from the start)
	closed bool
}

// newDeviceResult copies r's small fields into a DeviceResult.
func newDeviceResult(p *Prepared, r *Result, b *resultBufs) *DeviceResult {
	return &DeviceResult{Algorithm: r.Algorithm, Source: r.Source, Iterations: r.Iterations, Delta: r.Delta,
		Reached: r.Reached, ComponentEdges: r.ComponentEdges, Time: r.Time, PrepTime: r.PrepTime, TreeTime: r.TreeTime,
		TEPS: r.TEPS, ArcsScanned: r.ArcsScanned, Phases: r.Phases, Trace: r.Trace, p: p, bufs: b}
}

// header returns a Result with r's small fields and no arrays.
func (r *DeviceResult) header() *Result {
	return &Result{Algorithm: r.Algorithm, Source: r.Source, Iterations: r.Iterations, Delta: r.Delta,
		Reached: r.Reached, ComponentEdges: r.ComponentEdges, Time: r.Time, PrepTime: r.PrepTime, TreeTime: r.TreeTime,
		TEPS: r.TEPS, ArcsScanned: r.ArcsScanned, Phases: r.Phases, Trace: r.Trace}
}

// Result returns the run as an ordinary Result: Dist (float64; float32
// distances widened on the device) and Parents (with the Parents option,
// else nil) copied from the device on the first call, 12 bytes per
// vertex, and kept: later calls, and calls after Close, return the same
// Result (shared: treat it as read-only). Its small fields are r's as
// they were at the first call. It returns an error when r was closed
// before the first call, or for a failed copy.
func (r *DeviceResult) Result() (*Result, error) {
	if r == nil {
		return nil, errors.New("sssp: DeviceResult.Result: nil result")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.res != nil {
		return r.res, nil
	}
	if r.closed {
		return nil, fmt.Errorf("sssp: DeviceResult.Result: the result of %s from %d was closed before it was read; read it before Close", r.Algorithm, r.Source)
	}
	res := r.header()
	var err error
	if res.Dist, err = r.bufs.dist.ToHost(); err == nil && r.bufs.parents != nil {
		res.Parents, err = r.bufs.parents.ToHost()
	}
	if err != nil {
		return nil, fmt.Errorf("sssp: copying the result of %s from %d to the host: %w", r.Algorithm, r.Source, err)
	}
	r.res = res
	return res, nil
}

// Close frees r's device memory (or keeps it for its Prepared's next run;
// its Close frees it). Close is idempotent and accepts a nil result. A
// Result read before stays valid; CheckDevice and a first Result after
// Close return an error.
func (r *DeviceResult) Close() error {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	r.closed = true
	b := r.bufs
	r.bufs = nil
	if b == nil {
		return nil
	}
	if err := r.p.putBufs(b); err != nil {
		return fmt.Errorf("sssp: freeing the device memory of a result of %s: %w", r.Algorithm, err)
	}
	return nil
}

// RunOnDevice computes shortest paths from src as Run does, but leaves
// the distances and parents on the device: everything after the search
// runs there too (parents from the distances, the float32 distances
// widened to float64, Reached and ComponentEdges), and only a few
// control words are read back. Close the result when done with it
// (RunOnDevice keeps one closed result's buffers for its next run).
//
// The distances are Run's, bit for bit. The parents are tight arcs as
// Run's are, chosen on the device independently of the search's
// scheduling: for each reached vertex v the least u of the tight arcs
// u→v (Dist[u] + w == Dist[v], exactly, in the distances' type) with
// Dist[u] < Dist[v], so that parents strictly decrease in distance; the
// few vertices reached only from vertices at the same distance (zero
// weights, or weights lost to rounding) are adopted in rounds by the
// least such u that had a parent before the round. The tree depends only
// on the graph and the distances; it may differ from the CPU
// algorithms' (also valid) tree. TreeTime is its time: one pass over
// the arcs (on an undirected CSR, each vertex's own list read as its
// in-arcs: no atomic per arc), one over the vertices that also counts
// Reached, and per adoption round a read of the orphans' lists (a pass
// over every arc on a directed graph or the COO) and of the control
// words. With the Parents option the first run allocates 12 bytes per
// vertex (candidates and two orphan lists), kept until Close.
//
// On the host device it runs Run's CPU code and keeps the Result, which
// Result returns. It returns Run's errors, and an error naming the vertex
// when a vertex of finite distance has no path of tight arcs from the
// source (distances that are not a fixed point).
func (p *Prepared) RunOnDevice(src int32) (*DeviceResult, error) {
	prepared.Lock(&p.base)
	defer prepared.Unlock(&p.base)
	if err := prepared.Open(&p.base); err != nil {
		return nil, err
	}
	if src < 0 || int(src) >= p.n {
		return nil, fmt.Errorf("sssp: source %d is not a vertex of this %d-vertex graph (use 0..%d)", src, p.n, p.n-1)
	}
	if err := cancel.Check(); err != nil {
		return nil, fmt.Errorf("sssp: %w", err)
	}
	if p.Device().IsHost() {
		r, err := p.runHost(src)
		if err != nil {
			return nil, err
		}
		dr := newDeviceResult(p, r, nil)
		dr.res = r
		return dr, nil
	}
	r := &Result{Algorithm: "gpu Bellman-Ford (" + p.Label() + ")", Source: src}
	b, err := p.takeBufs()
	if err != nil {
		return nil, fmt.Errorf("sssp: %s from %d: allocating the result: %w", r.Algorithm, src, err)
	}
	if p.opts.Method == EdgeSweep {
		err = p.runEdge(r, b.dist)
	} else {
		err = p.runNearFar(r, b.dist)
	}
	if err == nil {
		err = p.finishDevice(r, b)
	}
	if err != nil {
		return nil, errors.Join(fmt.Errorf("sssp: %s from %d: %w", r.Algorithm, src, err), p.putBufs(b))
	}
	return newDeviceResult(p, r, b), nil
}

// finishDevice builds the parents (with the Parents option), widens
// float32 distances into b.dist, and fills Reached, ComponentEdges and
// TEPS, all on the device: one read of the control words, and one more
// per adoption round of the tree. TreeTime is the time from the start of
// the parents to the end of the adoption rounds (the reached count is
// made in the same pass as the list of orphans).
func (p *Prepared) finishDevice(r *Result, b *resultBufs) error {
	rs, err := p.residentState()
	if err != nil {
		return err
	}
	f32, n := p.opts.Float32, int64(p.n)
	dist := p.distArg(b.dist)
	ctl := make([]uint64, rsWords)
	var start time.Time
	err = p.Device().Exec(func(t *gpu.Thread) error {
		if f32 {
			if err := t.Launch(rs.fn["sssprs_widen"], rs.grid(p.n), gpu.D1(blockSize), 0, p.dist32, b.dist, n); err != nil {
				return err
			}
		}
		start = time.Now()
		if err := rs.reset(t); err != nil {
			return err
		}
		parents, list := b.parents, rs.orphans[0]
		if p.opts.Parents {
			if err := p.strictParents(t, rs, dist, r.Source, b.parents); err != nil {
				return err
			}
		} else {
			parents, list = nil, nil
		}
		if err := t.Launch(rs.fn["sssprs_collect_"+distTag(f32)], rs.grid(p.n), gpu.D1(blockSize), 0, p.offsets, dist, parents,
			n, list, rs.ctl); err != nil {
			return err
		}
		if err := rs.ctl.Download(ctl); err != nil {
			return err
		}
		r.Reached = int64(ctl[rsReached])
		r.ComponentEdges = int64(ctl[rsDegrees])
		if p.opts.Parents {
			return p.adoptOrphans(t, rs, dist, r.Source, b.parents, ctl)
		}
		return nil
	})
	if p.opts.Parents && !start.IsZero() {
		r.TreeTime = time.Since(start)
	}
	if err != nil {
		return err
	}
	if !p.directed {
		r.ComponentEdges /= 2
	}
	r.TEPS = graph.Rate(r.ComponentEdges, p.m, r.Time)
	return cancel.Check()
}

// pullParents reports whether the parents use an undirected CSR's
// kernels: a strict pass over each edge once, both directions, and
// adoption rounds that read each orphan's own list (its in-arcs: every arc
// has its reverse, of the same weight).
func (p *Prepared) pullParents() bool { return p.coo == nil && !p.directed }

// strictParents launches the parents' first pass (resident.cu): every
// reached vertex but src the least u of its strict tight in-arcs u→v,
// RS_ORPHAN where it has none.
func (p *Prepared) strictParents(t *gpu.Thread, rs *residentState, dist any, src int32, parents *gpu.Int32s) error {
	f32, n := p.opts.Float32, int64(p.n)
	if err := t.Launch(rs.fn["sssprs_parents_init_"+distTag(f32)], rs.grid(p.n), gpu.D1(blockSize), 0, dist, parents, rs.cand, n, src); err != nil {
		return err
	}
	if p.coo != nil {
		return p.offerCOO(t, rs, dist, parents, 0)
	}
	form := "parents"
	if p.pullParents() {
		form = "parents_undirected"
	}
	f := rs.fn[parentsKernel(form, f32, p.w64)]
	grid := rs.grid(int((p.m+rsTile-1)/rsTile) * 32)
	if form == "parents_undirected" {
		return t.Launch(f, grid, gpu.D1(blockSize), 0, p.csr.Offsets, p.csr.Adj, p.weights, n, p.m, dist, parents)
	}
	return t.Launch(f, grid, gpu.D1(blockSize), 0, p.csr.Offsets, p.csr.Adj, p.weights, n, p.m, dist, parents, rs.cand, int32(0))
}

// offerCOO launches a pass over the COO's edges, both directions:
// strict (adopt 0) or adoption (adopt 1) offers.
func (p *Prepared) offerCOO(t *gpu.Thread, rs *residentState, dist any, parents *gpu.Int32s, adopt int32) error {
	return t.Launch(rs.fn[parentsKernel("parents_coo", p.opts.Float32, p.w64)], rs.grid(int(p.coo.Edges)), gpu.D1(blockSize), 0,
		p.coo.Start, p.coo.End, p.weights, p.coo.Edges, dist, parents, rs.cand, adopt)
}

// adoptOrphans runs the adoption rounds over the orphans that the strict
// pass left (listed in rs.orphans[0], counted in ctl, the control words
// read after the collection), until none is left: on an undirected CSR a
// warp reads each orphan's own list, elsewhere a pass over every arc
// offers candidates; sssprs_commit then adopts and lists those left. It
// returns an error naming the lowest orphan when a round adopts none.
func (p *Prepared) adoptOrphans(t *gpu.Thread, rs *residentState, dist any, src int32, parents *gpu.Int32s, ctl []uint64) error {
	f32, n := p.opts.Float32, int64(p.n)
	for round := 0; ctl[rsLeft] > 0; round++ {
		if err := cancel.Check(); err != nil {
			return fmt.Errorf("building the parent tree: %w", err)
		}
		list, next, count := rs.orphans[round%2], rs.orphans[(round+1)%2], int64(ctl[rsLeft])
		var err error
		switch {
		case p.coo != nil:
			err = p.offerCOO(t, rs, dist, parents, 1)
		case p.pullParents():
			err = t.Launch(rs.fn[parentsKernel("adopt_pull", f32, p.w64)], rs.grid(int(count)*32), gpu.D1(blockSize), 0,
				p.csr.Offsets, p.csr.Adj, p.weights, dist, parents, rs.cand, list, count)
		default:
			err = t.Launch(rs.fn[parentsKernel("parents", f32, p.w64)], rs.grid(int((p.m+rsTile-1)/rsTile)*32), gpu.D1(blockSize), 0,
				p.csr.Offsets, p.csr.Adj, p.weights, n, p.m, dist, parents, rs.cand, int32(1))
		}
		if err != nil {
			return err
		}
		if err := rs.reset(t); err != nil {
			return err
		}
		if err := t.Launch(rs.fn["sssprs_commit"], rs.grid(int(count)), gpu.D1(blockSize), 0, parents, rs.cand, list, count, next, rs.ctl); err != nil {
			return err
		}
		if err := rs.ctl.Download(ctl); err != nil {
			return err
		}
		if ctl[rsAdopted] == 0 && ctl[rsLeft] > 0 {
			return fmt.Errorf("vertex %d has a finite distance but no path of tight arcs from the source %d: "+
				"the distances are not a fixed point of the arcs", ctl[rsLowest], src)
		}
	}
	return nil
}

// CheckDevice validates r, a result of p's RunOnDevice, where it is: the
// rules, tolerance and messages of Check (Float32Tolerance for float32
// distances, DefaultTolerance otherwise), on the device buffers, with
// nothing copied to the device and only control words (and, on failure,
// the offending arc) copied back. It needs the Parents option. On the
// host device it is Check of r's Result. It is serialised with Run.
func (p *Prepared) CheckDevice(r *DeviceResult) error {
	tol := DefaultTolerance
	if p.opts.Float32 && !p.Device().IsHost() {
		tol = Float32Tolerance
	}
	return p.checkDeviceTolerance(r, tol)
}

// checkDeviceTolerance is CheckDevice with the tolerance tol.
func (p *Prepared) checkDeviceTolerance(r *DeviceResult, tol float64) error {
	if r == nil {
		return errors.New("sssp: device check: no result")
	}
	if r.p != p {
		return errors.New("sssp: device check: the result comes from another Prepared; check it with that one")
	}
	if p.Device().IsHost() {
		res, err := r.Result()
		if err != nil {
			return err
		}
		return p.CheckTolerance(res, tol)
	}
	if !(tol >= 0) {
		return fmt.Errorf("sssp: device check: tolerance %g must be ≥ 0", tol)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return fmt.Errorf("sssp: device check: the result of %s from %d was closed; check it before Close", r.Algorithm, r.Source)
	}
	if r.bufs.parents == nil {
		return fmt.Errorf("sssp: device check: result has %d distances and 0 parents for a %d-vertex graph (parents need Options.Parents)", p.n, p.n)
	}
	prepared.Lock(&p.base)
	defer prepared.Unlock(&p.base)
	if err := prepared.Open(&p.base); err != nil {
		return err
	}
	ck, err := p.checkState()
	if err != nil {
		return fmt.Errorf("sssp: device check: %w", err)
	}
	return p.checkDevice(ck, r.bufs.dist, r.bufs.parents, r.Source, r.Reached, r.ComponentEdges, tol)
}

// PrepareResident readies g, a graph already on its device, for Run and
// RunOnDevice with the options o, as Prepare(g.Device(), host copy, o)
// does and with the same behaviour (the same Δ, bit for bit, and the same
// prepared arrays), without copying the graph to the host for the
// frontier and near-far methods: the weight scan (negative weights, the
// mean for Δ) runs on the device in the host's chunks and order, giving
// the same float64 sums; near-far's light-first layout is made by a
// kernel (one warp per vertex, a block for vertices of more than 1024
// arcs), a stable partition identical to lightFirst's; the frontier
// method uses g's arrays as they are. g is borrowed: it must stay open
// and unchanged while p is prepared (p's Close does not close it).
//
// The edge sweep's COO view and its permutation (Permute) are made on
// the device too (package gpu/transform, bit-identical to
// graph.CSR.UndirectedCOO and graph.PermuteCOO), so flipping the study's
// switches costs no host work. On the host device PrepareResident is
// Prepare of g.Host(). A negative weight's error message reads the host
// copy.
//
// It returns Prepare's errors, and an error for a nil or closed graph.
func PrepareResident(g *gpu.Graph, o Options) (*Prepared, error) {
	if g == nil || g.Offsets == nil {
		return nil, errors.New("sssp: PrepareResident: no graph (nil, or without offsets)")
	}
	dev := g.Device()
	if dev == nil {
		return nil, errors.New("sssp: PrepareResident: the graph has no device")
	}
	if dev.IsHost() {
		h, err := g.Host()
		if err != nil {
			return nil, fmt.Errorf("sssp: PrepareResident: copying the graph to the host: %w", err)
		}
		return Prepare(dev, h, o)
	}
	start := time.Now()
	if err := checkGPUShape(g.N, g.Directed, o); err != nil {
		return nil, err
	}
	p := &Prepared{resident: g, n: g.N, m: g.Arcs, directed: g.Directed, opts: o, delta: math.Inf(1)}
	p.mem = prepared.Init(&p.base, "sssp", o.Label(), dev)
	fail := func(err error) (*Prepared, error) {
		_ = p.mem.Free()
		return nil, fmt.Errorf("sssp: preparing gpu Bellman-Ford (%s) on %v: %w", p.Label(), dev, err)
	}
	fn, err := residentKernels(dev)
	if err != nil {
		return fail(err)
	}
	ws, err := p.deviceWeightStats(fn, g)
	if err != nil {
		return fail(err)
	}
	if ws.negArc >= 0 {
		_ = p.mem.Free()
		h, err := g.Host()
		if err != nil {
			return nil, fmt.Errorf("sssp: a negative weight at arc %d (and copying the graph to the host to say more failed: %v)", ws.negArc, err)
		}
		return nil, gpuNegativeError(h, ws.negArc)
	}
	if err := checkGPUSizes(p.n, p.m, o); err != nil {
		_ = p.mem.Free()
		return nil, err
	}
	if o.Method == EdgeSweep {
		if err := p.prepareEdge(); err != nil {
			return fail(err)
		}
		prepared.Done(&p.base, start)
		return p, nil
	}
	if o.Method == NearFar {
		p.delta = nearFarDelta(p.n, p.m, ws, o)
	}
	if err := p.prepareNearFar(func() error { return p.deviceLayout(fn, g) }); err != nil {
		return fail(err)
	}
	prepared.Done(&p.base, start)
	return p, nil
}

// deviceWeightStats is scanWeights on the device: per chunk of
// weightChunk weights in order, then the chunks in order (resident.cu),
// so the sums are the host's bit for bit. Four words are read back.
func (p *Prepared) deviceWeightStats(fn map[string]*gpu.Function, g *gpu.Graph) (weightStats, error) {
	return deviceWeightStats(p.mem, fn, g)
}

// deviceWeightStats is Prepared.deviceWeightStats with its scratch
// allocated from mem, on mem's device (also RunGroup's, on each part).
func deviceWeightStats(mem *gpu.Allocations, fn map[string]*gpu.Function, g *gpu.Graph) (weightStats, error) {
	m := g.Arcs
	var ws any
	kernel := "sssprs_wstats_w32"
	switch {
	case g.Weights64 != nil:
		ws, kernel = g.Weights64, "sssprs_wstats_w64"
	case g.Weights != nil:
		ws = g.Weights
	default:
		s := weightStats{negArc: -1}
		if m > 0 {
			s.maxFinite, s.mean = 1, 1
		}
		return s, nil
	}
	if m == 0 {
		return weightStats{negArc: -1}, nil
	}
	chunks := max(int((m+weightChunk-1)/weightChunk), 1)
	part := mem.Sub() // freed when done
	defer part.Free()
	neg, err := part.AllocInt64s(chunks)
	if err != nil {
		return weightStats{}, err
	}
	count, err := part.AllocInt64s(chunks)
	if err != nil {
		return weightStats{}, err
	}
	mx, err := part.AllocFloat64s(chunks)
	if err != nil {
		return weightStats{}, err
	}
	sum, err := part.AllocFloat64s(chunks)
	if err != nil {
		return weightStats{}, err
	}
	out, err := part.AllocInt64s(4)
	if err != nil {
		return weightStats{}, err
	}
	words := make([]int64, 4)
	err = mem.Device().Exec(func(t *gpu.Thread) error {
		// Small blocks: one thread per chunk, so spread them over the SMs.
		if err := t.Launch(fn[kernel], gpu.Blocks(chunks, 32), gpu.D1(32), 0, ws, m, int64(weightChunk), neg, mx, sum, count); err != nil {
			return err
		}
		if err := t.Launch(fn["sssprs_wstats_total"], gpu.D1(1), gpu.D1(32), 0, neg, mx, sum, count, int64(chunks), out); err != nil {
			return err
		}
		return out.Download(words)
	})
	if err != nil {
		return weightStats{}, fmt.Errorf("scanning the weights: %w", err)
	}
	s := weightStats{negArc: words[0], maxFinite: math.Float64frombits(uint64(words[1]))}
	if words[3] > 0 {
		s.mean = math.Float64frombits(uint64(words[2])) / float64(words[3])
	}
	return s, nil
}

// deviceLayout is hostLayout on the device: for near-far, g's arcs split
// light first into new arrays with lend (resident.cu's sssprs_split_*,
// identical to lightFirst's), or, with unit weights, g's arrays and lend
// alone; for the frontier method g as it is.
func (p *Prepared) deviceLayout(fn map[string]*gpu.Function, g *gpu.Graph) error {
	p.csr = g
	if p.opts.Method != NearFar {
		return nil
	}
	var err error
	if p.lend, err = p.mem.AllocInt64s(p.n); err != nil {
		return err
	}
	info, err := p.Device().Info()
	if err != nil {
		return err
	}
	grid := checkGrid(p.n, info.SMs)
	if g.Weights == nil && g.Weights64 == nil {
		light := int32(0)
		if 1 < p.delta {
			light = 1
		}
		return p.Device().Exec(func(t *gpu.Thread) error {
			return t.Launch(fn["sssprs_lend_unit"], grid, gpu.D1(blockSize), 0, g.Offsets, int64(p.n), light, p.lend)
		})
	}
	out := &gpu.Graph{N: g.N, Arcs: g.Arcs, Directed: g.Directed, Offsets: g.Offsets}
	if out.Adj, err = p.mem.AllocInt32s(int(g.Arcs)); err != nil {
		return err
	}
	var ws, wsOut any
	tag := weightTag(g.Weights64 != nil)
	if g.Weights64 != nil {
		if out.Weights64, err = p.mem.AllocFloat64s(int(g.Arcs)); err != nil {
			return err
		}
		ws, wsOut = g.Weights64, out.Weights64
	} else {
		if out.Weights, err = p.mem.AllocFloat32s(int(g.Arcs)); err != nil {
			return err
		}
		ws, wsOut = g.Weights, out.Weights
	}
	scratch := p.mem.Sub()
	defer scratch.Free()
	big, err := scratch.AllocInt32s(max(p.n, 1))
	if err != nil {
		return err
	}
	ctl, err := scratch.AllocUint64s(rsWords)
	if err != nil {
		return err
	}
	err = p.Device().Exec(func(t *gpu.Thread) error {
		if err := ctl.Fill(0); err != nil {
			return err
		}
		if err := t.Launch(fn["sssprs_split_"+tag], grid, gpu.D1(blockSize), 0, g.Offsets, g.Adj, ws, int64(p.n), p.delta,
			out.Adj, wsOut, p.lend, big, ctl); err != nil {
			return err
		}
		if err := t.Launch(fn["sssprs_split_big_"+tag], gpu.D1(max(info.SMs, 1)*4), gpu.D1(blockSize), 0, g.Offsets, g.Adj, ws, p.delta,
			out.Adj, wsOut, p.lend, big, ctl); err != nil {
			return err
		}
		return t.Synchronize() // before the scratch is freed
	})
	if err != nil {
		return err
	}
	p.csr = out
	return nil
}
