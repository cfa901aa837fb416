package mst

import (
	"testing"
	"time"

	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/graph/gen"
)

// benchGraphs are the study's graph families (docs/studies.md §3): R-MAT with
// edge factor 16 (average degree 32) and SSCA#2, at a small and a large
// scale. Each is generated once, outside the timed loops.
var benchGraphs = []struct {
	name string
	make func() (*graph.CSR, error)
}{
	{"rmat_s16_ef16", func() (*graph.CSR, error) { return gen.RMAT(16, 16) }},
	{"rmat_s20_ef16", func() (*graph.CSR, error) { return gen.RMAT(20, 16) }},
	{"ssca2_s16", func() (*graph.CSR, error) { return gen.SSCA2(16) }},
	{"ssca2_s20", func() (*graph.CSR, error) { return gen.SSCA2(20) }},
}

var benchCache = map[string]*graph.CSR{}

func benchGraph(b *testing.B, name string, make func() (*graph.CSR, error)) *graph.CSR {
	if g, ok := benchCache[name]; ok {
		return g
	}
	g, err := make()
	if err != nil {
		b.Fatal(err)
	}
	benchCache[name] = g
	return g
}

// benchMST times f on every benchmark graph. ns/op includes preparation;
// the TEPS metrics use the algorithm's own Time (preparation excluded, as
// the study reports): MTEPS_arcs is stored arcs per second (the study's
// MTEPS), MTEPS_g500 undirected edges per second.
func benchMST(b *testing.B, f func(*graph.CSR) (*Result, error)) {
	for _, bg := range benchGraphs {
		b.Run(bg.name, func(b *testing.B) {
			g := benchGraph(b, bg.name, bg.make)
			var total, prep time.Duration
			b.ResetTimer()
			for range b.N {
				r, err := f(g)
				if err != nil {
					b.Fatal(err)
				}
				total += r.Time
				prep += r.PrepTime
			}
			s := total.Seconds() / float64(b.N)
			b.ReportMetric(float64(g.NumArcs())/s/1e6, "MTEPS_arcs")
			b.ReportMetric(float64(g.NumEdges())/s/1e6, "MTEPS_g500")
			b.ReportMetric(prep.Seconds()/float64(b.N)*1e3, "prep_ms")
		})
	}
}

func BenchmarkKruskal(b *testing.B) { benchMST(b, Kruskal) }

func BenchmarkBoruvka(b *testing.B) { benchMST(b, Boruvka) }
