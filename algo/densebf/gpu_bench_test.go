package densebf

import (
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/graphnb/graphnb/algo/internal/tracecost"
	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph"
)

// gpuBenchSizes are the study's vertex counts, 256..8192 (powers of two),
// and 16384 with GRAPHNB_BENCH_LARGE=1.
func gpuBenchSizes() []int {
	var s []int
	for n := 256; n <= 8192; n *= 2 {
		s = append(s, n)
	}
	if os.Getenv("GRAPHNB_BENCH_LARGE") == "1" {
		s = append(s, 16384)
	}
	return s
}

// gpuBenchDevice returns the GPU of the benchmarks and its description;
// it skips the benchmark without a GPU.
func gpuBenchDevice(b *testing.B) (*gpu.Device, gpu.Info) {
	dev := gpu.Default()
	if dev.IsHost() {
		b.Skip(gpu.DefaultReason())
	}
	info, err := dev.Info()
	if err != nil {
		b.Fatal(err)
	}
	return dev, info
}

// gpuBenchSources is GRAPHNB_BENCH_ROOTS sources (default 4), spread over
// the vertices.
func gpuBenchSources(b *testing.B, n int) []int32 {
	k := 4
	if v := os.Getenv("GRAPHNB_BENCH_ROOTS"); v != "" {
		var err error
		if k, err = strconv.Atoi(v); err != nil || k < 1 {
			b.Fatalf("GRAPHNB_BENCH_ROOTS=%q: want a positive number of sources", v)
		}
	}
	srcs := make([]int32, 0, k)
	for i := range k {
		srcs = append(srcs, int32((i*n)/k+i)%int32(n))
	}
	return srcs
}

// benchMatrix is the study's input: a random matrix (edge probability
// 0.1, weights 1..100) of n vertices, int32 or float32.
func benchMatrix(b *testing.B, n int, integer bool) *graph.Dense {
	d, err := RandomDense(n, 0.1, 100, uint64(n), integer)
	if err != nil {
		b.Fatal(err)
	}
	return d
}

// references validates results: the first result from each source is
// checked with Check (O(N²) per source), later ones, of any variant, must
// equal it exactly (the methods compute the CPU's Dist, Parents and
// Iterations bit for bit).
type references struct {
	d    *graph.Dense
	want map[int32]*Result
}

func (rf *references) validate(b *testing.B, r *Result) {
	if rf.want == nil {
		rf.want = map[int32]*Result{}
	}
	w := rf.want[r.Source]
	if w == nil {
		b.StopTimer()
		if err := Check(rf.d, r.Source, r); err != nil {
			b.Fatalf("%s from %d: the result fails the check, so its time does not count: %v", r.Algorithm, r.Source, err)
		}
		rf.want[r.Source] = r
		b.StartTimer()
		return
	}
	if err := sameResult(r, w); err != nil {
		b.Fatalf("%s from %d differs from the checked result of %s: %v", r.Algorithm, r.Source, w.Algorithm, err)
	}
}

// runAll runs p from every source, b.N times, validating each result
// with ref and handing it to add.
func runAll(b *testing.B, p *Prepared, srcs []int32, ref *references, add func(*Result)) {
	for range b.N {
		for _, src := range srcs {
			r, err := p.Run(src)
			if err != nil {
				b.Fatal(err)
			}
			ref.validate(b, r)
			add(r)
		}
	}
}

// benchStats accumulates the runs of one sub-benchmark.
type benchStats struct {
	runs                   int
	secs, secsCopies, iter float64
	bytes                  float64 // matrix bytes read: N²·4 per iteration
}

func (s *benchStats) add(r *Result, n int) {
	s.runs++
	s.secs += r.Time.Seconds()
	s.secsCopies += (r.Time + r.CopyTime).Seconds()
	s.iter += float64(r.Iterations)
	s.bytes += float64(r.Iterations) * float64(n) * float64(n) * 4
}

// report writes the metrics common to the GPU benchmarks.
func (s *benchStats) report(b *testing.B, p *Prepared, peak float64) {
	k := float64(s.runs)
	b.ReportMetric(s.secs/k*1e3, "ms")
	b.ReportMetric(s.secsCopies/k*1e3, "ms_copies")
	b.ReportMetric(s.iter/k, "iters")
	bw := s.bytes / s.secs
	b.ReportMetric(bw/1e9, "GB/s")
	if peak > 0 {
		b.ReportMetric(bw/peak, "bw_frac")
	}
	b.ReportMetric(float64(p.GroupSize()), "M")
	b.ReportMetric(p.PrepTime().Seconds()*1e3, "prep_ms")
}

// BenchmarkGPU measures the study's figure: BF_Naive, BF_Reduce and
// BF_Reduce_Coarse (default options) on random matrices of n = 256..8192
// vertices (16384 with GRAPHNB_BENCH_LARGE=1; edge probability 0.1,
// weights 1..100, RandomDense seeded with n), float32 and int32, from
// GRAPHNB_BENCH_ROOTS sources (default 4). One op is a run from every
// source. Each variant is prepared once per matrix; results are validated
// (see references) outside the timed part.
//
// Metrics (ns/op is wall time and means little):
//
//	ms          mean kernel time per run (Result.Time: CUDA events)
//	ms_copies   mean Result.Time + CopyTime: with the matrix upload and the
//	            results download, the study's measure
//	iters       mean iterations (the last changed nothing)
//	GB/s        matrix bytes read (4·N² per iteration) / kernel time:
//	            σ's reads (cached) and the flag reads are not counted
//	bw_frac     GB/s over the device's peak memory bandwidth
//	x_naive     BF_Naive's mean kernel time / this variant's (the study's
//	            speedup; needs the BF_Naive sub-benchmark of the same
//	            matrix to have run first, as it does unless filtered out)
//	x_naive_copies  the same with the copies
//	M           the group size (0 for BF_Naive)
//	prep_ms     the preparation (transposition, upload, module load)
//
// Skipped without a GPU.
func BenchmarkGPU(b *testing.B) {
	dev, info := gpuBenchDevice(b)
	for _, kind := range []string{"f32", "i32"} {
		for _, n := range gpuBenchSizes() {
			var ref references // the matrix is made by the first sub-benchmark that runs
			var naive, naiveCopies float64
			for _, v := range SeedVariants() {
				b.Run(fmt.Sprintf("n%d_%s/%s", n, kind, v.Slug()), func(b *testing.B) {
					if ref.d == nil {
						ref.d = benchMatrix(b, n, kind == "i32")
					}
					srcs := gpuBenchSources(b, n)
					p, err := Prepare(dev, ref.d, v.Options)
					if err != nil {
						b.Fatal(err)
					}
					defer p.Close()
					var st benchStats
					b.ResetTimer()
					runAll(b, p, srcs, &ref, func(r *Result) { st.add(r, n) })
					st.report(b, p, info.PeakBandwidth)
					mean, meanCopies := st.secs/float64(st.runs), st.secsCopies/float64(st.runs)
					if p.Options().Method == Naive {
						naive, naiveCopies = mean, meanCopies
					}
					if naive > 0 {
						b.ReportMetric(naive/mean, "x_naive")
						b.ReportMetric(naiveCopies/meanCopies, "x_naive_copies")
					}
				})
			}
			ref = references{} // let the collector have the matrix before the next size
		}
	}
}

// BenchmarkGPUGroupSize sweeps M, the group size of BF_Reduce and
// BF_Reduce_Coarse (with 16-byte and with scalar loads), over 32..1024 on
// float32 random matrices of 1024 and 8192 vertices, from
// GRAPHNB_BENCH_ROOTS sources (default 4), each M in the blocks of its
// default G (BenchmarkGPUShape sweeps G too). Metrics as BenchmarkGPU's.
// Skipped without a GPU.
func BenchmarkGPUGroupSize(b *testing.B) {
	dev, info := gpuBenchDevice(b)
	for _, n := range []int{1024, 8192} {
		var ref references
		for _, base := range []Options{
			{Method: Reduce},
			{Method: ReduceCoarse},
			{Method: ReduceCoarse, ScalarLoads: true},
		} {
			for m := 32; m <= MaxGroupSize; m *= 2 {
				opts := base
				opts.GroupSize = m
				v := Variant{opts.Label(), opts}
				b.Run(fmt.Sprintf("n%d_f32/%s", n, v.Slug()), func(b *testing.B) {
					if ref.d == nil {
						ref.d = benchMatrix(b, n, false)
					}
					srcs := gpuBenchSources(b, n)
					p, err := Prepare(dev, ref.d, v.Options)
					if err != nil {
						b.Fatal(err)
					}
					defer p.Close()
					var st benchStats
					b.ResetTimer()
					runAll(b, p, srcs, &ref, func(r *Result) { st.add(r, n) })
					st.report(b, p, info.PeakBandwidth)
				})
			}
		}
	}
}

// BenchmarkGPUTrace measures what Options.Trace costs (issue 17: at most
// 2%): the study's three kernels (default options) on float32 random
// matrices of 1024 and 8192 vertices (and 16384 with
// GRAPHNB_BENCH_LARGE=1), each prepared once and run untraced (the
// untraced build of densebf.cu) and traced (the traced build: counts and
// the launch log) from each of GRAPHNB_BENCH_ROOTS sources (default 4),
// the two forms in alternating order (tracecost.Measure) on the one
// Prepared, Options.Trace flipped between runs: two preparations would
// differ by where their buffers landed. A first untraced and traced run
// (each build loaded, the log's ring made) precede the timed ones.
// Results are validated as BenchmarkGPU's.
//
// Metrics (means per run; ns/op means little):
//
//	ms-off/bf, ms-on/bf      Result.Time untraced and traced (CUDA events
//	                         around the run), tracecost.Measure's
//	cost-%, cost-median-%    the trace's cost (tracecost.Measure)
//	wall_ms, wall_ms_traced  wall time of Prepared.Run (the traced one
//	                         with its reading of the log and counts;
//	                         not the validation), tracecost.Wall's
//	wall-cost-%,             the trace's cost to the wall: 100·(traced
//	wall-cost-median-%       ÷ untraced − 1) of the means, and the
//	                         median over the pairs
//	iters                    iterations
//	step_us                  traced steps' mean time (their launches'
//	                         spans in the launch log)
//	GB/s                     BytesPerIteration / step time: the achieved
//	                         bandwidth of an iteration
//	bw_frac                  GB/s over the device's peak memory bandwidth
//
// Skipped without a GPU. On the GPU machine, in algo/densebf:
//
//	./algo_densebf.test -test.run '^$' -test.bench GPUTrace -test.benchtime 20x
func BenchmarkGPUTrace(b *testing.B) {
	dev, info := gpuBenchDevice(b)
	sizes := []int{1024, 8192}
	if os.Getenv("GRAPHNB_BENCH_LARGE") == "1" {
		sizes = append(sizes, 16384)
	}
	for _, n := range sizes {
		var ref references
		for _, v := range SeedVariants() {
			b.Run(fmt.Sprintf("n%d_f32/%s", n, v.Slug()), func(b *testing.B) {
				if ref.d == nil {
					ref.d = benchMatrix(b, n, false)
				}
				benchTrace(b, dev, info, &ref, v.Options)
			})
		}
		ref = references{}
	}
}

// benchTrace is one BenchmarkGPUTrace case: the matrix ref.d, options o.
func benchTrace(b *testing.B, dev *gpu.Device, info gpu.Info, ref *references, o Options) {
	n := ref.d.N
	srcs := gpuBenchSources(b, n)
	p, err := Prepare(dev, ref.d, o)
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	for _, traced := range []bool{false, true} { // load both builds, make the log
		p.opts.Trace = traced
		r, err := p.Run(srcs[0])
		if err != nil {
			b.Fatal(err)
		}
		ref.validate(b, r)
	}
	var runs, iters, steps int
	var wall tracecost.Wall
	var stepT time.Duration
	b.ResetTimer()
	tracecost.Measure(b, len(srcs), "bf", wall.Track(func(i int, traced bool) (time.Duration, error) {
		p.opts.Trace = traced
		t0 := time.Now()
		r, err := p.Run(srcs[i])
		wall.Add(time.Since(t0))
		if err != nil {
			return 0, err
		}
		if (r.Trace != nil) != traced {
			return 0, fmt.Errorf("traced %v but trace %v", traced, r.Trace)
		}
		ref.validate(b, r)
		if !traced {
			return r.Time, nil
		}
		runs++
		iters += r.Iterations
		steps += len(r.Trace.Steps)
		stepT += r.Trace.StepTime()
		return r.Time, nil
	}))
	b.StopTimer()
	wall.Report(b)
	if runs == 0 {
		return
	}
	k := float64(runs)
	b.ReportMetric(float64(iters)/k, "iters")
	step := stepT.Seconds() / float64(steps)
	b.ReportMetric(step*1e6, "step_us")
	bw := float64(BytesPerIteration(n, o)) / step
	b.ReportMetric(bw/1e9, "GB/s")
	if info.PeakBandwidth > 0 {
		b.ReportMetric(bw/info.PeakBandwidth, "bw_frac")
	}
}
