package bfs

import (
	"fmt"
	"testing"
	"time"

	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph/gen"
	"github.com/graphnb/graphnb/graph/gen/gpugen"
)

// realGPUs returns the machine's GPUs, skipping without one.
func realGPUs(tb testing.TB) []*gpu.Device {
	tb.Helper()
	if gpu.Default().IsHost() {
		tb.Skip(gpu.DefaultReason())
	}
	devs, err := gpu.Devices()
	if err != nil {
		tb.Fatal(err)
	}
	return devs
}

// TestGroupGPU searches the test graphs over a group of the first GPU
// and over a group of every GPU: the levels of TopDown, both checks.
func TestGroupGPU(t *testing.T) {
	devs := realGPUs(t)
	cases := gpuCases(t)
	t.Run("one", func(t *testing.T) { checkGroup(t, devs[:1], cases) })
	if len(devs) > 1 {
		t.Run(fmt.Sprintf("all_%d", len(devs)), func(t *testing.T) { checkGroup(t, devs, cases) })
		t.Run("check_catches", func(t *testing.T) { checkGroupCatches(t, devs) })
	}
}

// BenchmarkGroup measures the BFS over groups of 1, 2, 4, … GPUs (every
// GPU at most) on one R-MAT graph (scale GRAPHNB_BENCH_SCALE, default 22,
// edge factor 16, seed 1, unweighted, vertices permuted as Graph500 does;
// generated on the host for the one-GPU search, partitioned on the GPUs
// with gpugen.RMATParts for the groups),
// from GRAPHNB_BENCH_ROOTS roots (default 16), every run validated on the
// devices, beside the one-GPU direction-optimizing search on the same
// graph and roots. Metrics:
//
//	GTEPS_g500   component edges / time, harmonic mean over the roots
//	GTEPS_per_gpu  the same divided by the group's size
//	ms/bfs       mean search time (host clock, the slowest rank)
//	comm_frac    mean share of the time in collectives
//	check_ms     mean time of the group's device check
//
// Run on the GPU machine, e.g.
//
//	GRAPHNB_BENCH_SCALE=24 ./bfs.test -test.run '^$' -test.bench 'Group' -test.benchtime 1x
func BenchmarkGroup(b *testing.B) {
	devs := realGPUs(b)
	scale := benchEnv(b, "GRAPHNB_BENCH_SCALE", 22)
	nroots := benchEnv(b, "GRAPHNB_BENCH_ROOTS", 16)
	g, err := gen.RMAT(scale, 16, gen.Seed(1), gen.Unweighted(), gen.PermuteVertices(true))
	if err != nil {
		b.Fatal(err)
	}
	roots := g.Roots(nroots, 1)
	b.Run("one_gpu_do", func(b *testing.B) {
		p, err := Prepare(devs[0], g, Options{Method: DirectionOptimizingGPU, Parents: true})
		if err != nil {
			b.Fatal(err)
		}
		defer p.Close()
		var teps []float64
		var total time.Duration
		for i := 0; i < b.N; i++ {
			for _, src := range roots {
				r, err := p.RunOnDevice(src)
				if err != nil {
					b.Fatal(err)
				}
				if err := p.CheckDevice(r); err != nil {
					b.Fatal(err)
				}
				teps = append(teps, r.TEPS.Graph500)
				total += r.Time
				r.Close()
			}
		}
		b.ReportMetric(harmonicMean(teps)/1e9, "GTEPS_g500")
		b.ReportMetric(float64(total.Milliseconds())/float64(len(teps)), "ms/bfs")
	})
	for k := 1; k <= len(devs); k *= 2 {
		b.Run(fmt.Sprintf("gpus_%d", k), func(b *testing.B) {
			grp, err := gpu.NewGroup(devs[:k]...)
			if err != nil {
				b.Fatal(err)
			}
			defer grp.Close()
			pg, err := gpugen.RMATParts(grp, scale, 16, gen.Seed(1), gen.Unweighted(), gen.PermuteVertices(true))
			if err != nil {
				b.Fatal(err)
			}
			defer pg.Close()
			p, err := PrepareGroup(pg, GroupOptions{})
			if err != nil {
				b.Fatal(err)
			}
			defer p.Close()
			var teps []float64
			var total, comm, check time.Duration
			for i := 0; i < b.N; i++ {
				for _, src := range roots {
					r, err := p.Run(src)
					if err != nil {
						b.Fatal(err)
					}
					t0 := time.Now()
					if err := p.Check(r); err != nil {
						b.Fatal(err)
					}
					check += time.Since(t0)
					teps = append(teps, r.TEPS.Graph500)
					total += r.Time
					comm += r.Comm
				}
			}
			h := harmonicMean(teps)
			b.ReportMetric(h/1e9, "GTEPS_g500")
			b.ReportMetric(h/1e9/float64(k), "GTEPS_per_gpu")
			b.ReportMetric(float64(total.Microseconds())/1e3/float64(len(teps)), "ms/bfs")
			b.ReportMetric(float64(comm)/float64(total), "comm_frac")
			b.ReportMetric(float64(check.Microseconds())/1e3/float64(len(teps)), "check_ms")
		})
	}
}

// harmonicMean is Graph500's mean of rates.
func harmonicMean(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		if v <= 0 {
			return 0
		}
		s += 1 / v
	}
	if s == 0 {
		return 0
	}
	return float64(len(x)) / s
}
