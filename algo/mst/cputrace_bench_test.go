package mst

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/graphnb/graphnb/algo/internal/tracecost"
	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/graph/gen"
	"github.com/graphnb/graphnb/trace"
)

// cpuTraceScales are the R-MAT scales of BenchmarkCPUTrace: a run's
// rounds take about 50 and 110 ms on the 2-core build machine (the
// per-run ranking and sorting, PrepTime, add about a quarter).
var cpuTraceScales = []int{18, 19}

// BenchmarkCPUTrace measures what Options.Trace costs the CPU Borůvka
// (issue 17: at most 2%): the host device's run (gpu.Host: Boruvka, a
// "round" step per Borůvka round, what RunGroup on a host group runs
// too) on R-MAT graphs of cpuTraceScales (edge factor 16, seed 1,
// float32 weights, as BenchmarkGPUTrace). One Prepared runs untraced and
// traced in alternating order (tracecost.MeasureForm, four runs of each an
// op), Options.Trace flipped between runs; a first pair must give the
// same forest, which Check validates. With GRAPHNB_BENCH_AA=1 each case
// has an A/A control beside it, suffixed _aa (tracecost.Forms).
//
// Metrics: ms-off/mst and ms-on/mst, Result.Time (the rounds and the
// forest's collection; the per-run ranking and sorting, PrepTime, are
// not in it); cost-% and cost-median-% (tracecost.Measure); rounds, the
// traced runs' steps. ns/op means little. In algo/mst:
//
//	go test -run '^$' -bench CPUTrace -benchtime 5x -count 3
func BenchmarkCPUTrace(b *testing.B) {
	for _, scale := range cpuTraceScales {
		g, err := gen.RMAT(scale, 16, gen.Seed(1))
		if err != nil {
			b.Fatal(err)
		}
		for _, form := range tracecost.Forms() {
			b.Run(fmt.Sprintf("rmat_s%d_ef16/cpu_boruvka%s", scale, form), func(b *testing.B) { benchCPUTrace(b, g, form) })
		}
	}
}

// benchCPUTrace is one BenchmarkCPUTrace case: the graph g, measured as
// form (tracecost.As).
func benchCPUTrace(b *testing.B, g *graph.CSR, form string) {
	p, err := Prepare(gpu.Host(), g, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	var first [2]*Result // untraced, traced
	for i := range first {
		p.opts.Trace = i == 1
		if first[i], err = p.Run(); err != nil {
			b.Fatal(err)
		}
	}
	if err := Check(g, first[0]); err != nil {
		b.Fatalf("the untraced forest does not validate: %v", err)
	}
	if !slices.Equal(first[1].Edges, first[0].Edges) || first[1].Iterations != first[0].Iterations {
		b.Fatalf("a traced run's forest differs: %d edges, %d rounds; untraced %d, %d",
			len(first[1].Edges), first[1].Iterations, len(first[0].Edges), first[0].Iterations)
	}
	tracecost.MeasureForm(b, form, 4, "mst", "rounds", func(_ int, on bool) (time.Duration, *trace.Trace, error) {
		p.opts.Trace = on
		r, err := p.Run()
		if err != nil {
			return 0, nil, err
		}
		return r.Time, r.Trace, nil
	})
}
