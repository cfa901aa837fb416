package bench

import (
	"time"

	"github.com/graphnb/graphnb/algo/bfs"
	"github.com/graphnb/graphnb/algo/sssp"
	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph"
)

// SSSPGPU adapts a GPU SSSP variant (one of sssp.SeedVariants or
// sssp.ModernVariants, or a hand-made sssp.Variant) to the harness.
// Preparation (COO view, permutation, upload, compilation) is reported
// once per graph as the runner's PrepTime, never inside a run. On the
// host device the variant runs the CPU's Bellman-Ford, as sssp.Prepare
// documents. Results are validated by sssp.Prepared.Check: on the GPU
// that holds the graph (Row.Checker "device"), with the CPU checker on
// the host device ("cpu"); float32 distances at sssp.Float32Tolerance. On
// a graph made on the GPU (PrepareResident: the weight scan, the near-far
// layout, the COO view and its permutation all made there) each run
// stays on the device: sssp.Prepared.RunOnDevice, validated by
// CheckDevice, freed before the next run, never downloaded.
func SSSPGPU(v sssp.Variant) Variant {
	return Variant{Label: v.Label, Algo: "sssp", Prepare: func(dev *gpu.Device, g *graph.CSR) (Runner, error) {
		// Parents are built after the timed part; the checker needs them.
		o := v.Options
		o.Parents = true
		p, err := sssp.Prepare(dev, g, o)
		if err != nil {
			return nil, err
		}
		// Run reports no preparation of its own: PrepTime() counts it once.
		return hostStandIn(&ssspRunner{common: common{g: g, size: sizeOf(g), prep: p.PrepTime(), bytes: p.Bytes(), close: p.Close, checker: p.Checker()},
			run: p.Run, check: p.Check}, dev), nil
	}, PrepareResident: func(g *gpu.Graph) (Runner, error) {
		o := v.Options
		o.Parents = true
		p, err := sssp.PrepareResident(g, o)
		if err != nil {
			return nil, err
		}
		return &residentRunner[*sssp.DeviceResult]{common: common{size: residentSize(g), prep: p.PrepTime(), bytes: p.Bytes(), close: p.Close, checker: p.Checker()},
			run: p.RunOnDevice, check: p.CheckDevice, free: (*sssp.DeviceResult).Close,
			scalars: func(r *sssp.DeviceResult) (time.Duration, int, int64) { return r.Time, r.Iterations, r.ComponentEdges }}, nil
	}}
}

// BFSGPU adapts a GPU BFS variant (one of bfs.SeedVariants or
// bfs.ModernVariants, or a hand-made bfs.Variant) to the harness, like
// SSSPGPU; results are validated by bfs.Prepared.Check (on the GPU that
// holds the graph, or the CPU checker on the host device). On a graph made
// on the GPU (PrepareResident) each run stays there: bfs.Prepared.RunOnDevice,
// validated by CheckDevice, freed before the next run, never downloaded.
func BFSGPU(v bfs.Variant) Variant {
	return Variant{Label: v.Label, Algo: "bfs", Prepare: func(dev *gpu.Device, g *graph.CSR) (Runner, error) {
		o := v.Options
		o.Parents = true // the checker needs them
		p, err := bfs.Prepare(dev, g, o)
		if err != nil {
			return nil, err
		}
		return hostStandIn(&bfsRunner{common: common{g: g, size: sizeOf(g), prep: p.PrepTime(), bytes: p.Bytes(), close: p.Close, checker: p.Checker()},
			run: p.Run, check: p.Check}, dev), nil
	}, PrepareResident: func(g *gpu.Graph) (Runner, error) {
		o := v.Options
		o.Parents = true
		p, err := bfs.PrepareResident(g, o)
		if err != nil {
			return nil, err
		}
		return &residentRunner[*bfs.DeviceResult]{common: common{size: residentSize(g), prep: p.PrepTime(), bytes: p.Bytes(), close: p.Close, checker: p.Checker()},
			run: p.RunOnDevice, check: p.CheckDevice, free: (*bfs.DeviceResult).Close,
			scalars: func(r *bfs.DeviceResult) (time.Duration, int, int64) { return r.Time, r.Iterations, r.ComponentEdges }}, nil
	}}
}

// The GPU variants are registered as "gpu/" and the slug of their label:
// "gpu/cache-restrict-on", "gpu/dynamic-parallelism",
// "gpu/direction-optimizing-gpu", "gpu/frontier-work-efficient".
func init() {
	for _, v := range append(sssp.SeedVariants(), sssp.ModernVariants()...) {
		Register(Entry{Name: "gpu/" + slug(v.Label), Algo: "sssp", Doc: "GPU SSSP, " + switchesDoc(v.Label),
			New: func() Variant { return SSSPGPU(v) }})
	}
	for _, v := range sssp.SeedVariants()[:1] {
		v32 := sssp.Variant{Label: v.Label + " (float32)", Options: v.Options}
		v32.Options.Float32 = true
		Register(Entry{Name: "gpu/" + slug(v32.Label), Algo: "sssp", Doc: "GPU SSSP, " + switchesDoc(v.Label) + ", float32 distances",
			New: func() Variant { return SSSPGPU(v32) }})
	}
	for _, v := range append(bfs.SeedVariants(), bfs.ModernVariants()...) {
		Register(Entry{Name: "gpu/" + slug(v.Label), Algo: "bfs", Doc: "GPU BFS, " + switchesDoc(v.Label),
			New: func() Variant { return BFSGPU(v) }})
	}
}

// switchesDoc says in words what a study label switches on.
func switchesDoc(label string) string {
	switch label {
	case sssp.LabelBoth:
		return "the study's kernel with the edge permutation (cache) and the read-only path (restrict)"
	case sssp.LabelCacheOff:
		return "the study's kernel with the read-only path only"
	case sssp.LabelRestrict:
		return "the study's kernel with the edge permutation only"
	case sssp.LabelNone:
		return "the study's plain kernel"
	case "dynamic parallelism":
		return "child grids per frontier vertex on small levels (the study's DP kernel), edge scan elsewhere"
	}
	return label
}
