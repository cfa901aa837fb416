package bench

import (
	"fmt"
	"testing"

	"github.com/graphnb/graphnb/gpu"
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
