package mst

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/graph/gen"
	tg "github.com/graphnb/graphnb/internal/testgraphs"
	"github.com/graphnb/graphnb/trace"
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
// measure 2.5 ms, without the times. On a GPU every launch has a byte
// model (checkLaunchBytes). Untraced runs have no trace and the same
// forest.
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
		var last *Result
		for range 2 { // the second reuses the timer's events
			r, err := p.Run()
			if err != nil {
				t.Fatal(err)
			}
			last = r
			checkLaunchBytes(t, v.Label, p, r.Trace)
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
		checkUntracedSame(t, dev, g, v, last)
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

// checkUntracedSame requires an untraced run of v on g to give the
// traced run's forest (Edges, Weight, Trees, Iterations) and no trace.
func checkUntracedSame(t *testing.T, dev *gpu.Device, g *graph.CSR, v Variant, traced *Result) {
	t.Helper()
	o := v.Options
	o.Trace = false
	r, err := Run(dev, g, o)
	if err != nil {
		t.Fatal(err)
	}
	if r.Trace != nil || !slices.Equal(r.Edges, traced.Edges) || r.Weight != traced.Weight || r.Trees != traced.Trees || r.Iterations != traced.Iterations {
		t.Fatalf("%s: untraced: %d edges, weight %v, %d trees, %d rounds, trace %v; traced: %d, %v, %d, %d",
			v.Label, len(r.Edges), r.Weight, r.Trees, r.Iterations, r.Trace != nil, len(traced.Edges), traced.Weight, traced.Trees, traced.Iterations)
	}
}

// checkLaunchBytes requires a GPU run's launches to be mst_init (set-up)
// and then, per round, one each of the kernels p's variant launches,
// every one with a byte model (Bytes > 0; trace.Check has Gather ≤
// Bytes). The host device's trace has no launches.
func checkLaunchBytes(t *testing.T, what string, p *Prepared, tr *trace.Trace) {
	t.Helper()
	if p.Device().IsHost() {
		if len(tr.Launches) != 0 {
			t.Fatalf("%s: the host device's trace has %d launches", what, len(tr.Launches))
		}
		return
	}
	// The candidates of every round: the hook's gathered bytes are 8 per
	// candidate (its tree's best key) and, split, 4 per merged tree.
	_, mirror := mirrorRounds(t, p.Graph(), p.Options())
	for _, l := range tr.Launches {
		if l.Name != p.k.hook.Name() || l.Step >= len(mirror) {
			continue
		}
		var sp int64
		if p.split() {
			sp = 4
		}
		if c := (l.Gather - sp*tr.Steps[l.Step].Updated) / 8; c != mirror[l.Step].cands || tr.Steps[l.Step].Inspected != mirror[l.Step].read {
			t.Fatalf("%s, round %d: %d candidates, %d arcs read; the mirror's rounds %d, %d", what, l.Step, c, tr.Steps[l.Step].Inspected,
				mirror[l.Step].cands, mirror[l.Step].read)
		}
	}
	round := []string{p.k.reset.Name(), p.k.hook.Name(), p.k.cycles.Name(), p.k.jump.Name(), p.k.renumber.Name(), p.k.relabel.Name()}
	if p.hostFrom > 0 {
		round = append(round, p.k.probe.Name(), p.k.scan.Name())
	}
	if p.hostFrom < p.n {
		round = append(round, p.k.merge.Name())
	}
	if p.split() {
		round = append(round, p.k.minEdge.Name())
	}
	slices.Sort(round)
	names := make([][]string, len(tr.Steps)+1) // [0]: the set-up
	for _, l := range tr.Launches {
		if l.Bytes <= 0 || l.Gather > l.Bytes {
			t.Fatalf("%s: launch %s of step %d has no byte model: %d bytes, %d gathered", what, l.Name, l.Step, l.Bytes, l.Gather)
		}
		names[l.Step+1] = append(names[l.Step+1], l.Name)
	}
	if !slices.Equal(names[0], []string{p.k.init.Name()}) {
		t.Fatalf("%s: set-up launches %v", what, names[0])
	}
	for i, got := range names[1:] {
		slices.Sort(got)
		if !slices.Equal(got, round) {
			t.Fatalf("%s: round %d launched %v, want %v", what, i, got, round)
		}
	}
}

// checkTraceBytes checks the byte models of one round exactly on the
// path 0–1–2–3 with weights 1, 2, 3: its one round starts with P = 4
// trees, each vertex's first arc (lists sorted by weight) leaves its
// tree, so the find-minimum step reads A = 4 arcs and finds C = 4
// candidates; 0 and 1 choose each other (a 2-cycle, 0 stays a root), 2
// hooks to 1 and 3 to 2: U = 3 trees merged, one left. The expected
// figures are worked out from boruvka.cu's accesses, term by term, in
// the comments (launchBytes's doc lists the terms).
func checkTraceBytes(t *testing.T, dev *gpu.Device) {
	path := func(w tg.Weights) *graph.CSR {
		return tg.Build(t, 4, false, w, tg.Edge{0, 1, 1}, tg.Edge{1, 2, 2}, tg.Edge{2, 3, 3})
	}
	type bg = [2]int64 // bytes, gathered
	// The kernels whose figures are the same in every case below with
	// float32 weights on the device's four vertices.
	common := map[string]bg{
		"mst_init":     {4*4 + 4*4, 0},                 // labels, low indices
		"mst_reset":    {(8 + 4) * 4, 0},               // key, parent per tree
		"mst_hook":     {8*4 + 8*4 + 4*3 + 8*4, 8 * 4}, // keys; per candidate tree and label; parents of U; best per candidate
		"mst_cycles":   {4 * 4, 0},                     // parents
		"mst_jump":     {4*4 + 8*3 + 8*3, 8 * 3},       // parents; key, bitmap word, parent per merged tree
		"mst_renumber": {4*4 + 4*1, 0},                 // parents; the one new id
		"mst_relabel":  {8*4 + 8*4, 8 * 4},             // labels read and written; parent, new id
	}
	with := func(m map[string]bg) map[string]bg {
		out := maps.Clone(common)
		maps.Copy(out, m)
		return out
	}
	for _, c := range []struct {
		name     string
		g        *graph.CSR
		o        Options
		scanOnly bool // probe length 0: every vertex goes to the warp scan
		want     map[string]bg
	}{
		{"plain", path(tg.Float32), Options{}, false, with(map[string]bg{
			// per vertex label, low index, candidate key and offset, and the
			// last offset; per candidate its tree; gathered: per arc id and
			// label, per candidate weight and edge
			"mst_probe_plain": {24*4 + 8 + 4*4 + (4+4)*4 + (4+4)*4, (4+4)*4 + (4+4)*4},
			"mst_scan_plain":  {4, 0}, // the empty list's length
		})},
		{"scan_only", path(tg.Float32), Options{}, true, with(map[string]bg{
			// every vertex goes to the scan: its list entry
			"mst_probe_plain": {24*4 + 8 + 4*4, 0},
			// length, entries, low index and key written, ids, candidate
			// trees; gathered: label, offsets, low index per long vertex,
			// label per arc, weight and edge per candidate
			"mst_scan_plain": {4 + 4*4 + 12*4 + 4*4 + 4*4 + 24*4 + 4*4 + 8*4, 24*4 + 4*4 + 8*4},
		})},
		{"compressed", path(tg.Float32), Options{Compress: true}, false, with(map[string]bg{
			// as plain, with a base per candidate and ids of 1.25 bytes
			"mst_probe_comp": {24*4 + 8 + 4*4 + 4*4 + (5 + 4*4) + 8*4, (5 + 4*4) + 8*4},
			"mst_scan_comp":  {4, 0},
		})},
		{"split_keys", path(tg.Float64), Options{}, false, with(map[string]bg{
			"mst_reset":       {(8 + 4 + 4) * 4, 0},                                        // and the best edge
			"mst_probe_plain": {24*4 + 8 + (4+4)*4 + (4+4)*4 + (8+4)*4, (4+4)*4 + (8+4)*4}, // 8-byte weights, candidate edges
			"mst_scan_plain":  {4, 0},
			// keys; per candidate tree, edge, label; best per candidate
			"mst_min_edge": {8*4 + 12*4 + 8*4, 8 * 4},
			// keys; per candidate tree, edge, label; parents of U; gathered
			// best per candidate, best edge per merged tree
			"mst_hook": {8*4 + 12*4 + 4*3 + 8*4 + 4*3, 8*4 + 4*3},
			"mst_jump": {4*4 + 4*3 + 8*3, 8 * 3}, // the edge from bestE
		})},
		{"hybrid", path(tg.Float32), Options{Hybrid: true, CPUShare: 0.5}, false, with(map[string]bg{
			// vertices 2, 3 on the host, which reads the labels of 1..3
			"mst_init":        {4*4 + 4*2 + 4*3, 0},
			"mst_probe_plain": {24*2 + 8 + 4*2 + 8*2 + 8*2, 8*2 + 8*2},
			"mst_scan_plain":  {4, 0},
			"mst_merge_host":  {12 * 2, 0}, // the host's keys and labels
			"mst_relabel":     {8*4 + 8*4 + 4*3, 8 * 4},
		})},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := c.o
			o.Trace = true
			p, err := Prepare(dev, c.g, o)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			if p.Compressed() != c.o.Compress {
				t.Fatalf("compressed %v", p.Compressed())
			}
			if c.scanOnly {
				p.probeLen = 0
			}
			r, err := p.Run()
			if err != nil {
				t.Fatal(err)
			}
			if err := checkable(dev, r.Trace).Check(); err != nil {
				t.Fatal(err)
			}
			if len(r.Trace.Steps) != 1 {
				t.Fatalf("%d rounds: %v", len(r.Trace.Steps), r.Trace)
			}
			if s := r.Trace.Steps[0]; s.Frontier != 4 || s.Updated != 3 || s.Inspected != 4 {
				t.Fatalf("round %+v, want 4 trees, 3 merged, 4 arcs read", s)
			}
			got := map[string]bg{}
			for _, l := range r.Trace.Launches {
				if _, dup := got[l.Name]; dup {
					t.Fatalf("%s launched twice", l.Name)
				}
				got[l.Name] = bg{l.Bytes, l.Gather}
			}
			if !maps.Equal(got, c.want) {
				for name, w := range c.want {
					if got[name] != w {
						t.Errorf("%s: %d bytes, %d gathered; want %d, %d", name, got[name][0], got[name][1], w[0], w[1])
					}
				}
				t.Fatalf("launches %v, want %v", got, c.want)
			}
		})
	}
}

// The byte models of one round on a GPU (TestFakeGPU checks them on the
// fake driver).
func TestGPUTraceBytes(t *testing.T) { checkTraceBytes(t, gpuDevice(t)) }

// checkable is tr as trace.Check can judge it on dev: untimed on the
// fake driver, whose events all measure 2.5 ms apart.
func checkable(dev *gpu.Device, tr *trace.Trace) *trace.Trace {
	if strings.Contains(dev.Name(), "Fake") {
		return tr.Untimed()
	}
	return tr
}
