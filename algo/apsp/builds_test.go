package apsp

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/graphnb/graphnb/algo/internal/tracecost"
	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/internal/fakegpu"
)

// ---- fw.cu's two builds ----

// logEntries matches the launch log's entry arguments, ent and nxt.
var logEntries = regexp.MustCompile(`\b(ent|nxt)\b`)

// unloggedKernels are fw.cu's kernels that take no launch log entries:
// the download's compaction and the out-of-core kernels.
var unloggedKernels = []string{"fw_compact", "fw_copy", "fw_mp_i32", "fw_mp_f32"}

// TestUntracedBuild checks that the untraced build of fw.cu (what every
// untraced and every out-of-core run launches) holds no trace code after
// the preprocessor: no launch log (llog_*, the GPU timer), no entry
// named (ent, nxt: its kernels take the log's arguments unnamed) — and
// that the traced build logs every kernel but unloggedKernels, once at
// its start and once at its end. Both are what NVRTC compiles: fw.cu
// alone with the configuration's options, the traced build after
// gpu.PrependLaunchLog with FW_TRACED=1 too.
func TestUntracedBuild(t *testing.T) {
	for _, cfg := range []config{{tile: 64, pred: true, dpx: true}, {tile: 32, pred: true, hops: true, neg: true}, {tile: 16}} {
		name, src := cfg.source()
		if name != "fw.cu" || src != kernelSource {
			t.Fatalf("%+v: the untraced build compiles %s (%d bytes); want fw.cu alone", cfg, name, len(src))
		}
		traced := cfg
		traced.traced = true
		if got, want := len(traced.compileOptions()), len(cfg.compileOptions())+1; got != want {
			t.Fatalf("%+v: the traced build has %d compile options, want the untraced %d and FW_TRACED", cfg, got, want-1)
		}
		if name, src := traced.source(); name != "fw.cu (traced)" || src != gpu.PrependLaunchLog(kernelSource) {
			t.Fatalf("%+v: the traced build compiles %s (%d bytes); want fw.cu after the launch log header", cfg, name, len(src))
		}
		defines := []string{fmt.Sprintf("-DFW_TILE=%d", cfg.tile), "-DFW_PRED=" + bit(cfg.pred), "-DFW_HOPS=" + bit(cfg.hops),
			"-DFW_NEG=" + bit(cfg.neg), "-DFW_DPX=" + bit(cfg.dpx)}
		off := fakegpu.Preprocess(t, "fw.cu", kernelSource, defines...)
		for _, s := range []string{"llog_", "globaltimer", "atomicMax"} {
			if strings.Contains(off, s) {
				t.Errorf("%+v: the untraced build holds %q after the preprocessor: trace code outside #if FW_TRACED", cfg, s)
			}
		}
		if m := logEntries.FindString(off); m != "" {
			t.Errorf("%+v: the untraced build names the log entry %q: its kernels must take the log's arguments unnamed", cfg, m)
		}
		on := fakegpu.Preprocess(t, "fw.cu", gpu.PrependLaunchLog(kernelSource), append(defines, "-DFW_TRACED=1")...)
		header := fakegpu.Preprocess(t, "launchlog.cuh", gpu.PrependLaunchLog(""))
		logged := len(kernelNames()) - len(unloggedKernels)
		for _, s := range []string{"llog_begin(ent, nxt);", "llog_end(ent);"} {
			if got := strings.Count(on, s) - strings.Count(header, s); got != logged {
				t.Errorf("%+v: the traced build calls %s %d times, want %d (every kernel but %v)", cfg, s, got, logged, unloggedKernels)
			}
		}
	}
}

// flipVariants are the in-core methods checkTraceFlip runs, and one
// streamed out of core (its kernels the untraced build's either way).
func flipVariants(tile int) []traceVariant {
	return slices.Concat(traceVariants(tile)[:2], traceVariants(tile)[3:4])
}

// checkTraceFlip runs one Prepared of every variant on every case on dev
// untraced, traced, untraced, traced (Options.Trace changed between
// runs, as BenchmarkGPUTrace does), prepared untraced and prepared
// traced: every run must give the first run's result, have a trace only
// when traced, agreeing with the run (checkRunTrace, on the Prepared
// that ran: the hop tie-break's fallback where one was made), and in
// core launch the kernels of its build (traced: the traced module's,
// whose kernels log; untraced and out of core: the other's).
func checkTraceFlip(t *testing.T, dev *gpu.Device, cases []gpuCase, variants []traceVariant) {
	for _, c := range cases {
		for _, v := range variants {
			for _, preparedTraced := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%s/prepared_traced_%v", c.name, v.name, preparedTraced), func(t *testing.T) {
					if v.force[0] > 0 {
						defer forcePlan(v.force[0], v.force[1])()
					}
					o := v.opts
					o.Trace = preparedTraced
					p, err := Prepare(dev, c.d, o)
					if err != nil {
						t.Fatal(err)
					}
					defer p.Close()
					if inCore := p.ooc == nil; (p.kt != nil) != (preparedTraced && inCore) {
						t.Fatalf("prepared traced %v, in core %v: traced kernels loaded %v", preparedTraced, inCore, p.kt != nil)
					}
					var first *Result
					for i, traced := range []bool{false, true, false, true} {
						p.opts.Trace = traced
						r, err := p.Run()
						if err != nil {
							t.Fatalf("run %d (traced %v): %v", i, traced, err)
						}
						what := fmt.Sprintf("%s, run %d (traced %v)", r.Algorithm, i, traced)
						if first == nil {
							first = r
						}
						sameResult(t, what, r, first)
						if (r.Trace != nil) != traced {
							t.Fatalf("%s: trace %v", what, r.Trace)
						}
						ran := p
						if p.fallback != nil {
							ran = p.fallback
						}
						if traced {
							checkRunTrace(t, what, ran, c.d, r)
						}
						checkRunBuild(t, what, dev, ran, traced)
					}
				})
			}
		}
	}
}

// checkRunBuild requires p's kernels to come from the untraced build of
// its configuration and, after a traced in-core run, its traced kernels
// from the traced build.
func checkRunBuild(t *testing.T, what string, dev *gpu.Device, p *Prepared, traced bool) {
	t.Helper()
	sets := []*kernels{p.k}
	if traced && p.ooc == nil {
		sets = append(sets, p.kt)
	}
	for i, k := range sets {
		cfg := p.cfg
		cfg.traced = i == 1
		mod, err := deviceModule(dev, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if k == nil {
			t.Fatalf("%s: the kernels of the build traced %v are not loaded", what, cfg.traced)
		}
		for _, f := range []*gpu.Function{k.init, k.plain, k.phase1, k.phase2, k.phase3, k.csrCount, k.csrScan, k.csrFill, k.rebuild, k.rebuildRows, k.rebuildWarp} {
			if f.Module() != mod {
				t.Fatalf("%s: %s comes from %s, not the build traced %v (%s)", what, f.Name(), f.Module().Name(), cfg.traced, mod.Name())
			}
		}
	}
}

// flipCases are checkTraceFlip's matrices: traceMatrices's (with
// predecessors, float32, and a sparse one whose predecessors are
// rebuilt) and zero weights, whose predecessors may form a cycle on a
// tie (the hop tie-break's fallback then runs).
func flipCases(small bool) []gpuCase {
	return append(traceMatrices(small), specialCases(small)[0])
}

// checkBenchTrace runs BenchmarkGPUTrace's case (benchTrace) on dev for
// the blocked, plain and (streamed) out-of-core methods on a small
// matrix: it must flip Options.Trace on its one Prepared and report the
// trace's cost and the rounds.
func checkBenchTrace(t *testing.T, dev *gpu.Device) {
	d := traceMatrices(true)[0].d
	for _, v := range flipVariants(16) {
		t.Run("bench_"+v.name, func(t *testing.T) {
			if v.force[0] > 0 {
				defer forcePlan(v.force[0], v.force[1])()
			}
			res := tracecost.CheckBench(t, func(b *testing.B) { benchTrace(b, dev, d, v.opts) },
				append([]string{"ms-off/run", "ms-on/run", "cost-%", "cost-median-%", "rounds"}, tracecost.WallMetrics...)...)
			if res.Extra["rounds"] < 1 {
				t.Errorf("%v rounds a run", res.Extra["rounds"])
			}
		})
	}
}

// TestGPUTraceFlip is checkTraceFlip on the GPU; it also logs the
// registers a thread of each kernel of either build takes (the default
// configuration with predecessors, int32).
func TestGPUTraceFlip(t *testing.T) {
	dev := requireGPU(t)
	checkTraceFlip(t, dev, flipCases(false), flipVariants(DefaultGPUTile))
	in, err := dev.Info()
	if err != nil {
		t.Fatal(err)
	}
	var line []string
	for _, name := range kernelNames() {
		regs := [2]int{}
		for b := range regs {
			m, err := deviceModule(dev, config{tile: DefaultGPUTile, pred: true, dpx: hasDPX(in), traced: b == 1})
			if err != nil {
				t.Fatal(err)
			}
			f, err := m.Function(name)
			if err != nil {
				t.Fatal(err)
			}
			a, err := f.Attributes()
			if err != nil {
				t.Fatal(err)
			}
			regs[b] = a.Registers
		}
		line = append(line, fmt.Sprintf("%s %d/%d", name, regs[0], regs[1]))
	}
	t.Logf("registers a thread, untraced/traced build: %s", strings.Join(line, ", "))
}
