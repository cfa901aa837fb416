package sssp

import (
	"errors"
	"fmt"
	"math"
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

// gpuBenchScales are R-MAT scales 14..22, and 24 with GRAPHNB_BENCH_LARGE=1.
func gpuBenchScales() []int {
	var s []int
	for scale := 14; scale <= 22; scale++ {
		s = append(s, scale)
	}
	if os.Getenv("GRAPHNB_BENCH_LARGE") == "1" {
		s = append(s, 24)
	}
	return s
}

// gpuBenchRoots is GRAPHNB_BENCH_ROOTS, else 8.
func gpuBenchRoots(b *testing.B) int {
	if v := os.Getenv("GRAPHNB_BENCH_ROOTS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			b.Fatalf("GRAPHNB_BENCH_ROOTS=%q: want a positive number of roots", v)
		}
		return n
	}
	return 8
}

// modelBytes is the memory traffic the bandwidth figure assumes for one
// run, in bytes: what the algorithm must move at the least, not the DRAM
// sectors it really moves.
//
//   - edge sweep, per launch and edge: its two ids (2×4 bytes), its
//     weight (4 or 8; 0 when unweighted) and one read of dist at each end
//     (2×8, or 2×4 for float32); writes are few after the first launches
//     and not counted. Times the launches.
//   - frontier and near-far, per scanned arc: its target id (4), its
//     weight and one read of the target's dist; the per-entry reads
//     (queue word, offsets, stamps, the source's dist), the far-pile
//     splits and the atomics are not counted.
//
// Random dist reads move whole 32-byte sectors, and dist stays in L2 up to
// scale 22 (float64) on an H100, so this is neither a bound from above
// nor below on DRAM traffic: it is the useful traffic, which a figure near
// the peak would say is being moved at full speed.
func modelBytes(p *Prepared, r *Result) float64 {
	wb, db := 4.0, 8.0
	switch {
	case p.g.Weights64 != nil:
		wb = 8
	case p.g.Weights == nil:
		wb = 0
	}
	if p.opts.Float32 {
		db = 4
	}
	if p.opts.Method != EdgeSweep {
		return float64(r.ArcsScanned) * (4 + wb + db)
	}
	edges := float64(p.g.NumArcs() / 2) // the COO view's edges: each undirected pair once
	return float64(r.Iterations) * edges * (8 + wb + 2*db)
}

// BenchmarkGPU runs the study's four GPU variants and the modern ones
// (near-far, frontier) on R-MAT graphs (gen.RMAT(S, 16, gen.Seed(1)), float32 weights in
// [0, 1)) of scales 14..22 (24 with GRAPHNB_BENCH_LARGE=1), from
// GRAPHNB_BENCH_ROOTS roots (default 8; graph.Roots with seed 2). One op
// is a run from every root. Every run is checked (Check, parents computed
// on the host) before its figures count; a failed check fails the
// benchmark. The graph is built once per scale, prepared once per
// variant.
//
// Metrics, from the GPU-timed part of the runs (ns/op is wall time,
// validation included, and means little):
//
//	Garcs/s     stored arcs / time, mean over runs (the study's convention)
//	GTEPS_g500  component edges / time, harmonic mean (Graph500)
//	ms/sssp     mean GPU time per run
//	iters       mean launches that did work (edge sweep: every launch;
//	            frontier: rounds; near-far: rounds, settle steps, splits)
//	phases      near-far only: mean phases (far-pile splits + 1)
//	Garcs_scan  arcs scanned per run / 1e9 (work: compare the methods)
//	GB/s        modelBytes / time (see modelBytes for the model)
//	bw_frac     GB/s over the device's peak memory bandwidth
//	prep_ms     the preparation (COO, permutation, upload, module)
//
// Skipped without a GPU.
func BenchmarkGPU(b *testing.B) {
	dev := gpu.Default()
	if dev.IsHost() {
		b.Skip(gpu.DefaultReason())
	}
	info, err := dev.Info()
	if err != nil {
		b.Fatal(err)
	}
	roots := gpuBenchRoots(b)
	variants := append(SeedVariants(), ModernVariants()...)
	for _, scale := range gpuBenchScales() {
		var g *graph.CSR // built by the first sub-benchmark of the scale that runs
		var srcs []int32
		for _, v := range variants {
			b.Run(fmt.Sprintf("rmat_s%d/%s", scale, v.Slug()), func(b *testing.B) {
				if g == nil {
					var err error
					if g, err = gen.RMAT(scale, 16, gen.Seed(1)); err != nil {
						b.Fatal(err)
					}
					srcs = g.Roots(roots, 2)
				}
				o := v.Options
				o.Parents = true
				p, err := Prepare(dev, g, o)
				if err != nil {
					b.Fatal(err)
				}
				defer p.Close()
				var arcs, invG500, ms, iters, phases, scanned, bytes, secs float64
				runs := 0
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					for _, src := range srcs {
						r, err := p.Run(src)
						if err != nil {
							b.Fatal(err)
						}
						if err := Check(g, r); err != nil {
							b.Fatalf("%s from %d: the result fails the check, so its time does not count: %v", r.Algorithm, src, err)
						}
						runs++
						arcs += r.TEPS.ArcsPerSecond
						invG500 += 1 / r.TEPS.Graph500
						ms += r.Time.Seconds() * 1e3
						secs += r.Time.Seconds()
						iters += float64(r.Iterations)
						phases += float64(r.Phases)
						scanned += float64(r.ArcsScanned)
						bytes += modelBytes(p, r)
					}
				}
				n := float64(runs)
				b.ReportMetric(arcs/n/1e9, "Garcs/s")
				b.ReportMetric(n/invG500/1e9, "GTEPS_g500")
				b.ReportMetric(ms/n, "ms/sssp")
				b.ReportMetric(iters/n, "iters")
				if p.opts.Method == NearFar {
					b.ReportMetric(phases/n, "phases")
				}
				b.ReportMetric(scanned/n/1e9, "Garcs_scan")
				bw := bytes / secs
				b.ReportMetric(bw/1e9, "GB/s")
				if info.PeakBandwidth > 0 {
					b.ReportMetric(bw/info.PeakBandwidth, "bw_frac")
				}
				b.ReportMetric(p.PrepTime().Seconds()*1e3, "prep_ms")
			})
		}
		g = nil // let the collector have it before the next scale
	}
}

// envList parses a comma-separated list of numbers from the environment
// variable name, or returns def.
func envList(b *testing.B, name string, def []float64) []float64 {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	var out []float64
	for _, f := range strings.Split(v, ",") {
		x, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || !(x > 0) {
			b.Fatalf("%s=%q: want a comma-separated list of positive numbers", name, v)
		}
		out = append(out, x)
	}
	return out
}

// BenchmarkGPUNearFarTune sweeps the near-far method's knobs on one R-MAT
// graph, gen.RMAT(S, 16, gen.Seed(1)) (float32 weights in [0, 1)), with
// float64 distances, from GRAPHNB_BENCH_ROOTS roots (default 8; seed 2 as
// BenchmarkGPU): every combination of
//
//	GRAPHNB_BENCH_SCALE   S (default 22)
//	GRAPHNB_SSSP_FACTORS  Δ factors (default 2,4,8,16,32; the default Δ
//	                      is DefaultGPUDeltaFactor = 2)
//	GRAPHNB_SSSP_SLOTS    least slots (arcs) per warp and step, multiples
//	                      of 32 (default 32)
//	GRAPHNB_SSSP_BLOCKS   blocks per SM of the step kernel (default 0: as
//	                      many as fit at once, by the register count)
//	GRAPHNB_SSSP_BATCH    steps per read of the control words (default 16)
//
// plus the frontier method (Δ = +Inf) once, for comparison. Sub-benchmarks
// are named rmat_sS/fF_sL_bB_nN (frontier_sL_bB_nN), L the least slots. The first run of
// every combination must equal the first combination's distances bit for
// bit, and that one passes Check. One op is a run from every root;
// metrics as BenchmarkGPU's, plus
//
//	scan/M      arcs scanned per run over the stored arcs
//	rounds      light rounds per run (near queue not empty)
//	settles     settle steps per run (heavy arcs)
//	splits      far-pile splits per run
//	launches    step launches per run, idle ones included
//	lowered/N   successful relaxations per run over the vertices
//	delta       Δ (near-far)
//	regs        registers per thread of the step kernel
//	local_B     its local memory per thread (spills), bytes
//	blocks/SM   the step kernel's grid over the SMs
//
// Skipped without a GPU.
func BenchmarkGPUNearFarTune(b *testing.B) {
	dev := gpu.Default()
	if dev.IsHost() {
		b.Skip(gpu.DefaultReason())
	}
	scale := 22
	if v := os.Getenv("GRAPHNB_BENCH_SCALE"); v != "" {
		var err error
		if scale, err = strconv.Atoi(v); err != nil || scale < 1 || scale > 30 {
			b.Fatalf("GRAPHNB_BENCH_SCALE=%q: want a scale in 1..30", v)
		}
	}
	factors := envList(b, "GRAPHNB_SSSP_FACTORS", []float64{2, 4, 8, 16, 32})
	slots := envList(b, "GRAPHNB_SSSP_SLOTS", []float64{float64(nearFarTuning.minSlots)})
	blocks := []float64{float64(nearFarTuning.blocksPerSM)}
	if v := os.Getenv("GRAPHNB_SSSP_BLOCKS"); v != "" && v != "0" {
		blocks = envList(b, "GRAPHNB_SSSP_BLOCKS", nil)
	}
	batches := envList(b, "GRAPHNB_SSSP_BATCH", []float64{float64(nearFarTuning.batch)})
	saved := nearFarTuning
	defer func() { nearFarTuning = saved }()
	g, err := gen.RMAT(scale, 16, gen.Seed(1))
	if err != nil {
		b.Fatal(err)
	}
	srcs := g.Roots(gpuBenchRoots(b), 2)
	var want []float64 // the first run's distances, from srcs[0]
	for _, f := range append(factors, math.Inf(1)) {
		for _, sl := range slots {
			if int(sl)%32 != 0 {
				b.Fatalf("GRAPHNB_SSSP_SLOTS: %g is not a multiple of 32", sl)
			}
			for _, bl := range blocks {
				for _, ba := range batches {
					name := fmt.Sprintf("rmat_s%d/f%g_s%d_b%d_n%d", scale, f, int(sl), int(bl), int(ba))
					opts := Options{Method: NearFar, DeltaFactor: f}
					if math.IsInf(f, 1) {
						name = fmt.Sprintf("rmat_s%d/frontier_s%d_b%d_n%d", scale, int(sl), int(bl), int(ba))
						opts = Options{Method: Frontier}
					}
					b.Run(name, func(b *testing.B) {
						nearFarTuning.minSlots, nearFarTuning.blocksPerSM, nearFarTuning.batch = int(sl), int(bl), int(ba)
						benchNearFar(b, dev, g, srcs, opts, &want)
					})
				}
			}
		}
	}
}

// benchNearFar is one configuration of BenchmarkGPUNearFarTune.
func benchNearFar(b *testing.B, dev *gpu.Device, g *graph.CSR, srcs []int32, opts Options, want *[]float64) {
	p, err := Prepare(dev, g, opts)
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	r, err := p.Run(srcs[0])
	if err != nil {
		b.Fatal(err)
	}
	if *want == nil {
		full := *r
		if err := full.finish(g); err != nil {
			b.Fatal(err)
		}
		if err := Check(g, &full); err != nil {
			b.Fatalf("%s from %d: the result fails the check: %v", r.Algorithm, srcs[0], err)
		}
		*want = r.Dist
	} else if err := sameDist(r.Dist, *want); err != nil {
		b.Fatalf("%s from %d: differs from the first configuration: %v", r.Algorithm, srcs[0], err)
	}
	var arcs, ms, scanned, rounds, settles, splits, launches, lowered float64
	runs := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, src := range srcs {
			r, err := p.Run(src)
			if err != nil {
				b.Fatal(err)
			}
			runs++
			arcs += r.TEPS.ArcsPerSecond
			ms += r.Time.Seconds() * 1e3
			scanned += float64(r.ArcsScanned)
			st := p.last
			rounds += float64(st.rounds)
			settles += float64(st.settles)
			splits += float64(st.splits)
			launches += float64(st.launches)
			lowered += float64(st.lowered)
		}
	}
	n := float64(runs)
	b.ReportMetric(arcs/n/1e9, "Garcs/s")
	b.ReportMetric(ms/n, "ms/sssp")
	b.ReportMetric(scanned/n/float64(g.NumArcs()), "scan/M")
	b.ReportMetric(rounds/n, "rounds")
	b.ReportMetric(settles/n, "settles")
	b.ReportMetric(splits/n, "splits")
	b.ReportMetric(launches/n, "launches")
	b.ReportMetric(lowered/n/float64(g.NumVertices()), "lowered/N")
	if d := p.Delta(); !math.IsInf(d, 1) {
		b.ReportMetric(d, "delta")
	}
	b.ReportMetric(p.PrepTime().Seconds()*1e3, "prep_ms")
	if a, err := p.kStep.Attributes(); err == nil {
		b.ReportMetric(float64(a.Registers), "regs")
		b.ReportMetric(float64(a.LocalBytes), "local_B")
	}
	if info, err := dev.Info(); err == nil && info.SMs > 0 {
		b.ReportMetric(float64(p.grid)/float64(info.SMs), "blocks/SM")
	}
}

// BenchmarkGPUSweepResident measures a near-far sweep with parents on an
// R-MAT graph of scale GRAPHNB_BENCH_SCALE (default 22; gen.RMAT(S, 16,
// gen.Seed(1))) from GRAPHNB_BENCH_ROOTS roots (default 8; bench's
// sweep uses 16), both ways:
//
//   - prepare / prepare-resident: Prepare from the host CSR (lightFirst on
//     the host, upload) versus PrepareResident from the graph already on
//     the device (weight scan and light-first split by kernels), Close
//     included;
//   - run+check / run+check-resident: per root, Run (the result copied to
//     the host) and Check (copied back to the device and checked there)
//     versus RunOnDevice, CheckDevice and Close (nothing copied but
//     control words).
//
// ms/root is the time per root of the sweeps; run+check-resident splits
// it into search-ms/root (DeviceResult.Time), tree-ms/root (TreeTime:
// the parent tree from the distances) and check-ms/root (CheckDevice).
func BenchmarkGPUSweepResident(b *testing.B) {
	dev := gpuDevice(b)
	scale := 22
	if v := os.Getenv("GRAPHNB_BENCH_SCALE"); v != "" {
		s, err := strconv.Atoi(v)
		if err != nil || s < 1 || s > 30 {
			b.Fatalf("GRAPHNB_BENCH_SCALE=%q: want a scale in 1..30", v)
		}
		scale = s
	}
	g, err := gen.RMAT(scale, 16, gen.Seed(1))
	if err != nil {
		b.Fatal(err)
	}
	dg, err := dev.Upload(g)
	if err != nil {
		b.Fatal(err)
	}
	defer dg.Close()
	roots := g.Roots(gpuBenchRoots(b), 2)
	o := Options{Method: NearFar, Parents: true}
	b.Run(fmt.Sprintf("s%d/prepare", scale), func(b *testing.B) {
		for b.Loop() {
			p, err := Prepare(dev, g, o)
			if err != nil {
				b.Fatal(err)
			}
			p.Close()
		}
	})
	b.Run(fmt.Sprintf("s%d/prepare-resident", scale), func(b *testing.B) {
		for b.Loop() {
			p, err := PrepareResident(dg, o)
			if err != nil {
				b.Fatal(err)
			}
			p.Close()
		}
	})
	sweep := func(b *testing.B, p *Prepared, one func(src int32) error) {
		defer p.Close()
		start := time.Now()
		for b.Loop() {
			for _, src := range roots {
				if err := one(src); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(time.Since(start).Seconds()*1e3/float64(b.N*len(roots)), "ms/root")
	}
	b.Run(fmt.Sprintf("s%d/run+check", scale), func(b *testing.B) {
		p, err := Prepare(dev, g, o)
		if err != nil {
			b.Fatal(err)
		}
		sweep(b, p, func(src int32) error {
			r, err := p.Run(src)
			if err != nil {
				return err
			}
			return p.Check(r)
		})
	})
	b.Run(fmt.Sprintf("s%d/run+check-resident", scale), func(b *testing.B) {
		p, err := PrepareResident(dg, o)
		if err != nil {
			b.Fatal(err)
		}
		var search, tree, check time.Duration
		runs := 0
		sweep(b, p, func(src int32) error {
			r, err := p.RunOnDevice(src)
			if err != nil {
				return err
			}
			start := time.Now()
			err = p.CheckDevice(r)
			check += time.Since(start)
			search += r.Time
			tree += r.TreeTime
			runs++
			return errors.Join(err, r.Close())
		})
		perRun := func(d time.Duration) float64 { return d.Seconds() * 1e3 / float64(max(runs, 1)) }
		b.ReportMetric(perRun(search), "search-ms/root")
		b.ReportMetric(perRun(tree), "tree-ms/root")
		b.ReportMetric(perRun(check), "check-ms/root")
	})
}

// BenchmarkGPUTrace runs near-far on R-MAT scales 20 and 22 from 16
// roots, untraced and traced (Options.Trace: the step log) root after
// root (tracecost.Measure) on one prepared search: ms-off and ms-on a
// search (Result.Time), the trace's cost in percent, and the wall of
// each form (see measureTraceCost for the metrics). The first timed
// traced run's trace is logged (go test -v).
func BenchmarkGPUTrace(b *testing.B) {
	dev := gpu.Default()
	if dev.IsHost() {
		b.Skip(gpu.DefaultReason())
	}
	for _, scale := range []int{20, 22} {
		g, err := gen.RMAT(scale, 16, gen.Seed(1))
		if err != nil {
			b.Fatal(err)
		}
		srcs := g.Roots(16, 2)
		b.Run(fmt.Sprintf("rmat_s%d", scale), func(b *testing.B) {
			// One prepared search, traced or not run by run: two would
			// differ by where their buffers landed (a few percent).
			measureTraceCost(b, dev, g, srcs, Options{Method: NearFar, Parents: true}, true)
		})
	}
}

// BenchmarkGPUTraceStudy is BenchmarkGPUTrace for the study's edge sweep
// (its last edgeStampBlocks blocks stamping a sweep's end:
// GRAPHNB_SSSP_STAMP_BLOCKS in a test binary) and the frontier
// Bellman-Ford, on R-MAT scales 20 and 22 from
// 8 roots, untraced and traced root after root on one prepared search;
// the same metrics.
func BenchmarkGPUTraceStudy(b *testing.B) {
	dev := gpu.Default()
	if dev.IsHost() {
		b.Skip(gpu.DefaultReason())
	}
	for _, scale := range []int{20, 22} {
		g, err := gen.RMAT(scale, 16, gen.Seed(1))
		if err != nil {
			b.Fatal(err)
		}
		srcs := g.Roots(8, 2)
		for _, m := range []Method{EdgeSweep, Frontier} {
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
// step log made); logTrace logs the first timed traced run's trace (go
// test -v). Beside Measure's metrics (ms-off/sssp, ms-on/sssp, cost-%,
// cost-median-%: Result.Time) it reports tracecost.Wall's (wall_ms,
// wall_ms_traced, wall-cost-%, wall-cost-median-%: the wall time of
// Prepared.Run, the traced one with the reading of its log), each
// form's mean iterations a run
// (iters-off, iters-on: the edge sweep's sweeps, whose races make them
// vary from run to run) and time an iteration (us/iter-off, us/iter-on),
// which tell a trace that costs more work from one that makes the same
// work slower.
func measureTraceCost(b *testing.B, dev *gpu.Device, g *graph.CSR, srcs []int32, o Options, logTrace bool) {
	o.Trace = true
	p, err := Prepare(dev, g, o)
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	for _, traced := range []bool{false, true} {
		p.opts.Trace = traced
		if _, err := p.Run(srcs[0]); err != nil {
			b.Fatal(err)
		}
	}
	var iters [2]int64         // untraced, traced
	var times [2]time.Duration // likewise
	var wall tracecost.Wall
	b.ResetTimer()
	tracecost.Measure(b, len(srcs), "sssp", wall.Track(tracecost.Checked(b, logTrace, func(i int, traced bool) (time.Duration, *trace.Trace, error) {
		p.opts.Trace = traced
		t0 := time.Now()
		r, err := p.Run(srcs[i])
		wall.Add(time.Since(t0))
		if err != nil {
			return 0, nil, err
		}
		k := 0
		if traced {
			k = 1
		}
		iters[k] += int64(r.Iterations)
		times[k] += r.Time
		return r.Time, r.Trace, nil
	})))
	b.StopTimer()
	wall.Report(b)
	runs := float64(b.N * len(srcs))
	if b.Failed() || iters[0] == 0 || iters[1] == 0 {
		return
	}
	for k, form := range []string{"off", "on"} {
		b.ReportMetric(float64(iters[k])/runs, "iters-"+form)
		b.ReportMetric(times[k].Seconds()*1e6/float64(iters[k]), "us/iter-"+form)
	}
}

// checkBenchTrace runs measureTraceCost (BenchmarkGPUTrace's body) on dev
// for g from two roots with options o and requires its metrics, the
// wall's included.
func checkBenchTrace(t *testing.T, dev *gpu.Device, g *graph.CSR, o Options) {
	res := tracecost.CheckBench(t, func(b *testing.B) { measureTraceCost(b, dev, g, g.Roots(2, 2), o, false) },
		append([]string{"ms-off/sssp", "ms-on/sssp", "cost-%", "cost-median-%", "iters-off", "iters-on", "us/iter-off", "us/iter-on"},
			tracecost.WallMetrics...)...)
	if res.Extra["wall_ms"] <= 0 || res.Extra["wall_ms_traced"] <= 0 {
		t.Errorf("walls %v and %v ms a run", res.Extra["wall_ms"], res.Extra["wall_ms_traced"])
	}
}
