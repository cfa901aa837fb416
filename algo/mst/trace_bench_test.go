package mst

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/graphnb/graphnb/algo/internal/tracecost"
	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/graph/gen"
)

// BenchmarkGPUTrace measures what Options.Trace costs a GPU Borůvka run
// (issue 17: at most 2%) on R-MAT scales 20 and 22 (edge factor 16, seed
// 1, float32 weights), for the study's "GPU" (every transformation) and
// the plain kernel. The graph is uploaded once; each variant is prepared
// on the device (PrepareResident) once, and its runs untraced (the
// untraced build of boruvka.cu) and traced (the traced build: every
// launch logs its span, gpu.LaunchLog) alternate
// (tracecost.Measure, eight runs of each a round): two prepared forms
// would differ by where their buffers landed. A first traced and
// untraced run (each build compiled and loaded, the log's ring made)
// must give the same forest, which Check validates.
//
// Metrics: ms-off/mst and ms-on/mst, Result.Time (the rounds on the
// device, host round trips included) a run; cost-% and cost-median-%
// (tracecost.Measure); wall_ms and wall_ms_traced, the wall time of
// Prepared.Run a run (the traced one with its reading of the launch log),
// and wall-cost-%, 100·(traced ÷ untraced − 1) of those means, and
// wall-cost-median-%, the median over the pairs (tracecost.Wall); of the traced runs, rounds and launches a run and
// launch_GBps, their modelled bytes over their launches' time
// (trace.Launch.Bytes, Time). ns/op means little.
//
// Skipped without a GPU. On the GPU machine, in algo/mst:
//
//	./algo_mst.test -test.run '^$' -test.bench GPUTrace -test.benchtime 5x
func BenchmarkGPUTrace(b *testing.B) {
	dev := gpuBenchDevice(b)
	for _, scale := range []int{20, 22} {
		g, err := gen.RMAT(scale, 16, gen.Seed(1))
		if err != nil {
			b.Fatal(err)
		}
		rg, err := dev.Upload(g)
		if err != nil {
			b.Fatal(err)
		}
		for _, v := range []Variant{SeedVariants()[1], {"plain", Options{}}} {
			b.Run(fmt.Sprintf("rmat_s%d/%s", scale, v.Slug()), func(b *testing.B) { benchTrace(b, g, rg, v.Options) })
		}
		if err := rg.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// benchTrace is one BenchmarkGPUTrace case: g resident as rg, options o.
func benchTrace(b *testing.B, g *graph.CSR, rg *gpu.Graph, o Options) {
	o.Trace = true
	p, err := PrepareResident(rg, o)
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	var first [2]*Result // untraced, traced
	for i := range first {
		p.opts.Trace = i == 1
		if first[i], err = p.Run(); err != nil {
			b.Fatal(err)
		}
	}
	off, on := first[0], first[1]
	if err := Check(g, off); err != nil {
		b.Fatalf("the untraced forest does not validate: %v", err)
	}
	if !slices.Equal(on.Edges, off.Edges) || on.Iterations != off.Iterations {
		b.Fatalf("a traced run's forest differs: %d edges, %d rounds; untraced %d, %d",
			len(on.Edges), on.Iterations, len(off.Edges), off.Iterations)
	}
	if err := checkable(rg.Device(), on.Trace).Check(); err != nil {
		b.Fatal(err)
	}
	b.Logf("%s: %d rounds, %d launches, run %v, rounds %v", on.Algorithm, len(on.Trace.Steps),
		len(on.Trace.Launches), on.Trace.Time, on.Trace.StepTime())
	var traced, rounds, launches int
	var bytes int64
	var launchT time.Duration
	var wall tracecost.Wall
	b.ResetTimer()
	tracecost.Measure(b, 8, "mst", wall.Track(func(_ int, trace bool) (time.Duration, error) {
		p.opts.Trace = trace
		t0 := time.Now()
		r, err := p.Run()
		wall.Add(time.Since(t0))
		if err != nil {
			return 0, err
		}
		if (r.Trace != nil) != trace {
			return 0, fmt.Errorf("traced %v but trace %v", trace, r.Trace)
		}
		if trace {
			traced++
			rounds += len(r.Trace.Steps)
			launches += len(r.Trace.Launches)
			for _, l := range r.Trace.Launches {
				bytes += l.Bytes
				launchT += l.Time
			}
		}
		return r.Time, nil
	}))
	b.StopTimer()
	wall.Report(b)
	if traced > 0 {
		b.ReportMetric(float64(rounds)/float64(traced), "rounds")
		b.ReportMetric(float64(launches)/float64(traced), "launches")
	}
	if launchT > 0 {
		b.ReportMetric(float64(bytes)/launchT.Seconds()/1e9, "launch_GBps")
	}
}
