package bench

import (
	"fmt"
	"math"
	"time"

	"github.com/graphnb/graphnb/algo/densebf"
	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph"
)

// DenseBFRunner adapts a single-source function on the dense matrix d
// (made from the sweep's graph g during preparation) to a Runner for the
// algorithm "densebf": run computes distances from a source (densebf.Run,
// or a prepared GPU variant's Run method); prep and bytes are what
// preparation took; close (nil: nothing) releases it. Run.Time is the
// result's Time. Rates are those of the other rooted algorithms, over g:
// graph.Rate(edges of g reaching the vertices at finite distance, g's
// stored arcs, Time) — effective rates, since an iteration reads all N²
// entries of d; the study compares times (SpeedupTable). With g nil (a
// matrix that is no graph's) the rates are zero. Check validates the
// latest result with densebf.Check (O(N²) per check).
func DenseBFRunner(g *graph.CSR, d *graph.Dense, run func(src int32) (*densebf.Result, error), prep time.Duration, bytes int64, close func() error) Runner {
	return &denseBFRunner{common: common{g: g, size: sizeOf(g), prep: prep, bytes: bytes, close: close}, d: d, run: run}
}

type denseBFRunner struct {
	common
	d      *graph.Dense
	run    func(int32) (*densebf.Result, error)
	copies bool // Run.Time is the result's Time + CopyTime
	last   *densebf.Result
	// check, when set, replaces densebf.Check (a device check).
	check func(*densebf.Result) error
}

func (r *denseBFRunner) Run(root int32) (Run, error) {
	r.last = nil
	res, err := r.run(root)
	if err != nil {
		return Run{}, err
	}
	r.last = res
	r.noteRan(res.Algorithm)
	t := res.Time
	if r.copies {
		t = res.Time + res.CopyTime
	}
	run := Run{Root: root, Time: t, PrepTime: res.PrepTime, Iterations: res.Iterations}
	if r.g != nil && len(res.Dist) == r.g.NumVertices() {
		dist := res.Dist
		run.ComponentEdges = r.g.ComponentEdges(func(v int32) bool { return !math.IsInf(dist[v], 1) })
		run.TEPS = graph.Rate(run.ComponentEdges, r.size.arcs, t)
	}
	return run, nil
}

func (r *denseBFRunner) Check() error {
	if r.last == nil {
		return noResult
	}
	if r.check != nil {
		return r.check(r.last)
	}
	return densebf.Check(r.d, r.last.Source, r.last)
}

// denseMatrix is the sweep graph's weight matrix: int32 when every weight
// is a whole number ≥ 0 that no path can overflow (graph.CSR.Dense(true):
// "int:MAX" and unweighted graphs), float32 otherwise. It takes 4·N²
// bytes; graphs above graph.MaxDenseVertices vertices are an error.
func denseMatrix(g *graph.CSR) (*graph.Dense, error) {
	if g == nil {
		return nil, fmt.Errorf("bench: densebf: no graph")
	}
	if d, err := g.Dense(true); err == nil {
		return d, nil
	}
	return g.Dense(false)
}

// DenseBFCPU is densebf.Run, the dense pull Bellman-Ford on all cores,
// on the graph's matrix (made during preparation; the per-run
// transposition is the run's PrepTime): "CPU dense Bellman-Ford".
func DenseBFCPU() Variant {
	return cpu("CPU dense Bellman-Ford", "densebf", func(g *graph.CSR) (Runner, error) {
		t0 := time.Now()
		d, err := denseMatrix(g)
		if err != nil {
			return nil, err
		}
		return DenseBFRunner(g, d, func(src int32) (*densebf.Result, error) { return densebf.Run(d, src) }, time.Since(t0), 0, nil), nil
	})
}

// DenseBFGPU adapts a GPU dense Bellman-Ford variant (one of
// densebf.SeedVariants, or a hand-made densebf.Variant) to the harness,
// measuring the kernels (Result.Time). Preparation (the matrix made from
// the graph, transposition, upload, compilation) is reported once per
// graph as the runner's PrepTime, never inside a run. On the host device
// the variant runs the CPU's densebf.Run, as densebf.Prepare documents (a
// run's PrepTime is then the CPU Run's own transposition).
func DenseBFGPU(v densebf.Variant) Variant {
	return denseBFGPU(v, v.Label, false)
}

// DenseBFGPUWithCopies is DenseBFGPU measuring Result.Time + CopyTime, the
// study's time (the matrix upload and the results download included),
// under the label v.Label + " (with copies)".
func DenseBFGPUWithCopies(v densebf.Variant) Variant {
	return denseBFGPU(v, v.Label+" (with copies)", true)
}

func denseBFGPU(v densebf.Variant, label string, copies bool) Variant {
	return Variant{Label: label, Algo: "densebf", Prepare: func(dev *gpu.Device, g *graph.CSR) (Runner, error) {
		t0 := time.Now()
		d, err := denseMatrix(g)
		if err != nil {
			return nil, err
		}
		build := time.Since(t0)
		p, err := densebf.Prepare(dev, d, v.Options)
		if err != nil {
			return nil, err
		}
		// Run reports no preparation of its own: PrepTime() counts it once.
		return hostStandIn(&denseBFRunner{common: common{g: g, size: sizeOf(g), prep: build + p.PrepTime(), bytes: p.Bytes(), close: p.Close, checker: p.Checker()},
			d: d, run: p.Run, copies: copies, check: p.Check}, dev), nil
	}}
}

// The dense Bellman-Ford variants: "cpu/densebf", and for each of the
// study's GPU curves "gpu/" and the slug of its label ("gpu/bf-naive",
// "gpu/bf-reduce", "gpu/bf-reduce-coarse", kernel time) and the same with
// "-with-copies" (the study's time).
func init() {
	Register(Entry{Name: "cpu/densebf", Algo: "densebf",
		Doc: "dense pull Bellman-Ford on the adjacency matrix, all cores", New: DenseBFCPU})
	for _, v := range densebf.SeedVariants() {
		Register(Entry{Name: "gpu/" + slug(v.Label), Algo: "densebf", Doc: "GPU dense Bellman-Ford, " + v.Label + ", kernel time",
			New: func() Variant { return DenseBFGPU(v) }})
		Register(Entry{Name: "gpu/" + slug(v.Label) + "-with-copies", Algo: "densebf",
			Doc: "GPU dense Bellman-Ford, " + v.Label + ", time with the host↔device copies (the study's)",
			New: func() Variant { return DenseBFGPUWithCopies(v) }})
	}
}
