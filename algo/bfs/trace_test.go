package bfs

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/graph/gen"
	tg "github.com/graphnb/graphnb/internal/testgraphs"
	"github.com/graphnb/graphnb/trace"
)

// checkTrace requires r's trace to agree with the result it came with:
// one step per level, of the level's direction and frontier; each step's
// vertices reached are the next level's; top-down steps read all of the
// frontier's arcs; the frontiers sum to the reached vertices; the steps'
// times fit in the run's.
func checkTrace(t *testing.T, what string, g *graph.CSR, r *Result) {
	t.Helper()
	tr := r.Trace
	if err := tr.Check(); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if len(tr.Steps) != len(r.FrontierSizes) || tr.Arcs != g.NumArcs() || tr.Time != r.Time || tr.Algorithm != r.Algorithm {
		t.Fatalf("%s: %d steps for %d levels, %d arcs (graph %d), time %v (run %v)", what, len(tr.Steps), len(r.FrontierSizes), tr.Arcs, g.NumArcs(), tr.Time, r.Time)
	}
	var reached, degrees int64
	for l, s := range tr.Steps {
		if s.Frontier != r.FrontierSizes[l] || s.Kind != r.Directions[l].String() {
			t.Fatalf("%s: step %d is %s over %d vertices; the result says %s over %d", what, l, s.Kind, s.Frontier, r.Directions[l], r.FrontierSizes[l])
		}
		next := int64(0)
		if l+1 < len(r.FrontierSizes) {
			next = r.FrontierSizes[l+1]
		}
		if s.Updated != next {
			t.Fatalf("%s: step %d reached %d vertices, level %d has %d", what, l, s.Updated, l+1, next)
		}
		if s.Kind == "top-down" && s.Inspected != s.FrontierArcs {
			t.Fatalf("%s: top-down step %d read %d arcs of a frontier with %d", what, l, s.Inspected, s.FrontierArcs)
		}
		switched := l > 0 && s.Kind != tr.Steps[l-1].Kind || l == 0 && s.Kind == "bottom-up"
		if switched != (s.Why != "") {
			t.Fatalf("%s: step %d (%s after %s) explains %q", what, l, s.Kind, tr.Steps[max(l-1, 0)].Kind, s.Why)
		}
		reached += s.Frontier
		degrees += s.FrontierArcs
	}
	if reached != r.Reached || degrees != 2*r.ComponentEdges {
		t.Fatalf("%s: frontiers sum to %d vertices and %d arcs; the result reached %d with %d edges", what, reached, degrees, r.Reached, r.ComponentEdges)
	}
}

// TestTrace traces CPU searches on R-MAT graphs: the direction-
// optimizing search reads fewer arcs than the component holds (its
// bottom-up steps stop at the first parent) and explains its switches;
// the parallel top-down search reads each of the component's arcs once;
// without Options.Trace there is no trace.
func TestTrace(t *testing.T) {
	for _, scale := range []int{10, 14} {
		g, err := gen.RMAT(scale, 16, gen.Seed(3), gen.Unweighted())
		if err != nil {
			t.Fatal(err)
		}
		src := g.Roots(1, 1)[0]
		do, err := DirectionOptimizing(g, src, Options{Trace: true})
		if err != nil {
			t.Fatal(err)
		}
		checkTrace(t, "direction-optimizing", g, do)
		if !strings.Contains(do.Trace.String(), "bottom-up") || !strings.Contains(do.Trace.String(), "m_f = ") {
			t.Fatalf("no switch in\n%s", do.Trace)
		}
		if e := do.Trace.WorkEfficiency(); !(e > 0 && e < 1) || do.Trace.Inspected() >= 2*do.ComponentEdges {
			t.Fatalf("direction-optimizing read %d of the component's %d arcs (efficiency %.3f)", do.Trace.Inspected(), 2*do.ComponentEdges, e)
		}
		td, err := DirectionOptimizing(g, src, Options{Trace: true, TopDownOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		checkTrace(t, "top-down", g, td)
		if td.Trace.Inspected() != 2*td.ComponentEdges {
			t.Fatalf("top-down read %d arcs of a component with %d", td.Trace.Inspected(), 2*td.ComponentEdges)
		}
		off, err := DirectionOptimizing(g, src, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if off.Trace != nil {
			t.Fatal("a trace without Options.Trace")
		}
	}
}

// checkGPUTrace traces the direction-optimizing GPU search and requires
// its trace to agree with its result (checkTrace), its launches to be
// timed and placed in their levels, and its steps to be the CPU search's
// (the same switch decisions on the same counts, so the same directions,
// frontiers and arcs read); without Options.Trace there is none.
func checkGPUTrace(t *testing.T, dev *gpu.Device, g *graph.CSR) {
	src := g.Roots(1, 1)[0]
	o := Options{Method: DirectionOptimizingGPU, Parents: true, Trace: true}
	p, err := Prepare(dev, g, o)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	// The CPU search with the GPU's default α (DefaultGPUAlpha).
	cpu, err := DirectionOptimizing(g, src, Options{Trace: true, Alpha: DefaultGPUAlpha})
	if err != nil {
		t.Fatal(err)
	}
	for run := range 2 { // the second goes on in the launch log's ring
		r, err := p.Run(src)
		if err != nil {
			t.Fatal(err)
		}
		tr := r.Trace
		if strings.Contains(dev.Name(), "Fake") {
			// The fake driver's events all measure 2.5 ms apart (the
			// run's time): the times cannot add up, the rest must.
			rr := *r
			rr.Trace = tr.Untimed()
			checkTrace(t, "gpu direction-optimizing", g, &rr)
		} else {
			checkTrace(t, "gpu direction-optimizing", g, r)
		}
		// Every launch that worked is in the trace, in its level, with a
		// span on the device's clock: do_td and do_td_big on a top-down
		// level, do_bu on a bottom-up one, do_convert on a level that
		// switched; the launches that passed through, do_init and
		// do_plan are not.
		want, prev := 0, TopDownStep
		for _, d := range r.Directions {
			want += map[Direction]int{TopDownStep: 2, BottomUpStep: 1}[d]
			if d != prev {
				want++
			}
			prev = d
		}
		if len(tr.Launches) != want || tr.Launches[0].Step != 0 || r.Launches < want+2 {
			t.Fatalf("run %d: %d launches traced, want %d, of %d; the first in step %d", run, len(tr.Launches), want, r.Launches, tr.Launches[0].Step)
		}
		for _, l := range tr.Launches {
			if !strings.HasPrefix(l.Name, "do_") || l.Name == "do_init" || l.Block[0] != blockSize || l.Time <= 0 ||
				l.Bytes <= 0 && l.Name != kDOTDBig {
				t.Fatalf("run %d: launch %+v", run, l)
			}
		}
		checkDOBytes(t, g, r)
		if len(tr.Steps) != len(cpu.Trace.Steps) {
			t.Fatalf("run %d: %d steps on the GPU, %d on the CPU", run, len(tr.Steps), len(cpu.Trace.Steps))
		}
		for i, s := range tr.Steps {
			c := cpu.Trace.Steps[i]
			if s.Kind != c.Kind || s.Frontier != c.Frontier || s.FrontierArcs != c.FrontierArcs || s.Inspected != c.Inspected || s.Updated != c.Updated || s.Why != c.Why {
				t.Fatalf("run %d, step %d: GPU %+v, CPU %+v", run, i, s, c)
			}
		}
		if err := p.Check(r); err != nil {
			t.Fatal(err)
		}
	}
	o.Trace = false
	q, err := Prepare(dev, g, o)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	if r, err := q.Run(src); err != nil || r.Trace != nil {
		t.Fatalf("untraced run: trace %v, %v", r.Trace, err)
	}
}

func TestGPUTrace(t *testing.T) {
	dev := requireGPU(t)
	// The registers a thread of each study kernel takes in either build
	// (a traced build's cost shows there first), logged even when a
	// check below fails.
	for _, c := range []struct {
		builds *gpu.TracedBuilds
		names  []string
	}{{bfsBuilds, studyKernelNames}, {dpBuilds, dpKernelNames}} {
		regs, err := c.builds.Registers(dev, c.names)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("registers a thread, untraced/traced build: %s", regs)
	}
	g, err := gen.RMAT(16, 16, gen.Seed(3), gen.Unweighted())
	if err != nil {
		t.Fatal(err)
	}
	checkGPUTrace(t, dev, g)
	checkGPUTraceDeep(t, dev)
	checkGPUScanTrace(t, dev, g)
	checkGPUScanTraceCap(t, dev)
}

// checkGPUTraceDeep traces searches of a path of 300 vertices, twice:
// 300 levels of one to three launches each, more than the launch log's
// ring of gpu.LaunchLogCap entries holds unless the host reads it during
// the search. Every level must be a step with launches, each with a span.
func checkGPUTraceDeep(t *testing.T, dev *gpu.Device) {
	const n = 300
	g := tg.Build(t, n, false, tg.Unweighted, tg.Path(n, nil)...)
	p, err := Prepare(dev, g, Options{Method: DirectionOptimizingGPU, Trace: true})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for run := range 2 {
		r, err := p.Run(0)
		if err != nil {
			t.Fatal(err)
		}
		tr := r.Trace
		checked := tr
		if strings.Contains(dev.Name(), "Fake") {
			checked = tr.Untimed() // the fake's events: the run's time is not real
		}
		if err := checked.Check(); err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		if len(tr.Steps) != n || len(tr.Launches) <= gpu.LaunchLogCap {
			t.Fatalf("run %d: %d steps and %d launches for a path of %d vertices", run, len(tr.Steps), len(tr.Launches), n)
		}
		per := make([]int, n)
		for i, l := range tr.Launches {
			if l.Time <= 0 || l.Step < 0 {
				t.Fatalf("run %d: launch %d: %+v", run, i, l)
			}
			per[l.Step]++
		}
		for i, c := range per {
			if c == 0 {
				t.Fatalf("run %d: level %d has no launch", run, i)
			}
		}
	}
}

// checkGPUScanTrace traces the edge scan (both switches' kernels) and
// dynamic parallelism (child grids at every level, and at small levels
// only) and requires each trace to agree with its result and with the
// untraced run: a step per level of the right kind, frontiers summing to
// the vertices reached, each level reaching the next one's vertices, a
// scan reading every edge's two arcs, child grids their frontier's arcs,
// the launches timed and placed in their levels.
func checkGPUScanTrace(t *testing.T, dev *gpu.Device, g *graph.CSR) {
	src := g.Roots(1, 1)[0]
	fake := strings.Contains(dev.Name(), "Fake")
	for _, o := range []Options{{Method: EdgeScan}, {Method: EdgeScan, TextureCache: true, Permute: true},
		{Method: DynamicParallelism, DPThreshold: 1 << 30}, {Method: DynamicParallelism, DPThreshold: 64}} {
		plain, err := Run(dev, g, src, o)
		if err != nil {
			t.Fatal(err)
		}
		o.Trace = true
		p, err := Prepare(dev, g, o)
		if err != nil {
			t.Fatal(err)
		}
		for run := range 2 { // the second reuses the launch log's ring
			r, err := p.Run(src)
			if err != nil {
				t.Fatal(err)
			}
			what := fmt.Sprintf("%s, run %d", p.Label(), run)
			if !slices.Equal(r.Levels, plain.Levels) {
				t.Fatalf("%s: the traced levels differ from the untraced", what)
			}
			tr := r.Trace
			checked := tr
			if fake {
				checked = tr.Untimed() // the fake's events all measure 2.5 ms apart
			}
			if err := checked.Check(); err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			if len(tr.Steps) != r.Iterations || tr.Algorithm != r.Algorithm || tr.Arcs != g.NumArcs() {
				t.Fatalf("%s: %d steps for %d levels, %q, %d arcs", what, len(tr.Steps), r.Iterations, tr.Algorithm, tr.Arcs)
			}
			var reached int64
			children := 0
			for l, s := range tr.Steps {
				reached += s.Frontier
				var next int64
				if l+1 < len(tr.Steps) {
					next = tr.Steps[l+1].Frontier
				}
				scanArcs := g.NumArcs() // an undirected graph: each edge's two arcs
				want := map[string]int64{ScanStepKind: scanArcs, ChildGridsStepKind: s.FrontierArcs,
					ChildGridsStepKind + " + " + ScanStepKind: scanArcs + s.FrontierArcs}
				w, ok := want[s.Kind]
				if !ok || s.Inspected != w || s.Updated != next || s.Frontier <= 0 && l+1 < len(tr.Steps) {
					t.Fatalf("%s: step %d: %+v (next level %d vertices)", what, l, s, next)
				}
				if s.Kind != ScanStepKind {
					children++
				}
			}
			if reached != r.Reached {
				t.Fatalf("%s: the frontiers sum to %d, %d reached", what, reached, r.Reached)
			}
			// Each level's arcs (the finish kernel's per-level degree
			// sums) are its vertices' degrees, summed here from the levels.
			arcs := make([]int64, len(tr.Steps))
			for v, l := range r.Levels {
				if l >= 0 {
					arcs[l] += int64(g.Degree(int32(v)))
				}
			}
			for l, s := range tr.Steps {
				if s.FrontierArcs != arcs[l] {
					t.Fatalf("%s: step %d: frontier of %d arcs, its vertices' degrees sum to %d", what, l, s.FrontierArcs, arcs[l])
				}
			}
			if o.Method == DynamicParallelism && o.DPThreshold > 1<<20 && children != len(tr.Steps) {
				t.Fatalf("%s: %d of %d levels by child grids, want all", what, children, len(tr.Steps))
			}
			if len(tr.Launches) != r.Launches {
				t.Fatalf("%s: %d launches traced of %d", what, len(tr.Launches), r.Launches)
			}
			// Every launch is logged (the set-up's in step -1, the others
			// in their level's) with a span on the device's clock.
			for i, l := range tr.Launches {
				study := slices.Contains(studyKernelNames, l.Name) || slices.Contains(dpKernelNames, l.Name)
				if !study || l.Time <= 0 || l.Block[0] != blockSize || (l.Step == -1) != (l.Name == kInit8) || (i == 0) != (l.Name == kInit8) {
					t.Fatalf("%s: launch %d: %+v", what, i, l)
				}
			}
			checkScanOpens(t, what, o.Method == DynamicParallelism, tr.Launches)
			// The byte models: a scan reads both ends of every edge and
			// gathers their unsigned char levels; child grids read each
			// frontier vertex's offsets and its arcs.
			m := g.NumArcs() / 2
			for _, l := range tr.Launches {
				var want, gather int64
				switch {
				case strings.HasPrefix(l.Name, "bfs_scan_u8"):
					want, gather = 10*m+tr.Steps[l.Step].Updated, 2*m
				case l.Name == kDPParent8:
					s := tr.Steps[l.Step]
					want, gather = int64(g.NumVertices())+16*s.Frontier+5*s.FrontierArcs+s.Updated, 16*s.Frontier+s.FrontierArcs
				default:
					continue
				}
				if l.Bytes != want || l.Gather != gather {
					t.Fatalf("%s: launch %+v moves %d bytes (%d gathered) by the model, want %d (%d)", what, l, l.Bytes, l.Gather, want, gather)
				}
			}
		}
		checkStudyBuild(t, dev, p)
		p.Close()
	}
}

// capGraph returns a graph whose level 1 holds more vertices of child
// grids than dynamic parallelism launches in a level (dpMaxChildren):
// vertex 0 joined to hubs hubs, each hub to 32 leaves of its own (33
// arcs, one more than a parent thread scans inline), and the number of
// vertices.
func capGraph(t testing.TB, hubs int) (*graph.CSR, int) {
	n := 1 + hubs*33
	var edges []tg.Edge
	for h := 1; h <= hubs; h++ {
		edges = append(edges, tg.Edge{0, float64(h), 1})
		for l := range 32 {
			edges = append(edges, tg.Edge{float64(h), float64(1 + hubs + (h-1)*32 + l), 1})
		}
	}
	return tg.Build(t, n, false, tg.Unweighted, edges...), n
}

// checkGPUScanTraceCap traces dynamic parallelism on capGraph with child
// grids at every level: level 1 passes the cap, so the edge scan
// finishes it (a scan the host then waits on, then a count) and the
// trace says so; the run's levels are the untraced run's, and every
// launch of it is logged, each in its level.
func checkGPUScanTraceCap(t *testing.T, dev *gpu.Device) {
	g, n := capGraph(t, dpMaxChildren+4)
	o := Options{Method: DynamicParallelism, DPThreshold: 1 << 30}
	plain, err := Run(dev, g, 0, o)
	if err != nil {
		t.Fatal(err)
	}
	o.Trace = true
	r, err := Run(dev, g, 0, o)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.Levels, plain.Levels) || r.Reached != int64(n) {
		t.Fatalf("traced: %d reached of %d, levels equal to the untraced run's: %v", r.Reached, n, slices.Equal(r.Levels, plain.Levels))
	}
	tr := r.Trace
	kinds := make([]string, len(tr.Steps))
	for i, s := range tr.Steps {
		kinds[i] = s.Kind
	}
	want := []string{ChildGridsStepKind, ChildGridsStepKind + " + " + ScanStepKind, ChildGridsStepKind}
	if !slices.Equal(kinds, want) || !strings.Contains(r.Note, "finished by the edge scan") {
		t.Fatalf("steps %q, want %q; note %q", kinds, want, r.Note)
	}
	// init; per level a parent and a count; level 1's scan and count again
	names := []string{kInit8, kDPParent8, kCount8, kDPParent8, kCount8, kScan8, kCount8, kDPParent8, kCount8}
	steps := []int{-1, 0, 0, 1, 1, 1, 1, 2, 2}
	if len(tr.Launches) != len(names) || r.Launches != len(names) {
		t.Fatalf("%d launches traced of %d: %+v", len(tr.Launches), r.Launches, tr.Launches)
	}
	// Open: the parents, timed to their counts' starts; level 1's scan
	// after the cap is closed (a memset of the control words lies
	// between it and its count).
	opens := []bool{false, true, false, true, false, false, false, true, false}
	for i, l := range tr.Launches {
		if l.Name != names[i] || l.Step != steps[i] || l.Time <= 0 || l.Open != opens[i] {
			t.Fatalf("launch %d: %+v, want %s in step %d with a span, open %v", i, l, names[i], steps[i], opens[i])
		}
	}
	checkScanOpens(t, "the capped search", true, tr.Launches)
}

// checkScanOpens requires the launches of a traced edge scan or dynamic
// parallelism search (dp) to be open (trace.Launch.Open: timed to the
// next launch's start) exactly where runScan's contract says the count
// follows them at once: dynamic parallelism's parents, and its scans
// that expand a level (the first scan of a step, before any count).
// The set-up, the counts, the edge scan method's scans (the host reads
// their modif word) and a scan that finishes a level after the child
// grids' cap (the control words are zeroed between it and its count)
// stamp their own end; launched open, the last one's time would run
// over the memset to the count's start.
func checkScanOpens(t *testing.T, what string, dp bool, launches []trace.Launch) {
	t.Helper()
	counted := map[int]bool{} // steps whose count has run
	for i, l := range launches {
		scan := strings.HasPrefix(l.Name, "bfs_scan_")
		want := dp && (slices.Contains(dpKernelNames, l.Name) || scan && !counted[l.Step])
		if l.Open != want {
			t.Fatalf("%s: launch %d (%s in step %d, dynamic parallelism %v, after the step's count %v) launched open %v, want %v",
				what, i, l.Name, l.Step, dp, counted[l.Step], l.Open, want)
		}
		if strings.HasPrefix(l.Name, "bfs_count_") {
			counted[l.Step] = true
		}
	}
}

// checkStudyBuild requires p's traced kernels to come from the traced
// builds and its others from the untraced ones (the fake GPU's launches
// check the rest: a kernel of one build launched with the other's
// arguments fails).
func checkStudyBuild(t *testing.T, dev *gpu.Device, p *Prepared) {
	t.Helper()
	for _, c := range []struct {
		fn     map[string]*gpu.Function
		builds *gpu.TracedBuilds
		traced bool
	}{{p.fn, bfsBuilds, false}, {p.tracedFn, bfsBuilds, true}, {p.dpfn, dpBuilds, false}, {p.tracedDPFn, dpBuilds, true}} {
		mod, err := c.builds.For(dev, c.traced)
		if err != nil {
			t.Fatal(err)
		}
		for name, f := range c.fn {
			if f.Module() != mod {
				t.Fatalf("%s (traced %v) comes from %s, not %s", name, c.traced, f.Module().Name(), mod.Name())
			}
		}
	}
	if len(p.tracedFn) != len(studyKernelNames) || (p.opt.Method == DynamicParallelism) != (len(p.tracedDPFn) == len(dpKernelNames)) {
		t.Fatalf("%s: %d traced kernels of bfs.cu, %d of dp.cu", p.Label(), len(p.tracedFn), len(p.tracedDPFn))
	}
}

// checkDOBytes checks the byte models of a traced direction-optimizing
// GPU search against counts the test takes from the graph and the levels:
// a bottom-up step's model follows from the vertices still unvisited and
// the arcs it read; a top-down level's two kernels together from the
// frontier, its arcs, the vertices it claimed and its vertices of
// tdBigDeg arcs or more (tdWarpDeg on a frontier of at most
// tdSmallFrontier vertices: do_td_big's).
func checkDOBytes(t *testing.T, g *graph.CSR, r *Result) {
	t.Helper()
	n := int64(g.NumVertices())
	words := (n + 31) / 32
	perLevel := make([]map[string]int64, len(r.Trace.Steps))
	gathered := make([]int64, len(r.Trace.Steps))
	for _, l := range r.Trace.Launches {
		if perLevel[l.Step] == nil {
			perLevel[l.Step] = map[string]int64{}
		}
		perLevel[l.Step][l.Name] += l.Bytes
		gathered[l.Step] += l.Gather
	}
	big := make([]int64, len(r.Trace.Steps))
	for v, lv := range r.Levels {
		if lv < 0 || lv >= int32(len(big)) {
			continue
		}
		bigDeg := int64(tdBigDeg)
		if r.Trace.Steps[lv].Frontier <= tdSmallFrontier {
			bigDeg = tdWarpDeg
		}
		if int64(g.Degree(int32(v))) >= bigDeg {
			big[lv]++
		}
	}
	parents := int64(0)
	if r.Parents != nil {
		parents = 4
	}
	visited := int64(0)
	for l, s := range r.Trace.Steps {
		visited += s.Frontier
		b := perLevel[l]
		switch s.Kind {
		case "bottom-up":
			if want := 8*words + 8*(n-visited) + 8*s.Inspected + (4+parents)*s.Updated; b[kDOBU] != want {
				t.Fatalf("level %d: do_bu moves %d bytes by the model, want %d (%+v)", l, b[kDOBU], want, s)
			}
		case "top-down":
			claim := 28 + parents
			want := 20*s.Frontier + 20*big[l] + 8*s.FrontierArcs + claim*s.Updated
			if got := b[kDOTD] + b[kDOTDBig]; got != want {
				t.Fatalf("level %d: do_td and do_td_big move %d bytes by the model, want %d (%d big vertices; %+v)", l, got, want, big[l], s)
			}
		}
		if b[kDOQ2BM] != 0 && b[kDOQ2BM] != 12*s.Frontier || b[kDOBM2Q] != 0 && b[kDOBM2Q] != 8*words+4*s.Frontier {
			t.Fatalf("level %d: conversions %v (frontier %d)", l, b, s.Frontier)
		}
	}
}

// TestDOLevelBytes checks the direction-optimizing byte model on numbers
// worked by hand.
func TestDOLevelBytes(t *testing.T) {
	d := doLevel{n: 64, words: 2, frontier: 3, arcs: 300, unvisited: 50, read: 40, reached: 10, big: 1, bigArcs: 260, parents: true}
	for _, c := range []struct {
		kernel        string
		bytes, gather int64
	}{
		{kDOQ2BM, 36, 12},
		{kDOBM2Q, 28, 0},
		{kDOBU, 16 + 400 + 320 + 80, 160},
		// 10 claims: 8 to do_td_big (260 of 300 arcs), 2 to do_td, 32 bytes each (16 gathered).
		{kDOTD, 12 + 48 + 320 + 64, 48 + 160 + 32},
		{kDOTDBig, 4 + 16 + 2080 + 256, 16 + 1040 + 128},
		{kDOInit, 0, 0},
	} {
		if b, g := d.launchBytes(c.kernel); b != c.bytes || g != c.gather {
			t.Errorf("%s: %d bytes, %d gathered; want %d, %d", c.kernel, b, g, c.bytes, c.gather)
		}
	}
}
