package densebf

import (
	"fmt"
	"testing"
	"time"

	"github.com/graphnb/graphnb/algo/internal/tracecost"
	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/trace"
)

// cpuTraceSizes are the matrix sizes of BenchmarkCPUTrace: a run takes
// about 4-7 and 14-25 ms on the 2-core build machine (9 or 10 sweeps;
// the smaller shows most what the trace adds per sweep or per run).
var cpuTraceSizes = []int{1024, 2048}

// BenchmarkCPUTrace measures what Options.Trace costs the CPU dense
// Bellman-Ford (issue 17: at most 2%): the host device's run (gpu.Host:
// Run, an "iteration" step per sweep) on the study's random matrices
// (benchMatrix: edge probability 0.1, weights 1..100) of cpuTraceSizes
// vertices, float32 and int32, from each of gpuBenchSources's sources
// (GRAPHNB_BENCH_ROOTS, default 4). Each case is prepared once and run
// untraced and traced in alternating order (tracecost.MeasureForm),
// Options.Trace flipped between runs; every result is validated as
// BenchmarkGPU's (Check on the first from a source, then equal to it).
// With GRAPHNB_BENCH_AA=1 each case has an A/A control beside it,
// suffixed _aa (tracecost.Forms).
//
// Metrics: ms-off/bf and ms-on/bf, Result.Time (the sweeps; the
// transpose is PrepTime, not in it); cost-% and cost-median-%
// (tracecost.Measure); iters, the traced runs' steps. ns/op means
// little. In algo/densebf:
//
//	go test -run '^$' -bench CPUTrace -benchtime 5x -count 3
func BenchmarkCPUTrace(b *testing.B) {
	for _, n := range cpuTraceSizes {
		for _, integer := range []bool{false, true} {
			kind := "f32"
			if integer {
				kind = "i32"
			}
			var ref references
			for _, form := range tracecost.Forms() {
				b.Run(fmt.Sprintf("n%d_%s/cpu%s", n, kind, form), func(b *testing.B) {
					if ref.d == nil {
						ref.d = benchMatrix(b, n, integer)
					}
					benchCPUTrace(b, &ref, form)
				})
			}
		}
	}
}

// benchCPUTrace is one BenchmarkCPUTrace case: the matrix ref.d,
// measured as form (tracecost.As).
func benchCPUTrace(b *testing.B, ref *references, form string) {
	srcs := gpuBenchSources(b, ref.d.N)
	p, err := Prepare(gpu.Host(), ref.d, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	tracecost.MeasureForm(b, form, len(srcs), "bf", "iters", func(i int, on bool) (time.Duration, *trace.Trace, error) {
		p.opts.Trace = on
		r, err := p.Run(srcs[i])
		if err != nil {
			return 0, nil, err
		}
		ref.validate(b, r)
		return r.Time, r.Trace, nil
	})
}
