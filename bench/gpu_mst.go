package bench

import (
	"github.com/graphnb/graphnb/algo/mst"
	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph"
)

// MSTGPU adapts a GPU Borůvka variant (one of mst.SeedVariants, or a
// hand-made mst.Variant) to the harness. Preparation (the study's input
// transformations, upload, compilation) is reported once per graph as the
// runner's PrepTime, never inside a run. On the host device the variant
// runs the CPU's Boruvka, as mst.Prepare documents (a run's PrepTime is
// then Boruvka's own per-run preparation).
func MSTGPU(v mst.Variant) Variant {
	return Variant{Label: v.Label, Algo: "mst", Prepare: func(dev *gpu.Device, g *graph.CSR) (Runner, error) {
		p, err := mst.Prepare(dev, g, v.Options)
		if err != nil {
			return nil, err
		}
		// Run reports no preparation of its own: PrepTime() counts it once.
		return hostStandIn(MSTRunner(g, p.Run, p.PrepTime(), p.Bytes(), p.Close), dev), nil
	}}
}

// The MST study's GPU curves are registered as "gpu/gpu-cpu" (GPU+CPU)
// and "gpu/gpu" (GPU); its CPU curve is "cpu/boruvka".
func init() {
	for _, v := range mst.SeedVariants() {
		Register(Entry{Name: "gpu/" + slug(v.Label), Algo: "mst", Doc: "GPU Borůvka (MST study), " + v.Label,
			New: func() Variant { return MSTGPU(v) }})
	}
}
