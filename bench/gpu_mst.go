package bench

import (
	"errors"

	"github.com/graphnb/graphnb/algo/mst"
	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph"
)

// MSTGPU adapts a GPU Borůvka variant (one of mst.SeedVariants, or a
// hand-made mst.Variant) to the harness. Preparation (the study's input
// transformations, upload, compilation) is reported once per graph as the
// runner's PrepTime, never inside a run. On the host device the variant
// runs the CPU's Boruvka, as mst.Prepare documents (a run's PrepTime is
// then Boruvka's own per-run preparation). Results are validated by an
// mst.DeviceCheck on the GPU (Row.Checker "device"; made by the first
// check, which uploads the graph for it), with the CPU checker on the
// host device ("cpu"). On a graph made on the GPU, mst.PrepareResident
// prepares it there and the check reads it in place (no upload).
func MSTGPU(v mst.Variant) Variant {
	return Variant{Label: v.Label, Algo: "mst", Prepare: func(dev *gpu.Device, g *graph.CSR) (Runner, error) {
		p, err := mst.Prepare(dev, g, v.Options)
		if err != nil {
			return nil, err
		}
		checker := "device"
		if dev.IsHost() {
			checker = "cpu"
		}
		// Run reports no preparation of its own: PrepTime() counts it once.
		r := &mstRunner{common: common{g: g, size: sizeOf(g), prep: p.PrepTime(), bytes: p.Bytes(), close: p.Close, checker: checker}, run: p.Run}
		return hostStandIn(&mstDeviceRunner{mstRunner: r, dev: dev}, dev), nil
	}, PrepareResident: func(g *gpu.Graph) (Runner, error) {
		p, err := mst.PrepareResident(g, v.Options)
		if err != nil {
			return nil, err
		}
		r := &mstRunner{common: common{size: residentSize(g), prep: p.PrepTime(), bytes: p.Bytes(), close: p.Close, checker: "device"},
			run: p.Run}
		return &mstDeviceRunner{mstRunner: r, dev: g.Device(), resident: g}, nil
	}}
}

// mstDeviceRunner is an mstRunner whose Check is an mst.DeviceCheck of
// the graph, made by the first Check (its upload counts as validation)
// and closed with the runner.
type mstDeviceRunner struct {
	*mstRunner
	dev   *gpu.Device
	check *mst.DeviceCheck
	// resident is the device-made graph the variant was prepared on
	// (nil: the host graph g): the check then reads it in place.
	resident *gpu.Graph
}

func (r *mstDeviceRunner) Check() error {
	if r.last == nil {
		return noResult
	}
	if r.check == nil {
		newCheck := func() (*mst.DeviceCheck, error) { return mst.NewDeviceCheck(r.dev, r.g) }
		if r.resident != nil {
			newCheck = func() (*mst.DeviceCheck, error) { return mst.NewResidentCheck(r.resident) }
		}
		c, err := newCheck()
		if err != nil {
			return err
		}
		r.check = c
	}
	return r.check.Check(r.last)
}

func (r *mstDeviceRunner) Close() error {
	err := r.mstRunner.Close()
	if r.check != nil {
		err = errors.Join(err, r.check.Close())
		r.check = nil
	}
	return err
}

// The MST study's GPU curves are registered as "gpu/gpu-cpu" (GPU+CPU)
// and "gpu/gpu" (GPU); its CPU curve is "cpu/boruvka".
func init() {
	for _, v := range mst.SeedVariants() {
		Register(Entry{Name: "gpu/" + slug(v.Label), Algo: "mst", Doc: "GPU Borůvka (MST study), " + v.Label,
			New: func() Variant { return MSTGPU(v) }})
	}
}
