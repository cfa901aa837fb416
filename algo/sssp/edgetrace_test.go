package sssp

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph"
)

// GRAPHNB_SSSP_EDGE_TRACE picks the form of traced edge sweeps in a test
// binary (edgeTrace): log (the default), events or uncounted, so that
// one GPU call measures them side by side (BenchmarkGPUTraceStudy).
func init() {
	v := os.Getenv("GRAPHNB_SSSP_EDGE_TRACE")
	if v == "" {
		return
	}
	for _, f := range edgeTraceForms {
		if f.String() == v {
			edgeTrace = f
			return
		}
	}
	fmt.Fprintf(os.Stderr, "GRAPHNB_SSSP_EDGE_TRACE=%q: want one of %v\n", v, edgeTraceForms)
	os.Exit(2)
}

// edgeTraceForms are the forms of traced edge sweeps.
var edgeTraceForms = []edgeTraceForm{edgeTraceLog, edgeTraceEvents, edgeTraceUncounted}

// withEdgeTrace runs f with edgeTrace set to form.
func withEdgeTrace(form edgeTraceForm, f func()) {
	defer func(old edgeTraceForm) { edgeTrace = old }(edgeTrace)
	edgeTrace = form
	f()
}

// checkEdgeTraceForms traces the edge sweep on dev in every form and
// switch (checkEdgeTraceLaunches), from one Prepared per switch: traced,
// untraced (no trace), traced again (the log's ring, the events and the
// host's buffers reused); then a traced run that fails after its second
// sweep, followed by one that must trace its own launches only.
func checkEdgeTraceForms(t *testing.T, dev *gpu.Device, g *graph.CSR) {
	for _, form := range edgeTraceForms {
		for _, o := range []Options{{Parents: true}, {Parents: true, TextureCache: true}, {Parents: true, Permute: true, Float32: true}} {
			t.Run(fmt.Sprintf("%v/%s", form, strings.ReplaceAll(o.Label(), " ", "_")), func(t *testing.T) {
				withEdgeTrace(form, func() {
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
			})
		}
	}
}

// checkEdgeTraceLaunches requires a traced edge sweep's launches to be
// its form's: the init launch (step -1) and one per sweep, in order, of
// the kernels the form launches (the logged copies, or the study's own
// with events), each with a time (on the fake driver, events measure
// 2.5 ms and the log the emulator's clock) that its step takes too, and
// the byte model; the steps count what checkEdgeTrace requires (the
// uncounted form: nothing). On a real GPU the trace must also pass
// Trace.Check: launch and step times within the run's.
func checkEdgeTraceLaunches(t *testing.T, what string, p *Prepared, g *graph.CSR, r *Result) {
	t.Helper()
	tr := r.Trace
	what = fmt.Sprintf("%s, form %v", what, edgeTrace)
	initName, stepName := p.kInitLog.Name(), p.kStepLog.Name()
	if edgeTrace == edgeTraceEvents {
		initName, stepName = p.kInit.Name(), p.kStep.Name()
	}
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
	if edgeTrace != edgeTraceUncounted {
		rr := *r
		rr.Trace = tr.Untimed()
		checkEdgeTrace(t, what, g, &rr)
		for i, s := range tr.Steps {
			if s.Updated > p.coo.Edges {
				t.Fatalf("%s: sweep %d lowered %d distances with %d edges (counts not zeroed?)", what, i, s.Updated, p.coo.Edges)
			}
		}
		return
	}
	for i, s := range tr.Steps {
		if s.Kind != "sweep" || s.Inspected != g.NumArcs() || s.Updated != 0 {
			t.Fatalf("%s: sweep %d: %+v, want the arcs tested and no count", what, i, s)
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
	run, err := p.tracedEdgeRun(edgeTrace, b.dist)
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
	if _, lerr := p.edgeLaunches(edgeTrace, err); !errors.Is(err, boom) || lerr != nil {
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

// TestGPUEdgeTraceForms is checkEdgeTraceForms on the GPU.
func TestGPUEdgeTraceForms(t *testing.T) { checkEdgeTraceForms(t, gpuDevice(t), traceGraph(t, 14)) }
