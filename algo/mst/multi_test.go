package mst

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/graph/gen"
	"github.com/graphnb/graphnb/graph/gen/gpugen"
	"github.com/graphnb/graphnb/internal/cudasrc"
	"github.com/graphnb/graphnb/internal/fakegpu"
	tg "github.com/graphnb/graphnb/internal/testgraphs"
)

// splitGraph splits g over grp's ranks (gpu.UploadParts), closed with
// the test.
func splitGraph(t testing.TB, grp *gpu.Group, g *graph.CSR) *gpu.PartGraph {
	t.Helper()
	pg, err := gpu.UploadParts(grp, g)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pg.Close() })
	return pg
}

// groupCases are the graphs of the group tests: the package's small GPU
// cases (R-MATs with float32, float64, integer and no weights, ties,
// signed weights, two components and an isolated vertex, one vertex, no
// vertex), the undirected graphs of internal/testgraphs, random graphs
// with many ties and a graph with isolated vertices in every block.
func groupCases(t testing.TB) []gpuCase {
	cases := gpuCases(t, true)
	for _, c := range tg.ShortestPaths() {
		if !c.Directed {
			cases = append(cases, gpuCase{"testgraphs_" + c.Name, c.Graph(t)})
		}
	}
	r := rand.New(rand.NewPCG(40, 41))
	integer := func(r *rand.Rand) float64 { return float64(r.IntN(3)) }
	var sparse []tg.Edge
	for i := 0; i+3 < 300; i += 7 { // vertices 7k+4 … 7k+6 isolated
		sparse = append(sparse, tg.Edge{float64(i), float64(i + 1), float64(i % 5)}, tg.Edge{float64(i + 1), float64(i + 3), 2})
	}
	cases = append(cases,
		gpuCase{"random_int_ties", tg.Build(t, 150, false, tg.Float32, tg.Random(r, 150, 500, integer)...)},
		gpuCase{"random_int_ties_float64", tg.Build(t, 130, false, tg.Float64, tg.Random(r, 130, 400, integer)...)},
		gpuCase{"random_unweighted", randomGraph(t, r, 140, 300, "unweighted")},
		gpuCase{"isolated_in_every_block", tg.Build(t, 300, false, tg.Float32, sparse...)},
	)
	return cases
}

// checkGroupRuns runs RunGroup on every case and compares it with
// Kruskal (Edges and Weight bit for bit, Trees) and the CPU's Check.
func checkGroupRuns(t *testing.T, grp *gpu.Group, cases []gpuCase) {
	for i, c := range cases {
		pg := splitGraph(t, grp, c.g)
		want, err := Kruskal(c.g)
		if err != nil {
			t.Fatal(err)
		}
		traced := i%2 == 1
		res, err := RunGroup(pg, GroupOptions{Trace: traced})
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		sameForest(t, c.name, res, want)
		checkGroupTrace(t, c.name, traced, grp.IsHost(), res)
		if math.IsInf(want.Weight, 0) {
			// The checks cannot sum infinite weights.
		} else if err := Check(c.g, res.Result()); err != nil {
			t.Errorf("%s: the CPU's check: %v", c.name, err)
		} else if err := res.Check(); err != nil {
			t.Errorf("%s: the group's check: %v", c.name, err)
		}
		if err := res.Close(); err != nil {
			t.Error(err)
		}
	}
}

// sameForest compares a group's forest with Kruskal's: the same edges
// in the same order with bit-identical weights, the same Weight bits.
func sameForest(t *testing.T, name string, res *GroupResult, want *Result) {
	t.Helper()
	same := len(res.Edges) == len(want.Edges)
	for i := 0; same && i < len(res.Edges); i++ {
		a, b := res.Edges[i], want.Edges[i]
		same = a.U == b.U && a.V == b.V && (math.Float64bits(a.W) == math.Float64bits(b.W) || a.W == 0 && b.W == 0)
	}
	if !same {
		t.Errorf("%s: %d edges %v…; Kruskal has %d: %v…", name, len(res.Edges), head(res.Edges), len(want.Edges), head(want.Edges))
	}
	if math.Float64bits(res.Weight) != math.Float64bits(want.Weight) && !(res.Weight == 0 && want.Weight == 0) {
		t.Errorf("%s: weight %v, Kruskal's %v", name, res.Weight, want.Weight)
	}
	if res.Trees != want.Trees {
		t.Errorf("%s: %d trees, Kruskal's %d", name, res.Trees, want.Trees)
	}
}

// head is the first edges of a forest, for messages.
func head(e []Edge) []Edge { return e[:min(len(e), 6)] }

// TestRunGroupHost runs RunGroup on a group of the host device: the
// CPU's Boruvka on the one part.
func TestRunGroupHost(t *testing.T) {
	grp, err := gpu.NewGroup(gpu.Host())
	if err != nil {
		t.Fatal(err)
	}
	defer grp.Close()
	checkGroupRuns(t, grp, groupCases(t))
	checkGroupErrors(t, grp)
}

// checkGroupErrors checks RunGroup's refusals: no graph, a directed one,
// an interrupt before the run, a NaN weight.
func checkGroupErrors(t *testing.T, grp *gpu.Group) {
	if r, err := RunGroup(nil, GroupOptions{}); r != nil || err == nil {
		t.Errorf("RunGroup(nil): %v, %v; want an error", r, err)
	}
	dir := tg.Build(t, 3, true, tg.Float32, tg.Edge{0, 1, 1}, tg.Edge{1, 2, 1})
	if r, err := RunGroup(splitGraph(t, grp, dir), GroupOptions{}); r != nil || err == nil || !strings.Contains(err.Error(), "directed") {
		t.Errorf("RunGroup on a directed graph: %v, %v; want an error", r, err)
	}
	pg := splitGraph(t, grp, mustGraph(t)(gen.Path(10, gen.Seed(1))))
	cancel.Request()
	r, err := RunGroup(pg, GroupOptions{})
	cancel.Clear()
	if r != nil || !errors.Is(err, cancel.ErrInterrupted) {
		t.Errorf("RunGroup interrupted: %v, %v; want cancel.ErrInterrupted", r, err)
	}
	nan := &graph.CSR{Offsets: []int64{0, 1, 3, 4}, Adj: []int32{1, 0, 2, 1}, Weights64: []float64{1, 1, math.NaN(), math.NaN()}}
	if r, err := RunGroup(splitGraph(t, grp, nan), GroupOptions{}); r != nil || err == nil || !strings.Contains(err.Error(), "NaN") {
		t.Errorf("RunGroup with a NaN weight: %v, %v; want an error", r, err)
	}
	if err := grp.Err(); err != nil {
		t.Errorf("the group after refusals: %v", err)
	}
}

// fakeObjects are the kernel tables the fake group tests link: check.cu's
// and multi.cu's (testdata/fake_check.cpp).
func fakeObjects(b *fakegpu.Builder) []string { return []string{b.CXX("testdata/fake_check.cpp")} }

// TestFakeGPUGroup runs the group tests on a one-rank group of the fake
// GPU (the collectives are copies on the device).
func TestFakeGPUGroup(t *testing.T) {
	fakegpu.Run(t, "TestFakeGPUGroupChild", 5*time.Minute, fakeObjects)
}

// TestFakeGPUGroupChild is TestFakeGPUGroup's child process.
func TestFakeGPUGroupChild(t *testing.T) {
	dev := fakegpu.Device(t)
	grp, err := gpu.NewGroup(dev)
	if err != nil {
		t.Fatal(err)
	}
	defer grp.Close()
	checkGroup(t, grp)
	t.Run("interrupt", func(t *testing.T) { checkGroupInterrupt(t, grp) })
	t.Run("stats", func(t *testing.T) { checkGroupStats(t, grp) })
}

// checkGroup runs the group's runs, refusals and check tests.
func checkGroup(t *testing.T, grp *gpu.Group) {
	t.Run("runs", func(t *testing.T) { checkGroupRuns(t, grp, groupCases(t)) })
	t.Run("errors", func(t *testing.T) { checkGroupErrors(t, grp) })
	t.Run("check_catches", func(t *testing.T) { checkGroupCatches(t, grp) })
	t.Run("check_agrees", func(t *testing.T) { checkGroupAgrees(t, grp, 12) })
}

// groupCheckCases are the graphs of the check tests: float32, float64
// and integer weights with ties, and two components.
func groupCheckCases(t testing.TB) []gpuCase {
	return []gpuCase{
		{"rmat_s7", mustGraph(t)(gen.RMAT(7, 8, gen.Seed(1)))},
		{"rmat_s7_float64_int4", mustGraph(t)(gen.RMAT(7, 8, gen.Seed(8), gen.Integer(4), gen.Float64()))},
		{"two_components", twoComponents(t)},
	}
}

// withForest is res with the forest m (a changed copy of res's).
func withForest(res *GroupResult, m *Result) *GroupResult {
	c := *res
	c.Edges, c.Weight, c.Trees = m.Edges, m.Weight, m.Trees
	return &c
}

// checkGroupCatches plants every kind of error of the device check's
// tests (mutations) in a group's forest and requires GroupResult.Check
// to name it.
func checkGroupCatches(t *testing.T, grp *gpu.Group) {
	planted := map[string]bool{}
	for _, c := range groupCheckCases(t) {
		res, err := RunGroup(splitGraph(t, grp, c.g), GroupOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, mu := range mutations {
			m := cloneResult(res.Result())
			if !mu.plant(t, c.g, m) {
				continue // e.g. no heavier edge to swap in
			}
			planted[mu.name] = true
			err := withForest(res, m).Check()
			if err == nil || !strings.Contains(err.Error(), mu.want) || !strings.Contains(err.Error(), "rule") && mu.want != "result says" {
				t.Errorf("%s, %s: the group's check says %v; want an error naming the rule and %q", c.name, mu.name, err, mu.want)
			} else if err := namedArcIsTheGraphs(c.g, err.Error()); err != nil {
				t.Errorf("%s, %s: %v", c.name, mu.name, err)
			}
		}
		if err := res.Check(); err != nil {
			t.Errorf("%s: the unchanged forest after the mutations: %v", c.name, err)
		}
	}
	for _, mu := range mutations {
		if !planted[mu.name] {
			t.Errorf("%s: no graph offered a place for it", mu.name)
		}
	}
}

// namedArc finds the arc a failure of rule 3 or 5 names: "u→v (arc k"
// or "u–v (arc k".
var namedArc = regexp.MustCompile(`(\d+)[→–](\d+) \(arc (\d+)`)

// namedArcIsTheGraphs checks that the arc a failure message names (if
// any) is arc k of the whole graph g, from u to v: ranks number their
// arcs after the lower ranks'.
func namedArcIsTheGraphs(g *graph.CSR, msg string) error {
	m := namedArc.FindStringSubmatch(msg)
	if m == nil {
		return nil
	}
	u, _ := strconv.Atoi(m[1])
	v, _ := strconv.Atoi(m[2])
	k, _ := strconv.ParseInt(m[3], 10, 64)
	if k >= g.NumArcs() || g.Adj[k] != int32(v) || g.Offsets[u] > k || k >= g.Offsets[u+1] {
		return fmt.Errorf("%q names arc %d as %d→%d, which is not the graph's", msg, k, u, v)
	}
	return nil
}

// checkGroupAgrees checks random mutations of a group's forests with
// GroupResult.Check and the CPU's Check: both accept or both reject.
func checkGroupAgrees(t *testing.T, grp *gpu.Group, mutants int) {
	rng := rand.New(rand.NewPCG(19, 2))
	for _, c := range groupCheckCases(t) {
		res, err := RunGroup(splitGraph(t, grp, c.g), GroupOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for range mutants {
			m := cloneResult(res.Result())
			what := mutateRandomly(t, rng, c.g, m)
			cpu, dev := Check(c.g, m), withForest(res, m).Check()
			if (cpu == nil) != (dev == nil) {
				t.Errorf("%s, %s: CPU check %v, the group's check %v", c.name, what, cpu, dev)
			}
		}
	}
}

// TestFakeGPUGroups runs the group tests on groups of 2 and 3 fake GPUs
// joined by the fake NCCL (internal/fakegpu.RunN).
func TestFakeGPUGroups(t *testing.T) {
	for _, ranks := range []int{2, 3} {
		t.Run(fmt.Sprintf("ranks%d", ranks), func(t *testing.T) {
			fakegpu.RunN(t, "TestFakeGPUGroupsChild", 5*time.Minute, ranks, fakeObjects)
		})
	}
}

// TestFakeGPUGroupsChild is TestFakeGPUGroups' child process.
func TestFakeGPUGroupsChild(t *testing.T) {
	grp := fakegpu.Group(t)
	t.Logf("%v", grp)
	checkGroup(t, grp)
	t.Run("interrupt", func(t *testing.T) { checkGroupInterrupt(t, grp) })
	t.Run("failing_rank", checkFailingRank)
}

// TestFakeGPUGroupRanks runs RunGroup and its check over a group of 2
// fake GPUs in 2 processes, one rank each (gpu.JoinGroup), as `graphnb
// bench -ranks` does: every process gets the forest, and a failure in an
// arc of the other process's part is named in both.
func TestFakeGPUGroupRanks(t *testing.T) {
	fakegpu.RunN(t, "TestFakeGPUGroupRanksChild", 5*time.Minute, 2, fakeObjects)
}

// TestFakeGPUGroupRanksChild is TestFakeGPUGroupRanks' child: it starts
// the rank processes.
func TestFakeGPUGroupRanksChild(t *testing.T) {
	fakegpu.RunRanks(t, "TestFakeGPUGroupRank", 2, 3*time.Minute)
}

// TestFakeGPUGroupRank is one rank's process of TestFakeGPUGroupRanks.
func TestFakeGPUGroupRank(t *testing.T) {
	grp := fakegpu.JoinedGroup(t)
	for _, c := range groupCheckCases(t) {
		res, err := RunGroup(splitGraph(t, grp, c.g), GroupOptions{})
		if err != nil {
			t.Fatal(err)
		}
		want, err := Kruskal(c.g)
		if err != nil {
			t.Fatal(err)
		}
		sameForest(t, c.name, res, want)
		if err := res.Check(); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
		for _, mu := range mutations {
			m := cloneResult(res.Result())
			if !mu.plant(t, c.g, m) {
				continue
			}
			err := withForest(res, m).Check()
			if err == nil || !strings.Contains(err.Error(), mu.want) {
				t.Errorf("%s, %s: the group's check says %v; want an error naming %q", c.name, mu.name, err, mu.want)
			} else if err := namedArcIsTheGraphs(c.g, err.Error()); err != nil {
				t.Errorf("%s, %s: %v", c.name, mu.name, err)
			}
		}
	}
}

// checkGroupInterrupt interrupts a run on one rank only, in its third
// round (groupTuning), and checks that every rank stops with cancel's
// error and leaves the group usable.
func checkGroupInterrupt(t *testing.T, grp *gpu.Group) {
	g := tg.Build(t, 600, false, tg.Float32, tg.Path(600, func(i int) float64 { return float64(i % 7) })...)
	pg := splitGraph(t, grp, g)
	groupTuning.interruptAtRound = 3
	r, err := RunGroup(pg, GroupOptions{})
	groupTuning.interruptAtRound = 0
	if r != nil || !errors.Is(err, cancel.ErrInterrupted) {
		t.Fatalf("RunGroup interrupted in round 3 on rank 0: %v, %v; want cancel.ErrInterrupted", r, err)
	}
	if err := grp.Err(); err != nil {
		t.Fatalf("the group after an interrupt: %v", err)
	}
	r, err = RunGroup(pg, GroupOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := Kruskal(g); len(r.Edges) != 599 || r.Weight != want.Weight {
		t.Errorf("after an interrupt: %v; want Kruskal's %v", r, want)
	}
}

// checkGroupStats checks a run's figures.
func checkGroupStats(t *testing.T, grp *gpu.Group) {
	g := mustGraph(t)(gen.RMAT(7, 8, gen.Seed(1)))
	res, err := RunGroup(splitGraph(t, grp, g), GroupOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n := int64(g.NumVertices())
	if res.Rounds < 1 || res.N != int(n) || res.Arcs != g.NumArcs() || len(res.Ranks) != len(grp.Ranks()) {
		t.Errorf("%v: rounds, N, arcs or ranks wrong: %+v", res, res)
	}
	for _, rs := range res.Ranks {
		// Two all-reduces of N words per round, and one more round that
		// finds no edge.
		if want := 16 * n * int64(res.Rounds+1); rs.ReducedBytes != want {
			t.Errorf("rank %d reduced %d bytes in %d rounds; want %d", rs.Rank, rs.ReducedBytes, res.Rounds, want)
		}
		if rs.CommTime > rs.Time || rs.Time > res.Time {
			t.Errorf("rank %d: time %v, communication %v; the run's %v", rs.Rank, rs.Time, rs.CommTime, res.Time)
		}
	}
	if s := res.CommShare(); !(s >= 0 && s <= 1) {
		t.Errorf("communication share %v", s)
	}
	if !strings.Contains(res.String(), "rounds") {
		t.Errorf("String: %q", res.String())
	}
}

// checkFailingRank makes a group whose rank 1 fails its 3rd NCCL
// operation (the fake NCCL's failure injection: the partitioned graph's
// arc count is the first, the first round's all-reduces the second and
// third) and checks that RunGroup returns, on every rank, an error that
// names the failure, and leaves the group broken.
func checkFailingRank(t *testing.T) {
	t.Setenv("FAKE_NCCL_FAIL", "rank=1,op=3,mode=error")
	devs, err := gpu.Devices()
	if err != nil {
		t.Fatal(err)
	}
	grp, err := gpu.NewGroup(devs...)
	if err != nil {
		t.Fatal(err)
	}
	defer grp.Close()
	pg := splitGraph(t, grp, mustGraph(t)(gen.RMAT(7, 8, gen.Seed(1))))
	r, err := RunGroup(pg, GroupOptions{})
	if r != nil || err == nil {
		t.Fatalf("RunGroup with a failing rank: %v, %v; want an error", r, err)
	}
	for _, rk := range grp.Ranks() {
		if want := fmt.Sprintf("rank %d ", rk.Rank()); !strings.Contains(err.Error(), want) {
			t.Errorf("RunGroup with a failing rank: %v; want every rank's error (%q)", err, want)
		}
	}
	if !strings.Contains(err.Error(), "injected failure") {
		t.Errorf("RunGroup with a failing rank: %v; want the failing rank's own error", err)
	}
	if grp.Err() == nil {
		t.Error("the group is not broken after a rank failed")
	}
}

// TestMultiConstants compares multi.go's control words and kernels with
// multi.cu's.
func TestMultiConstants(t *testing.T) {
	src, err := os.ReadFile("multi.cu")
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]int{"MM_FOREST": mmForest, "MM_JUMPED": mmJumped, "MM_NAN": mmNaN, "MM_WORDS": mmWords} {
		m := regexp.MustCompile(`#define ` + name + ` (\d+)`).FindSubmatch(src)
		if m == nil {
			t.Errorf("multi.cu does not define %s", name)
			continue
		}
		if got, _ := strconv.Atoi(string(m[1])); got != want {
			t.Errorf("multi.cu's %s = %d, multi.go's %d", name, got, want)
		}
	}
	cudasrc.Check(t, "multi.cu", multiModule.Source, 1, append(multiKernelNames(), groupCheckKernelNames()...))
}

// TestWeightOfKey checks that weightOfKey inverts ordered64.
func TestWeightOfKey(t *testing.T) {
	for _, w := range []float64{math.Inf(-1), -1e300, -2, -1e-300, 0, 1e-300, 0.5, 1, 3, float64(float32(0.1)), math.Inf(1)} {
		if got := weightOfKey(ordered64(w)); math.Float64bits(got) != math.Float64bits(w) {
			t.Errorf("weightOfKey(ordered64(%v)) = %v", w, got)
		}
	}
}

// realGPUs returns the machine's GPUs (GRAPHNB_GROUP_GPUS: the first
// that many), skipping without one.
func realGPUs(tb testing.TB) []*gpu.Device {
	tb.Helper()
	if gpu.Default().IsHost() {
		tb.Skip(gpu.DefaultReason())
	}
	devs, err := gpu.Devices()
	if err != nil {
		tb.Fatal(err)
	}
	if v, err := strconv.Atoi(os.Getenv("GRAPHNB_GROUP_GPUS")); err == nil && v >= 1 && v < len(devs) {
		devs = devs[:v]
	}
	return devs
}

// newGroup makes a group of devs, closed with the test; it fails when the
// group cannot be made (several GPUs without NCCL included).
func newGroup(tb testing.TB, devs []*gpu.Device) *gpu.Group {
	tb.Helper()
	grp, err := gpu.NewGroup(devs...)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { grp.Close() })
	return grp
}

// TestGroupGPU runs the group tests on a group of GPU 0 and on a group of
// every GPU: the test graphs and the GPU tests' larger ones (forests
// equal to Kruskal's, checked on the devices), the check's mutations, and
// an R-MAT generated in parts on the GPUs (gpugen.RMATParts) against
// Kruskal on the same graph made on the host.
func TestGroupGPU(t *testing.T) {
	devs := realGPUs(t)
	cases := append(groupCases(t), gpuCases(t, false)...)
	run := func(t *testing.T, grp *gpu.Group) {
		t.Logf("%v", grp)
		checkGroupRuns(t, grp, cases)
		t.Run("errors", func(t *testing.T) { checkGroupErrors(t, grp) })
		t.Run("check_catches", func(t *testing.T) { checkGroupCatches(t, grp) })
		t.Run("check_agrees", func(t *testing.T) { checkGroupAgrees(t, grp, 40) })
		t.Run("interrupt", func(t *testing.T) { checkGroupInterrupt(t, grp) })
		t.Run("generated_parts", func(t *testing.T) { checkGeneratedParts(t, grp, 16) })
	}
	t.Run("one", func(t *testing.T) { run(t, newGroup(t, devs[:1])) })
	if len(devs) > 1 {
		t.Run(fmt.Sprintf("all_%d", len(devs)), func(t *testing.T) { run(t, newGroup(t, devs)) })
	}
}

// checkGeneratedParts runs RunGroup on an R-MAT of the scale generated in
// parts on grp's GPUs and compares the forest with Kruskal's on the same
// graph generated on the host.
func checkGeneratedParts(t *testing.T, grp *gpu.Group, scale int) {
	opts := []gen.Option{gen.Seed(3), gen.PermuteVertices(true)}
	pg, err := gpugen.RMATParts(grp, scale, 16, opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	res, err := RunGroup(pg, GroupOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%v", res)
	want, err := Kruskal(mustGraph(t)(gen.RMAT(scale, 16, opts...)))
	if err != nil {
		t.Fatal(err)
	}
	sameForest(t, fmt.Sprintf("rmat_s%d in parts", scale), res, want)
	if err := res.Check(); err != nil {
		t.Error(err)
	}
}

// BenchmarkRunGroup measures RunGroup on R-MAT graphs of scales 22 and 24
// (edge factor 16, seed 1, float32 weights in [0, 1), vertices permuted
// as Graph500 does, so that the blocks hold about as many arcs),
// generated in parts on the GPUs (gpugen.RMATParts), over groups of 1, 2,
// 4, … GPUs (every GPU at most; GRAPHNB_GROUP_GPUS: the first that many).
// The last run of each sub-benchmark is validated with GroupResult.Check
// (outside the timing) before its figures count. Metrics:
//
//	ms/run      the rounds over the group (Time: the slowest rank)
//	MTEPS       stored arcs / Time (the MST study's MTEPS)
//	comm_frac   the share of Time in collectives
//	rounds      Borůvka rounds
//	forest_ms   gathering and sorting the forest on the host (outside Time)
//	check_ms    the device check of the last run
//
// On the GPU machine, e.g.
//
//	./algo_mst.test -test.run '^$' -test.bench 'RunGroup' -test.benchtime 3x
func BenchmarkRunGroup(b *testing.B) {
	devs := realGPUs(b)
	for _, scale := range []int{22, 24} {
		for _, k := range groupSizes(len(devs)) {
			b.Run(fmt.Sprintf("rmat_s%d/gpus%d", scale, k), func(b *testing.B) {
				grp := newGroup(b, devs[:k])
				pg, err := gpugen.RMATParts(grp, scale, 16, gen.Seed(1), gen.PermuteVertices(true))
				if err != nil {
					b.Fatal(err)
				}
				defer pg.Close()
				benchRunGroup(b, pg)
			})
		}
	}
}

// groupSizes are 1, 2, 4, … below n, then n.
func groupSizes(n int) []int {
	var s []int
	for k := 1; k < n; k *= 2 {
		s = append(s, k)
	}
	return append(s, n)
}

// benchRunGroup is one sub-benchmark of BenchmarkRunGroup.
func benchRunGroup(b *testing.B, pg *gpu.PartGraph) {
	var total, comm, forest time.Duration
	var rounds int
	var last *GroupResult
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := RunGroup(pg, GroupOptions{})
		if err != nil {
			b.Fatal(err)
		}
		total += r.Time
		comm += r.CommTime
		forest += r.ForestTime
		rounds += r.Rounds
		last = r
	}
	b.StopTimer()
	start := time.Now()
	if err := last.Check(); err != nil {
		b.Fatalf("%v: the forest fails the device check, so its time does not count: %v", last, err)
	}
	check := time.Since(start)
	k := float64(b.N)
	b.ReportMetric(float64(total.Microseconds())/1e3/k, "ms/run")
	b.ReportMetric(float64(pg.Arcs)/(total.Seconds()/k)/1e6, "MTEPS")
	b.ReportMetric(comm.Seconds()/total.Seconds(), "comm_frac")
	b.ReportMetric(float64(rounds)/k, "rounds")
	b.ReportMetric(float64(forest.Microseconds())/1e3/k, "forest_ms")
	b.ReportMetric(float64(check.Microseconds())/1e3, "check_ms")
}

// checkGroupTrace requires a traced group run to record its rounds: on
// the devices one step per round that added edges and one for the last,
// each reading every arc twice, the trees at the start of the first the
// graph's vertices; everywhere the edges added summing to the forest's,
// collectives within each step and times that fit the run; an untraced
// run no trace.
func checkGroupTrace(t *testing.T, name string, traced, host bool, res *GroupResult) {
	t.Helper()
	tr := res.Trace
	if !traced || res.N == 0 {
		if tr != nil {
			t.Errorf("%s: a trace without GroupOptions.Trace, or of no vertex", name)
		}
		return
	}
	if tr == nil || tr.Time != res.Time || tr.Arcs != res.Arcs {
		t.Fatalf("%s: trace %v, run time %v", name, tr, res.Time)
	}
	if err := tr.Check(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var added int64
	for i, s := range tr.Steps {
		added += s.Updated
		if !host && (s.Kind != "round" || s.Inspected != 2*res.Arcs || i == 0 && s.Frontier != int64(res.N)) {
			t.Fatalf("%s: step %d: %+v (graph: %d vertices, %d arcs)", name, i, s, res.N, res.Arcs)
		}
	}
	if added != int64(len(res.Edges)) || !host && len(tr.Steps) != res.Rounds+1 {
		t.Fatalf("%s: %d steps adding %d edges; the run has %d rounds and %d edges", name, len(tr.Steps), added, res.Rounds, len(res.Edges))
	}
}
