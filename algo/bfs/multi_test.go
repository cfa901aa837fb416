package bfs

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/graph/gen"
	"github.com/graphnb/graphnb/internal/cudasrc"
)

// checkGroup searches cases over a group made of devs: every result must
// pass the group's device check and the host Check, and have the levels
// of the sequential TopDown (the parents may differ).
func checkGroup(t *testing.T, devs []*gpu.Device, cases []gpuCase) {
	t.Helper()
	g, err := gpu.NewGroup(devs...)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	for _, c := range cases {
		if c.g.Directed {
			continue
		}
		pg, err := gpu.UploadParts(g, c.g)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for _, o := range []GroupOptions{{}, {TopDownOnly: true}, {Alpha: 1, Beta: 1 << 20, Trace: true}, {Trace: true}} {
			p, err := PrepareGroup(pg, o)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			for _, src := range c.roots {
				r, err := p.Run(src)
				if err != nil {
					t.Fatalf("%s from %d (%+v): %v", c.name, src, o, err)
				}
				if err := p.Check(r); err != nil {
					t.Errorf("%s from %d (%+v): device check: %v", c.name, src, o, err)
				}
				// A group of one has no collectives; a larger one times its
				// collectives with events (the fake driver's say 2.5 ms each).
				if (len(devs) == 1) != (r.Comm == 0) || r.CommShare() < 0 {
					t.Errorf("%s from %d (%+v): %d ranks spent %v in collectives (share %v)", c.name, src, o, len(devs), r.Comm, r.CommShare())
				}
				hr, err := r.Result()
				if err != nil {
					t.Fatal(err)
				}
				if err := Check(c.g, hr); err != nil {
					t.Errorf("%s from %d (%+v): host check: %v", c.name, src, o, err)
				}
				want, err := TopDown(c.g, src)
				if err != nil {
					t.Fatal(err)
				}
				for v := range want.Levels {
					if hr.Levels[v] != want.Levels[v] {
						t.Errorf("%s from %d (%+v): level of %d is %d, want %d", c.name, src, o, v, hr.Levels[v], want.Levels[v])
						break
					}
				}
				if r.Reached != want.Reached || r.ComponentEdges != want.ComponentEdges {
					t.Errorf("%s from %d: reached %d, %d component edges; want %d, %d", c.name, src, r.Reached, r.ComponentEdges, want.Reached, want.ComponentEdges)
				}
				checkGroupTrace(t, fmt.Sprintf("%s from %d (%+v)", c.name, src, o), c.g, src, o, r)
			}
			if err := p.Close(); err != nil {
				t.Error(err)
			}
		}
		if err := pg.Close(); err != nil {
			t.Error(err)
		}
	}
}

// checkGroupCatches corrupts a result on the devices and expects the
// group's check to name the broken rule.
func checkGroupCatches(t *testing.T, devs []*gpu.Device) {
	t.Helper()
	c, err := gen.RMAT(9, 8, gen.Seed(5), gen.Unweighted())
	if err != nil {
		t.Fatal(err)
	}
	g, err := gpu.NewGroup(devs...)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	pg, err := gpu.UploadParts(g, c)
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	p, err := PrepareGroup(pg, GroupOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	src := c.Roots(1, 1)[0]
	for _, m := range []struct {
		name, want string
		edit       func(lv, par []int32, i int, v int32)
	}{
		{"level", "levels at most 1 apart", func(lv, par []int32, i int, v int32) { lv[i] += 2 }},
		{"parent", "a parent one level up", func(lv, par []int32, i int, v int32) { par[i] = v }},
		{"unreached", "reached and an unreached", func(lv, par []int32, i int, v int32) { lv[i], par[i] = -1, -1 }},
	} {
		r, err := p.Run(src)
		if err != nil {
			t.Fatal(err)
		}
		rs := p.ranks[len(p.ranks)-1]
		lv, _ := rs.levels.ToHost()
		par, _ := rs.parents.ToHost()
		v := -1
		for i := range int(rs.nl) {
			if lv[i] > 0 && rs.lo+int64(i) != int64(src) {
				v = i
				break
			}
		}
		if v < 0 {
			t.Fatal("no reached vertex in the last block")
		}
		m.edit(lv, par, v, int32(rs.lo)+int32(v))
		if err := rs.levels.Upload(lv); err != nil {
			t.Fatal(err)
		}
		if err := rs.parents.Upload(par); err != nil {
			t.Fatal(err)
		}
		err = p.Check(r)
		if err == nil || !strings.Contains(err.Error(), m.want) {
			t.Errorf("%s corrupted: check says %v; want %q", m.name, err, m.want)
		}
	}
}

// On the host device a group searches with the CPU code.
func TestGroupOnHost(t *testing.T) {
	g, err := gpu.NewGroup(gpu.Host())
	if err != nil {
		t.Fatal(err)
	}
	c, err := gen.RMAT(8, 16, gen.Seed(3), gen.Unweighted())
	if err != nil {
		t.Fatal(err)
	}
	pg, err := gpu.UploadParts(g, c)
	if err != nil {
		t.Fatal(err)
	}
	p, err := PrepareGroup(pg, GroupOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := p.Run(0)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Check(r); err != nil {
		t.Error(err)
	}
	if s := r.CommShare(); s != 0 {
		t.Errorf("a host group's CommShare is %v; want 0 (no collectives)", s)
	}
	if _, err := p.Run(int32(c.NumVertices())); err == nil {
		t.Error("a source out of range: no error")
	}
	d, err := graph.Build(graph.EdgeList{N: 3, Src: []int32{0, 1}, Dst: []int32{1, 2}}, graph.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d.Directed = true
	pd, err := gpu.UploadParts(g, d)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := PrepareGroup(pd, GroupOptions{}); err == nil || !strings.Contains(err.Error(), "directed") {
		t.Errorf("a directed graph: %v; want a refusal", err)
	}
}

// checkGroupTrace requires a group search's trace to be the CPU search's
// with the same switch parameters, level for level (direction, reason,
// frontier, its arcs, arcs read, vertices reached: each rank holds its
// vertices' arcs in the graph's order, so a bottom-up step stops at the
// same first parent), its times to fit the run's, and collectives only
// in a group of more than one; and no trace without GroupOptions.Trace.
func checkGroupTrace(t *testing.T, what string, g *graph.CSR, src int32, o GroupOptions, r *GroupResult) {
	t.Helper()
	if !o.Trace {
		if r.Trace != nil {
			t.Errorf("%s: a trace without GroupOptions.Trace", what)
		}
		return
	}
	cpu, err := DirectionOptimizing(g, src, Options{Alpha: o.Alpha, Beta: o.Beta, TopDownOnly: o.TopDownOnly, Trace: true})
	if err != nil {
		t.Fatal(err)
	}
	tr := r.Trace
	if tr == nil || len(tr.Steps) != len(cpu.Trace.Steps) || tr.Arcs != g.NumArcs() || tr.Time != r.Time || len(tr.Launches) != 0 {
		t.Fatalf("%s: trace %v, want %d steps of %d arcs, time %v", what, tr, len(cpu.Trace.Steps), g.NumArcs(), r.Time)
	}
	// The fake driver's events measure 2.5 ms a pair, more than a level's
	// wall time: check the times apart from the counts.
	if err := tr.Untimed().Check(); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	var comm time.Duration
	for i, s := range tr.Steps {
		c := cpu.Trace.Steps[i]
		if s.Kind != c.Kind || s.Why != c.Why || s.Frontier != c.Frontier || s.FrontierArcs != c.FrontierArcs || s.Inspected != c.Inspected || s.Updated != c.Updated {
			t.Fatalf("%s: step %d over the group %+v, on the CPU %+v", what, i, s, c)
		}
		if s.Time <= 0 || s.Comm < 0 || s.Comm > s.Time {
			t.Fatalf("%s: step %d takes %v, %v of it in collectives", what, i, s.Time, s.Comm)
		}
		comm += s.Comm
	}
	if tr.StepTime() > r.Time || comm > r.Comm || (r.Ranks == 1) != (comm == 0) {
		t.Fatalf("%s: steps %v (run %v), collectives %v (run %v) over %d ranks", what, tr.StepTime(), r.Time, comm, r.Comm, r.Ranks)
	}
}

// TestMultiSource checks multi.cu's kernels and the constants the Go side
// shares with them.
func TestMultiSource(t *testing.T) {
	cudasrc.Check(t, "multi.cu", multiSource, 1, multiKernelNames)
	cudasrc.CheckDefines(t, "multi.cu", multiSource, map[string]int64{
		"MB_BLOCK": blockSize, "MB_MAX_RANKS": mbMaxRanks, "MB_NF": mbNF, "MB_MF": mbMF, "MB_READ": mbRead,
		"MB_NBIG": mbNBig, "MB_GNF": mbGNF, "MB_GMF": mbGMF, "MB_GREAD": mbGRead, "MB_CTL_WORDS": mbCtlWords,
		"MBCK_RULES": mbckRules, "MBCK_REACHED": mbckReached, "MBCK_ARCS": mbckArcs, "MBCK_WORDS": mbckWords,
	})
}
