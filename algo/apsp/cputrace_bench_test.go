package apsp

import (
	"fmt"
	"testing"
	"time"

	"github.com/graphnb/graphnb/algo/internal/tracecost"
	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/trace"
)

// cpuTraceSizes are the matrix sizes of BenchmarkCPUTrace: a plain or
// blocked run takes about 27 and 75 ms on the 2-core build machine.
var cpuTraceSizes = []int{384, 576}

// BenchmarkCPUTrace measures what Options.Trace costs the CPU
// Floyd-Warshall (issue 17: at most 2%): the host device's runs
// (gpu.Host) of the plain method (FloydWarshall, a "k-block" step per
// traceKBlock k's) and the blocked one (Blocked with the default tile, a
// "round" step per diagonal tile; the out-of-core method runs it too on
// the host), on the sparse random matrices of BenchmarkGPUTrace
// (gpuBenchMatrix: average out-degree 8, int32 weights 1..1000) of
// cpuTraceSizes vertices. Each case is prepared once and run untraced
// and traced in alternating order (tracecost.MeasureForm, traceBenchPairs
// runs of each an op), Options.Trace flipped between runs; the first
// untraced run is checked (Check on 8 rows). With GRAPHNB_BENCH_AA=1
// each case has an A/A control beside it, suffixed _aa (tracecost.Forms).
//
// Metrics: ms-off/run and ms-on/run, Result.Time (the k loop or the
// tile rounds; the copy into the working arrays is PrepTime, not in
// it); cost-% and cost-median-% (tracecost.Measure); rounds, the traced
// runs' steps. ns/op means little. In algo/apsp:
//
//	go test -run '^$' -bench CPUTrace -benchtime 5x -count 3
func BenchmarkCPUTrace(b *testing.B) {
	for _, n := range cpuTraceSizes {
		d := gpuBenchMatrix(n)
		for _, v := range []Variant{{"plain", Options{Method: PlainGPU}}, {"blocked", Options{Method: BlockedGPU}}} {
			for _, form := range tracecost.Forms() {
				b.Run(fmt.Sprintf("n%d_i32/cpu_%s%s", n, v.Label, form), func(b *testing.B) { benchCPUTrace(b, d, v.Options, form) })
			}
		}
	}
}

// benchCPUTrace is one BenchmarkCPUTrace case: the matrix d, options o,
// measured as form (tracecost.As).
func benchCPUTrace(b *testing.B, d *graph.Dense, o Options, form string) {
	p, err := Prepare(gpu.Host(), d, o)
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	r, err := p.Run()
	if err != nil {
		b.Fatal(err)
	}
	if err := Check(d, r, 8, 1); err != nil {
		b.Fatalf("the untraced result does not validate: %v", err)
	}
	tracecost.MeasureForm(b, form, traceBenchPairs, "run", "rounds", func(_ int, on bool) (time.Duration, *trace.Trace, error) {
		p.opts.Trace = on
		r, err := p.Run()
		if err != nil {
			return 0, nil, err
		}
		return r.Time, r.Trace, nil
	})
}
