package bench

import (
	"github.com/graphnb/graphnb/algo/apsp"
	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph"
)

// APSPGPU adapts a GPU all-pairs variant (one of apsp.SeedVariants, or a
// hand-made apsp.Variant) to the harness. The graph's float32 weight
// matrix is built and prepared (validation, compilation, allocation)
// once per graph, as the runner's PrepTime; the CPU variants
// (APSPFloydWarshall, APSPBlocked) use the same float32 matrix. A run's
// Time is the GPU computation without host↔device copies (see
// APSPGPUWithCopies); its PrepTime is only what the run prepared itself
// (apsp.Prepared.Run): 0 in core, the host's packing of the blocks out
// of core, plus, in the one run that first needs it, the preparation of
// the hop tie-break. On the host device the variant runs the CPU's
// algorithm, as apsp.Prepare documents (a run's PrepTime is then the CPU
// algorithm's own). Results are validated by apsp.Prepared.Check on
// apsp.DeviceCheckSamples sampled rows: on the GPU (Row.Checker
// "device"), with the CPU checker on the host device or out of core
// ("cpu").
func APSPGPU(v apsp.Variant) Variant { return apspGPU(v, v.Label, false) }

// APSPGPUWithCopies is APSPGPU timing each run with its copies (Time +
// CopyTime of apsp.Result: the upload of the matrix and the download of
// distances and predecessors; out of core, the whole streamed run),
// labelled v.Label + " (with copies)".
func APSPGPUWithCopies(v apsp.Variant) Variant { return apspGPU(v, v.Label+" (with copies)", true) }

func apspGPU(v apsp.Variant, label string, withCopies bool) Variant {
	return Variant{Label: label, Algo: "apsp", Prepare: func(dev *gpu.Device, g *graph.CSR) (Runner, error) {
		o := v.Options
		o.Float32 = true // the CPU variants use the same float32 matrix
		p, err := apsp.PrepareGraph(dev, g, o)
		if err != nil {
			return nil, err
		}
		// Run reports only what it prepared itself (out of core, the
		// packing): PrepTime() counts the preparation once.
		run := p.Run
		if withCopies {
			run = func() (*apsp.Result, error) {
				r, err := p.Run()
				if r != nil {
					r.Time += r.CopyTime
				}
				return r, err
			}
		}
		r := &apspRunner{common: common{prep: p.PrepTime(), bytes: p.Bytes(), close: p.Close, checker: p.Checker()}, d: p.Matrix(), run: run}
		return hostStandIn(&apspDeviceRunner{apspRunner: r, check: p.Check}, dev), nil
	}}
}

// apspDeviceRunner is an apspRunner validating with apsp.Prepared.Check:
// apsp.DeviceCheckSamples rows (0, N−1 and others drawn from a seed that
// changes per check), on the GPU that holds the matrix.
type apspDeviceRunner struct {
	*apspRunner
	check func(r *apsp.Result, samples int, seed uint64) error
}

func (r *apspDeviceRunner) Check() error {
	if r.last == nil {
		return noResult
	}
	r.seed++
	return r.check(r.last, apsp.DeviceCheckSamples, r.seed)
}

// The APSP study's GPU variants are registered as "gpu/plain-gpu",
// "gpu/blocked-gpu" and "gpu/out-of-core-blocked-gpu", and with their
// copies timed as "gpu/plain-gpu-with-copies", ….
func init() {
	for _, v := range apsp.SeedVariants() {
		Register(Entry{Name: "gpu/" + slug(v.Label), Algo: "apsp", Doc: "GPU Floyd-Warshall, " + apspDoc(v.Label) + ", without copies",
			New: func() Variant { return APSPGPU(v) }})
		Register(Entry{Name: "gpu/" + slug(v.Label) + "-with-copies", Algo: "apsp", Doc: "GPU Floyd-Warshall, " + apspDoc(v.Label) + ", copies included",
			New: func() Variant { return APSPGPUWithCopies(v) }})
	}
}

// apspDoc says in words what a study label runs.
func apspDoc(label string) string {
	switch label {
	case apsp.LabelPlain:
		return "the study's plain kernel (one launch per k)"
	case apsp.LabelBlocked:
		return "blocked in three phases, tiles in shared memory and registers"
	case apsp.LabelOutOfCore:
		return "blocked, streamed through the device in blocks when the matrix exceeds its memory"
	}
	return label
}
