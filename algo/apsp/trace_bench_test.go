package apsp

import (
	"fmt"
	"testing"
	"time"

	"github.com/graphnb/graphnb/algo/internal/tracecost"
	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/internal/fakegpu"
)

// traceBenchPairs is the untraced and traced runs BenchmarkGPUTrace
// makes of a case per op (tracecost.Measure's roots: one matrix, run
// again).
const traceBenchPairs = 4

// BenchmarkGPUTrace measures what Options.Trace costs (issue 17: at most
// 2%): on rome99 (3353 vertices) the blocked method (53 rounds of three
// launches, its predecessors rebuilt) and the plain one (a launch per
// k, traced: a launch log entry per k-block), and at n = 8192
// (GRAPHNB_BENCH_APSP_N) the blocked method and the out-of-core one
// under a cap of a quarter of the in-core memory
// (GRAPHNB_BENCH_APSP_CAP). Each case is prepared once and run untraced
// and traced in alternating order (tracecost.Measure), Options.Trace
// flipped between runs of the one Prepared: two preparations would
// differ by where their buffers landed. A first untraced and traced run
// (the traced build loaded, the log's ring or the events made) precede
// the timed ones. A traced in-core run launches the traced build of
// fw.cu, its kernels stamping the launch log; out of core it records
// about two CUDA events more per streamed block, on the copy stream.
//
// Metrics (means per run; ns/op means little):
//
//	ms-off/run, ms-on/run    the run's time untraced and traced: in core
//	                         Result.Time (CUDA events around the
//	                         launches), out of core Result.Time +
//	                         Result.CopyTime (the streamed run)
//	cost-%, cost-median-%    the trace's cost (tracecost.Measure)
//	wall_ms, wall_ms_traced  wall time of Prepared.Run (the traced one
//	                         with the reading of its log or events),
//	                         tracecost.Wall's
//	wall-cost-%,             the trace's cost to the wall: 100·(traced
//	wall-cost-median-%       ÷ untraced − 1) of the means, and the
//	                         median over the pairs
//	rounds                   the trace's steps
//	copy_ms, exposed_ms      out of core: the rounds' Copy and Exposed
//	                         summed (hidden = copy − exposed)
//
// Skipped without a GPU; the rome99 cases without data/rome99.gr. On the
// GPU machine, in algo/apsp:
//
//	./apsp.test -test.run '^$' -test.bench GPUTrace -test.benchtime 10x
func BenchmarkGPUTrace(b *testing.B) {
	dev := gpu.Default()
	if dev.IsHost() {
		b.Skip(gpu.DefaultReason())
	}
	b.Run("rome99", func(b *testing.B) {
		d, err := readDIMACS(rome99)
		if err != nil {
			b.Skipf("%s: %v", rome99, err)
		}
		for _, v := range []Variant{{"blocked", Options{Method: BlockedGPU}}, {"plain", Options{Method: PlainGPU}}} {
			b.Run(v.Label, func(b *testing.B) { benchTrace(b, dev, d, v.Options) })
		}
	})
	for _, n := range benchSizesOr(b, 8192) {
		d := gpuBenchMatrix(n)
		capBytes := benchCap(b, n)
		for _, v := range []Variant{
			{"blocked", Options{Method: BlockedGPU}},
			{fmt.Sprintf("out_of_core_cap_%dMiB", capBytes>>20), Options{Method: OutOfCoreGPU, MemoryCap: capBytes}},
		} {
			b.Run(fmt.Sprintf("n%d/%s", n, v.Label), func(b *testing.B) { benchTrace(b, dev, d, v.Options) })
		}
	}
}

// benchTrace is one BenchmarkGPUTrace case: the matrix d, options o.
func benchTrace(b *testing.B, dev *gpu.Device, d *graph.Dense, o Options) {
	p, err := Prepare(dev, d, o)
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	streamed, _, _, _ := p.OutOfCore()
	for _, traced := range []bool{false, true} { // the traced build, the log or events
		p.opts.Trace = traced
		r, err := p.Run()
		if err != nil {
			b.Fatal(err)
		}
		if traced {
			// the fake GPU's events all measure 2.5 ms: no time to check.
			if err := r.Trace.Check(); err != nil && !fakegpu.IsChild() {
				b.Fatal(err)
			}
			b.Logf("%s: %d rounds, run %v, rounds %v, %d launches in %d log entries", r.Algorithm, len(r.Trace.Steps), r.Trace.Time, r.Trace.StepTime(), r.Trace.LaunchCount(), len(r.Trace.Launches))
		}
	}
	var runs, rounds int
	var wall tracecost.Wall
	var cp, ex time.Duration
	b.ResetTimer()
	tracecost.Measure(b, traceBenchPairs, "run", wall.Track(func(_ int, traced bool) (time.Duration, error) {
		p.opts.Trace = traced
		t0 := time.Now()
		r, err := p.Run()
		wall.Add(time.Since(t0))
		if err != nil {
			return 0, err
		}
		if (r.Trace != nil) != traced {
			return 0, fmt.Errorf("traced %v but trace %v", traced, r.Trace != nil)
		}
		took := r.Time
		if streamed {
			took += r.CopyTime
		}
		if !traced {
			return took, nil
		}
		runs++
		rounds += len(r.Trace.Steps)
		for _, s := range r.Trace.Steps {
			cp += s.Copy
			ex += s.Exposed
		}
		return took, nil
	}))
	b.StopTimer()
	wall.Report(b)
	if runs == 0 {
		return
	}
	k := float64(runs)
	ms := func(d time.Duration) float64 { return d.Seconds() * 1e3 / k }
	b.ReportMetric(float64(rounds)/k, "rounds")
	if cp > 0 {
		b.ReportMetric(ms(cp), "copy_ms")
		b.ReportMetric(ms(ex), "exposed_ms")
	}
}
