package densebf

import (
	"fmt"
	"testing"

	"github.com/graphnb/graphnb/graph/gen"
)

// BenchmarkRun times Run on the study's random matrices (edge probability
// 0.1, weights 1..100) at 1024 and 4096 vertices in both element types.
// The matrix is generated once; ns/op includes the transpose (PrepTime),
// Gupd/s = N²·iterations / Time counts only the iterations.
func BenchmarkRun(b *testing.B) {
	for _, n := range []int{1024, 4096} {
		for _, integer := range []bool{false, true} {
			kind := "f32"
			if integer {
				kind = "i32"
			}
			b.Run(fmt.Sprintf("n%d_%s", n, kind), func(b *testing.B) {
				d, err := RandomDense(n, 0.1, 100, 1, integer)
				if err != nil {
					b.Fatal(err)
				}
				var secs float64
				var iters int
				b.ResetTimer()
				for i := range b.N {
					r, err := Run(d, int32(i%n))
					if err != nil {
						b.Fatal(err)
					}
					secs += r.Time.Seconds()
					iters += r.Iterations
				}
				b.ReportMetric(float64(n)*float64(n)*float64(iters)/secs/1e9, "Gupd/s")
				b.ReportMetric(float64(iters)/float64(b.N), "iters")
			})
		}
	}
}

// BenchmarkRMAT times Run on the int32 matrices of R-MAT graphs (edge
// factor 16, weights 1..100) at scales 10 and 12, from vertex 0.
func BenchmarkRMAT(b *testing.B) {
	for _, scale := range []int{10, 12} {
		b.Run(fmt.Sprintf("rmat_s%d_ef16", scale), func(b *testing.B) {
			g, err := gen.RMAT(scale, 16, gen.Integer(100))
			if err != nil {
				b.Fatal(err)
			}
			d, err := g.Dense(true)
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			var updates float64
			for range b.N {
				r, err := Run(d, 0)
				if err != nil {
					b.Fatal(err)
				}
				updates += float64(d.N) * float64(d.N) * float64(r.Iterations)
			}
			b.ReportMetric(updates/b.Elapsed().Seconds()/1e9, "Gupd/s")
		})
	}
}
