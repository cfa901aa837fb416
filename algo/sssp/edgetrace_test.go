package sssp

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/internal/cudasrc"
)

// GRAPHNB_SSSP_STAMP_BLOCKS sets edgeStampBlocks in a test binary (a
// positive count of blocks), so that one GPU call measures several
// (BenchmarkGPUTraceStudy); a test only, not an option of the package.
func init() {
	v := os.Getenv("GRAPHNB_SSSP_STAMP_BLOCKS")
	if v == "" {
		return
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		fmt.Fprintf(os.Stderr, "GRAPHNB_SSSP_STAMP_BLOCKS=%q: want a positive count of blocks (the default is %d)\n", v, edgeStampBlocks)
		os.Exit(2)
	}
	edgeStampBlocks = n
}

// checkEdgeTraceRuns traces the edge sweep on dev in every switch
// (checkEdgeTraceLaunches), from one Prepared per switch: traced,
// untraced (no trace), traced again (the log's ring and the host's
// buffers reused); then a traced run that fails after its second sweep,
// followed by one that must trace its own launches only. It runs with
// the last block alone stamping a sweep's end (edgeStampBlocks 1), so
// that a small graph's sweeps have blocks that do not, and with
// edgeStampBlocks as it is (on a small graph: every block stamps).
func checkEdgeTraceRuns(t *testing.T, dev *gpu.Device, g *graph.CSR) {
	defer func(old int) { edgeStampBlocks = old }(edgeStampBlocks)
	for _, stamps := range []int{1, edgeStampBlocks} {
		edgeStampBlocks = stamps
		for _, o := range []Options{{Parents: true}, {Parents: true, TextureCache: true}, {Parents: true, Permute: true, Float32: true}} {
			t.Run(fmt.Sprintf("stamps_%d/%s", stamps, strings.ReplaceAll(o.Label(), " ", "_")), func(t *testing.T) {
				o.Trace = true
				p, err := Prepare(dev, g, o)
				if err != nil {
					t.Fatal(err)
				}
				defer p.Close()
				for i, traced := range []bool{true, false, true} {
					p.opts.Trace = traced
					r, err := p.Run(0)
					if err != nil {
						t.Fatal(err)
					}
					what := fmt.Sprintf("run %d traced %v", i, traced)
					if err := p.Check(r); err != nil {
						t.Fatalf("%s: %v", what, err)
					}
					if (r.Trace != nil) != traced {
						t.Fatalf("%s: trace %v", what, r.Trace)
					}
					if traced {
						checkEdgeTraceLaunches(t, what, p, g, r)
					}
				}
				checkEdgeTraceFailure(t, p, g)
			})
		}
	}
}

// checkEdgeTraceLaunches requires a traced edge sweep's launches to be
// the logged kernels': the init launch (step -1) and one per sweep, in
// order, each with a time (on the fake driver, the emulator's clock)
// that its step takes too, and the byte model; the steps count what
// checkEdgeTrace requires. On a real GPU the trace must also pass
// Trace.Check: launch and step times within the run's.
func checkEdgeTraceLaunches(t *testing.T, what string, p *Prepared, g *graph.CSR, r *Result) {
	t.Helper()
	tr := r.Trace
	what = fmt.Sprintf("%s, %d blocks stamping", what, edgeStampBlocks)
	initName, stepName := p.kInitLog.Name(), p.kStepLog.Name()
	if len(tr.Launches) != r.Iterations+1 || len(tr.Steps) != r.Iterations {
		t.Fatalf("%s: %d launches and %d steps for %d sweeps", what, len(tr.Launches), len(tr.Steps), r.Iterations)
	}
	for i, l := range tr.Launches {
		name := stepName
		if i == 0 {
			name = initName
		}
		if l.Name != name || l.Step != i-1 || l.Time <= 0 || l.Grid[0] == 0 || l.Block[0] != blockSize {
			t.Fatalf("%s: launch %d: %+v, want %s of step %d with a time", what, i, l, name, i-1)
		}
		if bytes, gather := p.edgeSweepBytes(i == 0); l.Bytes != bytes || l.Gather != gather {
			t.Fatalf("%s: launch %d moves %d bytes, %d gathered; the model says %d, %d", what, i, l.Bytes, l.Gather, bytes, gather)
		}
		if i > 0 && tr.Steps[i-1].Time != l.Time {
			t.Fatalf("%s: step %d takes %v, its launch %v", what, i-1, tr.Steps[i-1].Time, l.Time)
		}
	}
	if !strings.Contains(p.Device().Name(), "Fake") {
		if err := tr.Check(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	rr := *r
	rr.Trace = tr.Untimed()
	checkEdgeTrace(t, what, g, &rr)
	for i, s := range tr.Steps {
		if s.Updated > p.coo.Edges {
			t.Fatalf("%s: sweep %d lowered %d distances with %d edges (counts not zeroed?)", what, i, s.Updated, p.coo.Edges)
		}
	}
}

// TestEdgeStampFrom requires the logged sweep's first stamping block to
// leave edgeStampBlocks blocks stamping, or every block of a smaller
// grid.
func TestEdgeStampFrom(t *testing.T) {
	defer func(old int) { edgeStampBlocks = old }(edgeStampBlocks)
	edgeStampBlocks = 8192
	for _, c := range []struct{ blocks, want int }{{1, 0}, {8192, 0}, {8193, 1}, {262144, 253952}} {
		if got := edgeStampFrom(c.blocks); got != c.want {
			t.Errorf("edgeStampFrom(%d) = %d with %d blocks stamping, want %d", c.blocks, got, edgeStampBlocks, c.want)
		}
	}
}

// checkEdgeTraceFailure runs a traced edge sweep of p whose host loop
// fails after its second sweep, as a device error or an interrupt would,
// and requires the next traced run to trace its own launches only (the
// failed run's were dropped) and count its own distances only.
func checkEdgeTraceFailure(t *testing.T, p *Prepared, g *graph.CSR) {
	t.Helper()
	p.opts.Trace = true
	b, err := p.takeBufs()
	if err != nil {
		t.Fatal(err)
	}
	run, err := p.tracedEdgeRun(b.dist)
	if err != nil {
		t.Fatal(err)
	}
	read := run.read
	boom := errors.New("boom")
	run.read = func(iter int) (bool, error) {
		if _, err := read(iter); err != nil || iter == 2 {
			return false, errors.Join(err, boom)
		}
		return true, nil
	}
	_, err = p.Device().Time(func(th *gpu.Thread) error {
		_, err := p.edgeSweeps(th, 0, run)
		return err
	})
	if _, lerr := p.edgeLaunches(err); !errors.Is(err, boom) || lerr != nil {
		t.Fatalf("the failing run: %v; its launches: %v", err, lerr)
	}
	if err := p.putBufs(b); err != nil {
		t.Fatal(err)
	}
	r, err := p.Run(0)
	if err != nil {
		t.Fatal(err)
	}
	checkEdgeTraceLaunches(t, "the run after a failed one", p, g, r)
}

// TestGPUEdgeTrace is checkEdgeTraceRuns on the GPU; it first logs
// the registers a thread of each study kernel and of its logged copy
// takes (more registers, fewer blocks an SM: where a logged copy's cost
// would show first).
func TestGPUEdgeTrace(t *testing.T) {
	dev := gpuDevice(t)
	regs, err := edgeRegisters(dev)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("registers a thread, study kernel/logged copy: %s", regs)
	checkEdgeTraceRuns(t, dev, traceGraph(t, 14))
}

// edgeRegisters lists the registers a thread of each edge sweep kernel
// and of its logged copy takes on dev, "name study/logged" joined by
// ", ".
func edgeRegisters(dev *gpu.Device) (string, error) {
	mod, err := deviceModule(dev)
	if err != nil {
		return "", err
	}
	var line []string
	for _, name := range kernelNames() {
		if !strings.HasPrefix(name, "sssp_edge_") || strings.HasSuffix(name, "_log") {
			continue
		}
		var regs [2]int
		for i, n := range []string{name, edgeLogKernel(name)} {
			f, err := mod.Function(n)
			if err != nil {
				return "", err
			}
			a, err := f.Attributes()
			if err != nil {
				return "", err
			}
			regs[i] = a.Registers
		}
		line = append(line, fmt.Sprintf("%s %d/%d", name, regs[0], regs[1]))
	}
	return strings.Join(line, ", "), nil
}

// studyKernelsEnd ends the study's kernels in sssp.cu: the logged
// copies follow.
const studyKernelsEnd = "// ---- 1b."

// studyTokens returns the code of sssp.cu's study kernels (from the
// file's start to studyKernelsEnd: the types, helpers and kernels the
// untraced edge sweep launches), comments left out and tokens one space
// apart.
func studyTokens(t *testing.T, src string) string {
	end := strings.Index(src, studyKernelsEnd)
	if end < 0 {
		t.Fatalf("sssp.cu has no %q line", studyKernelsEnd)
	}
	return strings.Join(strings.Fields(cudasrc.Code(src[:end])), " ") + "\n"
}

// TestStudyKernelsPinned requires the study's kernels in sssp.cu, which
// untraced edge sweeps launch, to be testdata/study_kernels.golden token
// for token: the code they had before the traced runs launched logged
// copies (issue 18: they are the figure to reproduce, and untraced runs
// must run as fast as they did). With GRAPHNB_UPDATE_GOLDEN=1 it rewrites
// the file, for a change to the kernels that is meant.
func TestStudyKernelsPinned(t *testing.T) {
	got := studyTokens(t, kernelSource)
	path := filepath.Join("testdata", "study_kernels.golden")
	if os.Getenv("GRAPHNB_UPDATE_GOLDEN") == "1" {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		i := 0
		for i < min(len(got), len(want)) && got[i] == want[i] {
			i++
		}
		t.Errorf("sssp.cu's study kernels differ from %s at byte %d: %q, want %q "+
			"(the untraced edge sweep must keep their code; GRAPHNB_UPDATE_GOLDEN=1 rewrites the file for a change that is meant)",
			path, i, got[i:min(len(got), i+80)], string(want[i:min(len(want), i+80)]))
	}
}
