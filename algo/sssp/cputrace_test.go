package sssp

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/graphnb/graphnb/algo/internal/tracecost"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/graph/gen"
	"github.com/graphnb/graphnb/trace"
)

// cpuTraceCases are the graphs the CPU traces are checked on: R-MAT of
// scale 11 with each weight kind, and two components (vertices left
// unreached).
func cpuTraceCases(t *testing.T) []struct {
	name string
	g    *graph.CSR
} {
	rmat := func(opts ...gen.Option) *graph.CSR {
		g, err := gen.RMAT(11, 8, append(opts, gen.Seed(7))...)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	return []struct {
		name string
		g    *graph.CSR
	}{
		{"rmat_s11_uniform", rmat()},
		{"rmat_s11_uniform64", rmat(gen.Float64())},
		{"rmat_s11_int255", rmat(gen.Integer(255))},
		{"rmat_s11_unweighted", rmat(gen.Unweighted())},
		{"two_components", twoComponents(t)},
	}
}

// reachedArcs sums, over the vertices dist reaches, their arcs: all, the
// light ones (w ≤ delta) and the heavy ones.
func reachedArcs(g *graph.CSR, dist []float64, delta float64) (all, light, heavy int64) {
	for v := range g.NumVertices() {
		if dist[v] > maxFinite {
			continue
		}
		for k := g.Offsets[v]; k < g.Offsets[v+1]; k++ {
			all++
			if g.ArcWeight(k) <= delta {
				light++
			} else {
				heavy++
			}
		}
	}
	return all, light, heavy
}

// maxFinite is the largest finite float64: a distance above it is +Inf.
const maxFinite = 1.7976931348623157e308

// checkCommonTrace requires what every traced CPU run shares: a trace
// that passes trace.Check and names the run's algorithm, time and arcs,
// and distances equal to the untraced run's.
func checkCommonTrace(t *testing.T, what string, g *graph.CSR, r, plain *Result) {
	t.Helper()
	if plain.Trace != nil {
		t.Fatalf("%s: the untraced run has a trace", what)
	}
	if err := sameDist(r.Dist, plain.Dist); err != nil {
		t.Fatalf("%s: traced and untraced runs differ: %v", what, err)
	}
	tr := r.Trace
	if err := tr.Check(); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if tr.Algorithm != r.Algorithm || tr.Time != r.Time || tr.Arcs != g.NumArcs() {
		t.Fatalf("%s: trace of %q, %v, %d arcs; result %q, %v, graph %d arcs", what, tr.Algorithm, tr.Time, tr.Arcs, r.Algorithm, r.Time, g.NumArcs())
	}
	var lowered int64
	for _, s := range tr.Steps {
		lowered += s.Updated
	}
	if lowered < r.Reached-1 {
		t.Fatalf("%s: %d distances lowered for %d vertices reached", what, lowered, r.Reached)
	}
}

var dijkstraWhy = regexp.MustCompile(`^vertices (\d+)–(\d+) settled, d ≤ \S+$`)

// checkDijkstraTrace requires a traced Dijkstra's steps to settle the
// reached vertices in chunks of dijkstraTraceChunk, at most 256 steps,
// scanning every reached vertex's arcs once.
func checkDijkstraTrace(t *testing.T, what string, g *graph.CSR, r *Result) {
	t.Helper()
	chunk := dijkstraTraceChunk(g.NumVertices())
	steps := r.Trace.Steps
	if want := (int(r.Reached) + chunk - 1) / chunk; len(steps) != want || len(steps) > dijkstraMaxSteps {
		t.Fatalf("%s: %d steps for %d vertices settled in chunks of %d", what, len(steps), r.Reached, chunk)
	}
	var scanned int64
	next := 0
	for i, s := range steps {
		m := dijkstraWhy.FindStringSubmatch(s.Why)
		if s.Kind != "settle" || s.Frontier < 1 || s.FrontierArcs != 0 || m == nil {
			t.Fatalf("%s: step %d: %+v", what, i, s)
		}
		first, _ := strconv.Atoi(m[1])
		last, _ := strconv.Atoi(m[2])
		if first != next || last-first+1 != chunk && i < len(steps)-1 {
			t.Fatalf("%s: step %d settles %d–%d, want %d and %d vertices", what, i, first, last, next, chunk)
		}
		next = last + 1
		scanned += s.Inspected
	}
	if all, _, _ := reachedArcs(g, r.Dist, 0); scanned != all || next != int(r.Reached) || r.Iterations != int(r.Reached) {
		t.Fatalf("%s: %d arcs scanned, %d vertices settled, %d iterations; the reached vertices have %d arcs, %d vertices", what, scanned, next, r.Iterations, all, r.Reached)
	}
}

var deltaWhy = regexp.MustCompile(`^bucket (\d+) \[\S+, \S+\)(, round (\d+))?$`)

// checkDeltaTrace requires a traced Δ-stepping's steps to go through the
// buckets in order, light rounds then a settle step each, one settle step
// per bucket counted in Iterations, with arc counts that cover the
// reached vertices' light and heavy arcs.
func checkDeltaTrace(t *testing.T, what string, g *graph.CSR, r *Result) {
	t.Helper()
	steps := r.Trace.Steps
	if len(steps) == 0 || steps[0].Kind != "light" || !strings.HasPrefix(steps[0].Why, "bucket 0 [0, ") {
		t.Fatalf("%s: first step %+v, want bucket 0's light round", what, steps[:min(1, len(steps))])
	}
	var settles, settled, lightRelaxed, heavyRelaxed int64
	bucket := int64(-1)
	for i, s := range steps {
		m := deltaWhy.FindStringSubmatch(s.Why)
		if m == nil || s.Frontier < 1 {
			t.Fatalf("%s: step %d: %+v", what, i, s)
		}
		b, _ := strconv.ParseInt(m[1], 10, 64)
		if b < bucket {
			t.Fatalf("%s: step %d in bucket %d after bucket %d", what, i, b, bucket)
		}
		bucket = b
		switch s.Kind {
		case "light":
			if s.Inspected > s.FrontierArcs || m[2] == "" {
				t.Fatalf("%s: step %d: %+v (a light round relaxes at most its entries' light arcs)", what, i, s)
			}
			lightRelaxed += s.Inspected
		case "settle":
			if s.Inspected != s.FrontierArcs || m[2] != "" {
				t.Fatalf("%s: step %d: %+v (a settle step relaxes its vertices' heavy arcs)", what, i, s)
			}
			settles++
			settled += s.Frontier
			heavyRelaxed += s.Inspected
		default:
			t.Fatalf("%s: step %d of kind %q", what, i, s.Kind)
		}
	}
	if settles != int64(r.Iterations) || settled < r.Reached {
		t.Fatalf("%s: %d settle steps settled %d vertices; the run counted %d buckets, %d vertices reached", what, settles, settled, r.Iterations, r.Reached)
	}
	_, light, heavy := reachedArcs(g, r.Dist, r.Delta)
	// A vertex settles twice only when rounding puts a heavy arc's head
	// back into its bucket: then its heavy arcs are relaxed twice.
	if lightRelaxed < light || heavyRelaxed < heavy || settled == r.Reached && heavyRelaxed != heavy {
		t.Fatalf("%s: %d light and %d heavy arcs relaxed; the reached vertices have %d and %d", what, lightRelaxed, heavyRelaxed, light, heavy)
	}
}

func TestDijkstraTraced(t *testing.T) {
	for _, c := range cpuTraceCases(t) {
		t.Run(c.name, func(t *testing.T) {
			plain, err := Dijkstra(c.g, 0)
			if err != nil {
				t.Fatal(err)
			}
			r, err := DijkstraTraced(c.g, 0)
			if err != nil {
				t.Fatal(err)
			}
			checkCommonTrace(t, c.name, c.g, r, plain)
			checkDijkstraTrace(t, c.name, c.g, r)
		})
	}
}

func TestDeltaSteppingTraced(t *testing.T) {
	for _, c := range cpuTraceCases(t) {
		def := defaultDelta(c.g, weightsOf(c.g))
		// Small Δ: many buckets, few light arcs; large: few buckets, many
		// light rounds.
		for _, f := range []float64{0.25, 1, 8} {
			what := fmt.Sprintf("%s/delta_x%g", c.name, f)
			t.Run(what, func(t *testing.T) {
				plain, err := DeltaStepping(c.g, 0, f*def)
				if err != nil {
					t.Fatal(err)
				}
				r, err := DeltaSteppingTraced(c.g, 0, f*def)
				if err != nil {
					t.Fatal(err)
				}
				checkCommonTrace(t, what, c.g, r, plain)
				checkDeltaTrace(t, what, c.g, r)
			})
		}
	}
}

// traceToyGraph is a directed graph of 6 vertices whose Δ-stepping from
// 0 with Δ = 1 shows bucket fusion, a vertex queued twice and a stale
// entry:
//
//	0→1 0.5, 0→2 3, 1→3 0.25, 1→2 1.75, 3→4 1.6, 2→5 0.5, 4→5 0.25, 5→0 1
//
// Distances: 0, 0.5, 2.25, 0.75, 2.35, 2.6.
func traceToyGraph(t *testing.T) *graph.CSR {
	el := graph.EdgeList{N: 6,
		Src:     []int32{0, 0, 1, 1, 3, 2, 4, 5},
		Dst:     []int32{1, 2, 3, 2, 4, 5, 5, 0},
		Weights: []float32{0.5, 3, 0.25, 1.75, 1.6, 0.5, 0.25, 1},
	}
	g, err := graph.Build(el, graph.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// untimed returns steps with their times cleared, after requiring each
// to have taken some time.
func untimed(t *testing.T, steps []trace.Step) []trace.Step {
	t.Helper()
	out := make([]trace.Step, len(steps))
	for i, s := range steps {
		if s.Time <= 0 {
			t.Fatalf("step %d took no time: %+v", i, s)
		}
		s.Time = 0
		out[i] = s
	}
	return out
}

func sameSteps(t *testing.T, got, want []trace.Step) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d steps, want %d:\n%v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("step %d:\n got %+v\nwant %+v", i, got[i], want[i])
		}
	}
}

// TestDeltaSteppingTraceToy checks the toy graph's trace step by step.
// The buckets are small, so one worker runs every phase:
//
//   - bucket 0: the light round takes 0, then 1 and 3 by fusion (3
//     entries, light arcs 0→1 and 1→3, both lowering); the settle step
//     relaxes the heavy arcs of 0, 1, 3: 0→2 (d 3, bucket 3), 1→2 (2.25,
//     bucket 2: 2's entry in bucket 3 is now stale) and 3→4 (2.35);
//   - bucket 2: the round takes 2 and 4, then 5 twice by fusion (lowered
//     by 2→5 to 2.75, then by 4→5 to 2.6; both entries current), each
//     entry's light arc relaxed; 2, 4 and 5 settle with no heavy arcs;
//   - bucket 3: the round takes 2's stale entry and skips it; nothing
//     settles, so no settle step and 2 buckets counted.
func TestDeltaSteppingTraceToy(t *testing.T) {
	g := traceToyGraph(t)
	r, err := DeltaSteppingTraced(g, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Trace.Check(); err != nil {
		t.Fatal(err)
	}
	if r.Iterations != 2 {
		t.Errorf("%d buckets counted, want 2", r.Iterations)
	}
	sameSteps(t, untimed(t, r.Trace.Steps), []trace.Step{
		{Kind: "light", Frontier: 3, FrontierArcs: 2, Inspected: 2, Updated: 2, Why: "bucket 0 [0, 1), round 0"},
		{Kind: "settle", Frontier: 3, FrontierArcs: 3, Inspected: 3, Updated: 3, Why: "bucket 0 [0, 1)"},
		{Kind: "light", Frontier: 4, FrontierArcs: 4, Inspected: 4, Updated: 2, Why: "bucket 2 [2, 3), round 0"},
		{Kind: "settle", Frontier: 3, Why: "bucket 2 [2, 3)"},
		{Kind: "light", Frontier: 1, FrontierArcs: 1, Why: "bucket 3 [3, 4), round 0"},
	})
}

// TestDijkstraTraceToy checks the toy graph's Dijkstra trace: 6 vertices,
// so a step per vertex settled, in distance order 0, 1, 3, 2, 4, 5, with
// the heap's entries at each step's start (the stale entries of 2 at 3
// and of 5 at 2.75 stay until popped after the last step).
func TestDijkstraTraceToy(t *testing.T) {
	g := traceToyGraph(t)
	r, err := DijkstraTraced(g, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Trace.Check(); err != nil {
		t.Fatal(err)
	}
	sameSteps(t, untimed(t, r.Trace.Steps), []trace.Step{
		{Kind: "settle", Frontier: 1, Inspected: 2, Updated: 2, Why: "vertices 0–0 settled, d ≤ 0"},
		{Kind: "settle", Frontier: 2, Inspected: 2, Updated: 2, Why: "vertices 1–1 settled, d ≤ 0.5"},
		{Kind: "settle", Frontier: 3, Inspected: 1, Updated: 1, Why: "vertices 2–2 settled, d ≤ 0.75"},
		{Kind: "settle", Frontier: 3, Inspected: 1, Updated: 1, Why: "vertices 3–3 settled, d ≤ 2.25"},
		{Kind: "settle", Frontier: 3, Inspected: 1, Updated: 1, Why: "vertices 4–4 settled, d ≤ 2.35"},
		{Kind: "settle", Frontier: 3, Inspected: 1, Why: "vertices 5–5 settled, d ≤ 2.6"},
	})
}

// TestDijkstraTraceChunk checks the chunk: at most 256 steps, a power
// of two.
func TestDijkstraTraceChunk(t *testing.T) {
	for _, c := range []struct{ n, want int }{{1, 1}, {256, 1}, {257, 2}, {512, 2}, {513, 4}, {1 << 20, 4096}, {1<<20 + 1, 8192}} {
		if got := dijkstraTraceChunk(c.n); got != c.want {
			t.Errorf("dijkstraTraceChunk(%d) = %d, want %d", c.n, got, c.want)
		}
	}
}

// BenchmarkCPUTrace measures what a trace costs the CPU Dijkstra and
// Δ-stepping (tracecost.MeasureForm: every source untraced and traced in
// alternating order, the cost of the means and the median over the
// pairs; with GRAPHNB_BENCH_AA=1 an A/A control beside it) on R-MAT
// scale 18, edge factor 16, 64 sources (2 with -short). Issue 17 allows
// 2%.
func BenchmarkCPUTrace(b *testing.B) {
	const scale = 18
	type run = func(*graph.CSR, int32) (*Result, error)
	algos := []struct {
		name          string
		plain, traced run
	}{
		{"dijkstra", Dijkstra, DijkstraTraced},
		{"delta", func(g *graph.CSR, s int32) (*Result, error) { return DeltaStepping(g, s, 0) },
			func(g *graph.CSR, s int32) (*Result, error) { return DeltaSteppingTraced(g, s, 0) }},
	}
	for _, a := range algos {
		for _, form := range tracecost.Forms() {
			b.Run(fmt.Sprintf("rmat_s%d_ef16/%s%s", scale, a.name, form), func(b *testing.B) {
				g := benchGraph(b, scale)
				srcs := benchSources(g)
				if testing.Short() { // go test -short -bench: a check that it runs
					srcs = srcs[:2]
				}
				tracecost.MeasureForm(b, form, len(srcs), "sssp", "steps", func(i int, on bool) (time.Duration, *trace.Trace, error) {
					f := a.plain
					if on {
						f = a.traced
					}
					r, err := f(g, srcs[i])
					if err != nil {
						return 0, nil, err
					}
					return r.Time, r.Trace, nil
				})
			})
		}
	}
}
