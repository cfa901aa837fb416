package mst

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/graph/gen"
)

// BenchmarkGPUTrace measures what Options.Trace costs a GPU Borůvka run
// (issue 17: at most 2%) on R-MAT scales 20 and 22 (edge factor 16, seed
// 1, float32 weights), for the study's "GPU" (every transformation) and
// the plain kernel. The graph is uploaded once; each variant is prepared
// on the device (PrepareResident) three times: untraced, traced (the
// default: one event between two launches of a round, a chained
// gpu.LaunchTimer) and traced with two events around every launch (the
// timing the trace had before, for comparison), and the three run in
// turn, rotating which goes first, so that all see the same GPU state.
// Each has one unmeasured run first (compile caches, the timer's
// events); the traced run's forest must equal the untraced one's, which
// Check validates once.
//
// Metrics, means per run (ns/op is the wall time of all three and means
// little):
//
//	ms, ms_traced, ms_traced_events
//	                       Result.Time: the rounds on the device, host
//	                       round trips included
//	traced_x, traced_events_x
//	                       ms_traced / ms, ms_traced_events / ms
//	wall_ms, wall_ms_traced, wall_ms_traced_events
//	                       Prepared.Run's wall time (a traced run's with
//	                       reading its events and the byte models)
//	rounds, launches       of the traced run
//	launch_GBps            the traced run's modelled bytes over its
//	                       launches' time (trace.Launch.Bytes, Time)
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
	const untraced, traced, eventsEach = 0, 1, 2
	var ps [3]*Prepared
	for i := range ps {
		opts := o
		opts.Trace = i != untraced
		p, err := PrepareResident(rg, opts)
		if err != nil {
			b.Fatal(err)
		}
		defer p.Close()
		p.eventsEach = i == eventsEach
		ps[i] = p
	}
	var first [3]*Result
	for i, p := range ps {
		r, err := p.Run()
		if err != nil {
			b.Fatal(err)
		}
		first[i] = r
	}
	if err := Check(g, first[untraced]); err != nil {
		b.Fatalf("the untraced forest does not validate: %v", err)
	}
	for _, i := range []int{traced, eventsEach} {
		r := first[i]
		if !slices.Equal(r.Edges, first[untraced].Edges) || r.Iterations != first[untraced].Iterations {
			b.Fatalf("a traced run's forest differs: %d edges, %d rounds; untraced %d, %d",
				len(r.Edges), r.Iterations, len(first[untraced].Edges), first[untraced].Iterations)
		}
		if err := checkable(rg.Device(), r.Trace).Check(); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("%s: %d rounds, %d launches, run %v, rounds %v", first[traced].Algorithm, len(first[traced].Trace.Steps),
		len(first[traced].Trace.Launches), first[traced].Trace.Time, first[traced].Trace.StepTime())
	var gpuT, wallT [3]time.Duration
	var rounds, launches int
	var bytes int64
	var launchT time.Duration
	b.ResetTimer()
	for k := range b.N {
		for j := range ps {
			i := (j + k) % len(ps) // rotate which goes first
			t0 := time.Now()
			r, err := ps[i].Run()
			wall := time.Since(t0)
			if err != nil {
				b.Fatal(err)
			}
			gpuT[i] += r.Time
			wallT[i] += wall
			if i == traced {
				rounds += len(r.Trace.Steps)
				launches += len(r.Trace.Launches)
				for _, l := range r.Trace.Launches {
					bytes += l.Bytes
					launchT += l.Time
				}
			}
		}
	}
	b.StopTimer()
	runs := float64(b.N)
	ms := func(d time.Duration) float64 { return d.Seconds() * 1e3 / runs }
	b.ReportMetric(ms(gpuT[untraced]), "ms")
	b.ReportMetric(ms(gpuT[traced]), "ms_traced")
	b.ReportMetric(ms(gpuT[eventsEach]), "ms_traced_events")
	b.ReportMetric(gpuT[traced].Seconds()/gpuT[untraced].Seconds(), "traced_x")
	b.ReportMetric(gpuT[eventsEach].Seconds()/gpuT[untraced].Seconds(), "traced_events_x")
	b.ReportMetric(ms(wallT[untraced]), "wall_ms")
	b.ReportMetric(ms(wallT[traced]), "wall_ms_traced")
	b.ReportMetric(ms(wallT[eventsEach]), "wall_ms_traced_events")
	b.ReportMetric(float64(rounds)/runs, "rounds")
	b.ReportMetric(float64(launches)/runs, "launches")
	if launchT > 0 {
		b.ReportMetric(float64(bytes)/launchT.Seconds()/1e9, "launch_GBps")
	}
}
