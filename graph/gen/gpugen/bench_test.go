package gpugen

import (
	"fmt"
	"testing"
	"time"

	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph/gen"
)

// BenchmarkGPURMAT generates R-MAT graphs of scales 20, 22 and 24 (edge
// factor 16) on the GPU, with the default options (uniform float32
// weights), integer weights 1..255, no weights and uniform float64
// weights, and reports
//
//	ms/graph     wall time of one RMAT call, from the plan to the resident
//	             CSR (the module is compiled and cached before timing)
//	states_ms    the streams' states at every segment (the plan's upload
//	             included; SSCA#2: the edge counts and their sum too)
//	edges_alloc_ms  R-MAT: the buffers of the arcs and weights allocated
//	edges_ms     the edges and weights drawn (SSCA#2: with their buffers)
//	sort_alloc_ms  the sort's scratch allocated (keys, weights, counters)
//	sort_ms      the radix sort of the arcs (package transform's Sorter:
//	             2·scale/8 passes, each moving about 18 + 2w bytes per
//	             arc, w the weight's bytes), its scratch freed
//	csr_ms       deduplication, numbering and the CSR arrays
//	arcs         arcs of the graph
//
// The phases are measured with a device synchronisation between them.
// The target: scale 24 in at most 250 ms. Without a GPU it skips.
// On the GPU machine:
//
//	./graph_gen_gpugen.test -test.run '^$' -test.bench 'GPURMAT|GPUSSCA2' -test.benchtime 3x
func BenchmarkGPURMAT(b *testing.B) {
	dev := gpuDevice(b)
	for _, scale := range []int{20, 22, 24} {
		for _, w := range []struct {
			name string
			opts []gen.Option
		}{{"uniform", nil}, {"int255", []gen.Option{gen.Integer(255)}}, {"unweighted", []gen.Option{gen.Unweighted()}},
			{"f64", []gen.Option{gen.Float64()}}} {
			b.Run(fmt.Sprintf("s%d_ef16_%s", scale, w.name), func(b *testing.B) {
				benchGenerate(b, func(scale int) (*gpu.Graph, error) { return RMAT(dev, scale, 16, w.opts...) }, scale)
			})
		}
	}
}

// BenchmarkGPUSSCA2 is BenchmarkGPURMAT for SSCA2 with the default
// parameters (integer weights, permuted), scales 20, 22 and 24.
func BenchmarkGPUSSCA2(b *testing.B) {
	dev := gpuDevice(b)
	for _, scale := range []int{20, 22, 24} {
		b.Run(fmt.Sprintf("s%d", scale), func(b *testing.B) {
			benchGenerate(b, func(scale int) (*gpu.Graph, error) { return SSCA2(dev, scale) }, scale)
		})
	}
}

// benchGenerate times generate(scale), after generate(10) has compiled
// and loaded the module, and reports the metrics of BenchmarkGPURMAT.
func benchGenerate(b *testing.B, generate func(scale int) (*gpu.Graph, error), scale int) {
	warm, err := generate(10)
	if err != nil {
		b.Fatal(err)
	}
	warm.Close()
	phases := map[string]time.Duration{}
	phaseLog = func(phase string, d time.Duration) { phases[phase] += d }
	defer func() { phaseLog = nil }()
	var total time.Duration
	var arcs int64
	for b.Loop() {
		start := time.Now()
		g, err := generate(scale)
		if err != nil {
			b.Fatal(err)
		}
		total += time.Since(start)
		arcs = g.Arcs
		if err := g.Close(); err != nil {
			b.Fatal(err)
		}
	}
	n := float64(b.N)
	b.ReportMetric(float64(total.Microseconds())/1e3/n, "ms/graph")
	for _, p := range []string{"states", "edges_alloc", "edges", "sort_alloc", "sort", "csr"} {
		b.ReportMetric(float64(phases[p].Microseconds())/1e3/n, p+"_ms")
	}
	b.ReportMetric(float64(arcs), "arcs")
}

// BenchmarkRMATParts generates R-MAT graphs (edge factor 16, uniform
// float32 weights; "perm": with gen.PermuteVertices(true), Graph500's
// balanced layout) partitioned over groups of the first 1, 2, 4 and 8
// GPUs (those the machine has), scales 20 to 26, and reports
//
//	ms/graph     wall time of one RMATParts call, from the plan to every
//	             part resident and the PartGraph made (the modules
//	             compiled before timing)
//	draw_ms, sort_ms, exchange_ms, sort_received_ms, csr_ms
//	             the phases (PartPhases) of the slowest rank in each
//	             phase, each ended by a device synchronisation
//	arcs         arcs of the graph
//	imbalance    the most arcs a rank received over the mean
//
// Compare ranks1 with BenchmarkGPURMAT at the same scale (one GPU, no
// exchange) and the ranks with one another. Without a GPU it skips. On
// the GPU machine:
//
//	./graph_gen_gpugen.test -test.run '^$' -test.bench '(RMATParts|SSCA2Parts|GPURMAT|GPUSSCA2)/s24($|_ranks|_ef16_uniform)' -test.benchtime 3x
//
// (the scale 24 rows of all four, the one-GPU generators for reference).
func BenchmarkRMATParts(b *testing.B) {
	benchGroups(b, func(b *testing.B, g *gpu.Group, ranks int) {
		for _, scale := range []int{20, 22, 24, 26} {
			for _, perm := range []bool{false, true} {
				name := fmt.Sprintf("s%d_ranks%d", scale, ranks)
				if perm {
					name += "_perm"
				}
				b.Run(name, func(b *testing.B) {
					benchParts(b, func(scale int) (*gpu.PartGraph, []PartPhases, error) {
						return RMATPartsTimed(g, scale, 16, gen.PermuteVertices(perm))
					}, scale)
				})
			}
		}
	})
}

// BenchmarkSSCA2Parts is BenchmarkRMATParts for SSCA2Parts with the
// default parameters (integer weights, permuted), scales 20, 22 and 24;
// compare with BenchmarkGPUSSCA2.
func BenchmarkSSCA2Parts(b *testing.B) {
	benchGroups(b, func(b *testing.B, g *gpu.Group, ranks int) {
		for _, scale := range []int{20, 22, 24} {
			b.Run(fmt.Sprintf("s%d_ranks%d", scale, ranks), func(b *testing.B) {
				benchParts(b, func(scale int) (*gpu.PartGraph, []PartPhases, error) { return SSCA2PartsTimed(g, scale) }, scale)
			})
		}
	})
}

// benchGroups runs bench on groups of the first 1, 2, 4 and 8 GPUs, as
// many as the machine has.
func benchGroups(b *testing.B, bench func(b *testing.B, g *gpu.Group, ranks int)) {
	gpuDevice(b)
	devs, err := gpu.Devices()
	if err != nil {
		b.Fatal(err)
	}
	for _, ranks := range []int{1, 2, 4, 8} {
		if ranks > len(devs) {
			break
		}
		g, err := gpu.NewGroup(devs[:ranks]...)
		if err != nil {
			b.Fatal(err)
		}
		bench(b, g, ranks)
		if err := g.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// benchParts times generate(scale), after generate(10) has compiled the
// modules on every device, and reports BenchmarkRMATParts' metrics.
func benchParts(b *testing.B, generate func(scale int) (*gpu.PartGraph, []PartPhases, error), scale int) {
	warm, _, err := generate(10)
	if err != nil {
		b.Fatal(err)
	}
	warm.Close()
	var total time.Duration
	var slowest PartPhases // summed over the iterations
	var arcs int64
	imbalance := 0.0
	for b.Loop() {
		start := time.Now()
		pg, phases, err := generate(scale)
		if err != nil {
			b.Fatal(err)
		}
		total += time.Since(start)
		arcs = pg.Arcs
		var most, sum int64
		var s PartPhases
		for _, p := range phases {
			most, sum = max(most, p.Received), sum+p.Received
			s.Draw, s.Sort, s.Exchange = max(s.Draw, p.Draw), max(s.Sort, p.Sort), max(s.Exchange, p.Exchange)
			s.SortReceived, s.CSR = max(s.SortReceived, p.SortReceived), max(s.CSR, p.CSR)
		}
		slowest.Draw, slowest.Sort, slowest.Exchange = slowest.Draw+s.Draw, slowest.Sort+s.Sort, slowest.Exchange+s.Exchange
		slowest.SortReceived, slowest.CSR = slowest.SortReceived+s.SortReceived, slowest.CSR+s.CSR
		imbalance = float64(most) * float64(len(phases)) / float64(max(sum, 1))
		if err := pg.Close(); err != nil {
			b.Fatal(err)
		}
	}
	n := float64(b.N)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1e3 / n }
	b.ReportMetric(ms(total), "ms/graph")
	b.ReportMetric(ms(slowest.Draw), "draw_ms")
	b.ReportMetric(ms(slowest.Sort), "sort_ms")
	b.ReportMetric(ms(slowest.Exchange), "exchange_ms")
	b.ReportMetric(ms(slowest.SortReceived), "sort_received_ms")
	b.ReportMetric(ms(slowest.CSR), "csr_ms")
	b.ReportMetric(float64(arcs), "arcs")
	b.ReportMetric(imbalance, "imbalance")
}
