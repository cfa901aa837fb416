package mst

import (
	"strings"
	"testing"

	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/graph/gen"
)

// checkRounds requires a traced run's trace to agree with its result: a
// "round" step per loop of Borůvka, the first over every vertex, each
// leaving the trees the next starts with, the edges added summing to the
// forest's, every round reading arcs, at most every arc once plus one
// candidate per vertex and round.
func checkRounds(t *testing.T, what string, g *graph.CSR, r *Result) {
	t.Helper()
	tr := r.Trace
	if err := tr.Check(); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if tr.Algorithm != r.Algorithm || tr.Time != r.Time || len(tr.Steps) < r.Iterations || len(tr.Steps) > r.Iterations+1 {
		t.Fatalf("%s: %q (result %q), time %v (%v), %d steps for %d rounds", what, tr.Algorithm, r.Algorithm, tr.Time, r.Time, len(tr.Steps), r.Iterations)
	}
	trees := int64(g.NumVertices())
	var added, read int64
	for i, s := range tr.Steps {
		if s.Kind != "round" || s.Frontier != trees || s.Updated > trees-1 || s.Inspected == 0 {
			t.Fatalf("%s: round %d starts with %d trees: %+v", what, i, trees, s)
		}
		trees -= s.Updated
		added += s.Updated
		read += s.Inspected
	}
	if added != int64(len(r.Edges)) || trees != int64(r.Trees) {
		t.Fatalf("%s: the rounds added %d edges and left %d trees; the forest has %d edges, %d trees", what, added, trees, len(r.Edges), r.Trees)
	}
	if limit := g.NumArcs() + int64(len(tr.Steps))*int64(g.NumVertices()); read > limit {
		t.Fatalf("%s: %d arcs read, more than %d", what, read, limit)
	}
}

// checkTraceOn traces the GPU Borůvka (every test variant) on dev and
// requires checkRounds of each, and its rounds to be the CPU Borůvka's:
// the same trees, edges added and arcs read (the lists in the same
// order, the cursors moving alike); on the fake driver, whose events all
// measure 2.5 ms, without the times. Untraced runs have no trace.
func checkTraceOn(t *testing.T, dev *gpu.Device, g *graph.CSR) {
	cpu, err := boruvka(g, true)
	if err != nil {
		t.Fatal(err)
	}
	checkRounds(t, "cpu", g, cpu)
	fake := strings.Contains(dev.Name(), "Fake")
	for _, v := range testVariants() {
		o := v.Options
		o.Trace = true
		p, err := Prepare(dev, g, o)
		if err != nil {
			t.Fatal(err)
		}
		for range 2 { // the second reuses the timer's events
			r, err := p.Run()
			if err != nil {
				t.Fatal(err)
			}
			if fake {
				rr := *r
				rr.Trace = r.Trace.Untimed()
				r = &rr
			}
			checkRounds(t, v.Label, g, r)
			for i, s := range r.Trace.Steps {
				c := cpu.Trace.Steps[i]
				if s.Frontier != c.Frontier || s.Updated != c.Updated || s.Inspected != c.Inspected {
					t.Fatalf("%s, round %d: GPU %+v, CPU %+v", v.Label, i, s, c)
				}
				if (s.HostTime > 0) != o.Hybrid && !dev.IsHost() && !fake {
					t.Fatalf("%s, round %d: host time %v", v.Label, i, s.HostTime)
				}
			}
		}
		p.Close()
	}
	r, err := Run(dev, g, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Trace != nil {
		t.Fatal("an untraced run has a trace")
	}
}

// The host device's stand-in traces the CPU Borůvka's rounds.
func TestTraceHost(t *testing.T) { checkTraceOn(t, gpu.Host(), traceGraph(t, 10)) }

func TestGPUTrace(t *testing.T) { checkTraceOn(t, gpuDevice(t), traceGraph(t, 16)) }

func traceGraph(t *testing.T, scale int) *graph.CSR {
	g, err := gen.RMAT(scale, 16, gen.Seed(5), gen.Integer(64))
	if err != nil {
		t.Fatal(err)
	}
	return g
}
