package apsp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph"
)

// The GPU benchmarks skip without a CUDA device. The study's figure
// (docs/studies.md §4): time of the plain and blocked GPU methods on rome99 and
// on random graphs of 4096, 8192 and 16384 vertices, and an out-of-core
// run on a matrix larger than the memory cap. On the GPU machine:
//
//	./apsp.test -test.run '^$' -test.bench 'GPU' -test.benchtime 1x
//
// GRAPHNB_BENCH_APSP_N="4096,8192" picks the random sizes;
// GRAPHNB_BENCH_APSP_CAP (bytes) the cap of BenchmarkGPUOutOfCore
// (default: a quarter of what the matrix needs in core).

// benchSizes is GRAPHNB_BENCH_APSP_N, else 4096, 8192 and 16384.
func benchSizes(b *testing.B) []int {
	v := os.Getenv("GRAPHNB_BENCH_APSP_N")
	if v == "" {
		return []int{4096, 8192, 16384}
	}
	var out []int
	for _, f := range strings.Split(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			b.Fatalf("GRAPHNB_BENCH_APSP_N=%q: want sizes like 4096,8192", v)
		}
		out = append(out, n)
	}
	return out
}

// benchSizesOr is GRAPHNB_BENCH_APSP_N, else n alone.
func benchSizesOr(b *testing.B, n int) []int {
	if os.Getenv("GRAPHNB_BENCH_APSP_N") != "" {
		return benchSizes(b)
	}
	return []int{n}
}

// gpuBenchMatrix is the random graph of the benchmarks: n vertices, each
// arc present with probability 8/n (average out-degree 8), int32 weights
// 1..1000. Floyd-Warshall's work does not depend on the density.
func gpuBenchMatrix(n int) *graph.Dense {
	return randDense(rand.New(rand.NewPCG(uint64(n), 3)), n, 8/float64(n), true, ints(1, 1000))
}

// benchGPURun prepares v on d once, then runs it b.N times, reporting the
// GPU time without copies ("s_gpu"), with copies ("s_copies"), and the
// updates per second (N³ / GPU time, "Gupd/s"). The first result is
// checked (Check on 8 rows, after the timed part).
func benchGPURun(b *testing.B, dev *gpu.Device, d *graph.Dense, opts Options) {
	p, err := Prepare(dev, d, opts)
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	var gpuTime, withCopies time.Duration
	b.ResetTimer()
	for i := range b.N {
		r, err := p.Run()
		if err != nil {
			b.Fatal(err)
		}
		gpuTime += r.Time
		withCopies += r.Time + r.CopyTime
		if i == 0 {
			b.StopTimer()
			if r.Parents != nil {
				if err := Check(d, r, 8, 1); err != nil {
					b.Fatalf("%s: %v", r.Algorithm, err)
				}
			}
			b.Logf("%s: %v", p, r)
			b.StartTimer()
		}
	}
	n := float64(d.N)
	sec := gpuTime.Seconds() / float64(b.N)
	b.ReportMetric(sec, "s_gpu")
	b.ReportMetric(withCopies.Seconds()/float64(b.N), "s_copies")
	b.ReportMetric(n*n*n/sec/1e9, "Gupd/s")
}

// gpuBenchVariants are the study's curves and the blocked method's
// tiles and switches.
func gpuBenchVariants(n int) []Variant {
	vs := []Variant{}
	if n <= 8192 { // the plain method is O(n³) memory traffic: minutes beyond
		vs = append(vs, Variant{"plain", Options{Method: PlainGPU}})
	}
	for _, tile := range []int{32, 64} {
		vs = append(vs, Variant{fmt.Sprintf("blocked_t%d", tile), Options{Method: BlockedGPU, Tile: tile}})
	}
	for _, tile := range []int{32, 64} {
		vs = append(vs, Variant{fmt.Sprintf("blocked_t%d_distances_only", tile), Options{Method: BlockedGPU, Tile: tile, DistancesOnly: true}})
	}
	return vs
}

// BenchmarkGPURome99 runs the study's road graph (3353 vertices; the
// study: sequential 61.7 s, plain GPU 60.6 s, blocked GPU 11.9 s on a
// Tesla T10).
func BenchmarkGPURome99(b *testing.B) {
	dev := gpu.Default()
	if dev.IsHost() {
		b.Skip(gpu.DefaultReason())
	}
	d, err := readDIMACS(rome99)
	if err != nil {
		b.Fatal(err)
	}
	for _, v := range gpuBenchVariants(d.N) {
		b.Run(v.Label, func(b *testing.B) { benchGPURun(b, dev, d, v.Options) })
	}
}

// BenchmarkGPURandom runs random graphs of 4096, 8192 and 16384 vertices
// (the study's 12529-vertex neuron graph lies between the last two).
func BenchmarkGPURandom(b *testing.B) {
	dev := gpu.Default()
	if dev.IsHost() {
		b.Skip(gpu.DefaultReason())
	}
	for _, n := range benchSizes(b) {
		d := gpuBenchMatrix(n)
		for _, v := range gpuBenchVariants(n) {
			b.Run(fmt.Sprintf("n%d/%s", n, v.Label), func(b *testing.B) { benchGPURun(b, dev, d, v.Options) })
		}
	}
}

// BenchmarkGPUOutOfCore runs the out-of-core method on random graphs with
// a memory cap below what the matrix needs in core (GRAPHNB_BENCH_APSP_CAP
// bytes, else a quarter of it), beside the in-core blocked method on the
// same matrix.
func BenchmarkGPUOutOfCore(b *testing.B) {
	dev := gpu.Default()
	if dev.IsHost() {
		b.Skip(gpu.DefaultReason())
	}
	for _, n := range benchSizes(b) {
		d := gpuBenchMatrix(n)
		capBytes := benchCap(b, n)
		b.Run(fmt.Sprintf("n%d/in_core", n), func(b *testing.B) { benchGPURun(b, dev, d, Options{Method: BlockedGPU}) })
		b.Run(fmt.Sprintf("n%d/cap_%dMiB", n, capBytes>>20), func(b *testing.B) {
			benchGPURun(b, dev, d, Options{Method: OutOfCoreGPU, MemoryCap: capBytes})
		})
	}
}

// benchCap is the out-of-core benchmarks' memory cap for n vertices:
// GRAPHNB_BENCH_APSP_CAP bytes, else a quarter of what the blocked method
// needs in core.
func benchCap(b *testing.B, n int) int64 {
	if v := os.Getenv("GRAPHNB_BENCH_APSP_CAP"); v != "" {
		c, err := strconv.ParseInt(v, 10, 64)
		if err != nil || c <= 0 {
			b.Fatalf("GRAPHNB_BENCH_APSP_CAP=%q: want bytes", v)
		}
		return c
	}
	return inCoreBytes(n, roundUp(n, DefaultGPUTile), 2) / 4
}

// BenchmarkGPUProducts runs the blocked method at n = 16384
// (GRAPHNB_BENCH_APSP_N) for issue 18's figure: the benchmarks' random
// graph as int32 and as float32 (the same whole-number weights), with
// predecessors and distances only, tiles 32 and 64; on a device with DPX
// the int32 runs also with the generic products (dpxOff), for the
// comparison in one process. Metrics as benchGPURun's.
//
// The runs with predecessors rebuild them from the distances where
// Prepare chooses it (these matrices are sparse: BenchmarkGPURebuild
// compares both ways). Before the rebuild, on an H100 (issue 18), n =
// 16384, s_gpu: int32 tile 64 1.10 s with predecessors, 0.44 s distances
// only (main before: 1.53 s and 0.52 s;
// tile 32: 1.10 s and 0.65 s); float32 tile 64 1.09 s and 0.51 s (main:
// 1.30 s and 0.82 s). The generic int32 products time as the DPX ones:
// NVRTC 13 compiles both to the same VIADDMNMX, or VIMNMX, ISETP, SEL.
func BenchmarkGPUProducts(b *testing.B) {
	dev := gpu.Default()
	if dev.IsHost() {
		b.Skip(gpu.DefaultReason())
	}
	for _, n := range benchSizesOr(b, 16384) {
		di := gpuBenchMatrix(n)
		df := float32Copy(di)
		for _, c := range []struct {
			name    string
			d       *graph.Dense
			generic bool
		}{{"int32", di, false}, {"float32", df, false}, {"int32_generic", di, true}} {
			for _, tile := range []int{32, 64} {
				for _, dOnly := range []bool{false, true} {
					what := "pred"
					if dOnly {
						what = "distances_only"
					}
					o := Options{Method: BlockedGPU, Tile: tile, DistancesOnly: dOnly}
					b.Run(fmt.Sprintf("n%d/%s/t%d/%s", n, c.name, tile, what), func(b *testing.B) {
						dpxOff = c.generic
						defer func() { dpxOff = false }()
						benchGPURun(b, dev, c.d, o)
					})
				}
			}
		}
	}
}

// float32Copy is the int32 matrix d as float32 (graph.InfI32 as +Inf).
func float32Copy(d *graph.Dense) *graph.Dense {
	f := graph.NewDenseF32(d.N)
	for k, w := range d.I32 {
		if w >= graph.InfI32 {
			f.F32[k] = float32(math.Inf(1))
		} else {
			f.F32[k] = float32(w)
		}
	}
	return f
}

// BenchmarkGPURebuild compares, for issue 18, the predecessors rebuilt
// from the distances (the default on these sparse matrices) with the
// products that keep them (PredecessorsInProduct), at n = 16384
// (GRAPHNB_BENCH_APSP_N), int32 and float32 (the same whole weights),
// tile 64, beside the int32 distances-only products (float32's are
// BenchmarkGPUProducts'). "rebuild" is Prepare's choice of kernel,
// "rebuild_grid", "rebuild_rows2", "rebuild_warp2" … each kernel forced
// (rebuildForce; see rebuildPlans). Metrics as benchGPURun's, and for
// the rebuilds the CSR's and the rebuild's kernel times of one traced
// run (ms_csr, ms_rebuild).
//
// On an H100 (issue 18), n = 16384, s_gpu: int32 products with
// predecessors 1.095 s (main's BenchmarkGPUProducts in the same call:
// 1.095 s), distances only 0.437 s (main 0.437 s), rebuilt 0.459 s with
// a block per row in fw_rebuild (CSR 1.7 ms, rebuild 20.0 ms) and, from
// an earlier call, a CSR of 1.7 ms and a rebuild of 12.3 ms with fw.cu's
// grid-stride fw_rebuild (so about 0.451 s); float32 products with
// predecessors 1.080 s, rebuilt 0.531 s (rebuild about 20 ms either
// way). Later, with the staged kernels (one call, 2 runs each): rebuild
// (Prepare's choice, fw_rebuild_warp with 2 rows of 1024 threads) CSR
// 1.69 ms, rebuild 7.15 ms, s_gpu 0.4490 s; rebuild_grid 12.26 ms,
// 0.4542 s.
func BenchmarkGPURebuild(b *testing.B) {
	dev := gpu.Default()
	if dev.IsHost() {
		b.Skip(gpu.DefaultReason())
	}
	for _, n := range benchSizesOr(b, 16384) {
		di := gpuBenchMatrix(n)
		for _, c := range []struct {
			name string
			d    *graph.Dense
		}{{"int32", di}, {"float32", float32Copy(di)}} {
			type variant struct {
				name  string
				o     Options
				force rebuildPlan
			}
			variants := []variant{{name: "t64/rebuild", o: Options{Method: BlockedGPU, Tile: 64}}}
			for _, f := range rebuildPlans() {
				variants = append(variants, variant{"t64/rebuild_" + f.String(), Options{Method: BlockedGPU, Tile: 64}, f})
			}
			variants = append(variants,
				variant{name: "t64/pred_in_product", o: Options{Method: BlockedGPU, Tile: 64, PredecessorsInProduct: true}},
				variant{name: "t64/distances_only", o: Options{Method: BlockedGPU, Tile: 64, DistancesOnly: true}})
			for _, v := range variants {
				if v.o.DistancesOnly && c.name != "int32" {
					continue
				}
				b.Run(fmt.Sprintf("n%d/%s/%s", n, c.name, v.name), func(b *testing.B) {
					defer withRebuildPlan(v.force)()
					benchGPURun(b, dev, c.d, v.o)
					if !v.o.DistancesOnly && !v.o.PredecessorsInProduct {
						reportRebuildTimes(b, dev, c.d, v.o)
					}
				})
			}
		}
	}
}

// reportRebuildTimes runs o traced once on d and reports its CSR
// kernels' and its rebuild's times (ms_csr, ms_rebuild), and logs the
// rebuild's kernel.
func reportRebuildTimes(b *testing.B, dev *gpu.Device, d *graph.Dense, o Options) {
	o.Trace = true
	p, err := Prepare(dev, d, o)
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	r, err := p.Run()
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("%s: rebuild kernel %v, %d threads per block", r.Algorithm, p.rebuildPlan, p.k.rebuildBlock)
	var csr, rebuild time.Duration
	for _, l := range r.Trace.Launches {
		switch {
		case strings.HasPrefix(l.Name, "fw_csr"):
			csr += l.Time
		case strings.HasPrefix(l.Name, "fw_rebuild"):
			rebuild += l.Time
		}
	}
	if rebuild == 0 {
		b.Fatalf("%s: no rebuild launch traced", r.Algorithm)
	}
	b.ReportMetric(csr.Seconds()*1e3, "ms_csr")
	b.ReportMetric(rebuild.Seconds()*1e3, "ms_rebuild")
}

// BenchmarkGPURebuildDensity finds where the rebuild stops paying: at
// n = 8192 (GRAPHNB_BENCH_APSP_N), random matrices of average degree 128
// to 512 (density 1/64 to 1/16), int32 and float32, rebuilt (the
// density limits lifted) against the products with predecessors, tile
// 64 both.
func BenchmarkGPURebuildDensity(b *testing.B) {
	dev := gpu.Default()
	if dev.IsHost() {
		b.Skip(gpu.DefaultReason())
	}
	savedI, savedF := rebuildMaxDensityI32, rebuildMaxDensityF32
	rebuildMaxDensityI32, rebuildMaxDensityF32 = 1, 1
	defer func() { rebuildMaxDensityI32, rebuildMaxDensityF32 = savedI, savedF }()
	for _, n := range benchSizesOr(b, 8192) {
		for _, deg := range []int{128, 256, 512} {
			di := randDense(rand.New(rand.NewPCG(uint64(n), uint64(deg))), n, float64(deg)/float64(n), true, ints(1, 1000))
			for _, c := range []struct {
				name string
				d    *graph.Dense
			}{{"int32", di}, {"float32", float32Copy(di)}} {
				for _, old := range []bool{false, true} {
					what := "rebuild"
					if old {
						what = "pred_in_product"
					}
					o := Options{Method: BlockedGPU, Tile: 64, PredecessorsInProduct: old}
					b.Run(fmt.Sprintf("n%d/deg%d/%s/%s", n, deg, c.name, what), func(b *testing.B) { benchGPURun(b, dev, c.d, o) })
				}
			}
		}
	}
}
