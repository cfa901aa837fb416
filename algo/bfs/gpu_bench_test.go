package bfs

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/graphnb/graphnb/algo/internal/tracecost"
	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/graph/gen"
	"github.com/graphnb/graphnb/trace"
)

// BenchmarkGPU measures every GPU variant on R-MAT graphs (edge factor 16,
// seed 1, unweighted) of scales 14..22, and 24 with GRAPHNB_BENCH_LARGE=1,
// from GRAPHNB_BENCH_ROOTS roots (default 8, Graph500-style: vertices with
// an arc). Each graph is generated once and prepared once per variant;
// every run is validated with Check (parents on) before it counts. Metrics,
// from the GPU-event times of the search loops:
//
//	Garcs/s      stored arcs / time, arithmetic mean (the studies' convention)
//	GTEPS_g500   component edges / time, harmonic mean (Graph500)
//	levels       mean number of BFS levels
//	ms/bfs       mean search time
//	peak_bw_frac edge-scan variants: modelled bytes / time / peak bandwidth
//	             (gpu.Info.PeakBandwidth). Model, per full edge scan of E
//	             undirected edges: 8E bytes of vertex ids (two int32 per
//	             edge) plus E·2·b bytes of level reads (b = 1 for unsigned
//	             char levels; reads that hit L2 are counted as if they came
//	             from memory, writes are ignored): 10E bytes per scan. The
//	             child-grid steps of dynamic parallelism are not counted, so
//	             its fraction is a lower bound.
//	prep_s       preparation time (COO, permutation, upload)
//
// Without a GPU it skips. Run on the GPU machine, e.g.
//
//	./bfs.test -test.run '^$' -test.bench 'GPU' -test.benchtime 1x
func BenchmarkGPU(b *testing.B) {
	dev := gpu.Default()
	if dev.IsHost() {
		b.Skip(gpu.DefaultReason())
	}
	info, err := dev.Info()
	if err != nil {
		b.Fatal(err)
	}
	roots := benchEnv(b, "GRAPHNB_BENCH_ROOTS", 8)
	var scales []int
	for s := 14; s <= 22; s++ {
		scales = append(scales, s)
	}
	if os.Getenv("GRAPHNB_BENCH_LARGE") == "1" {
		scales = append(scales, 24)
	}
	for _, scale := range scales {
		b.Run(fmt.Sprintf("rmat_s%d", scale), func(b *testing.B) {
			g, err := gen.RMAT(scale, 16, gen.Seed(1), gen.Unweighted())
			if err != nil {
				b.Fatal(err)
			}
			srcs := g.Roots(roots, 1)
			for _, v := range allVariants() {
				b.Run(benchSlug(v.Label), func(b *testing.B) {
					benchGPUVariant(b, dev, info, g, srcs, v)
				})
			}
		})
	}
}

// benchSlug turns a label into a benchmark name: "cache && restrict on"
// → "cache_restrict_on".
func benchSlug(label string) string {
	var sb strings.Builder
	under := false
	for _, r := range strings.ToLower(label) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			if under && sb.Len() > 0 {
				sb.WriteByte('_')
			}
			sb.WriteRune(r)
			under = false
		} else {
			under = true
		}
	}
	return sb.String()
}

func benchGPUVariant(b *testing.B, dev *gpu.Device, info gpu.Info, g *graph.CSR, srcs []int32, v Variant) {
	p, err := Prepare(dev, g, withParents(v.Options))
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	edges := g.NumEdges()
	var arcs, invG500, levels, secs, scanBytes float64
	runs := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, src := range srcs {
			r, err := p.Run(src)
			if err != nil {
				b.Fatal(err)
			}
			if err := Check(g, r); err != nil {
				b.Fatalf("%s from %d: the result does not validate: %v", v.Label, src, err)
			}
			runs++
			arcs += r.TEPS.ArcsPerSecond
			invG500 += 1 / r.TEPS.Graph500
			levels += float64(len(r.FrontierSizes))
			secs += r.Time.Seconds()
			scanBytes += float64(r.EdgeScans) * float64(edges) * 10
		}
	}
	b.StopTimer()
	n := float64(runs)
	b.ReportMetric(arcs/n/1e9, "Garcs/s")
	b.ReportMetric(n/invG500/1e9, "GTEPS_g500")
	b.ReportMetric(levels/n, "levels")
	b.ReportMetric(secs/n*1e3, "ms/bfs")
	b.ReportMetric(p.PrepTime().Seconds(), "prep_s")
	if scanBytes > 0 && info.PeakBandwidth > 0 {
		b.ReportMetric(scanBytes/secs/info.PeakBandwidth, "peak_bw_frac")
	}
}

func TestBenchSlug(t *testing.T) {
	for in, want := range map[string]string{
		"cache && restrict on":       "cache_restrict_on",
		"dynamic parallelism":        "dynamic_parallelism",
		"direction-optimizing (GPU)": "direction_optimizing_gpu",
		"cache off":                  "cache_off",
	} {
		if got := benchSlug(in); got != want {
			t.Errorf("benchSlug(%q) = %q, want %q", in, got, want)
		}
	}
}

// BenchmarkGPUSweepResident measures a validated sweep of the
// direction-optimizing BFS (parents on) the way bench runs one, per root:
// R-MAT scale GRAPHNB_BENCH_SCALE (default 22), edge factor 16, seed 1,
// unweighted, from GRAPHNB_BENCH_ROOTS roots (default 64). Sub-benchmarks:
//
//	run_check     Run + Check: levels and parents copied back, then up again
//	              for the device check
//	resident      RunOnDevice + CheckDevice + Close: nothing copied but the
//	              bookkeeping (the sweep bench runs)
//	resident_run  RunOnDevice + Close, no validation
//	check_device  CheckDevice of one result (after a first, untimed one)
//
// Metrics: ms/root is the wall time per root (per check for
// check_device); ms/bfs the mean GPU-event time of the searches; prep_ms
// the preparation (Prepare from the host CSR for run_check,
// PrepareResident from the uploaded graph for the others). Run on the GPU
// machine, e.g.
//
//	./bfs.test -test.run '^$' -test.bench 'GPUSweepResident' -test.benchtime 3x
func BenchmarkGPUSweepResident(b *testing.B) {
	dev := gpu.Default()
	if dev.IsHost() {
		b.Skip(gpu.DefaultReason())
	}
	scale, roots := benchEnv(b, "GRAPHNB_BENCH_SCALE", 22), benchEnv(b, "GRAPHNB_BENCH_ROOTS", 64)
	g, err := gen.RMAT(scale, 16, gen.Seed(1), gen.Unweighted())
	if err != nil {
		b.Fatal(err)
	}
	srcs := g.Roots(roots, 1)
	dg, err := dev.Upload(g)
	if err != nil {
		b.Fatal(err)
	}
	defer dg.Close()
	o := Options{Method: DirectionOptimizingGPU, Parents: true}
	sweep := func(b *testing.B, resident bool, run func(p *Prepared, src int32) (time.Duration, error)) {
		var p *Prepared
		var err error
		if resident {
			p, err = PrepareResident(dg, o)
		} else {
			p, err = Prepare(dev, g, o)
		}
		if err != nil {
			b.Fatal(err)
		}
		defer p.Close()
		var searched time.Duration
		runs := 0
		for b.Loop() {
			for _, src := range srcs {
				d, err := run(p, src)
				if err != nil {
					b.Fatalf("from %d: %v", src, err)
				}
				searched += d
				runs++
			}
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/1e3/float64(runs), "ms/root")
		b.ReportMetric(searched.Seconds()*1e3/float64(runs), "ms/bfs")
		b.ReportMetric(p.PrepTime().Seconds()*1e3, "prep_ms")
	}
	b.Run("run_check", func(b *testing.B) {
		sweep(b, false, func(p *Prepared, src int32) (time.Duration, error) {
			r, err := p.Run(src)
			if err != nil {
				return 0, err
			}
			return r.Time, p.Check(r)
		})
	})
	b.Run("resident", func(b *testing.B) {
		sweep(b, true, func(p *Prepared, src int32) (time.Duration, error) {
			r, err := p.RunOnDevice(src)
			if err != nil {
				return 0, err
			}
			return r.Time, errors.Join(p.CheckDevice(r), r.Close())
		})
	})
	b.Run("resident_run", func(b *testing.B) {
		sweep(b, true, func(p *Prepared, src int32) (time.Duration, error) {
			r, err := p.RunOnDevice(src)
			if err != nil {
				return 0, err
			}
			return r.Time, r.Close()
		})
	})
	b.Run("check_device", func(b *testing.B) {
		p, err := PrepareResident(dg, o)
		if err != nil {
			b.Fatal(err)
		}
		defer p.Close()
		r, err := p.RunOnDevice(srcs[0])
		if err != nil {
			b.Fatal(err)
		}
		defer r.Close()
		// The first check allocates the check's buffers and tables.
		if err := p.CheckDevice(r); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if err := p.CheckDevice(r); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/1e3/float64(b.N), "ms/root")
	})
}

// benchEnv reads a positive integer from the environment variable name,
// or returns def when it is unset.
func benchEnv(b *testing.B, name string, def int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < 1 {
		b.Fatalf("%s=%q: want a positive integer", name, s)
	}
	return v
}

// BenchmarkGPUTrace runs the direction-optimizing GPU search on R-MAT
// scales 20 and 22 from 64 roots, untraced and traced (Options.Trace: the
// step kernels' launch log) root after root (tracecost.Measure) on one
// prepared search: ms-off and ms-on a search (Result.Time), the trace's
// cost in percent, and the wall of each form (see measureTraceCost for
// the metrics).
func BenchmarkGPUTrace(b *testing.B) {
	dev := gpu.Default()
	if dev.IsHost() {
		b.Skip(gpu.DefaultReason())
	}
	for _, scale := range []int{20, 22} {
		g, err := gen.RMAT(scale, 16, gen.Seed(1), gen.Unweighted())
		if err != nil {
			b.Fatal(err)
		}
		srcs := g.Roots(64, 1)
		b.Run(fmt.Sprintf("rmat_s%d", scale), func(b *testing.B) {
			// One prepared search, traced or not run by run: two would
			// differ by where their buffers landed (a few percent).
			measureTraceCost(b, dev, g, srcs, Options{Method: DirectionOptimizingGPU, Parents: true}, false)
		})
	}
}

// BenchmarkGPUTraceStudy is BenchmarkGPUTrace for the study's methods,
// whose traced runs launch the traced build of their kernels, which log
// their launches (gpu.LaunchLog): the edge scan and dynamic parallelism,
// on R-MAT scales 20 and 22 from 16 roots, untraced and traced root after
// root on one prepared search; the same metrics.
func BenchmarkGPUTraceStudy(b *testing.B) {
	dev := gpu.Default()
	if dev.IsHost() {
		b.Skip(gpu.DefaultReason())
	}
	for _, scale := range []int{20, 22} {
		g, err := gen.RMAT(scale, 16, gen.Seed(1), gen.Unweighted())
		if err != nil {
			b.Fatal(err)
		}
		srcs := g.Roots(16, 1)
		for _, m := range []Method{EdgeScan, DynamicParallelism} {
			b.Run(fmt.Sprintf("rmat_s%d/%s", scale, strings.ReplaceAll(m.String(), " ", "_")), func(b *testing.B) {
				measureTraceCost(b, dev, g, srcs, Options{Method: m, Parents: true}, false)
			})
		}
	}
}

// measureTraceCost measures the trace's cost for one prepared search of
// g with options o (tracecost.Measure: untraced and traced root after
// root, Options.Trace flipped between runs), after an untimed untraced
// and traced run from the first root (each form's first launches, the
// launch log made); logTrace logs the first timed traced run's trace
// (go test -v). Its metrics are Measure's (ms-off/bfs, ms-on/bfs,
// cost-%, cost-median-%: Result.Time) and tracecost.Wall's (wall_ms,
// wall_ms_traced, wall-cost-%, wall-cost-median-%: the wall time of
// Prepared.Run, the traced one with the reading of its launch log).
func measureTraceCost(b *testing.B, dev *gpu.Device, g *graph.CSR, srcs []int32, o Options, logTrace bool) {
	o.Trace = true
	p, err := Prepare(dev, g, o)
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	for _, traced := range []bool{false, true} {
		p.opt.Trace = traced
		if _, err := p.Run(srcs[0]); err != nil {
			b.Fatal(err)
		}
	}
	var wall tracecost.Wall
	b.ResetTimer()
	tracecost.Measure(b, len(srcs), "bfs", wall.Track(tracecost.Checked(b, logTrace, func(i int, traced bool) (time.Duration, *trace.Trace, error) {
		p.opt.Trace = traced
		t0 := time.Now()
		r, err := p.Run(srcs[i])
		wall.Add(time.Since(t0))
		if err != nil {
			return 0, nil, err
		}
		return r.Time, r.Trace, nil
	})))
	b.StopTimer()
	wall.Report(b)
}

// BenchmarkGPUSwitch studies the direction switch's parameters α and β
// for the direction-optimizing GPU search on R-MAT graphs (edge factor
// 16, seed 1), by Graph500's rules (vertex labels permuted) and without
// the permutation: scale GRAPHNB_BENCH_SCALE (default 22),
// GRAPHNB_BENCH_ROOTS roots (default 64), parents on, one prepared search
// per (α, β). The first root's result of each is validated with Check
// (the others differ only in their roots). Metrics: GTEPS_g500
// (component edges / time, harmonic mean), ms/bfs, levels and bottom-up
// levels (means). Run on the GPU machine, e.g.
//
//	./bfs.test -test.run '^$' -test.bench 'GPUSwitch' -test.benchtime 1x
func BenchmarkGPUSwitch(b *testing.B) {
	dev := gpu.Default()
	if dev.IsHost() {
		b.Skip(gpu.DefaultReason())
	}
	scale := benchEnv(b, "GRAPHNB_BENCH_SCALE", 22)
	for _, permuted := range []bool{true, false} {
		g, err := gen.RMAT(scale, 16, gen.Seed(1), gen.Unweighted(), gen.PermuteVertices(permuted))
		if err != nil {
			b.Fatal(err)
		}
		srcs := g.Roots(benchEnv(b, "GRAPHNB_BENCH_ROOTS", 64), 1)
		labels := map[bool]string{true: "permuted", false: "unpermuted"}[permuted]
		for _, ab := range [][2]int{{DefaultAlpha, DefaultBeta}, {5, 18}, {10, 18}, {30, 18}, {60, 18}, {15, 9}, {15, 36}, {15, 72}, {30, 36}, {10, 9}} {
			b.Run(fmt.Sprintf("rmat_s%d_%s/alpha_%d/beta_%d", scale, labels, ab[0], ab[1]), func(b *testing.B) {
				benchSwitch(b, dev, g, srcs, ab[0], ab[1])
			})
		}
	}
}

// benchSwitch is one case of BenchmarkGPUSwitch: the search with α and β
// from every root of srcs, b.N times.
func benchSwitch(b *testing.B, dev *gpu.Device, g *graph.CSR, srcs []int32, alpha, beta int) {
	p, err := Prepare(dev, g, Options{Method: DirectionOptimizingGPU, Parents: true, Alpha: alpha, Beta: beta})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	var invG500, secs, levels, up float64
	runs := 0
	for i := 0; i < b.N; i++ {
		for j, src := range srcs {
			r, err := p.Run(src)
			if err != nil {
				b.Fatal(err)
			}
			if i == 0 && j == 0 {
				if err := Check(g, r); err != nil {
					b.Fatalf("α %d, β %d from %d: %v", alpha, beta, src, err)
				}
			}
			runs++
			invG500 += 1 / r.TEPS.Graph500
			secs += r.Time.Seconds()
			levels += float64(len(r.FrontierSizes))
			for _, d := range r.Directions {
				if d == BottomUpStep {
					up++
				}
			}
		}
	}
	n := float64(runs)
	b.ReportMetric(n/invG500/1e9, "GTEPS_g500")
	b.ReportMetric(secs/n*1e3, "ms/bfs")
	b.ReportMetric(levels/n, "levels")
	b.ReportMetric(up/n, "bu_levels")
}

// checkBenchTrace runs measureTraceCost (BenchmarkGPUTrace's body) on dev
// for g from two roots with options o and requires its metrics, the
// wall's included.
func checkBenchTrace(t *testing.T, dev *gpu.Device, g *graph.CSR, o Options) {
	res := tracecost.CheckBench(t, func(b *testing.B) { measureTraceCost(b, dev, g, g.Roots(2, 1), o, false) },
		append([]string{"ms-off/bfs", "ms-on/bfs", "cost-%", "cost-median-%"}, tracecost.WallMetrics...)...)
	if res.Extra["wall_ms"] <= 0 || res.Extra["wall_ms_traced"] <= 0 {
		t.Errorf("walls %v and %v ms a run", res.Extra["wall_ms"], res.Extra["wall_ms_traced"])
	}
}

// BenchmarkGPULevelGaps measures where a direction-optimizing GPU search's
// time goes between its kernels: on an R-MAT graph by Graph500's rules
// (edge factor 16, seed 1, permuted) of scale GRAPHNB_BENCH_SCALE (default
// 22) from GRAPHNB_BENCH_ROOTS roots (default 16), parents on, each root
// searched untraced and then traced on one prepared search. Metrics:
// ms/bfs (untraced Result.Time), kernel-ms/bfs (the traced run's logged
// kernel spans, summed: the launches that did work), gap-ms/bfs (traced
// Result.Time minus those spans: launch latencies, launches that passed
// through, the host's reads), launches/bfs (Result.Launches) and
// GTEPS_g500 (untraced, harmonic mean). The first root's result is
// validated. Run on the GPU machine, e.g.
//
//	GRAPHNB_BENCH_SCALE=24 ./bfs.test -test.run '^$' -test.bench 'GPULevelGaps' -test.benchtime 2x
func BenchmarkGPULevelGaps(b *testing.B) {
	dev := gpu.Default()
	if dev.IsHost() {
		b.Skip(gpu.DefaultReason())
	}
	scale := benchEnv(b, "GRAPHNB_BENCH_SCALE", 22)
	g, err := gen.RMAT(scale, 16, gen.Seed(1), gen.Unweighted(), gen.PermuteVertices(true))
	if err != nil {
		b.Fatal(err)
	}
	srcs := g.Roots(benchEnv(b, "GRAPHNB_BENCH_ROOTS", 16), 1)
	p, err := Prepare(dev, g, Options{Method: DirectionOptimizingGPU, Parents: true, Trace: true})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	var untraced, traced, kernels time.Duration
	var invG500 float64
	runs, launches := 0, 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j, src := range srcs {
			p.opt.Trace = false
			r, err := p.Run(src)
			if err != nil {
				b.Fatal(err)
			}
			if i == 0 && j == 0 {
				if err := Check(g, r); err != nil {
					b.Fatal(err)
				}
			}
			p.opt.Trace = true
			rt, err := p.Run(src)
			if err != nil {
				b.Fatal(err)
			}
			untraced += r.Time
			traced += rt.Time
			for _, l := range rt.Trace.Launches {
				kernels += l.Time
			}
			invG500 += 1 / r.TEPS.Graph500
			launches += r.Launches
			runs++
		}
	}
	b.StopTimer()
	n := float64(runs)
	b.ReportMetric(untraced.Seconds()*1e3/n, "ms/bfs")
	b.ReportMetric(kernels.Seconds()*1e3/n, "kernel-ms/bfs")
	b.ReportMetric((traced-kernels).Seconds()*1e3/n, "gap-ms/bfs")
	b.ReportMetric(float64(launches)/n, "launches/bfs")
	b.ReportMetric(n/invG500/1e9, "GTEPS_g500")
}
