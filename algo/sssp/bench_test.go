package sssp

import (
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/graph/gen"
)

var benchGraphs sync.Map // scale → *graph.CSR

// benchScales are the R-MAT scales of the CPU benchmarks: 16 and 20, and
// 22 with GRAPHNB_BENCH_LARGE=1 (for machines with many cores).
func benchScales() []int {
	if os.Getenv("GRAPHNB_BENCH_LARGE") == "1" {
		return []int{16, 20, 22}
	}
	return []int{16, 20}
}

// benchGraph returns the R-MAT graph of the given scale, edge factor 16 and
// float32 weights uniform in [0, 1) (the SSSP study's inputs), generated
// once per test binary.
func benchGraph(b *testing.B, scale int) *graph.CSR {
	if g, ok := benchGraphs.Load(scale); ok {
		return g.(*graph.CSR)
	}
	g, err := gen.RMAT(scale, 16, gen.Seed(1))
	if err != nil {
		b.Fatal(err)
	}
	benchGraphs.Store(scale, g)
	return g
}

var benchIntGraphs sync.Map // scale → *graph.CSR

// benchIntGraph returns the R-MAT graph of the given scale, edge factor 16
// and whole-number weights uniform in 1..255 (GAPBS's sssp inputs),
// generated once per test binary.
func benchIntGraph(b *testing.B, scale int) *graph.CSR {
	if g, ok := benchIntGraphs.Load(scale); ok {
		return g.(*graph.CSR)
	}
	g, err := gen.RMAT(scale, 16, gen.Seed(1), gen.Integer(255))
	if err != nil {
		b.Fatal(err)
	}
	benchIntGraphs.Store(scale, g)
	return g
}

// benchSources picks 64 Graph500-style roots (vertices with an arc),
// deterministically.
func benchSources(g *graph.CSR) []int32 { return g.Roots(64, 2) }

// benchSSSP times run over rotating sources at scales 16 and 20 and
// reports both TEPS conventions (Graph500 as a harmonic mean over runs,
// arcs/s as an arithmetic mean; README, "Measuring"), the mean
// distance-computation time and the mean iteration count.
func benchSSSP(b *testing.B, run func(g *graph.CSR, src int32) (*Result, error)) {
	for _, scale := range benchScales() {
		b.Run(fmt.Sprintf("rmat_s%d_ef16", scale), func(b *testing.B) {
			benchRuns(b, benchGraph(b, scale), run)
		})
	}
}

func benchRuns(b *testing.B, g *graph.CSR, run func(g *graph.CSR, src int32) (*Result, error)) {
	srcs := benchSources(g)
	var invG500, arcs float64
	var total time.Duration
	var iters int
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := run(g, srcs[i%len(srcs)])
		if err != nil {
			b.Fatal(err)
		}
		invG500 += 1 / r.TEPS.Graph500
		arcs += r.TEPS.ArcsPerSecond
		total += r.Time
		iters += r.Iterations
	}
	b.ReportMetric(float64(b.N)/invG500/1e6, "MTEPS_g500")
	b.ReportMetric(arcs/float64(b.N)/1e6, "Marcs/s")
	b.ReportMetric(float64(total.Microseconds())/1e3/float64(b.N), "ms/sssp")
	b.ReportMetric(float64(iters)/float64(b.N), "iters")
}

func BenchmarkDijkstra(b *testing.B) { benchSSSP(b, Dijkstra) }

func BenchmarkDeltaStepping(b *testing.B) {
	benchSSSP(b, func(g *graph.CSR, s int32) (*Result, error) { return DeltaStepping(g, s, 0) })
}

// BenchmarkDeltaSteppingInt runs Δ-stepping on GAPBS's sssp inputs
// (weights 1..255) with the default Δ (about 8.3 at scale 22), GAPBS's
// Δ = 2 and Δ = 16 and 32, for the comparison with the peer
// (../shared/peers: gapbs-sssp -d 2).
func BenchmarkDeltaSteppingInt(b *testing.B) {
	for _, scale := range benchScales() {
		for _, d := range []float64{0, 2, 16, 32} {
			name := fmt.Sprintf("rmat_s%d_ef16_w255/d%g", scale, d)
			if d == 0 {
				name = fmt.Sprintf("rmat_s%d_ef16_w255/default", scale)
			}
			b.Run(name, func(b *testing.B) {
				benchRuns(b, benchIntGraph(b, scale), func(g *graph.CSR, s int32) (*Result, error) { return DeltaStepping(g, s, d) })
			})
		}
	}
}

func BenchmarkBellmanFord(b *testing.B) { benchSSSP(b, BellmanFord) }

// BenchmarkDeltaSteppingWidth sweeps Δ around the default, in multiples of
// the default.
func BenchmarkDeltaSteppingWidth(b *testing.B) {
	for _, scale := range benchScales() {
		g := benchGraph(b, scale)
		def := defaultDelta(g, weightsOf(g))
		for _, f := range []float64{0.25, 0.5, 1, 2, 4} {
			b.Run(fmt.Sprintf("rmat_s%d_ef16/x%g", scale, f), func(b *testing.B) {
				benchRuns(b, g, func(g *graph.CSR, s int32) (*Result, error) { return DeltaStepping(g, s, f*def) })
			})
		}
	}
}

func BenchmarkCheck(b *testing.B) {
	for _, scale := range benchScales() {
		b.Run(fmt.Sprintf("rmat_s%d_ef16", scale), func(b *testing.B) {
			g := benchGraph(b, scale)
			r, err := DeltaStepping(g, benchSources(g)[0], 0)
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := Check(g, r); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(g.Adj))*float64(b.N)/b.Elapsed().Seconds()/1e6, "Marcs/s")
		})
	}
}
