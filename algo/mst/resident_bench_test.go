package mst

import (
	"flag"
	"fmt"
	"testing"
	"time"

	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/graph/gen"
	"github.com/graphnb/graphnb/graph/graphio"
)

var (
	eclFamily    = flag.String("mst.family", "rmat", "BenchmarkGPUResidentECL: the graph family, rmat or ssca2")
	eclScale     = flag.Int("mst.scale", 22, "BenchmarkGPUResidentECL: the R-MAT scale (edge factor 16, seed 1)")
	eclMaxWeight = flag.Int("mst.maxweight", 255, "BenchmarkGPUResidentECL: integer weights uniform in 1..max")
	eclEGR       = flag.String("mst.egr", "", "BenchmarkGPUResidentECL: also write its graph to this file in ECL-MST's .egr format")
	eclSteps     = flag.Bool("mst.steps", false, "BenchmarkGPUResidentECL: also report each step's time (a device synchronize after each step)")
)

// eclGraph is BenchmarkGPUResidentECL's graph: R-MAT of -mst.scale, edge
// factor 16, seed 1, integer weights 1..-mst.maxweight (float32, whole);
// with -mst.family ssca2, SSCA#2 of that scale, seed 1, with its own
// integer weights (1..2^scale).
func eclGraph() (*graph.CSR, error) {
	switch *eclFamily {
	case "rmat":
		return gen.RMAT(*eclScale, 16, gen.Seed(1), gen.Integer(*eclMaxWeight))
	case "ssca2":
		return gen.SSCA2(*eclScale, gen.Seed(1))
	}
	return nil, fmt.Errorf("-mst.family %q: want rmat or ssca2", *eclFamily)
}

// BenchmarkGPUResidentECL measures what a notebook waits for when it flips
// a switch of the GPU MST on a device-resident graph: PrepareResident +
// Run + Close, for the plain kernel ("plain"), every transformation on
// ("all": WeightRanks, Renumber, Compress, the study's "GPU") and with the
// hybrid find-minimum step too ("hybrid", the study's "GPU+CPU"), on the graph ECL-MST gets (eclGraph;
// with -mst.egr FILE it is also written there for ECL-MST). Each
// iteration starts from a fresh resident graph without a host copy (the
// uploaded arrays wrapped by gpu.Device.NewGraph), as a graph generated on
// the device would be, so host copies the preparation or the run make
// are counted. Metrics, means per iteration:
//
//	prep_ms    PrepareResident (wall)
//	run_ms     Run (wall: rounds, forest edges collected and sorted)
//	gpu_ms     Run's GPU time (Result.Time)
//	total_ms   PrepareResident + Run + Close (wall): compare with ECL-MST's "Dev+"
//	rcm_host_ms (Renumber only, measured once apart, not in the totals)
//	           graph.RCMOrder on the host graph: what the order made on the
//	           device (step p3_rcm) replaces
//	p1_sources_ms … pz_kernels_work_ms, r1_forest_count_ms … r3_forest_download_ms
//	           with -mst.steps only: each step of PrepareResident and of
//	           Run's forest edges (resident.go's stepTimes), ended by a
//	           device synchronize (the totals then include those waits)
//
// The last forest is validated with Check (untimed). On the GPU machine:
//
//	./mst.test -test.run '^$' -test.bench 'GPUResidentECL' -test.benchtime 5x -mst.egr /tmp/rmat22.egr
//	./ecl-mst /tmp/rmat22.egr
func BenchmarkGPUResidentECL(b *testing.B) {
	dev := gpuBenchDevice(b)
	g, err := eclGraph()
	if err != nil {
		b.Fatal(err)
	}
	if *eclEGR != "" {
		if err := graphio.Save(*eclEGR, g); err != nil { // ECL-MST's .egr
			b.Fatal(err)
		}
	}
	base, err := dev.Upload(g)
	if err != nil {
		b.Fatal(err)
	}
	defer base.Close()
	for _, v := range []Variant{
		{"plain", Options{}},
		{"all", SeedVariants()[1].Options},    // the study's "GPU": every transformation
		{"hybrid", SeedVariants()[0].Options}, // the study's "GPU+CPU": and the host's share
	} {
		b.Run(v.Label, func(b *testing.B) {
			steps := map[string]time.Duration{}
			if *eclSteps {
				stepTimes = func(step string, d time.Duration) { steps[step] += d }
				defer func() { stepTimes = nil }()
			}
			var prep, run, gpuTime, total time.Duration
			var last *Result
			for range b.N {
				// A wrapper of the same arrays, never closed (Close would
				// free base's buffers), without a host copy.
				rg, err := dev.NewGraph(base.N, false, base.Offsets, base.Adj, base.Weights, base.Weights64)
				if err != nil {
					b.Fatal(err)
				}
				t0 := time.Now()
				p, err := PrepareResident(rg, v.Options)
				if err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				r, err := p.Run()
				if err != nil {
					b.Fatal(err)
				}
				t2 := time.Now()
				if err := p.Close(); err != nil {
					b.Fatal(err)
				}
				prep += t1.Sub(t0)
				run += t2.Sub(t1)
				total += time.Since(t0)
				gpuTime += r.Time
				last = r
			}
			b.StopTimer()
			if err := Check(g, last); err != nil {
				b.Fatalf("%s: the forest does not validate: %v", v.Label, err)
			}
			ms := func(d time.Duration) float64 { return d.Seconds() * 1e3 / float64(b.N) }
			if v.Options.Renumber { // for comparison: the host's order, what Renumber cost before the device made it
				t0 := time.Now()
				if _, _, err := graph.RCMOrder(g); err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(time.Since(t0).Seconds()*1e3, "rcm_host_ms")
			}
			for step, d := range steps {
				b.ReportMetric(ms(d), step+"_ms")
			}
			b.ReportMetric(ms(prep), "prep_ms")
			b.ReportMetric(ms(run), "run_ms")
			b.ReportMetric(ms(gpuTime), "gpu_ms")
			b.ReportMetric(ms(total), "total_ms")
		})
	}
}
