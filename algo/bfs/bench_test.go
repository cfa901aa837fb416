package bfs

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

// benchGraph returns the unweighted R-MAT graph of the given scale and edge
// factor 16, generated once per test binary.
func benchGraph(b *testing.B, scale int) *graph.CSR {
	if g, ok := benchGraphs.Load(scale); ok {
		return g.(*graph.CSR)
	}
	g, err := gen.RMAT(scale, 16, gen.Seed(1), gen.Unweighted())
	if err != nil {
		b.Fatal(err)
	}
	benchGraphs.Store(scale, g)
	return g
}

// benchScales are the R-MAT scales of the CPU benchmarks: 16 and 20, and
// 22 with GRAPHNB_BENCH_LARGE=1 (a 1 GiB graph, for machines with many
// cores).
func benchScales() []int {
	if os.Getenv("GRAPHNB_BENCH_LARGE") == "1" {
		return []int{16, 20, 22}
	}
	return []int{16, 20}
}

// benchSources picks 64 Graph500-style roots (vertices with an arc),
// deterministically.
func benchSources(g *graph.CSR) []int32 { return g.Roots(64, 2) }

// benchBFS times run over rotating sources and reports both TEPS
// conventions: the Graph500 one as a harmonic mean over runs, arcs/s as an
// arithmetic mean (README, "Measuring").
func benchBFS(b *testing.B, run func(g *graph.CSR, src int32) (*Result, error)) {
	for _, scale := range benchScales() {
		b.Run(fmt.Sprintf("rmat_s%d_ef16", scale), func(b *testing.B) {
			g := benchGraph(b, scale)
			srcs := benchSources(g)
			var invG500, arcs float64
			var traversal time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				r, err := run(g, srcs[i%len(srcs)])
				if err != nil {
					b.Fatal(err)
				}
				invG500 += 1 / r.TEPS.Graph500
				arcs += r.TEPS.ArcsPerSecond
				traversal += r.Time
			}
			b.ReportMetric(float64(b.N)/invG500/1e6, "MTEPS_g500")
			b.ReportMetric(arcs/float64(b.N)/1e6, "Marcs/s")
			b.ReportMetric(float64(traversal.Microseconds())/1e3/float64(b.N), "ms/bfs")
		})
	}
}

func BenchmarkDirectionOptimizing(b *testing.B) {
	benchBFS(b, func(g *graph.CSR, s int32) (*Result, error) { return DirectionOptimizing(g, s, Options{}) })
}

// BenchmarkDirectionOptimizingTraced is BenchmarkDirectionOptimizing
// with Options.Trace: the ms/bfs of both give the trace's overhead.
func BenchmarkDirectionOptimizingTraced(b *testing.B) {
	benchBFS(b, func(g *graph.CSR, s int32) (*Result, error) { return DirectionOptimizing(g, s, Options{Trace: true}) })
}

func BenchmarkParallelTopDown(b *testing.B) {
	benchBFS(b, func(g *graph.CSR, s int32) (*Result, error) {
		return DirectionOptimizing(g, s, Options{TopDownOnly: true})
	})
}

func BenchmarkTopDown(b *testing.B) { benchBFS(b, TopDown) }

func BenchmarkCheck(b *testing.B) {
	for _, scale := range benchScales() {
		b.Run(fmt.Sprintf("rmat_s%d_ef16", scale), func(b *testing.B) {
			g := benchGraph(b, scale)
			r, err := DirectionOptimizing(g, benchSources(g)[0], Options{})
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

// BenchmarkCheckMany validates eight results of eight roots per op,
// one by one with Check and at once with CheckMany (what a CPU sweep's
// validation does); result-checks/s compares them.
func BenchmarkCheckMany(b *testing.B) {
	for _, scale := range benchScales() {
		g := benchGraph(b, scale)
		var rs []*Result
		for _, src := range benchSources(g)[:checkLanes] {
			r, err := DirectionOptimizing(g, src, Options{})
			if err != nil {
				b.Fatal(err)
			}
			rs = append(rs, r)
		}
		for _, way := range []string{"one_by_one", "at_once"} {
			b.Run(fmt.Sprintf("rmat_s%d_ef16/%s", scale, way), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					var errs []error
					if way == "at_once" {
						errs = CheckMany(g, rs)
					} else {
						for _, r := range rs {
							errs = append(errs, Check(g, r))
						}
					}
					for _, err := range errs {
						if err != nil {
							b.Fatal(err)
						}
					}
				}
				b.ReportMetric(float64(len(rs))*float64(b.N)/b.Elapsed().Seconds(), "result-checks/s")
			})
		}
	}
}
