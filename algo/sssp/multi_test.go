package sssp

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
	"github.com/graphnb/graphnb/internal/fakegpu"
	tg "github.com/graphnb/graphnb/internal/testgraphs"
)

// uploadParts splits g by gpu.Block over grp's ranks (all in this
// process) and uploads each part to its rank's device: a PartGraph for
// tests, until the partitioned generator makes them on the devices.
func uploadParts(t testing.TB, grp *gpu.Group, g *graph.CSR) *gpu.PartGraph {
	t.Helper()
	n := g.NumVertices()
	var parts []*gpu.Part
	for _, r := range grp.Ranks() {
		dev := r.Device()
		lo, hi := gpu.Block(n, grp.Size(), r.Rank())
		a0, a1 := g.Offsets[lo], g.Offsets[hi]
		off := make([]int64, hi-lo+1)
		for i := range off {
			off[i] = g.Offsets[lo+i] - a0
		}
		p := &gpu.Part{Lo: lo, Hi: hi}
		var err error
		if p.Offsets, err = dev.Int64sFrom(off); err != nil {
			t.Fatal(err)
		}
		if p.Adj, err = dev.Int32sFrom(g.Adj[a0:a1]); err != nil {
			t.Fatal(err)
		}
		switch {
		case g.Weights64 != nil:
			p.Weights64, err = dev.Float64sFrom(g.Weights64[a0:a1])
		case g.Weights != nil:
			p.Weights, err = dev.Float32sFrom(g.Weights[a0:a1])
		}
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, p)
	}
	pg, err := gpu.NewPartGraph(grp, n, g.Directed, parts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pg.Close() })
	return pg
}

// groupCases are the graphs of the group tests: the shortest-path cases
// of internal/testgraphs, small R-MATs (float32, float64 and no weights),
// a random graph with integer weights, directed ones, and graphs with
// unreachable vertices.
func groupCases(t testing.TB) []gpuCase {
	var cases []gpuCase
	for _, c := range tg.ShortestPaths() {
		cases = append(cases, gpuCase{name: c.Name, g: c.Graph(t), srcs: []int32{c.Source}})
	}
	r := rand.New(rand.NewPCG(3, 4))
	integer := func(r *rand.Rand) float64 { return float64(r.IntN(8)) }
	cases = append(cases,
		gpuCase{name: "rmat_s7", g: mustGraph(t)(gen.RMAT(7, 8, gen.Seed(1)))},
		gpuCase{name: "rmat_s7_float64", g: mustGraph(t)(gen.RMAT(7, 8, gen.Seed(2), gen.Float64()))},
		gpuCase{name: "rmat_s7_unweighted", g: mustGraph(t)(gen.RMAT(7, 8, gen.Seed(3), gen.Unweighted()))},
		gpuCase{name: "rmat_s7_integer", g: mustGraph(t)(gen.RMAT(7, 8, gen.Seed(4), gen.Integer(9)))},
		gpuCase{name: "random_directed", g: tg.Build(t, 200, true, tg.Float32, tg.Random(r, 200, 900, func(r *rand.Rand) float64 { return r.Float64() })...)},
		gpuCase{name: "random_integer", g: tg.Build(t, 150, false, tg.Float32, tg.Random(r, 150, 400, integer)...)},
		gpuCase{name: "random_integer_directed", g: tg.Build(t, 150, true, tg.Float64, tg.Random(r, 150, 600, integer)...)},
		gpuCase{name: "two_components", g: twoComponents(t), srcs: []int32{0, 100}},
		gpuCase{name: "zero_weights", g: tg.Build(t, 6, false, tg.Float32,
			tg.Edge{0, 1, 0}, tg.Edge{1, 2, 0}, tg.Edge{2, 0, 0}, tg.Edge{2, 3, 1}, tg.Edge{3, 4, 0}, tg.Edge{4, 5, 0}, tg.Edge{5, 3, 0}), srcs: []int32{1}},
	)
	for i := range cases {
		c := &cases[i]
		if c.srcs == nil {
			c.srcs = append([]int32{0}, c.g.Roots(1, 9)...)
		}
	}
	return cases
}

// checkGroupRuns runs RunGroup on every case and source and compares it
// with DeltaStepping (Dist, bit for bit) and with the single-GPU near-far
// method's RunOnDevice (Dist and the parent tree, which depends only on
// the distances), and validates it with GroupResult.Check.
func checkGroupRuns(t *testing.T, dev *gpu.Device, grp *gpu.Group, cases []gpuCase) {
	for _, c := range cases {
		pg := uploadParts(t, grp, c.g)
		var single *Prepared
		if !dev.IsHost() {
			var err error
			// The group's default Δ factor (DefaultGroupDeltaFactor) is not
			// one GPU's: ask for it, so that Δ can be compared.
			if single, err = Prepare(dev, c.g, Options{Method: NearFar, Parents: true, DeltaFactor: DefaultGroupDeltaFactor}); err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
		}
		for i, src := range c.srcs {
			name := fmt.Sprintf("%s from %d", c.name, src)
			want, err := DeltaStepping(c.g, src, 0)
			if err != nil {
				t.Fatal(err)
			}
			traced := i%2 == 1
			res, err := RunGroup(pg, int(src), GroupOptions{Parents: true, Trace: traced})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if !dev.IsHost() {
				checkGroupTrace(t, name, traced, res)
			} else if (res.Trace != nil) != traced || traced && res.Trace.Check() != nil {
				t.Errorf("%s: a host group's trace %v, asked %v", name, res.Trace, traced)
			}
			got, err := res.Result()
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if err := sameDist(got.Dist, want.Dist); err != nil {
				t.Errorf("%s: against DeltaStepping: %v", name, err)
			}
			if got.Reached != want.Reached || got.ComponentEdges != want.ComponentEdges {
				t.Errorf("%s: Reached %d, ComponentEdges %d; DeltaStepping says %d, %d", name, got.Reached, got.ComponentEdges, want.Reached, want.ComponentEdges)
			}
			if err := Check(c.g, got); err != nil {
				t.Errorf("%s: the host check: %v", name, err)
			}
			if err := res.Check(); err != nil {
				t.Errorf("%s: the group's check: %v", name, err)
			}
			if single != nil {
				checkAgainstSingle(t, name, single, src, res, got)
			}
			if err := res.Close(); err != nil {
				t.Error(err)
			}
		}
		single.Close()
	}
}

// checkAgainstSingle compares a group's result with the single GPU's
// near-far run: Δ (bit for bit on one rank; several ranks add their
// means in another order), distances and parents.
func checkAgainstSingle(t *testing.T, name string, single *Prepared, src int32, res *GroupResult, got *Result) {
	t.Helper()
	sr, err := single.Run(src)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if err := sameDist(got.Dist, sr.Dist); err != nil {
		t.Errorf("%s: against the single GPU: %v", name, err)
	}
	if d := single.Delta(); res.Delta != d && (res.pg.Group.Size() == 1 || math.Abs(res.Delta-d) > 1e-9*d) {
		t.Errorf("%s: Δ = %v, the single GPU's near-far uses %v", name, res.Delta, single.Delta())
	}
	for v := range got.Parents {
		if got.Parents[v] != sr.Parents[v] {
			t.Errorf("%s: Parents[%d] = %d, the single GPU's tree says %d", name, v, got.Parents[v], sr.Parents[v])
			break
		}
	}
}

// TestRunGroupHost runs RunGroup on a group of the host device: the
// CPU's DeltaStepping on the one part.
func TestRunGroupHost(t *testing.T) {
	grp, err := gpu.NewGroup(gpu.Host())
	if err != nil {
		t.Fatal(err)
	}
	defer grp.Close()
	checkGroupRuns(t, gpu.Host(), grp, groupCases(t))
	checkGroupErrors(t, grp)
}

// checkGroupErrors checks RunGroup's refusals: a source out of range, a
// bad Δ, an interrupt, a negative weight.
func checkGroupErrors(t *testing.T, grp *gpu.Group) {
	g := mustGraph(t)(gen.Path(10, gen.Seed(1)))
	pg := uploadParts(t, grp, g)
	for _, src := range []int{-1, 10} {
		if r, err := RunGroup(pg, src, GroupOptions{}); r != nil || err == nil || !strings.Contains(err.Error(), "is not a vertex") {
			t.Errorf("RunGroup from %d: %v, %v; want an error naming the source", src, r, err)
		}
	}
	if r, err := RunGroup(pg, 0, GroupOptions{Delta: math.NaN()}); r != nil || err == nil || !strings.Contains(err.Error(), "Δ") {
		t.Errorf("RunGroup with Δ NaN: %v, %v; want an error", r, err)
	}
	if r, err := RunGroup(nil, 0, GroupOptions{}); r != nil || err == nil {
		t.Errorf("RunGroup(nil): %v, %v; want an error", r, err)
	}
	cancel.Request()
	r, err := RunGroup(pg, 0, GroupOptions{})
	cancel.Clear()
	if r != nil || !errors.Is(err, cancel.ErrInterrupted) {
		t.Errorf("RunGroup interrupted: %v, %v; want cancel.ErrInterrupted", r, err)
	}
	neg := tg.Build(t, 3, false, tg.Float32, tg.Edge{0, 1, 1}, tg.Edge{1, 2, -1})
	if r, err := RunGroup(uploadParts(t, grp, neg), 0, GroupOptions{}); r != nil || err == nil || !strings.Contains(err.Error(), "negative") {
		t.Errorf("RunGroup with a negative weight: %v, %v; want an error", r, err)
	}
}

// TestFakeGPUGroup runs the group tests on a one-rank group of the fake
// GPU (see TestFakeGPU), with and without loopback (every relaxation sent
// through the packing, the all-to-all and the owner's minima).
func TestFakeGPUGroup(t *testing.T) {
	fakegpu.Run(t, "TestFakeGPUGroupChild", 5*time.Minute, func(b *fakegpu.Builder) []string {
		return []string{b.CXX("testdata/fake_kernels.cpp"), b.CXX("testdata/fake_check.cpp"), b.CXX("testdata/fake_resident.cpp")}
	})
}

// TestFakeGPUGroupChild is TestFakeGPUGroup's child process.
func TestFakeGPUGroupChild(t *testing.T) {
	dev := fakegpu.Device(t)
	nearFarTuning.batch = 3 // fewer idle launches (see TestFakeGPUChild)
	grp, err := gpu.NewGroup(dev)
	if err != nil {
		t.Fatal(err)
	}
	defer grp.Close()
	cases := groupCases(t)
	checkOneRank(t, dev, grp, cases)
	t.Run("errors", func(t *testing.T) { checkGroupErrors(t, grp) })
	t.Run("interrupt", func(t *testing.T) { checkGroupInterrupt(t, grp) })
	t.Run("stats", func(t *testing.T) { checkGroupStats(t, grp) })
}

// checkOneRank runs the cases on a one-rank group, with and without
// loopback (every relaxation sent through the packing, the all-to-all
// and the owner's minima), and the check's corruption tests.
func checkOneRank(t *testing.T, dev *gpu.Device, grp *gpu.Group, cases []gpuCase) {
	t.Run("runs", func(t *testing.T) { checkGroupRuns(t, dev, grp, cases) })
	t.Run("loopback", func(t *testing.T) {
		groupTuning.loopback = true
		defer func() { groupTuning.loopback = false }()
		checkGroupRuns(t, dev, grp, cases)
	})
	t.Run("check_catches", func(t *testing.T) { checkGroupCatches(t, grp) })
}

// checkGroupInterrupt interrupts a long run (a path walked one vertex per
// phase) and checks that it stops with cancel's error and leaves the
// group usable.
func checkGroupInterrupt(t *testing.T, grp *gpu.Group) {
	g := tg.Build(t, 3000, false, tg.Unweighted, tg.Path(3000, nil)...)
	pg := uploadParts(t, grp, g)
	done := make(chan struct{})
	go func() {
		select {
		case <-time.After(30 * time.Millisecond):
			cancel.Request()
		case <-done:
		}
	}()
	start := time.Now()
	r, err := RunGroup(pg, 0, GroupOptions{Delta: 0.5})
	close(done)
	cancel.Clear()
	if r != nil || !errors.Is(err, cancel.ErrInterrupted) {
		t.Fatalf("RunGroup interrupted after 30 ms: %v, %v (after %v); want cancel.ErrInterrupted", r, err, time.Since(start))
	}
	if err := grp.Err(); err != nil {
		t.Fatalf("the group after an interrupt: %v", err)
	}
	small := uploadParts(t, grp, tg.Build(t, 200, false, tg.Unweighted, tg.Path(200, nil)...))
	r, err = RunGroup(small, 0, GroupOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := r.Dist(); d[199] != 199 {
		t.Errorf("after an interrupt: Dist[199] = %v, want 199", d[199])
	}
	r.Close()
}

// TestFakeGPUGroups runs the group tests on groups of 2 and 3 fake GPUs
// joined by the fake NCCL (internal/fakegpu.RunN): the exchange between
// ranks, the gathered distances and parents, the reduced candidates and
// marks.
func TestFakeGPUGroups(t *testing.T) {
	for _, ranks := range []int{2, 3} {
		t.Run(fmt.Sprintf("ranks%d", ranks), func(t *testing.T) {
			fakegpu.RunN(t, "TestFakeGPUGroupsChild", 5*time.Minute, ranks, func(b *fakegpu.Builder) []string {
				return []string{b.CXX("testdata/fake_kernels.cpp"), b.CXX("testdata/fake_check.cpp"), b.CXX("testdata/fake_resident.cpp")}
			})
		})
	}
}

// TestFakeGPUGroupsChild is TestFakeGPUGroups' child process.
func TestFakeGPUGroupsChild(t *testing.T) {
	grp := fakegpu.Group(t)
	nearFarTuning.batch = 3 // fewer idle launches (see TestFakeGPUChild)
	t.Logf("%v", grp)
	t.Run("runs", func(t *testing.T) { checkGroupRuns(t, grp.Devices()[0], grp, groupCases(t)) })
	t.Run("errors", func(t *testing.T) { checkGroupErrors(t, grp) })
	t.Run("check_catches", func(t *testing.T) { checkGroupCatches(t, grp) })
	t.Run("interrupt", func(t *testing.T) { checkGroupInterrupt(t, grp) })
	t.Run("failing_rank", checkFailingRank)
}

// checkFailingRank makes a group whose rank 1 fails its 6th NCCL
// operation (the fake NCCL's failure injection: the partitioned graph's
// arc count is the first, RunGroup's weight scan the second, its rounds
// the next) and checks that RunGroup returns, on every rank, an error
// that names the failure, and leaves the group broken. (On 3 fake GPUs
// it took 6 ms: rank 1's AllToAllV failed, ranks 0 and 2 saw its abort.)
func checkFailingRank(t *testing.T) {
	t.Setenv("FAKE_NCCL_FAIL", "rank=1,op=6,mode=error")
	devs, err := gpu.Devices()
	if err != nil {
		t.Fatal(err)
	}
	grp, err := gpu.NewGroup(devs...)
	if err != nil {
		t.Fatal(err)
	}
	defer grp.Close()
	g := mustGraph(t)(gen.RMAT(8, 8, gen.Seed(1)))
	pg := uploadParts(t, grp, g)
	r, err := RunGroup(pg, 0, GroupOptions{Parents: true})
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

// checkGroupStats checks the figures of a loopback run: relaxations,
// bytes sent (16 per pair), the communication share.
func checkGroupStats(t *testing.T, grp *gpu.Group) {
	g := mustGraph(t)(gen.RMAT(7, 8, gen.Seed(1)))
	pg := uploadParts(t, grp, g)
	groupTuning.loopback = true
	defer func() { groupTuning.loopback = false }()
	res, err := RunGroup(pg, 0, GroupOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	if res.Relaxations <= 0 || res.ExchangedBytes <= 0 || res.ExchangedBytes%16 != 0 || res.Rounds < 1 || res.Phases < 1 {
		t.Errorf("%v: want relaxations, bytes (a multiple of 16), rounds and phases", res)
	}
	if low := res.Ranks[0].Lowered; low < res.Reached-1 {
		t.Errorf("%v: %d distances lowered for %d vertices reached besides the source", res, low, res.Reached-1)
	}
	if s := res.CommShare(); !(s >= 0 && s <= 1) || len(res.Ranks) != 1 || res.Ranks[0].Time != res.Time {
		t.Errorf("%v: communication share %v, ranks %+v", res, s, res.Ranks)
	}
	if _, err := res.Parents(); err == nil {
		t.Error("Parents without the Parents option: no error")
	}
	if err := res.Check(); err == nil || !strings.Contains(err.Error(), "Parents") {
		t.Errorf("Check without parents: %v; want an error", err)
	}
}

// checkGroupCatches corrupts a run's distances and parents on the device
// and checks that GroupResult.Check names the broken rule and the vertex.
func checkGroupCatches(t *testing.T, grp *gpu.Group) {
	g := mustGraph(t)(gen.RMAT(7, 8, gen.Seed(1)))
	pg := uploadParts(t, grp, g)
	want, err := DeltaStepping(g, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	// A reached vertex other than the source, with a parent other than
	// the source.
	v := -1
	for u := range want.Dist {
		if u != 0 && !math.IsInf(want.Dist[u], 1) && want.Parents[u] != 0 {
			v = u
			break
		}
	}
	if v < 0 {
		t.Fatal("no vertex to corrupt")
	}
	for _, c := range []struct {
		name, rule string
		dist       func(d []float64)
		par        func(p []int32)
	}{
		{"longer", "vertex " + strconv.Itoa(v), func(d []float64) { d[v] += 1 }, nil},
		{"source", "source", func(d []float64) { d[0] = 1 }, nil},
		{"parent", "parent arc: vertex " + strconv.Itoa(v), nil, func(p []int32) { p[v] = 0 }},
		{"unreached", "reach: vertex " + strconv.Itoa(v), nil, func(p []int32) { p[v] = -1 }},
		{"cycle", "", nil, func(p []int32) { p[v], p[p[v]] = p[p[v]], int32(v) }},
	} {
		res, err := RunGroup(pg, 0, GroupOptions{Parents: true})
		if err != nil {
			t.Fatal(err)
		}
		if c.dist != nil {
			editBlocks(t, res, func(gr *groupRank) any { return gr.dist }, c.dist)
		}
		if c.par != nil {
			editBlocks(t, res, func(gr *groupRank) any { return gr.parents }, c.par)
		}
		err = res.Check()
		if err == nil || !strings.Contains(err.Error(), c.rule) || !regexp.MustCompile(`\d+ failures over the group`).MatchString(err.Error()) {
			t.Errorf("%s: Check: %v; want an error naming %q and the failure count", c.name, err, c.rule)
		}
		res.Close()
	}
}

// editBlocks gathers the ranks' blocks of buf (a *gpu.Float64s or
// *gpu.Int32s of every rank) into one array of the N vertices, lets edit
// change it, and writes the blocks back: a corruption for the check tests.
func editBlocks[T float64 | int32](t *testing.T, res *GroupResult, buf func(*groupRank) any, edit func([]T)) {
	t.Helper()
	type dev interface {
		Download([]T) error
		Upload([]T) error
	}
	var all []T
	blocks := make([][]T, len(res.ranks))
	for i, gr := range res.ranks {
		blocks[i] = make([]T, gr.bs)
		if err := buf(gr).(dev).Download(blocks[i]); err != nil {
			t.Fatal(err)
		}
		all = append(all, blocks[i][:gr.nl]...)
	}
	edit(all)
	for i, gr := range res.ranks {
		copy(blocks[i], all[gr.lo:gr.lo+gr.nl])
		if err := buf(gr).(dev).Upload(blocks[i]); err != nil {
			t.Fatal(err)
		}
	}
}

// TestMultiConstants compares multi.go's control words with multi.cu's.
func TestMultiConstants(t *testing.T) {
	src, err := os.ReadFile("multi.cu")
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]int{"MS_QLEN": msQLen, "MS_FMIN": msFMin, "MS_SCANNED": msScanned,
		"MS_LOWERED": msLowered, "MS_REACHED": msReached, "MS_DEGREES": msDegrees, "MS_LEFT": msLeft,
		"MS_ADOPTED": msAdopted, "MS_LOWEST": msLowest, "MS_COUNT0": msCount0, "MS_ORPHAN": msOrphan,
		"MSCK_ERRORS": msckErrors, "MSCK_JUMPED": msckJumped, "MSCK_REACHED": msckReach, "MSCK_WORDS": msckWords} {
		m := regexp.MustCompile(`#define ` + name + ` \(?(-?\d+)\)?`).FindSubmatch(src)
		if m == nil {
			t.Errorf("multi.cu does not define %s", name)
			continue
		}
		if got, _ := strconv.Atoi(string(m[1])); got != want {
			t.Errorf("multi.cu's %s = %d, multi.go's %d", name, got, want)
		}
	}
	if msckJumped != ckJumped {
		t.Errorf("MSCK_JUMPED %d is not check.cu's CK_JUMPED %d (ssspck_jump writes it)", msckJumped, ckJumped)
	}
	for _, k := range multiKernelNames() {
		if !strings.Contains(string(src), "__global__ void "+k+"(") {
			t.Errorf("multi.cu declares no kernel %s", k)
		}
	}
}

// groupOfAll is a group of every GPU of the machine (GRAPHNB_GROUP_GPUS:
// the first that many), or of GPU 0 alone (one true); it skips without a
// GPU and fails when the group cannot be made (several GPUs without
// NCCL included).
func groupOfAll(t testing.TB, one bool) *gpu.Group {
	t.Helper()
	dev := gpu.Default()
	if dev.IsHost() {
		t.Skip(gpu.DefaultReason())
	}
	devs, err := gpu.Devices()
	if err != nil {
		t.Fatal(err)
	}
	if v, err := strconv.Atoi(os.Getenv("GRAPHNB_GROUP_GPUS")); err == nil && v >= 1 && v < len(devs) {
		devs = devs[:v]
	}
	if one {
		devs = devs[:1]
	}
	grp, err := gpu.NewGroup(devs...)
	if err != nil {
		t.Fatal(err) // several GPUs without NCCL included: say so, as gpu's group tests do
	}
	t.Cleanup(func() { grp.Close() })
	return grp
}

// TestGPUGroup runs the group tests on the GPUs: a one-rank group of GPU 0
// (with and without loopback) and a group of every GPU.
func TestGPUGroup(t *testing.T) {
	cases := append(groupCases(t), gpuCase{name: "rmat_s12", g: mustGraph(t)(gen.RMAT(12, 16, gen.Seed(7))), srcs: []int32{0, 5}})
	one := groupOfAll(t, true)
	dev := one.Devices()[0]
	t.Run("one", func(t *testing.T) { checkOneRank(t, dev, one, cases) })
	t.Run("all", func(t *testing.T) {
		all := groupOfAll(t, false)
		t.Logf("%v", all)
		checkGroupRuns(t, dev, all, cases)
		checkGroupErrors(t, all)
	})
}

// BenchmarkRunGroup runs RunGroup on R-MAT graphs (gen.RMAT(S, 16,
// gen.Seed(1)), float32 weights in [0, 1)) of scales 22 and 24, on GPU 0
// alone (gpus1, the baseline) and split over every GPU (gpusN;
// GRAPHNB_GROUP_GPUS: the first that many), from
// GRAPHNB_BENCH_ROOTS roots (default 8; graph.Roots with seed 2), each
// result validated with GroupResult.Check (outside the timing) before it
// counts. One op is a run from every root. Reported: ms per run (the
// search, slowest rank), GTEPS (Graph500, harmonic mean), the
// communication share, rounds, phases, relaxations per arc and bytes
// exchanged per run. The graph is generated on the host and uploaded in
// parts (until the partitioned generator lands).
func BenchmarkRunGroup(b *testing.B) {
	groups := []*gpu.Group{groupOfAll(b, true)}
	if all := groupOfAll(b, false); all.Size() > 1 {
		groups = append(groups, all)
	}
	roots := gpuBenchRoots(b)
	for _, scale := range []int{22, 24} {
		var g *graph.CSR // built by the first sub-benchmark of the scale that runs
		var srcs []int32
		for _, grp := range groups {
			b.Run(fmt.Sprintf("rmat_s%d/gpus%d", scale, grp.Size()), func(b *testing.B) {
				if g == nil {
					var err error
					if g, err = gen.RMAT(scale, 16, gen.Seed(1)); err != nil {
						b.Fatal(err)
					}
					srcs = g.Roots(roots, 2)
				}
				pg := uploadParts(b, grp, g)
				benchRunGroup(b, pg, srcs)
			})
		}
	}
}

// benchRunGroup is one sub-benchmark of BenchmarkRunGroup.
func benchRunGroup(b *testing.B, pg *gpu.PartGraph, srcs []int32) {
	var invG500, ms, comm, rounds, phases, relax, bytes float64
	runs := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, src := range srcs {
			r, err := RunGroup(pg, int(src), GroupOptions{Parents: true})
			if err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			if err := r.Check(); err != nil {
				b.Fatalf("%s from %d: the result fails the check, so its time does not count: %v", r.Algorithm, src, err)
			}
			b.StartTimer()
			invG500 += 1 / r.TEPS.Graph500
			ms += float64(r.Time.Microseconds()) / 1000
			comm += r.CommShare()
			rounds += float64(r.Rounds)
			phases += float64(r.Phases)
			relax += float64(r.Relaxations) / float64(pg.Arcs)
			bytes += float64(r.ExchangedBytes)
			runs++
			if err := r.Close(); err != nil {
				b.Fatal(err)
			}
		}
	}
	k := float64(runs)
	b.ReportMetric(ms/k, "ms/run")
	b.ReportMetric(k/invG500/1e9, "GTEPS")
	b.ReportMetric(comm/k, "comm-share")
	b.ReportMetric(rounds/k, "rounds")
	b.ReportMetric(phases/k, "phases")
	b.ReportMetric(relax/k, "relax/arc")
	b.ReportMetric(bytes/k/1e6, "MB-exchanged")
}

// checkGroupTrace requires a traced group search to have a step per
// round, a "threshold" step per phase, the arcs relaxed and distances
// lowered of its steps to add up to the run's, and times that fit; an
// untraced one none.
func checkGroupTrace(t *testing.T, name string, traced bool, res *GroupResult) {
	t.Helper()
	tr := res.Trace
	if !traced {
		if tr != nil {
			t.Errorf("%s: a trace without GroupOptions.Trace", name)
		}
		return
	}
	if tr == nil || len(tr.Steps) != res.Rounds || tr.Time != res.Time || tr.Arcs != res.pg.Arcs {
		t.Fatalf("%s: trace %v for %d rounds, time %v", name, tr, res.Rounds, res.Time)
	}
	// The fake driver's collectives take real time but its events do
	// not: the step times are the host's clock and must fit the run.
	if err := tr.Check(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var lowered, comm int64
	for _, r := range res.Ranks {
		lowered += r.Lowered
	}
	thresholds := 0
	var updated int64
	for _, s := range tr.Steps {
		if s.Kind == "threshold" {
			thresholds++
		}
		updated += s.Updated
		comm += int64(s.Comm)
	}
	if thresholds != res.Phases || tr.Inspected() != res.Relaxations || updated != lowered || time.Duration(comm) > res.CommTime {
		t.Fatalf("%s: %d threshold steps for %d phases, %d arcs relaxed (run %d), %d lowered (ranks %d), %v in collectives (run %v)",
			name, thresholds, res.Phases, tr.Inspected(), res.Relaxations, updated, lowered, time.Duration(comm), res.CommTime)
	}
}
