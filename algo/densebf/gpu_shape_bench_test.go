package densebf

import (
	"fmt"
	"testing"
)

// shapeCase is one configuration of BenchmarkGPUShape: a launch geometry
// and, for ReduceCoarse, whether every iteration takes the rows forwards
// and how often the host reads the flag.
type shapeCase struct {
	s            shape
	forwardOnly  bool
	flagInterval int
}

func (c shapeCase) name() string {
	s := fmt.Sprintf("M%d_G%d", c.s.group, c.s.perBlock)
	if c.forwardOnly {
		s += "_forward"
	}
	if c.flagInterval > 0 {
		s += fmt.Sprintf("_flag%d", c.flagInterval)
	}
	return s
}

// shapeCases returns the configurations BenchmarkGPUShape runs for the
// method p was prepared with: every M = 32..512 (Reduce) or 32..256
// (ReduceCoarse) and G with blocks of 128..1024 threads, a group per
// vertex, the flag read every DefaultFlagInterval iterations; for
// ReduceCoarse also its default shape with the rows taken forwards in
// every iteration, and both orders with the flag read after every
// iteration (the study's host loop: a round trip between launches).
func shapeCases(p *Prepared) []shapeCase {
	if p.opts.Method == Naive {
		return []shapeCase{{s: p.shape}}
	}
	maxM := 512
	if p.opts.Method == ReduceCoarse {
		maxM = DefaultMaxGroupSize
	}
	var out []shapeCase
	for m := 32; m <= maxM; m *= 2 {
		for g := 1; g*m <= MaxGroupSize; g *= 2 {
			if g*m >= 128 {
				out = append(out, shapeCase{s: shape{group: m, perBlock: g, block: g * m, grid: (p.n + g - 1) / g, shared: g * m * sharedPerThread, vec: p.shape.vec}})
			}
		}
	}
	if p.opts.Method == ReduceCoarse {
		out = append(out, shapeCase{s: p.shape, forwardOnly: true},
			shapeCase{s: p.shape, flagInterval: 1}, shapeCase{s: p.shape, forwardOnly: true, flagInterval: 1})
	}
	return out
}

// BenchmarkGPUShape sweeps the launch geometry of the study's kernels on
// float32 random matrices of 1024, 8192 and 16384 vertices: BF_Naive
// once, then BF_Reduce and BF_Reduce_Coarse prepared once each and run
// with every configuration of shapeCases, traced, from
// GRAPHNB_BENCH_ROOTS sources (default 4) per op; every result validated
// as BenchmarkGPU's. The measurement behind the default M and G
// (Options.GroupSize).
//
// Metrics:
//
//	step_us   traced iterations' mean time (their launches' spans, gpu.LaunchLog)
//	GB/s      BytesPerIteration / step_us: an iteration's bandwidth
//	bw_frac   GB/s over the device's peak memory bandwidth
//	ms        mean Result.Time of a (traced) run
//	iters     mean iterations
//	x_naive   BF_Naive's step time over this configuration's
//	M, G, regs  the shape and the kernel's registers (the traced build's)
//	default   1 for the shape the options choose by default
//
// Skipped without a GPU.
func BenchmarkGPUShape(b *testing.B) {
	dev, info := gpuBenchDevice(b)
	for _, n := range []int{1024, 8192, 16384} {
		ref := references{d: benchMatrix(b, n, false)}
		srcs := gpuBenchSources(b, n)
		var naiveStep float64
		for _, o := range []Options{{Method: Naive}, {Method: Reduce}, {Method: ReduceCoarse}} {
			o.Trace = true
			p, err := Prepare(dev, ref.d, o)
			if err != nil {
				b.Fatal(err)
			}
			k, err := p.kernelsFor(true)
			if err != nil {
				b.Fatal(err)
			}
			a, err := k.step.Attributes()
			if err != nil {
				b.Fatal(err)
			}
			def := p.shape
			for _, c := range shapeCases(p) {
				name := fmt.Sprintf("n%d_f32/%s/%s", n, Variant{o.Method.String(), o}.Slug(), c.name())
				b.Run(name, func(b *testing.B) {
					p.shape, p.forwardOnly, p.opts.FlagInterval = c.s, c.forwardOnly, c.flagInterval
					var runs, steps, iters int
					var secs, stepSecs float64
					runAll(b, p, srcs, &ref, func(r *Result) {
						runs++
						iters += r.Iterations
						secs += r.Time.Seconds()
						steps += len(r.Trace.Steps)
						stepSecs += r.Trace.StepTime().Seconds()
					})
					step := stepSecs / float64(steps)
					bw := float64(BytesPerIteration(n, o)) / step
					b.ReportMetric(step*1e6, "step_us")
					b.ReportMetric(bw/1e9, "GB/s")
					if info.PeakBandwidth > 0 {
						b.ReportMetric(bw/info.PeakBandwidth, "bw_frac")
					}
					b.ReportMetric(secs/float64(runs)*1e3, "ms")
					b.ReportMetric(float64(iters)/float64(runs), "iters")
					if o.Method == Naive {
						naiveStep = step
					}
					if naiveStep > 0 {
						b.ReportMetric(naiveStep/step, "x_naive")
					}
					b.ReportMetric(float64(c.s.group), "M")
					b.ReportMetric(float64(c.s.perBlock), "G")
					b.ReportMetric(float64(a.Registers), "regs")
					isDef := 0.0
					if c.s == def && !c.forwardOnly && c.flagInterval == 0 {
						isDef = 1
					}
					b.ReportMetric(isDef, "default")
				})
			}
			if err := p.Close(); err != nil {
				b.Fatal(err)
			}
		}
	}
}
