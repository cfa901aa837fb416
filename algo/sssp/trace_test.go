package sssp

import (
	"strings"
	"testing"

	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/graph/gen"
)

// checkEdgeTrace requires a traced edge sweep's trace to agree with its
// result: one "sweep" step per iteration, each testing every edge's two
// arcs, the last lowering nothing and the others something, at least one
// lowering per reached vertex but the source.
func checkEdgeTrace(t *testing.T, what string, g *graph.CSR, r *Result) {
	t.Helper()
	tr := r.Trace
	if err := tr.Check(); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if len(tr.Steps) != r.Iterations || tr.Algorithm != r.Algorithm || tr.Time != r.Time {
		t.Fatalf("%s: %d steps for %d sweeps, %q for %q, time %v for %v", what, len(tr.Steps), r.Iterations, tr.Algorithm, r.Algorithm, tr.Time, r.Time)
	}
	var lowered int64
	for i, s := range tr.Steps {
		last := i == len(tr.Steps)-1
		if s.Kind != "sweep" || s.Inspected != g.NumArcs() || (s.Updated == 0) != last {
			t.Fatalf("%s: sweep %d of %d: %+v (the graph has %d arcs)", what, i, len(tr.Steps), s, g.NumArcs())
		}
		lowered += s.Updated
	}
	if lowered < r.Reached-1 {
		t.Fatalf("%s: %d distances lowered for %d vertices reached", what, lowered, r.Reached)
	}
}

// checkTraceOn traces the edge sweep (every switch) on dev and requires
// checkEdgeTrace of each (on the fake driver, whose events all measure
// 2.5 ms, without the times); untraced runs and the other methods have
// no trace.
func checkTraceOn(t *testing.T, dev *gpu.Device, g *graph.CSR) {
	fake := strings.Contains(dev.Name(), "Fake")
	for _, o := range []Options{{Trace: true, Parents: true}, {Trace: true, Parents: true, TextureCache: true}, {Trace: true, Parents: true, Permute: true, Float32: true}} {
		p, err := Prepare(dev, g, o)
		if err != nil {
			t.Fatal(err)
		}
		for range 2 { // the second reuses the timer's events
			r, err := p.Run(0)
			if err != nil {
				t.Fatal(err)
			}
			if err := p.Check(r); err != nil {
				t.Fatal(err)
			}
			if fake {
				rr := *r
				rr.Trace = r.Trace.Untimed()
				r = &rr
			} else if !dev.IsHost() && len(r.Trace.Launches) != r.Iterations+1 {
				t.Fatalf("%d launches traced for %d sweeps", len(r.Trace.Launches), r.Iterations)
			}
			checkEdgeTrace(t, p.Label(), g, r)
		}
		p.Close()
	}
	for _, o := range []Options{{Parents: true}, {Parents: true, Trace: true, Method: NearFar}} {
		r, err := Run(dev, g, 0, o)
		if err != nil {
			t.Fatal(err)
		}
		if r.Trace != nil {
			t.Fatalf("%+v: a trace", o)
		}
	}
}

// The host device's stand-in traces its CPU sweeps.
func TestTraceHost(t *testing.T) { checkTraceOn(t, gpu.Host(), traceGraph(t, 9)) }

func TestGPUTrace(t *testing.T) { checkTraceOn(t, gpuDevice(t), traceGraph(t, 16)) }

func traceGraph(t *testing.T, scale int) *graph.CSR {
	g, err := gen.RMAT(scale, 8, gen.Seed(5))
	if err != nil {
		t.Fatal(err)
	}
	return g
}
