package densebf

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/graphnb/graphnb/algo/internal/tracecost"
	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/internal/cudasrc"
	"github.com/graphnb/graphnb/internal/fakegpu"
)

// ---- densebf.cu's two builds ----

// logArgs matches the launch log's entry arguments, ent and nxt.
var logArgs = regexp.MustCompile(`\b(ent|nxt)\b`)

// TestUntracedBuild checks that the untraced build of densebf.cu (what
// every untraced run launches) holds no trace code after the
// preprocessor: no launch log (llog_*, the GPU timer, the entries ent and
// nxt), no count of lowered distances (no atomic, no ballot, an empty
// Lowered and count functions that do nothing) — and that the traced
// build holds all of it, every kernel logging its span (the iteration
// kernels' ends in their report), the iteration kernels counting and
// the init kernels zeroing the counts. Both are what NVRTC compiles: the untraced source
// alone, the traced one after gpu.PrependLaunchLog with
// -DDENSEBF_TRACED=1.
func TestUntracedBuild(t *testing.T) {
	if kernelBuilds.Untraced.Source != kernelSource || len(kernelBuilds.Untraced.Options) != 0 {
		t.Fatalf("the untraced build compiles %d bytes with %d options; want densebf.cu alone, no option",
			len(kernelBuilds.Untraced.Source), len(kernelBuilds.Untraced.Options))
	}
	off := fakegpu.Preprocess(t, "densebf.cu", kernelBuilds.Untraced.Source)
	for _, s := range []string{"llog_", "globaltimer", "atomicAdd", "__ballot_sync", "__popc"} {
		if strings.Contains(off, s) {
			t.Errorf("the untraced build holds %q after the preprocessor: trace code outside #ifdef DENSEBF_TRACED", s)
		}
	}
	if m := logArgs.FindString(off); m != "" {
		t.Errorf("the untraced build names the log entry %q: its kernels must take the log's arguments unnamed", m)
	}
	for _, s := range []string{"struct Lowered {};", "void count_warp(Lowered, int, bool) {}", "void count_add(Lowered, int, int) {}",
		"void zero_counts(Lowered, int) {}"} {
		if !strings.Contains(off, s) {
			t.Errorf("the untraced build lacks %q: its count of lowered distances must be empty", s)
		}
	}

	if len(kernelBuilds.Traced.Options) != 1 || kernelBuilds.Traced.Source != gpu.PrependLaunchLog(kernelSource) {
		t.Fatalf("the traced build compiles %d bytes with %d options; want densebf.cu after the launch log header, -DDENSEBF_TRACED=1",
			len(kernelBuilds.Traced.Source), len(kernelBuilds.Traced.Options))
	}
	on := fakegpu.Preprocess(t, "densebf.cu", kernelBuilds.Traced.Source, "-DDENSEBF_TRACED=1")
	header := fakegpu.Preprocess(t, "launchlog.cuh", gpu.PrependLaunchLog(""))
	kernels := len(kernelNames())
	iterKernels := kernels - 2 // all but the two init kernels count
	for s, want := range map[string]int{
		// every kernel begins through log_hold; the init kernels end with
		// llog_end, the iteration kernels in report and report_count
		"log_hold(ent, nxt)": kernels, "llog_begin(ent, nxt)": 1, "llog_end(ent)": 2,
		"log_reported();": 2, "llog_end_synced(held_entry)": 1,
		"Lowered lowered":            2 + 1 + 3 + 2, // count_warp, count_add, zero_counts, the three methods, report, report_count
		"(lowered));":                iterKernels,
		"zero_counts((lowered), n);": 2, // the init kernels zero the counts
		"atomicAdd(lowered + iter,":  2,
	} {
		if got := strings.Count(on, s) - strings.Count(header, s); got != want {
			t.Errorf("the traced build holds %q %d times, want %d", s, got, want)
		}
	}
}

// TestKernelSourceSyntaxTraced is TestKernelSourceSyntax for the traced
// build: densebf.cu with -DDENSEBF_TRACED=1 after gpu/launchlog.cuh.
func TestKernelSourceSyntaxTraced(t *testing.T) {
	cudasrc.Syntax(t, "-Wextra", "-include", filepath.Join("testdata", "cuda_shim.h"),
		"-include", filepath.Join("..", "..", "gpu", "launchlog.cuh"), "-DDENSEBF_TRACED=1", "-x", "c++", "densebf.cu")
}

// checkTraceFlip runs one Prepared of every variant on every case on dev
// untraced, traced, untraced, traced (Options.Trace changed between
// runs, as BenchmarkGPUTrace does), prepared untraced and prepared
// traced: every run must equal the CPU's Run, have a trace only when
// traced (lowering what the CPU's traced iterations lower), and launch
// the kernels of its build (traced: the traced module, whose kernels
// count and log; untraced: the other).
func checkTraceFlip(t *testing.T, dev *gpu.Device, cases []gpuCase, variants []Variant) {
	for _, c := range cases {
		src := c.srcs[0]
		cpu, err := run(c.d, src, true)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range variants {
			for _, preparedTraced := range []bool{false, true} {
				o := v.Options
				o.Trace = preparedTraced
				p, err := Prepare(dev, c.d, o)
				if err != nil {
					t.Fatal(err)
				}
				for i, traced := range []bool{false, true, false, true} {
					what := fmt.Sprintf("%s/%s prepared traced %v, run %d traced %v", c.name, v.Slug(), preparedTraced, i, traced)
					p.opts.Trace = traced
					r, err := p.Run(src)
					if err != nil {
						t.Fatalf("%s: %v", what, err)
					}
					if err := sameResult(r, cpu); err != nil {
						t.Fatalf("%s: %v", what, err)
					}
					if (r.Trace != nil) != traced {
						t.Fatalf("%s: trace %v", what, r.Trace)
					}
					if traced {
						if got, want := stepsLowered(r), stepsLowered(cpu); fmt.Sprint(got) != fmt.Sprint(want) {
							t.Fatalf("%s: lowered %v per iteration, the CPU %v", what, got, want)
						}
						checkLaunches(t, what, p, r)
					}
					checkRunBuild(t, what, dev, p, traced)
				}
				if err := p.Close(); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}

// checkRunBuild requires p's kernels of the traced or the untraced build
// to come from that build's module, for the run just made.
func checkRunBuild(t *testing.T, what string, dev *gpu.Device, p *Prepared, traced bool) {
	t.Helper()
	mod, err := kernelBuilds.For(dev, traced)
	if err != nil {
		t.Fatal(err)
	}
	k, err := p.kernelsFor(traced)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []*gpu.Function{k.init, k.step} {
		if f.Module() != mod {
			t.Fatalf("%s: %s comes from %s, not %s", what, f.Name(), f.Module().Name(), mod.Name())
		}
	}
}

// TestGPUTraceFlip is checkTraceFlip on the GPU; it first logs the
// registers a thread of each kernel of either build takes (a trace's
// cost shows there first, and a build that fails the check still
// logs them) and fails when an iteration kernel's traced build fits
// fewer blocks an SM than its untraced one at a block size the host
// launches (128 to 1024 threads; registersBlocks), which cost
// BF_Reduce_Coarse 2.4–3.8% of a traced run at n = 8192 (38 registers
// against 32, H100) before log_hold became a call of its own.
func TestGPUTraceFlip(t *testing.T) {
	dev := gpuDevice(t)
	regs, err := kernelBuilds.Registers(dev, kernelNames())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("registers a thread, untraced/traced build: %s", regs)
	for _, name := range kernelNames() {
		if name == initKernel(false) || name == initKernel(true) {
			continue // once a run, on n threads: its registers do not matter
		}
		counts, err := kernelBuilds.RegisterCounts(dev, name)
		if err != nil {
			t.Fatal(err)
		}
		for _, threads := range []int{128, 256, 512, 1024} {
			if on, off := registersBlocks(counts[1], threads), registersBlocks(counts[0], threads); on < off {
				t.Errorf("%s takes %d registers a thread traced, %d untraced: %d blocks of %d threads fit an SM traced, %d untraced (see log_hold and the launch bounds in densebf.cu)",
					name, counts[1], counts[0], on, threads, off)
			}
		}
	}
	checkTraceFlip(t, dev, traceCases(t), SeedVariants())
}

// registersBlocks is how many blocks of threads threads fit an SM's
// 65,536 registers when a thread takes regs: a warp's registers are
// allocated in units of 256 (compute capability 7.0 to 9.0).
func registersBlocks(regs, threads int) int {
	perWarp := (regs*32 + 255) / 256 * 256
	return 65536 / (perWarp * ((threads + 31) / 32))
}

// checkBenchTrace runs BenchmarkGPUTrace's case (benchTrace) on dev for
// the study's three kernels on a small matrix: it must flip Options.Trace
// on its one Prepared, validate every run and report the trace's cost
// and the traced steps' bandwidth.
func checkBenchTrace(t *testing.T, dev *gpu.Device) {
	info, err := dev.Info()
	if err != nil {
		t.Fatal(err)
	}
	d := mustRandom(t, 40, 0.1, 100, 40, false)
	for _, v := range SeedVariants() {
		t.Run(v.Slug(), func(t *testing.T) {
			res := tracecost.CheckBench(t, func(b *testing.B) { benchTrace(b, dev, info, &references{d: d}, v.Options) },
				append([]string{"ms-off/bf", "ms-on/bf", "cost-%", "cost-median-%", "iters", "step_us", "GB/s"}, tracecost.WallMetrics...)...)
			if res.Extra["iters"] < 1 {
				t.Errorf("%v iterations a run", res.Extra["iters"])
			}
		})
	}
}

// TestRegistersBlocks checks registersBlocks against the H100 figures
// densebf.cu quotes: 32, 34, 38 and 56 registers a thread fit 8, 6, 6 and
// 4 blocks of 256 threads an SM (a thread's registers are allocated in
// eights).
func TestRegistersBlocks(t *testing.T) {
	for _, c := range []struct{ regs, threads, want int }{
		{32, 256, 8}, {34, 256, 6}, {38, 256, 6}, {56, 256, 4}, {64, 256, 4}, {32, 1024, 2}, {40, 512, 3},
	} {
		if got := registersBlocks(c.regs, c.threads); got != c.want {
			t.Errorf("registersBlocks(%d, %d) = %d, want %d", c.regs, c.threads, got, c.want)
		}
	}
}
