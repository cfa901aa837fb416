package bench

import (
	"fmt"
	"testing"

	"github.com/graphnb/graphnb/algo/densebf"
	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph"
)

// BenchmarkSweep times whole one-scale sweeps (graph generation, 8 roots,
// validation) and reports the rates the harness measured, in both
// conventions: what `graphnb bench` does per point.
func BenchmarkSweep(b *testing.B) {
	for _, scale := range []int{12, 16} {
		for _, name := range []string{"cpu/do", "cpu/delta"} {
			algo := map[string]string{"cpu/do": "bfs", "cpu/delta": "sssp"}[name]
			b.Run(fmt.Sprintf("rmat_s%d_ef16/%s_%s", scale, algo, name[4:]), func(b *testing.B) {
				v, err := Lookup(algo, name)
				if err != nil {
					b.Fatal(err)
				}
				var last *Table
				for b.Loop() {
					last, err = Sweep{Variants: []Variant{v}, Family: "rmat", Scales: []int{scale}, Roots: 8}.Run(gpu.Host(), nil)
					if err != nil {
						b.Fatal(err)
					}
				}
				r := last.Rows[0]
				b.ReportMetric(r.HarmonicMeanTEPS/1e6, "MTEPS_g500")
				b.ReportMetric(r.MeanArcsPerSecond/1e6, "Marcs/s")
			})
		}
	}
}

// TestDenseBFRunnerWithoutGraph: a matrix that is no graph's has no rates,
// and the runner neither panics nor invents them.
func TestDenseBFRunnerWithoutGraph(t *testing.T) {
	d := graph.NewDenseF32(3)
	r := DenseBFRunner(nil, d, func(src int32) (*densebf.Result, error) { return densebf.Run(d, src) }, 0, 0, nil)
	run, err := r.Run(0)
	if err != nil {
		t.Fatal(err)
	}
	if run.TEPS != (graph.TEPS{}) || run.ComponentEdges != 0 {
		t.Errorf("rates without a graph: TEPS %v, component edges %d; want 0", run.TEPS, run.ComponentEdges)
	}
}
