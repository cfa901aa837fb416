// Package tracecost measures what a trace costs a run (issue 17's bound:
// at most 2% when on). A benchmark gives Measure a function that runs
// the algorithm from one root, traced or not, and returns the run's own
// time (its Result.Time); Measure runs both forms root after root, in
// alternating order, so that the device's drift between two separate
// benchmarks (a few percent on a GPU over seconds) falls on both alike.
package tracecost

import (
	"testing"
	"time"
)

// Run runs the algorithm from root number i, traced or not, and returns
// the run's time.
type Run func(i int, traced bool) (time.Duration, error)

// Measure runs b.N rounds; each round runs every root i in [0, roots)
// untraced and traced, the order swapped from one root to the next. It
// reports the mean run time of each form in milliseconds,
// "ms-off/"+unit and "ms-on/"+unit (unit names a run: "bfs", "sssp"),
// and the trace's cost, "cost-%": 100·(on ÷ off − 1). It fails b on the
// first error.
func Measure(b *testing.B, roots int, unit string, run Run) {
	b.Helper()
	var off, on time.Duration
	runs := 0
	for n := 0; n < b.N; n++ {
		for i := range roots {
			for k := range 2 {
				traced := (i+n+k)%2 == 1
				d, err := run(i, traced)
				if err != nil {
					b.Fatal(err)
				}
				if traced {
					on += d
				} else {
					off += d
				}
			}
			runs++
		}
	}
	if runs == 0 || off <= 0 {
		return
	}
	b.ReportMetric(off.Seconds()/float64(runs)*1e3, "ms-off/"+unit)
	b.ReportMetric(on.Seconds()/float64(runs)*1e3, "ms-on/"+unit)
	b.ReportMetric(100*(float64(on)/float64(off)-1), "cost-%")
}
