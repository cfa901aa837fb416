package mst

import (
	"bufio"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"testing"
	"time"

	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/graph/gen"
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
		if err := writeEGR(*eclEGR, g); err != nil {
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

// writeEGR writes g in ECL-MST's .egr format: little-endian int32 nodes,
// arcs, offsets[nodes+1], adj[arcs], weights[arcs] (both arcs of every
// edge). Weights must be whole numbers within int32 (1 unweighted); arcs
// and offsets must fit int32.
func writeEGR(path string, g *graph.CSR) error {
	n, m := g.NumVertices(), g.NumArcs()
	if m > math.MaxInt32 {
		return fmt.Errorf("writeEGR: %d arcs do not fit the .egr format's int32", m)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var word [4]byte
	put := func(x int32) {
		binary.LittleEndian.PutUint32(word[:], uint32(x))
		_, _ = w.Write(word[:])
	}
	put(int32(n))
	put(int32(m))
	for _, o := range g.Offsets {
		put(int32(o))
	}
	for _, v := range g.Adj {
		put(v)
	}
	for k := range g.Adj {
		x := g.ArcWeight(int64(k))
		if x != math.Trunc(x) || x < math.MinInt32 || x > math.MaxInt32 {
			f.Close()
			return fmt.Errorf("writeEGR: arc %d weighs %v, not an int32", k, x)
		}
		put(int32(x))
	}
	return errors.Join(w.Flush(), f.Close())
}

// TestWriteEGR checks the .egr layout on a small graph.
func TestWriteEGR(t *testing.T) {
	g := mustGraph(t)(gen.RMAT(4, 4, gen.Seed(1), gen.Integer(9)))
	path := t.TempDir() + "/g.egr"
	if err := writeEGR(path, g); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	n, m := g.NumVertices(), int(g.NumArcs())
	if len(data) != 4*(2+n+1+2*m) {
		t.Fatalf("%d bytes, want %d", len(data), 4*(2+n+1+2*m))
	}
	word := func(i int) int32 { return int32(binary.LittleEndian.Uint32(data[4*i:])) }
	if word(0) != int32(n) || word(1) != int32(m) || word(2+n) != int32(m) || word(3+n) != g.Adj[0] || word(3+n+m) != int32(g.Weights[0]) {
		t.Errorf("header or first entries wrong: %d %d %d %d %d", word(0), word(1), word(2+n), word(3+n), word(3+n+m))
	}
}
