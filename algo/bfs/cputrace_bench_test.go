package bfs

import (
	"fmt"
	"testing"
	"time"

	"github.com/graphnb/graphnb/algo/internal/tracecost"
	"github.com/graphnb/graphnb/graph/gen"
	"github.com/graphnb/graphnb/trace"
)

// BenchmarkCPUTrace measures what a trace costs the CPU
// direction-optimizing search (tracecost.MeasureForm: every root
// untraced and traced in alternating order; with GRAPHNB_BENCH_AA=1 an
// A/A control beside it) on permuted R-MAT graphs of scales 16 and 20,
// edge factor 16, 64 roots. Issue 17 allows 2%.
func BenchmarkCPUTrace(b *testing.B) {
	for _, scale := range []int{16, 20} {
		g, err := gen.RMAT(scale, 16, gen.Seed(1), gen.Unweighted(), gen.PermuteVertices(true))
		if err != nil {
			b.Fatal(err)
		}
		srcs := g.Roots(64, 1)
		for _, form := range tracecost.Forms() {
			b.Run(fmt.Sprintf("rmat_s%d/cpu_do%s", scale, form), func(b *testing.B) {
				tracecost.MeasureForm(b, form, len(srcs), "bfs", "levels", func(i int, on bool) (time.Duration, *trace.Trace, error) {
					r, err := DirectionOptimizing(g, srcs[i], Options{Trace: on})
					if err != nil {
						return 0, nil, err
					}
					return r.Time, r.Trace, nil
				})
			})
		}
	}
}
