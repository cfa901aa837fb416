package bench

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/graphnb/graphnb/algo/bfs"
	"github.com/graphnb/graphnb/algo/mst"
	"github.com/graphnb/graphnb/algo/sssp"
	"github.com/graphnb/graphnb/gpu"
)

// Switches are the sparse studies' optimizations as notebook 07's
// checkboxes set them (docs/studies.md §1–§3). Each names the algorithm
// option it turns on; a switch that does not concern the chosen
// algorithm is ignored.
type Switches struct {
	// Restrict reads distances or levels through the read-only alias
	// (sssp and bfs Options.TextureCache); Cache permutes the edges by
	// segment (Options.Permute). Both apply to the edge kernels.
	Restrict, Cache bool
	// DynamicParallelism runs BFS with child grids on small frontiers
	// (bfs.DynamicParallelism) instead of the plain edge scan.
	DynamicParallelism bool
	// NearFar runs SSSP with the near-far (Δ-stepping) method
	// (sssp.NearFar) instead of the study's Bellman-Ford edge sweep.
	NearFar bool
	// Renumber, Ranks and Compress are MST's preparations:
	// mst.Options.Renumber, WeightRanks and Compress.
	Renumber, Ranks, Compress bool
}

// ExploreAlgos are the algorithms Switches.Variant knows, in the order of
// notebook 07's drop-down.
var ExploreAlgos = []string{"sssp", "bfs", "mst"}

// Variant returns the GPU variant of algo ("sssp", "bfs" or "mst") that
// the switches select, labelled by what is on ("sssp edge sweep +restrict
// +cache", "bfs dynamic parallelism", "mst +renumber +ranks").
func (s Switches) Variant(algo string) (Variant, error) {
	label := []string{algo}
	flag := func(on bool, name string) {
		if on {
			label = append(label, "+"+name)
		}
	}
	switch algo {
	case "sssp":
		o := sssp.Options{TextureCache: s.Restrict, Permute: s.Cache}
		if s.NearFar {
			o = sssp.Options{Method: sssp.NearFar}
			label = append(label, "near-far")
		} else {
			label = append(label, "edge sweep")
			flag(s.Restrict, "restrict")
			flag(s.Cache, "cache")
		}
		return SSSPGPU(sssp.Variant{Label: strings.Join(label, " "), Options: o}), nil
	case "bfs":
		o := bfs.Options{TextureCache: s.Restrict, Permute: s.Cache}
		if s.DynamicParallelism {
			o = bfs.Options{Method: bfs.DynamicParallelism}
			label = append(label, "dynamic parallelism")
		} else {
			label = append(label, "edge scan")
			flag(s.Restrict, "restrict")
			flag(s.Cache, "cache")
		}
		return BFSGPU(bfs.Variant{Label: strings.Join(label, " "), Options: o}), nil
	case "mst":
		flag(s.Renumber, "renumber")
		flag(s.Ranks, "ranks")
		flag(s.Compress, "compress")
		o := mst.Options{Renumber: s.Renumber, WeightRanks: s.Ranks, Compress: s.Compress}
		return MSTGPU(mst.Variant{Label: strings.Join(label, " "), Options: o}), nil
	}
	return Variant{}, fmt.Errorf("bench: algorithm %q is not one of %v", algo, ExploreAlgos)
}

// Explorer keeps one R-MAT graph (edge factor 16, uniform weights, seed
// 1) resident on a device and measures variants on it one point at a
// time, keeping every validated point: notebook 07's engine. On a GPU the
// graph is generated there (gpugen) and variants are prepared on it with
// PrepareResident, their results validated on the device; on the host
// device the same code runs the CPU paths. Changing the scale regenerates
// the graph; a new variant only re-prepares.
//
// An Explorer is used from one goroutine at a time (the kernel's
// execution thread); Close frees the graph.
type Explorer struct {
	dev   *gpu.Device
	scale int
	graph *pointGraph
	made  time.Duration
	// points are the rows measured so far, one per variant and scale.
	points *Table
}

// NewExplorer returns an Explorer on dev (nil: gpu.Default()) with no
// graph yet.
func NewExplorer(dev *gpu.Device) *Explorer {
	if dev == nil {
		dev = gpu.Default()
	}
	return &Explorer{dev: dev, points: &Table{Meta: Meta{Name: "Explored points", Family: "rmat", Device: dev.String(),
		GraphnbVersion: Version, EdgeFactor: DefaultEdgeFactor, Weights: "uniform", Seed: 1, Validate: true}}}
}

// Device returns the Explorer's device.
func (e *Explorer) Device() *gpu.Device { return e.dev }

// Scale returns the scale of the resident graph (0 before the first).
func (e *Explorer) Scale() int { return e.scale }

// SetScale makes the R-MAT graph of 2^scale vertices resident, freeing
// the previous one; it does nothing when that graph is resident already.
func (e *Explorer) SetScale(scale int) error {
	if scale < 1 || scale > 30 {
		return fmt.Errorf("bench: scale %d is out of range; give 1..30", scale)
	}
	if e.graph != nil && e.scale == scale {
		return nil
	}
	if err := e.Close(); err != nil {
		return err
	}
	p, err := e.plan(scale, SSSPGPU(sssp.Variant{Label: "graph", Options: sssp.Options{}}), 1)
	if err != nil {
		return err
	}
	t0 := time.Now()
	g, err := p.makeGraph(e.dev, p.points[0])
	if err != nil {
		return fmt.Errorf("bench: making rmat:%d: %w", scale, err)
	}
	e.graph, e.scale, e.made = g, scale, time.Since(t0)
	return nil
}

// GraphTime is the time the resident graph took to make.
func (e *Explorer) GraphTime() time.Duration { return e.made }

// plan is the one-point sweep of v at scale.
func (e *Explorer) plan(scale int, v Variant, roots int) (*plan, error) {
	return Sweep{Name: e.points.Meta.Name, Algo: v.Algo, Family: "rmat", Scales: []int{scale},
		Variants: []Variant{v}, Roots: roots}.resolve()
}

// Measure prepares v on the resident graph (SetScale first), runs it
// from roots sources (once for MST), validates every run and returns the
// row, which replaces any earlier point of v at this scale in Points.
func (e *Explorer) Measure(v Variant, roots int) (Row, error) {
	if e.graph == nil {
		return Row{}, errors.New("bench: the Explorer has no graph; call SetScale first")
	}
	if roots < 1 {
		roots = 1
	}
	p, err := e.plan(e.scale, v, roots)
	if err != nil {
		return Row{}, err
	}
	pt := p.points[0]
	row := Row{Variant: v.Label, Scale: e.scale, Graph: pt.spec, Vertices: e.graph.n, Arcs: e.graph.arcs,
		GraphTime: e.made, GraphOnDevice: e.graph.dev != nil && !e.dev.IsHost(), Device: e.dev.String()}
	ids := []int32{-1}
	if p.rooted {
		if ids, err = e.graph.roots(roots, p.Seed); err != nil {
			return Row{}, fmt.Errorf("bench: choosing roots of %s: %w", pt.spec, err)
		}
		if len(ids) == 0 {
			return Row{}, fmt.Errorf("bench: %s has no vertex with an arc to start from", pt.spec)
		}
	}
	if _, err := p.measure(e.dev, e.graph, v, ids, &row, func() {}); err != nil {
		return Row{}, err
	}
	row.Stats = ComputeStats(row.Runs)
	e.points = e.points.Merge(&Table{Meta: Meta{Variants: []string{v.Label}}, Rows: []Row{row}})
	return row, nil
}

// Points returns the table of the points measured so far (chart it with
// plots.TEPS).
func (e *Explorer) Points() *Table { return e.points }

// Close frees the resident graph; the points stay.
func (e *Explorer) Close() error {
	if e.graph == nil {
		return nil
	}
	err := e.graph.close()
	e.graph, e.scale = nil, 0
	return err
}

// Summary is a one-line Markdown card of the row: variant (and what ran
// in its place on the host device), graph, mean
// rate with its extremes, time per run and how the runs were validated.
func (r Row) Summary() string {
	checked := "not validated"
	if r.NumValidated > 0 {
		checked = fmt.Sprintf("%d/%d runs validated (%s checker)", r.NumValidated, r.NumRuns, r.Checker)
	}
	variant := r.Variant
	if r.Ran != "" {
		variant += " (ran: " + r.Ran + ")"
	}
	return fmt.Sprintf("**%s** on %s (%d vertices, %d arcs): **%.3g G arcs/s** (%.3g–%.3g), %v per run, %.1f iterations; prepared in %v; %s",
		variant, r.Graph, r.Vertices, r.Arcs, r.MeanArcsPerSecond/1e9, r.MinArcsPerSecond/1e9, r.MaxArcsPerSecond/1e9,
		r.MeanTime.Round(time.Microsecond), r.MeanIterations, r.PrepTime.Round(time.Microsecond), checked)
}
