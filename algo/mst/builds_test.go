package mst

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/internal/fakegpu"
)

// ---- boruvka.cu's two builds ----

// traceIdent matches the trace's identifiers: the kernels' trace
// arguments (traced, the log entries ent and nxt), with the character
// before and after them (spaces aside).
var traceIdent = regexp.MustCompile(`(\S?)\s*\b(traced|ent|nxt)\b\s*(\S?)`)

// TestUntracedBuild checks that the untraced build of boruvka.cu (what
// every untraced run launches) holds no trace code after the
// preprocessor: no launch log (llog_*, the GPU timer), no trace counts
// (traced_add), and the kernels' trace arguments (traced, ent, nxt) only
// declared as parameters or handed on to probe and scan, never read —
// and that the traced build holds all of it, every kernel logging its
// span. Both are what NVRTC compiles: the untraced source alone, the
// traced one after gpu.PrependLaunchLog with -DMST_TRACED=1.
func TestUntracedBuild(t *testing.T) {
	if kernelBuilds.Untraced.Source != kernelSource || len(kernelBuilds.Untraced.Options) != 0 {
		t.Fatalf("the untraced build compiles %d bytes with %d options; want boruvka.cu alone, no option",
			len(kernelBuilds.Untraced.Source), len(kernelBuilds.Untraced.Options))
	}
	off := fakegpu.Preprocess(t, "boruvka.cu", kernelBuilds.Untraced.Source)
	for _, s := range []string{"llog_", "globaltimer", "traced_add", "atomicAdd(traced"} {
		if strings.Contains(off, s) {
			t.Errorf("the untraced build holds %q after the preprocessor: trace code outside #ifdef MST_TRACED", s)
		}
	}
	for _, m := range traceIdent.FindAllStringSubmatch(off, -1) {
		before, name, after := m[1], m[2], m[3]
		param := before == "*" && (after == "," || after == ")")        // u64 *traced,
		handed := name == "traced" && before == "," && after == ","     // probe<…>(…, traced, ng, …)
		handedLast := name == "traced" && before == "," && after == ")" // scan<…>(…, traced)
		if !param && !handed && !handedLast {
			t.Errorf("the untraced build uses %s in %q: trace code outside #ifdef MST_TRACED", name, strings.TrimSpace(m[0]))
		}
	}

	on := fakegpu.Preprocess(t, "boruvka.cu", gpu.PrependLaunchLog(kernelSource), "-DMST_TRACED=1")
	kernels := len(kernelNames())
	header := fakegpu.Preprocess(t, "launchlog.cuh", gpu.PrependLaunchLog(""))
	for s, want := range map[string]int{"llog_begin(ent, nxt)": kernels, "llog_end(ent)": kernels, "traced_add(traced,": 2} {
		if got := strings.Count(on, s) - strings.Count(header, s); got != want {
			t.Errorf("the traced build calls %s %d times, want %d", s, got, want)
		}
	}
	if len(kernelBuilds.Traced.Options) != 1 || kernelBuilds.Traced.Source != gpu.PrependLaunchLog(kernelSource) {
		t.Errorf("the traced build compiles %d bytes with %d options; want boruvka.cu after the launch log header, -DMST_TRACED=1",
			len(kernelBuilds.Traced.Source), len(kernelBuilds.Traced.Options))
	}
}

// checkTraceFlip runs one Prepared of g on dev untraced, traced,
// untraced, traced (Options.Trace changed between runs, as
// BenchmarkGPUTrace does): every run must give the first's forest, a
// trace only when traced, and launch the kernels of its build (traced:
// the traced module, whose kernels log; untraced: the other).
func checkTraceFlip(t *testing.T, dev *gpu.Device, g *graph.CSR) {
	for _, v := range testVariants() {
		p, err := Prepare(dev, g, v.Options)
		if err != nil {
			t.Fatal(err)
		}
		var first *Result
		for i, traced := range []bool{false, true, false, true} {
			p.opts.Trace = traced
			r, err := p.Run()
			if err != nil {
				t.Fatalf("%s, run %d (traced %v): %v", v.Label, i, traced, err)
			}
			if first == nil {
				first = r
			}
			if (r.Trace != nil) != traced || !slices.Equal(r.Edges, first.Edges) || r.Trees != first.Trees || r.Iterations != first.Iterations {
				t.Fatalf("%s, run %d (traced %v): %d edges, %d trees, %d rounds, trace %v; first run %d, %d, %d",
					v.Label, i, traced, len(r.Edges), r.Trees, r.Iterations, r.Trace != nil, len(first.Edges), first.Trees, first.Iterations)
			}
			checkRunBuild(t, v.Label, dev, p, traced)
		}
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// checkRunBuild requires p's last run to have launched the kernels of
// the traced or the untraced build, all from that build's module.
func checkRunBuild(t *testing.T, what string, dev *gpu.Device, p *Prepared, traced bool) {
	t.Helper()
	mod, err := kernelBuilds.For(dev, traced)
	if err != nil {
		t.Fatal(err)
	}
	k := p.k
	for _, f := range []*gpu.Function{k.init, k.reset, k.probe, k.scan, k.merge, k.minEdge, k.hook, k.cycles, k.jump, k.renumber, k.relabel} {
		if f.Module() != mod {
			t.Fatalf("%s (traced %v): %s comes from %s, not %s", what, traced, f.Name(), f.Module().Name(), mod.Name())
		}
	}
}

// TestGPUTraceFlip is checkTraceFlip on the GPU; it also logs the
// registers a thread of each kernel of either build takes.
func TestGPUTraceFlip(t *testing.T) {
	dev := gpuDevice(t)
	checkTraceFlip(t, dev, traceGraph(t, 14))
	regs, err := kernelBuilds.Registers(dev, kernelNames())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("registers a thread, untraced/traced build: %s", regs)
}
