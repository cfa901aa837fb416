package gen

import (
	"fmt"
	"testing"
	"time"

	"github.com/graphnb/graphnb/graph"
)

// BenchmarkRMAT times RMAT at two scales. RMAT is RMATEdges followed by
// graph.Build; the loop calls the two separately so it can also report the
// split: gen-s (generation) and build-s (graph.Build) per graph.
func BenchmarkRMAT(b *testing.B) {
	for _, scale := range []int{16, 22} {
		b.Run(fmt.Sprintf("s%d_ef16", scale), func(b *testing.B) {
			var gen, bld time.Duration
			var arcs int64
			for b.Loop() {
				t0 := time.Now()
				el, err := RMATEdges(scale, 16, Seed(1))
				if err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				g, err := graph.Build(el, graph.BuildOptions{Symmetrize: true})
				if err != nil {
					b.Fatal(err)
				}
				gen += t1.Sub(t0)
				bld += time.Since(t1)
				arcs = g.NumArcs()
			}
			b.ReportMetric(gen.Seconds()/float64(b.N), "gen-s")
			b.ReportMetric(bld.Seconds()/float64(b.N), "build-s")
			b.ReportMetric(float64(arcs), "arcs")
		})
	}
}

// BenchmarkRMATUnweighted times the graph of the CPU BFS sweep (bench bfs
// rmat -scales 20): RMATEdges unweighted, then graph.Build, reported as
// gen-s and build-s per graph.
func BenchmarkRMATUnweighted(b *testing.B) {
	b.Run("s20_ef16", func(b *testing.B) {
		var gen, bld time.Duration
		for b.Loop() {
			t0 := time.Now()
			el, err := RMATEdges(20, 16, Seed(1), Unweighted())
			if err != nil {
				b.Fatal(err)
			}
			t1 := time.Now()
			if _, err := graph.Build(el, graph.BuildOptions{Symmetrize: true}); err != nil {
				b.Fatal(err)
			}
			gen += t1.Sub(t0)
			bld += time.Since(t1)
		}
		b.ReportMetric(gen.Seconds()/float64(b.N), "gen-s")
		b.ReportMetric(bld.Seconds()/float64(b.N), "build-s")
	})
}

// BenchmarkRMATEdges times the generation alone.
func BenchmarkRMATEdges(b *testing.B) {
	for _, scale := range []int{16, 22} {
		b.Run(fmt.Sprintf("s%d_ef16", scale), func(b *testing.B) {
			for b.Loop() {
				if _, err := RMATEdges(scale, 16, Seed(1)); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)*float64(int(16)<<scale)/b.Elapsed().Seconds()/1e6, "Medges/s")
		})
	}
}

// BenchmarkSSCA2 times SSCA2 (SSCA2Edges followed by graph.Build, timed
// separately as gen-s and build-s) at two scales.
func BenchmarkSSCA2(b *testing.B) {
	for _, scale := range []int{16, 20} {
		b.Run(fmt.Sprintf("s%d", scale), func(b *testing.B) {
			var gen, bld time.Duration
			var arcs int64
			for b.Loop() {
				t0 := time.Now()
				el, err := SSCA2Edges(scale, Seed(1))
				if err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				g, err := graph.Build(el, graph.BuildOptions{Symmetrize: true})
				if err != nil {
					b.Fatal(err)
				}
				gen += t1.Sub(t0)
				bld += time.Since(t1)
				arcs = g.NumArcs()
			}
			b.ReportMetric(gen.Seconds()/float64(b.N), "gen-s")
			b.ReportMetric(bld.Seconds()/float64(b.N), "build-s")
			b.ReportMetric(float64(arcs), "arcs")
		})
	}
}
