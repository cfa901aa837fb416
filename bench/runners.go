package bench

import (
	"fmt"
	"time"

	"github.com/graphnb/graphnb/algo/apsp"
	"github.com/graphnb/graphnb/algo/bfs"
	"github.com/graphnb/graphnb/algo/mst"
	"github.com/graphnb/graphnb/algo/sssp"
	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph"
)

// The adapters below turn an algorithm package's entry point into a
// Runner that also implements Checker. Each recomputes the rates from
// the input graph's stored arcs (graph.Rate), so variants that run on a
// transformed graph (each undirected pair once, a permutation) are
// measured against the same numerator as the CPU.

// SSSPRunner adapts a single-source shortest-path function to a Runner:
// run computes paths in g from a source (a CPU entry point or a prepared
// GPU variant's Run method); prep and bytes are what preparation took;
// close (nil: nothing) releases it. Check validates the latest result
// with sssp.Check.
func SSSPRunner(g *graph.CSR, run func(src int32) (*sssp.Result, error), prep time.Duration, bytes int64, close func() error) Runner {
	return SSSPRunnerTol(g, run, sssp.DefaultTolerance, prep, bytes, close)
}

// SSSPRunnerTol is SSSPRunner validating with sssp.CheckTolerance at the
// relative tolerance tol: for variants that keep float32 distances
// (1e-5 suffices for those, see sssp.Prepared.Run).
func SSSPRunnerTol(g *graph.CSR, run func(src int32) (*sssp.Result, error), tol float64, prep time.Duration, bytes int64, close func() error) Runner {
	return &ssspRunner{common: common{g: g, size: sizeOf(g), prep: prep, bytes: bytes, close: close}, run: run, tol: tol}
}

// BFSRunner adapts a breadth-first search function to a Runner, like
// SSSPRunner; Check validates with bfs.Check.
func BFSRunner(g *graph.CSR, run func(src int32) (*bfs.Result, error), prep time.Duration, bytes int64, close func() error) Runner {
	return &bfsRunner{common: common{g: g, size: sizeOf(g), prep: prep, bytes: bytes, close: close}, run: run}
}

// MSTRunner adapts a minimum-spanning-forest function to a Runner (the
// root is ignored); Check validates with mst.Check. Graph500 TEPS count
// every undirected edge of g, arcs/s every stored arc.
func MSTRunner(g *graph.CSR, run func() (*mst.Result, error), prep time.Duration, bytes int64, close func() error) Runner {
	return &mstRunner{common: common{g: g, size: sizeOf(g), prep: prep, bytes: bytes, close: close}, run: run}
}

// APSPRunner adapts an all-pairs function on the dense matrix d (made
// from the sweep's graph during preparation) to a Runner (the root is
// ignored). APSP is measured by time only: its rates are zero. Check
// validates with apsp.Check on 8 sampled rows.
func APSPRunner(d *graph.Dense, run func() (*apsp.Result, error), prep time.Duration, bytes int64, close func() error) Runner {
	return &apspRunner{common: common{prep: prep, bytes: bytes, close: close}, d: d, run: run}
}

// common holds what every adapter reports besides its runs.
type common struct {
	g *graph.CSR
	// size counts the input graph, the rates' divisors (also when g is
	// nil: a graph made on the device).
	size    inputSize
	prep    time.Duration
	bytes   int64
	close   func() error
	checker string // CheckerName; "" is "cpu"
	// onHost marks a GPU variant prepared on the host device: ran then
	// records its results' Algorithm, which is CPU code (see standIn).
	onHost bool
	ran    string
}

// inputSize is the input graph's edge and stored-arc counts.
type inputSize struct{ edges, arcs int64 }

// sizeOf counts a host graph (zero for nil: no graph, no rates).
func sizeOf(g *graph.CSR) inputSize {
	if g == nil {
		return inputSize{}
	}
	return inputSize{g.NumEdges(), g.NumArcs()}
}

// residentSize counts a device-resident graph as sizeOf counts its host
// copy.
func residentSize(g *gpu.Graph) inputSize {
	if g.Directed {
		return inputSize{g.Arcs, g.Arcs}
	}
	return inputSize{g.Arcs / 2, g.Arcs}
}

// CheckerName says which checker Check runs: "device" or "cpu".
func (c *common) CheckerName() string {
	if c.checker == "" {
		return "cpu"
	}
	return c.checker
}

// standIn is implemented by Runners that can say they ran something
// other than their variant's label: a GPU variant on the host device.
// It returns "" when they ran what the label says.
type standIn interface{ standIn() string }

func (c *common) standIn() string { return c.ran }

// noteRan records the algorithm of a result when the runner stands in.
func (c *common) noteRan(algorithm string) {
	if c.onHost {
		c.ran = algorithm
	}
}

// hostStandIn marks r, a GPU variant's runner, as standing in on the host
// device when dev is the host; it returns r.
func hostStandIn(r Runner, dev *gpu.Device) Runner {
	if m, ok := r.(interface{ markHost() }); ok && dev.IsHost() {
		m.markHost()
	}
	return r
}

func (c *common) markHost() { c.onHost = true }

func (c *common) PrepTime() time.Duration { return c.prep }
func (c *common) Bytes() int64            { return c.bytes }
func (c *common) Close() error {
	if c.close == nil {
		return nil
	}
	f := c.close
	c.close = nil
	return f()
}

// noResult is Check's error before the first successful Run.
var noResult = fmt.Errorf("bench: no result to check (Run has not succeeded yet)")

type ssspRunner struct {
	common
	run  func(int32) (*sssp.Result, error)
	tol  float64
	last *sssp.Result
	// check, when set, replaces sssp.CheckTolerance (a device check).
	check func(*sssp.Result) error
}

func (r *ssspRunner) Run(root int32) (Run, error) {
	r.last = nil
	res, err := r.run(root)
	if err != nil {
		return Run{}, err
	}
	r.last = res
	r.noteRan(res.Algorithm)
	return Run{Root: root, Time: res.Time, PrepTime: res.PrepTime, Iterations: res.Iterations,
		TEPS: graph.Rate(res.ComponentEdges, r.size.arcs, res.Time), ComponentEdges: res.ComponentEdges}, nil
}

func (r *ssspRunner) Check() error {
	if r.last == nil {
		return noResult
	}
	if r.check != nil {
		return r.check(r.last)
	}
	return sssp.CheckTolerance(r.g, r.last, r.tol)
}

type bfsRunner struct {
	common
	run  func(int32) (*bfs.Result, error)
	last *bfs.Result
	// check, when set, replaces bfs.Check (a device check).
	check func(*bfs.Result) error
	kept  []*bfs.Result // results held for CheckKept
}

// keptBytes bounds the results a BatchChecker holds for one CheckKept,
// in bytes: 8 BFS results up to 2^24 vertices.
const keptBytes = 1 << 30

func (r *bfsRunner) Run(root int32) (Run, error) {
	r.last = nil
	res, err := r.run(root)
	if err != nil {
		return Run{}, err
	}
	r.last = res
	r.noteRan(res.Algorithm)
	return Run{Root: root, Time: res.Time, PrepTime: res.PrepTime, Iterations: res.Iterations,
		TEPS: graph.Rate(res.ComponentEdges, r.size.arcs, res.Time), ComponentEdges: res.ComponentEdges}, nil
}

// BatchSize validates eight CPU results at a time with bfs.CheckMany (a
// CPU sweep's validation in about a third of the time), as many as fit
// in keptBytes; a device checker's results are checked one by one.
func (r *bfsRunner) BatchSize() int {
	if r.g == nil || (r.checker != "" && r.checker != "cpu") {
		return 1
	}
	perResult := 8 * int64(r.g.NumVertices()) // Levels and Parents
	return int(min(8, keptBytes/max(perResult, 1)))
}

func (r *bfsRunner) Keep() { r.kept = append(r.kept, r.last) }

func (r *bfsRunner) CheckKept() []error {
	errs := bfs.CheckMany(r.g, r.kept)
	clear(r.kept)
	r.kept = r.kept[:0]
	return errs
}

func (r *bfsRunner) Check() error {
	if r.last == nil {
		return noResult
	}
	if r.check != nil {
		return r.check(r.last)
	}
	return bfs.Check(r.g, r.last)
}

type mstRunner struct {
	common
	run  func() (*mst.Result, error)
	last *mst.Result
}

func (r *mstRunner) Run(root int32) (Run, error) {
	r.last = nil
	res, err := r.run()
	if err != nil {
		return Run{}, err
	}
	r.last = res
	r.noteRan(res.Algorithm)
	return Run{Root: root, Time: res.Time, PrepTime: res.PrepTime, Iterations: res.Iterations,
		TEPS: graph.Rate(r.size.edges, r.size.arcs, res.Time), ComponentEdges: r.size.edges}, nil
}

func (r *mstRunner) Check() error {
	if r.last == nil {
		return noResult
	}
	return mst.Check(r.g, r.last)
}

type apspRunner struct {
	common
	d    *graph.Dense
	run  func() (*apsp.Result, error)
	last *apsp.Result
	seed uint64
}

func (r *apspRunner) Run(root int32) (Run, error) {
	r.last = nil
	res, err := r.run()
	if err != nil {
		return Run{}, err
	}
	r.last = res
	r.noteRan(res.Algorithm)
	return Run{Root: root, Time: res.Time, PrepTime: res.PrepTime}, nil
}

func (r *apspRunner) Check() error {
	if r.last == nil {
		return noResult
	}
	r.seed++
	return apsp.Check(r.d, r.last, 8, r.seed)
}

// ---- CPU variants of the algo packages ----

// cpu makes a CPU variant: Prepare does nothing on the device and has no
// preparation of its own (the entry points time theirs per run).
func cpu(label, algo string, mk func(g *graph.CSR) (Runner, error)) Variant {
	return Variant{Label: label, Algo: algo, Prepare: func(_ *gpu.Device, g *graph.CSR) (Runner, error) {
		if g == nil {
			return nil, fmt.Errorf("bench: %s: no graph", label)
		}
		return mk(g)
	}}
}

// BFSDirectionOptimizing is bfs.DirectionOptimizing with Beamer's
// parameters, on all cores: "CPU direction-optimizing".
func BFSDirectionOptimizing() Variant {
	return cpu("CPU direction-optimizing", "bfs", func(g *graph.CSR) (Runner, error) {
		return BFSRunner(g, func(src int32) (*bfs.Result, error) {
			return bfs.DirectionOptimizing(g, src, bfs.Options{})
		}, 0, 0, nil), nil
	})
}

// BFSParallelTopDown is bfs.DirectionOptimizing with TopDownOnly: the
// parallel top-down search that shows what the direction switch buys,
// "CPU parallel top-down".
func BFSParallelTopDown() Variant {
	return cpu("CPU parallel top-down", "bfs", func(g *graph.CSR) (Runner, error) {
		return BFSRunner(g, func(src int32) (*bfs.Result, error) {
			return bfs.DirectionOptimizing(g, src, bfs.Options{TopDownOnly: true})
		}, 0, 0, nil), nil
	})
}

// BFSTopDown is bfs.TopDown, the sequential textbook BFS: "CPU top-down".
func BFSTopDown() Variant {
	return cpu("CPU top-down", "bfs", func(g *graph.CSR) (Runner, error) {
		return BFSRunner(g, func(src int32) (*bfs.Result, error) { return bfs.TopDown(g, src) }, 0, 0, nil), nil
	})
}

// SSSPDijkstra is sssp.Dijkstra on one core, the SSSP study's CPU
// baseline: "CPU Dijkstra".
func SSSPDijkstra() Variant {
	return cpu("CPU Dijkstra", "sssp", func(g *graph.CSR) (Runner, error) {
		return SSSPRunner(g, func(src int32) (*sssp.Result, error) { return sssp.Dijkstra(g, src) }, 0, 0, nil), nil
	})
}

// SSSPDeltaStepping is sssp.DeltaStepping with bucket width delta (≤ 0:
// chosen from the weights), on all cores: "CPU Δ-stepping", or
// "CPU Δ-stepping (Δ=0.05)" for an explicit width.
func SSSPDeltaStepping(delta float64) Variant {
	label := "CPU Δ-stepping"
	if delta > 0 {
		label = fmt.Sprintf("CPU Δ-stepping (Δ=%g)", delta)
	}
	return cpu(label, "sssp", func(g *graph.CSR) (Runner, error) {
		return SSSPRunner(g, func(src int32) (*sssp.Result, error) {
			return sssp.DeltaStepping(g, src, delta)
		}, 0, 0, nil), nil
	})
}

// SSSPBellmanFord is sssp.BellmanFord, the SSSP study's edge-parallel
// method on all cores: "CPU Bellman-Ford".
func SSSPBellmanFord() Variant {
	return cpu("CPU Bellman-Ford", "sssp", func(g *graph.CSR) (Runner, error) {
		return SSSPRunner(g, func(src int32) (*sssp.Result, error) { return sssp.BellmanFord(g, src) }, 0, 0, nil), nil
	})
}

// MSTBoruvka is mst.Boruvka on all cores: "CPU Borůvka".
func MSTBoruvka() Variant {
	return cpu("CPU Borůvka", "mst", func(g *graph.CSR) (Runner, error) {
		return MSTRunner(g, func() (*mst.Result, error) { return mst.Boruvka(g) }, 0, 0, nil), nil
	})
}

// MSTKruskal is mst.Kruskal: "CPU Kruskal".
func MSTKruskal() Variant {
	return cpu("CPU Kruskal", "mst", func(g *graph.CSR) (Runner, error) {
		return MSTRunner(g, func() (*mst.Result, error) { return mst.Kruskal(g) }, 0, 0, nil), nil
	})
}

// APSPFloydWarshall is apsp.FloydWarshall on the graph's float32
// distance matrix (made during preparation): "CPU Floyd-Warshall".
func APSPFloydWarshall() Variant {
	return cpu("CPU Floyd-Warshall", "apsp", func(g *graph.CSR) (Runner, error) {
		return apspCPU(g, false, apsp.FloydWarshall)
	})
}

// APSPBlocked is apsp.Blocked with tile size tile (≤ 0: the package
// default) on the float32 distance matrix: "CPU blocked Floyd-Warshall".
func APSPBlocked(tile int) Variant {
	label := "CPU blocked Floyd-Warshall"
	if tile > 0 {
		label = fmt.Sprintf("CPU blocked Floyd-Warshall (tile %d)", tile)
	}
	return cpu(label, "apsp", func(g *graph.CSR) (Runner, error) {
		return apspCPU(g, true, func(d *graph.Dense) (*apsp.Result, error) { return apsp.Blocked(d, tile) })
	})
}

// apspCPU makes the graph's matrix and a Runner of solve on it (blocked:
// apsp.Blocked, else FloydWarshall). A run whose matrix and working
// copies do not fit in the memory available is refused before the matrix
// is made.
func apspCPU(g *graph.CSR, blocked bool, solve func(*graph.Dense) (*apsp.Result, error)) (Runner, error) {
	if err := apsp.CheckCPUMemory(g.NumVertices(), blocked, true); err != nil {
		return nil, err
	}
	t0 := time.Now()
	d, err := g.Dense(false)
	if err != nil {
		return nil, err
	}
	return APSPRunner(d, func() (*apsp.Result, error) { return solve(d) }, time.Since(t0), 0, nil), nil
}
