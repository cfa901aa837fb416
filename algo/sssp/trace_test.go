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
// checkEdgeTrace of each (on the fake driver, whose launch log reads the
// emulator's clock, without the times), then near-far (float64 and float32, a Δ
// small enough for settles and splits) and the frontier method, each
// with the untraced run's distances and checkNearFarTrace (on the host:
// the stand-in's sweeps); untraced runs have no trace.
func checkTraceOn(t *testing.T, dev *gpu.Device, g *graph.CSR) {
	fake := strings.Contains(dev.Name(), "Fake")
	for _, o := range []Options{{Trace: true, Parents: true}, {Trace: true, Parents: true, TextureCache: true}, {Trace: true, Parents: true, Permute: true, Float32: true}} {
		p, err := Prepare(dev, g, o)
		if err != nil {
			t.Fatal(err)
		}
		for range 2 { // the second reuses the launch log's ring
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
			for _, l := range r.Trace.Launches {
				if min := p.coo.Edges * 16; l.Step >= 0 && (l.Bytes < min || l.Gather <= 0 || l.Gather > l.Bytes/2) {
					t.Fatalf("sweep launch %+v: want at least %d bytes (16 a COO edge)", l, min)
				}
			}
			checkEdgeTrace(t, p.Label(), g, r)
		}
		p.Close()
	}
	if r, err := Run(dev, g, 0, Options{Parents: true}); err != nil || r.Trace != nil {
		t.Fatalf("untraced: a trace, or %v", err)
	}
	// A search prepared untraced traces a run once Options.Trace is set
	// (the edge sweep's counts are made then).
	p, err := Prepare(dev, g, Options{Parents: true})
	if err != nil {
		t.Fatal(err)
	}
	p.opts.Trace = true
	r, err := p.Run(0)
	if err != nil {
		t.Fatal(err)
	}
	if fake {
		rr := *r
		rr.Trace = r.Trace.Untimed()
		r = &rr
	}
	checkEdgeTrace(t, "prepared untraced, run traced", g, r)
	p.Close()
	for _, o := range []Options{{Method: NearFar}, {Method: NearFar, Float32: true}, {Method: Frontier}, {Method: NearFar, DeltaFactor: 0.5}} {
		o.Parents = true
		p, err := Prepare(dev, g, o)
		if err != nil {
			t.Fatal(err)
		}
		plain, err := p.Run(0)
		if err != nil {
			t.Fatal(err)
		}
		if plain.Trace != nil {
			t.Fatalf("%s untraced: a trace", p.Label())
		}
		p.Close()
		o.Trace = true
		if p, err = Prepare(dev, g, o); err != nil {
			t.Fatal(err)
		}
		for range 2 { // the second reuses the step log
			r, err := p.Run(0)
			if err != nil {
				t.Fatal(err)
			}
			if err := p.Check(r); err != nil {
				t.Fatal(err)
			}
			if err := sameDist(r.Dist, plain.Dist); err != nil {
				t.Fatalf("%s: traced and untraced runs differ: %v", p.Label(), err)
			}
			if dev.IsHost() {
				checkEdgeTrace(t, p.Label(), g, r)
				continue
			}
			checkNearFarTrace(t, p, r, fake)
		}
		p.Close()
	}
}

// checkNearFarTrace requires a traced near-far or frontier run's trace to
// agree with its result and counters: a step per light round, settle
// step and split, the first the source's light round; arcs relaxed
// summing to ArcsScanned and lowered distances to the run's count; a
// launch per step with its step's time. On the fake driver, whose events
// all measure 2.5 ms, the run's time is not compared with the steps'
// (which the emulator's clock gives).
func checkNearFarTrace(t *testing.T, p *Prepared, r *Result, fake bool) {
	t.Helper()
	tr, what := r.Trace, p.Label()
	checked := tr
	if fake {
		checked = tr.Untimed()
	}
	if err := checked.Check(); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if tr.Algorithm != r.Algorithm || tr.Time != r.Time || tr.Arcs != p.g.NumArcs() {
		t.Fatalf("%s: trace of %q, %v, %d arcs; result %q, %v, graph %d arcs", what, tr.Algorithm, tr.Time, tr.Arcs, r.Algorithm, r.Time, p.g.NumArcs())
	}
	kinds := map[string]int{}
	var lowered int64
	for i, s := range tr.Steps {
		kinds[s.Kind]++
		lowered += s.Updated
		if s.Time <= 0 || s.Frontier <= 0 || !strings.HasPrefix(s.Why, "T ") {
			t.Fatalf("%s: step %d: %+v", what, i, s)
		}
		if s.Kind == "split" && (s.Inspected != 0 || s.FrontierArcs != 0) || s.Kind != "split" && s.FrontierArcs == 0 {
			t.Fatalf("%s: step %d: %+v (a split relaxes nothing; a round or settle has slots)", what, i, s)
		}
	}
	if len(tr.Steps) == 0 || tr.Steps[0].Kind != "light" || tr.Steps[0].Frontier != 1 {
		t.Fatalf("%s: first step %+v, want the source's light round", what, tr.Steps[:min(1, len(tr.Steps))])
	}
	if p.opts.Method == NearFar && p.opts.DeltaFactor < 1 && (kinds["settle"] == 0 || kinds["split"] == 0) {
		t.Fatalf("%s: steps %v: a small Δ makes settles and splits", what, kinds)
	}
	st := p.last
	if kinds["light"] != st.rounds || kinds["settle"] != st.settles || kinds["split"] != st.splits || len(kinds) > 3 {
		t.Fatalf("%s: steps %v; the run counted %d rounds, %d settles, %d splits", what, kinds, st.rounds, st.settles, st.splits)
	}
	if tr.Inspected() != r.ArcsScanned || lowered != st.lowered {
		t.Fatalf("%s: trace %d arcs relaxed, %d lowered; the run %d, %d", what, tr.Inspected(), lowered, r.ArcsScanned, st.lowered)
	}
	if len(tr.Launches) != len(tr.Steps) {
		t.Fatalf("%s: %d launches for %d steps", what, len(tr.Launches), len(tr.Steps))
	}
	for i, l := range tr.Launches {
		s := tr.Steps[l.Step]
		if l.Bytes < s.Inspected*4 || l.Gather <= 0 || l.Bandwidth() <= 0 {
			t.Fatalf("%s: launch %d of step %+v: %+v, want a byte model (at least 4 bytes an arc relaxed)", what, i, s, l)
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
