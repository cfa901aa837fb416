package gpugen

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/graph/gen"
	"github.com/graphnb/graphnb/internal/card"
	"github.com/graphnb/graphnb/internal/fakegpu"
)

// On the GPU machine (two GPUs for TestGPURMATParts' second half):
//
//	PKGS=graph/gen/gpugen ops/gpu-test.sh build
//	PKGS=graph/gen/gpugen TESTRUN='GPU(RMAT|SSCA2)Parts' \
//	  BENCH='(RMATParts|SSCA2Parts|GPURMAT|GPUSSCA2)/s24($|_ranks|_ef16_uniform)' ops/gpu-test.sh run

// partCases are the generations the partitioned comparisons cover: on
// the emulator scales 4..8 with every option set at edge factor 1 and a
// rotating third at 16, then graphs of several chunks; on a GPU scales
// 4..14 with every set.
func partCases(small bool) []rmatCase {
	var cases []rmatCase
	sets := optionSets()
	top := 14
	if small {
		top = 8
	}
	for scale := 4; scale <= top; scale++ {
		for _, ef := range []int{1, 16} {
			for i, s := range sets {
				if small && ef == 16 && i%3 != scale%3 {
					continue
				}
				cases = append(cases, rmatCase{scale, ef, fmt.Sprintf("s%d_ef%d_%s", scale, ef, s.name), s.opts})
			}
		}
	}
	return append(cases,
		rmatCase{12, 17, "s12_ef17_permuted_int", []gen.Option{gen.PermuteVertices(true), gen.Integer(100)}},
		rmatCase{11, 40, "s11_ef40_uniform_f64", []gen.Option{gen.Float64(), gen.Seed(9)}},
		rmatCase{10, 200, "s10_ef200_unweighted", []gen.Option{gen.Unweighted(), gen.Seed(4)}},
	)
}

// rowsOf is rows lo..hi-1 of c as a CSR of hi-lo rows (offsets from 0,
// targets global).
func rowsOf(c *graph.CSR, lo, hi int) *graph.CSR {
	a, b := c.Offsets[lo], c.Offsets[hi]
	r := &graph.CSR{Directed: c.Directed, Adj: c.Adj[a:b]}
	for _, o := range c.Offsets[lo : hi+1] {
		r.Offsets = append(r.Offsets, o-a)
	}
	if c.Weights != nil {
		r.Weights = c.Weights[a:b]
	}
	if c.Weights64 != nil {
		r.Weights64 = c.Weights64[a:b]
	}
	return r
}

// partCSR downloads a part's arrays (weights of a weighted part with no
// arcs empty, not nil).
func partCSR(t *testing.T, p *gpu.Part) *graph.CSR {
	t.Helper()
	c := graph.CSR{Offsets: make([]int64, p.Offsets.Len()), Adj: make([]int32, p.Adj.Len())}
	err := errors.Join(p.Offsets.Download(c.Offsets), p.Adj.Download(c.Adj))
	if p.Weights != nil {
		c.Weights = make([]float32, p.Weights.Len())
		err = errors.Join(err, p.Weights.Download(c.Weights))
	}
	if p.Weights64 != nil {
		c.Weights64 = make([]float64, p.Weights64.Len())
		err = errors.Join(err, p.Weights64.Download(c.Weights64))
	}
	if err != nil {
		t.Fatal(err)
	}
	return &c
}

// checkParts generates every case over g with RMATParts and compares
// each rank's part with its rows of gen.RMAT, and the assembled graph
// with gen.RMAT, bit for bit.
func checkParts(t *testing.T, g *gpu.Group, cases []rmatCase) {
	t.Helper()
	for _, c := range cases {
		comparePartsWithHost(t, g, c.name, func() (*graph.CSR, error) { return gen.RMAT(c.scale, c.ef, c.opts...) },
			func() (*gpu.PartGraph, []PartPhases, error) { return RMATPartsTimed(g, c.scale, c.ef, c.opts...) })
	}
}

// checkSSCA2Parts is checkParts for SSCA2Parts at scales lo..hi with
// every option set of ssca2Sets.
func checkSSCA2Parts(t *testing.T, g *gpu.Group, lo, hi int) {
	t.Helper()
	for scale := lo; scale <= hi; scale++ {
		for _, s := range ssca2Sets() {
			comparePartsWithHost(t, g, fmt.Sprintf("ssca2_s%d_%s", scale, s.name), func() (*graph.CSR, error) { return gen.SSCA2(scale, s.opts...) },
				func() (*gpu.PartGraph, []PartPhases, error) { return SSCA2PartsTimed(g, scale, s.opts...) })
		}
	}
}

// comparePartsWithHost runs a partitioned generator over g and its host
// twin and compares each rank's part with its rows of the host graph,
// and the assembled graph with it, bit for bit.
func comparePartsWithHost(t *testing.T, g *gpu.Group, name string, host func() (*graph.CSR, error), parts func() (*gpu.PartGraph, []PartPhases, error)) {
	t.Helper()
	want, err := host()
	if err != nil {
		t.Fatal(err)
	}
	pg, phases, err := parts()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if pg.N != want.NumVertices() || pg.Arcs != want.NumArcs() || pg.Directed || len(pg.Parts) != len(g.Ranks()) {
		t.Fatalf("%s: %v with %d parts, directed %v; want %d vertices, %d arcs, undirected", name, pg, len(pg.Parts), pg.Directed, want.NumVertices(), want.NumArcs())
	}
	for i, p := range pg.Parts {
		r := g.Ranks()[i]
		lo, hi := gpu.Block(pg.N, g.Size(), r.Rank())
		if p.Lo != lo || p.Hi != hi || p.Rank != r {
			t.Fatalf("%s: part %d holds [%d, %d) of rank %v; want [%d, %d) of rank %d", name, i, p.Lo, p.Hi, p.Rank, lo, hi, r.Rank())
		}
		sameCSR(t, fmt.Sprintf("%s rank %d", name, r.Rank()), partCSR(t, p), rowsOf(want, lo, hi))
		if !g.IsHost() && (phases[i].Rank != r.Rank() || phases[i].Kept != int64(p.Adj.Len())) {
			t.Fatalf("%s: phases %v for rank %d with %d arcs", name, phases[i], r.Rank(), p.Adj.Len())
		}
	}
	if len(pg.Parts) == g.Size() {
		got, err := pg.Host()
		if err != nil {
			t.Fatal(err)
		}
		sameCSR(t, name, got, want)
	}
	if err := pg.Close(); err != nil {
		t.Error(err)
	}
}

// virtualParts runs job's steps for size ranks in turn on one device
// (the collectives done on the host), as partJob.part runs them on each
// rank of a group: the multi-rank logic without several GPUs.
func virtualParts(dev *gpu.Device, job *partJob, size int) (parts []*gpu.Part, phases []PartPhases, refused, err error) {
	parts = make([]*gpu.Part, size)
	phases = make([]PartPhases, size)
	err = dev.Exec(func(t *gpu.Thread) error {
		tmp := gpu.NewAllocations(dev)
		defer tmp.Free()
		rgs := make([]*rankGen, size)
		for k := range rgs {
			var err error
			if rgs[k], err = newRankGen(job, k, size, t, tmp.Sub(), &phases[k]); err != nil {
				return err
			}
		}
		sum := func(vals func(rg *rankGen) ([]int64, error)) ([]int64, error) {
			var total []int64
			for _, rg := range rgs {
				v, err := vals(rg)
				if err != nil {
					return nil, err
				}
				if total == nil {
					total = make([]int64, len(v))
				}
				for i, x := range v {
					total[i] += x
				}
			}
			return total, nil
		}
		counted, err := sum((*rankGen).count)
		if err != nil {
			return err
		}
		for _, rg := range rgs {
			if refused = rg.checkDraw(counted); refused != nil {
				return nil
			}
		}
		for _, rg := range rgs {
			if err := errors.Join(rg.draw(), rg.sortDrawn()); err != nil {
				return err
			}
		}
		all, err := sum((*rankGen).counts)
		if err != nil {
			return err
		}
		for _, rg := range rgs {
			if refused = rg.checkCounts(all); refused != nil {
				return nil
			}
		}
		for _, rg := range rgs {
			if err := rg.receive(hostExchanger(rgs)); err != nil {
				return err
			}
		}
		for _, rg := range rgs {
			if err := rg.freeDrawn(); err != nil {
				return err
			}
		}
		for k, rg := range rgs {
			if parts[k], err = rg.build(); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil || refused != nil {
		return nil, nil, refused, errors.Join(err, freeParts(parts))
	}
	return parts, phases, nil, nil
}

// hostExchanger is AllToAllV between ranks that run in turn on one
// device: a rank receives by copying every rank's arcs for it through
// the host.
type hostExchanger []*rankGen

func (x hostExchanger) exchange(t *gpu.Thread, rg *rankGen) error {
	var keys []uint64
	var w32 []float32
	var w64 []float64
	for s, from := range x {
		if from.send[rg.rank] != rg.recv[s] {
			return fmt.Errorf("rank %d sends %d arcs to rank %d, which expects %d", s, from.send[rg.rank], rg.rank, rg.recv[s])
		}
		off := 0
		for _, c := range from.send[:rg.rank] {
			off += c
		}
		end := off + from.send[rg.rank]
		k, err := from.drawn.keys.ToHost()
		if err != nil {
			return err
		}
		keys = append(keys, k[off:end]...)
		switch {
		case from.drawn.w32 != nil:
			w, err := from.drawn.w32.ToHost()
			if err != nil {
				return err
			}
			w32 = append(w32, w[off:end]...)
		case from.drawn.w64 != nil:
			w, err := from.drawn.w64.ToHost()
			if err != nil {
				return err
			}
			w64 = append(w64, w[off:end]...)
		}
	}
	err := rg.keys.Upload(keys)
	switch {
	case err != nil:
	case rg.w32 != nil:
		err = rg.w32.Upload(w32)
	case rg.w64 != nil:
		err = rg.w64.Upload(w64)
	}
	return err
}

// checkVirtualParts compares virtualParts over size ranks with the rows
// of gen.RMAT for every case.
func checkVirtualParts(t *testing.T, dev *gpu.Device, size int, cases []rmatCase) {
	t.Helper()
	for _, c := range cases {
		job, err := rmatJob(c.scale, c.ef, c.opts, size)
		if err != nil {
			t.Fatal(err)
		}
		compareVirtual(t, dev, fmt.Sprintf("%s_%dranks", c.name, size), size, job)
	}
}

// checkVirtualSSCA2 is checkVirtualParts for SSCA2 at the given scales
// with every option set of ssca2Sets.
func checkVirtualSSCA2(t *testing.T, dev *gpu.Device, size int, scales ...int) {
	t.Helper()
	for _, scale := range scales {
		for _, s := range ssca2Sets() {
			job, err := ssca2Job(scale, s.opts, size)
			if err != nil {
				t.Fatal(err)
			}
			compareVirtual(t, dev, fmt.Sprintf("ssca2_s%d_%s_%dranks", scale, s.name, size), size, job)
		}
	}
}

// compareVirtual compares virtualParts of job over size ranks with the
// rows of job's host graph, and checks that every drawn arc was received
// once and that nothing stays allocated.
func compareVirtual(t *testing.T, dev *gpu.Device, name string, size int, job *partJob) {
	t.Helper()
	used := dev.MemoryUsed()
	want, err := job.host()
	if err != nil {
		t.Fatal(err)
	}
	parts, phases, refused, err := virtualParts(dev, job, size)
	if err != nil || refused != nil {
		t.Fatalf("%s: %v %v", name, err, refused)
	}
	var drawn, received int64
	for k, part := range parts {
		lo, hi := gpu.Block(job.n, size, k)
		if part.Lo != lo || part.Hi != hi {
			t.Fatalf("%s: rank %d holds [%d, %d), want [%d, %d)", name, k, part.Lo, part.Hi, lo, hi)
		}
		sameCSR(t, fmt.Sprintf("%s rank %d", name, k), partCSR(t, part), rowsOf(want, lo, hi))
		drawn += phases[k].Drawn
		received += phases[k].Received
	}
	if received != drawn {
		t.Errorf("%s: %d arcs drawn and %d received", name, drawn, received)
	}
	if err := freeParts(parts); err != nil {
		t.Error(err)
	}
	if got := dev.MemoryUsed(); got != used {
		t.Errorf("%s: %d bytes left allocated", name, got-used)
	}
}

// checkPartsErrors: arguments are refused as gen.RMAT refuses them, a nil
// group clearly, a rank over its device's free memory before anything is
// allocated, the group left usable.
func checkPartsErrors(t *testing.T, g *gpu.Group) {
	for _, c := range []struct {
		name      string
		scale, ef int
		opts      []gen.Option
	}{
		{"scale0", 0, 16, nil},
		{"scale31", 31, 16, nil},
		{"ef0", 10, 0, nil},
		{"probabilities", 10, 16, []gen.Option{gen.Probabilities(0.6, 0.3, 0.3)}},
		{"noise", 10, 16, []gen.Option{gen.Noise(0.5)}},
		{"int0", 10, 16, []gen.Option{gen.Integer(0)}},
	} {
		_, want := gen.RMAT(c.scale, c.ef, c.opts...)
		_, err := RMATParts(g, c.scale, c.ef, c.opts...)
		if err == nil || want == nil || err.Error() != want.Error() {
			t.Errorf("%s: error %v, want gen.RMAT's %v", c.name, err, want)
		}
	}
	if _, err := RMATParts(nil, 10, 16); err == nil || !strings.Contains(err.Error(), "nil group") {
		t.Errorf("nil group: %v", err)
	}
	if _, err := SSCA2Parts(nil, 10); err == nil || !strings.Contains(err.Error(), "nil group") {
		t.Errorf("SSCA2Parts, nil group: %v", err)
	}
	for _, c := range []struct {
		name  string
		scale int
		opts  []gen.Option
	}{
		{"scale0", 0, nil},
		{"clique", 4, []gen.Option{gen.SSCA2Params(gen.SSCA2Config{MaxCliqueSize: 17, MaxParallelEdges: 1})}},
		{"int0", 8, []gen.Option{gen.Integer(0)}},
	} {
		_, want := gen.SSCA2(c.scale, c.opts...)
		_, err := SSCA2Parts(g, c.scale, c.opts...)
		if err == nil || want == nil || err.Error() != want.Error() {
			t.Errorf("SSCA2Parts %s: error %v, want gen.SSCA2's %v", c.name, err, want)
		}
	}
	if g.IsHost() {
		return
	}
	dev := g.Devices()[0]
	refuseMemory(g) // the ranks' scratch for collectives takes its size
	used := dev.MemoryUsed()
	// 2^35 arcs unweighted: about 200 GiB a rank or more (3 ranks at most).
	if _, err := RMATParts(g, 30, 16, gen.Unweighted()); err == nil || !strings.Contains(err.Error(), "device memory to draw and sort") || !errors.Is(err, ErrTooBig) {
		t.Errorf("scale 30 over %d ranks: %v, want the memory error", g.Size(), err)
	}
	err := refuseMemory(g)
	if err == nil || !strings.Contains(err.Error(), "device memory") || !strings.Contains(err.Error(), "rank 0") || !errors.Is(err, ErrTooBig) {
		t.Errorf("scale 28, edge factor %d: %v, want the memory error", 16*g.Size(), err)
	}
	if err := g.Err(); err != nil {
		t.Errorf("a refused generation broke the group: %v", err)
	}
	if got := dev.MemoryUsed(); got != used {
		t.Errorf("refused generations left %d bytes allocated", got-used)
	}
}

// refuseMemory runs a generation refused for memory on any device: 2^33
// arcs of float64 weights per rank, about 270 GiB each.
func refuseMemory(g *gpu.Group) error {
	_, err := RMATParts(g, 28, 16*g.Size(), gen.Float64())
	return err
}

// checkPartsCancel: an interrupt stops RMATParts with cancel's error,
// frees what it allocated and breaks the group (Group.Run's rule).
func checkPartsCancel(t *testing.T, g *gpu.Group) {
	dev := g.Devices()[0]
	refuseMemory(g) // the ranks' scratch for collectives takes its size
	used := dev.MemoryUsed()
	cancel.Request()
	_, err := RMATParts(g, 8, 16)
	cancel.Clear()
	if !errors.Is(err, cancel.ErrInterrupted) {
		t.Errorf("RMATParts after cancel.Request: %v, want cancel.ErrInterrupted", err)
	}
	if got := dev.MemoryUsed(); got != used {
		t.Errorf("an interrupted generation left %d bytes allocated", got-used)
	}
	if g.Err() == nil {
		t.Error("an interrupted generation left the group unbroken")
	}
}

func TestPartsHostGroup(t *testing.T) {
	g, err := gpu.NewGroup(gpu.Host())
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	checkParts(t, g, []rmatCase{{8, 16, "s8", nil}, {7, 3, "s7_permuted_int_f64", []gen.Option{gen.PermuteVertices(true), gen.Integer(5), gen.Float64()}},
		{6, 2, "s6_unweighted", []gen.Option{gen.Unweighted()}}})
	checkSSCA2Parts(t, g, 6, 6)
	checkPartsErrors(t, g)
}

func TestChunkRange(t *testing.T) {
	for _, chunks := range []int{1, 2, 5, 64, 1000} {
		for size := 1; size <= 9; size++ {
			next := 0
			for r := range size {
				c0, c1 := chunkRange(chunks, size, r)
				if c0 != next || c1 < c0 || c1-c0 > chunks/size+1 || c1-c0 < chunks/size {
					t.Fatalf("%d chunks over %d ranks: rank %d gets [%d, %d)", chunks, size, r, c0, c1)
				}
				next = c1
			}
			if next != chunks {
				t.Fatalf("%d chunks over %d ranks end at %d", chunks, size, next)
			}
		}
	}
	p, err := gen.PlanRMAT(11, 40)
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	for r := range 3 {
		c0, c1 := chunkRange(p.Chunks, 3, r)
		q := localPlan(p, c0, c1)
		total += 2 * int64(q.Edges)
		if q.Edges != min(c1*p.ChunkEdges, p.Edges)-c0*p.ChunkEdges || len(q.EdgeStates) != 4*q.Chunks || len(q.WeightStates) != 4*q.Chunks {
			t.Errorf("rank %d: local plan of %d edges, %d chunks, %d and %d state words", r, q.Edges, q.Chunks, len(q.EdgeStates), len(q.WeightStates))
		}
	}
	if total != 2*int64(p.Edges) {
		t.Errorf("the ranks draw %d arcs, want %d", total, 2*p.Edges)
	}
}

// TestFakeGPUParts runs the partitioned comparisons on the emulated GPU:
// a one-rank group, and 2, 3 and 5 ranks run in turn on the one device.
func TestFakeGPUParts(t *testing.T) {
	fakegpu.Run(t, "TestFakeGPUPartsChild", 4*time.Minute, func(b *fakegpu.Builder) []string {
		return []string{b.CXX("testdata/fake_kernels.cpp"), b.CXX("../../../gpu/transform/testdata/fake_kernels.cpp")}
	})
}

// TestFakeGPUPartsChild is TestFakeGPUParts' child process.
func TestFakeGPUPartsChild(t *testing.T) {
	dev := fakegpu.Device(t)
	g, err := gpu.NewGroup(dev)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	cases := partCases(true)
	checkParts(t, g, cases)
	checkPartsErrors(t, g)
	for _, size := range []int{2, 3} {
		checkVirtualParts(t, dev, size, slices.DeleteFunc(slices.Clone(cases), func(c rmatCase) bool { return c.scale%size != 0 && c.scale < 10 }))
	}
	// Many ranks: some draw nothing, some own no vertices.
	checkVirtualParts(t, dev, 5, []rmatCase{{4, 16, "s4", nil}, {9, 1, "s9_permuted", []gen.Option{gen.PermuteVertices(true)}},
		{11, 40, "s11_ef40_int_f64", []gen.Option{gen.Integer(1000), gen.Float64()}}})
	checkSSCA2Parts(t, g, 6, 8)
	checkVirtualSSCA2(t, dev, 2, 7)
	// Several chunks of vertices over 2 and 3 ranks (the weights' streams
	// split between ranks), small cliques.
	small := gen.SSCA2Params(gen.SSCA2Config{MaxCliqueSize: 4, ProbIntercliqueEdges: 0.2, MaxParallelEdges: 2, MaxIntWeight: 1000})
	for _, size := range []int{2, 3} {
		for _, opts := range [][]gen.Option{{small, gen.Seed(3)}, {small, gen.Uniform(), gen.Float64(), gen.PermuteVertices(false)}} {
			job, err := ssca2Job(13, opts, size)
			if err != nil {
				t.Fatal(err)
			}
			compareVirtual(t, dev, fmt.Sprintf("ssca2_s13_small_cliques_%dranks", size), size, job)
		}
	}
	checkPartsCancel(t, g)
	g2, err := gpu.NewGroup(dev)
	if err != nil {
		t.Fatal(err)
	}
	defer g2.Close()
	checkParts(t, g2, []rmatCase{{6, 16, "after_cancel", nil}})
}

// TestFakeGPUParts2 and TestFakeGPUParts3 run the partitioned
// comparisons on groups of two and three emulated GPUs joined by the fake
// NCCL.
func TestFakeGPUParts2(t *testing.T) { runFakeGroup(t, 2) }
func TestFakeGPUParts3(t *testing.T) { runFakeGroup(t, 3) }

func runFakeGroup(t *testing.T, devices int) {
	fakegpu.RunN(t, "TestFakeGPUPartsGroupChild", 4*time.Minute, devices, func(b *fakegpu.Builder) []string {
		return []string{b.CXX("testdata/fake_kernels.cpp"), b.CXX("../../../gpu/transform/testdata/fake_kernels.cpp")}
	})
}

// TestFakeGPUPartsGroupChild is the child of TestFakeGPUParts2 and 3.
//
// The fake NCCL numbers a communicator's operations, and a rank whose
// AllToAllV neither sends nor receives (an NCCL group with no calls)
// issues none there, so its later operations no longer match its peers'
// (real NCCL has no such numbering): on three ranks the graphs are
// chosen so that every rank sends or receives arcs (every block holds
// vertices with arcs: 512 vertices or more).
func TestFakeGPUPartsGroupChild(t *testing.T) {
	g := fakegpu.Group(t)
	cases := slices.DeleteFunc(partCases(true), func(c rmatCase) bool {
		return c.scale < 10 && c.scale%g.Size() != 0 || g.Size() > 2 && c.scale < 9
	})
	checkParts(t, g, cases)
	if g.Size() == 2 {
		checkSSCA2Parts(t, g, 7, 7)
	}
	small := gen.SSCA2Params(gen.SSCA2Config{MaxCliqueSize: 4, ProbIntercliqueEdges: 0.2, MaxParallelEdges: 2, MaxIntWeight: 1000})
	comparePartsWithHost(t, g, "ssca2_s13_small_cliques", func() (*graph.CSR, error) { return gen.SSCA2(13, small, gen.Seed(3)) },
		func() (*gpu.PartGraph, []PartPhases, error) { return SSCA2PartsTimed(g, 13, small, gen.Seed(3)) })
	checkPartsErrors(t, g)
	checkPartsCancel(t, g)
}

// TestGPURMATParts compares RMATParts with gen.RMAT on a group of the
// first GPU (scales 4..14 and every option set, then scale 20), and, with
// two GPUs or more, on a group of two (the same, then scale 20 with
// RMAT's graph on one GPU).
func TestGPURMATParts(t *testing.T) {
	dev := gpuDevice(t)
	g, err := gpu.NewGroup(dev)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	big := []rmatCase{{20, 16, "s20", nil}, {20, 16, "s20_int_permuted", []gen.Option{gen.Integer(255), gen.PermuteVertices(true)}}}
	checkParts(t, g, append(partCases(false), big...))
	checkPartsErrors(t, g)
	devs, err := gpu.Devices()
	if err != nil {
		t.Fatal(err)
	}
	if len(devs) < 2 {
		t.Skip("one GPU: the two-rank half needs two")
	}
	g2, err := gpu.NewGroup(devs[:2]...)
	if err != nil {
		t.Fatal(err)
	}
	defer g2.Close()
	checkParts(t, g2, append(partCases(false), big...))
	for _, c := range big {
		compareWithRMAT(t, g2, c)
	}
	checkPartsErrors(t, g2)
}

// TestGPUSSCA2Parts compares SSCA2Parts with gen.SSCA2 on a group of the
// first GPU and, with two GPUs or more, on a group of two: scales 6..16
// and every option set, then scale 20 (with SSCA2's graph on one GPU).
func TestGPUSSCA2Parts(t *testing.T) {
	dev := gpuDevice(t)
	g, err := gpu.NewGroup(dev)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	checkSSCA2Parts(t, g, 6, 16)
	devs, err := gpu.Devices()
	if err != nil {
		t.Fatal(err)
	}
	if len(devs) < 2 {
		t.Skip("one GPU: the two-rank half needs two")
	}
	g2, err := gpu.NewGroup(devs[:2]...)
	if err != nil {
		t.Fatal(err)
	}
	defer g2.Close()
	checkSSCA2Parts(t, g2, 6, 16)
	comparePartsWithDevice(t, g2, "ssca2_s20", func() (*gpu.Graph, error) { return SSCA2(devs[0], 20) },
		func() (*gpu.PartGraph, []PartPhases, error) { return SSCA2PartsTimed(g2, 20) })
}

// compareWithRMAT compares RMATParts over g with RMAT's graph on the
// first device of g, without gen.RMAT.
func compareWithRMAT(t *testing.T, g *gpu.Group, c rmatCase) {
	comparePartsWithDevice(t, g, c.name, func() (*gpu.Graph, error) { return RMAT(g.Devices()[0], c.scale, c.ef, c.opts...) },
		func() (*gpu.PartGraph, []PartPhases, error) { return RMATPartsTimed(g, c.scale, c.ef, c.opts...) })
}

// comparePartsWithDevice compares a partitioned generation with the
// graph a one-device generator makes, and logs the ranks' phases.
func comparePartsWithDevice(t *testing.T, g *gpu.Group, name string, device func() (*gpu.Graph, error), parts func() (*gpu.PartGraph, []PartPhases, error)) {
	t.Helper()
	one, err := device()
	if err != nil {
		t.Fatal(err)
	}
	want, err := one.Host()
	if err != nil {
		t.Fatal(err)
	}
	if err := one.Close(); err != nil {
		t.Fatal(err)
	}
	pg, phases, err := parts()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	defer pg.Close()
	got, err := pg.Host()
	if err != nil {
		t.Fatal(err)
	}
	sameCSR(t, name+" vs one device", got, want)
	for _, p := range phases {
		t.Logf("%s: %v", name, p)
	}
}

// TestCheckCounts: once the counts are exchanged, every rank learns what
// it receives from each, and a rank that would receive more arcs than its
// device's free memory holds refuses the generation on every rank alike,
// naming it (and the vertex permutation when it receives more than twice
// its share).
func TestCheckCounts(t *testing.T) {
	const n = 1 << 20
	// Rank 1's view of two ranks: rank 0 sends it 5 arcs, itself 7; rank
	// 1 sends rank 0 sendTo0 arcs and itself 11.
	counts := func(free0, free1 int64, sendTo0 int64) []int64 {
		return []int64{7, 5, sendTo0, 11, free0, free1}
	}
	view := func() *rankGen {
		return &rankGen{rank: 1, size: 2, N: n, common: gen.PlanCommon{Weights: gen.UniformWeights}, edges: []int64{6, 7}, total: 13}
	}
	rg := view()
	if refused := rg.checkCounts(counts(1<<40, 1<<40, 3)); refused != nil {
		t.Fatal(refused)
	}
	if !slices.Equal(rg.recv, []int{5, 11}) || !slices.Equal(rg.recvAll, []int64{10, 16}) {
		t.Errorf("rank 1 receives %v (ranks: %v), want [5 11] ([10 16])", rg.recv, rg.recvAll)
	}
	refused := view().checkCounts(counts(1000, 1<<40, 3))
	if refused == nil || !strings.Contains(refused.Error(), "rank 0 needs about") || !strings.Contains(refused.Error(), "more device memory to receive its 10 arcs") ||
		!errors.Is(refused, ErrTooBig) || strings.Contains(refused.Error(), "PermuteVertices") {
		t.Errorf("rank 0 short of memory: %v", refused)
	}
	// Rank 0 receives 1007 of the 26 + 1000 arcs: the hubs of unpermuted
	// R-MAT.
	refused = view().checkCounts(counts(1<<30, 1<<40, 1000))
	if refused == nil || !strings.Contains(refused.Error(), "rank 0 needs about") || !strings.Contains(refused.Error(), "PermuteVertices") ||
		!strings.Contains(refused.Error(), "vertices 0 … 524287") || !errors.Is(refused, ErrTooBig) {
		t.Errorf("rank 0 receiving most arcs: %v", refused)
	}
}

// TestScale29Memory: R-MAT scale 29, edge factor 16 over four ranks
// (2^32 arcs each: their last offset is past 32 bits) is accepted where
// it fits (H200s: about 139 GiB free each) and refused, naming the rank
// and both figures, where it does not (float32 weights on H100s, about 79
// GiB free), before and after the exchange of the counts.
func TestScale29Memory(t *testing.T) {
	const size, h200, h100 = 4, 139 << 30, 79 << 30
	for _, c := range []struct {
		name    string
		opts    []gen.Option
		fitH100 bool
	}{
		{"unweighted", []gen.Option{gen.Unweighted()}, true},
		{"float32", nil, false},
	} {
		job, err := rmatJob(29, 16, append(c.opts, gen.PermuteVertices(true)), size)
		if err != nil {
			t.Fatal(err)
		}
		p := job.source().(*rmatSource).p
		view := func(free int64) (*rankGen, []int64) {
			all := make([]int64, 2*size)
			for k := range size {
				c0, c1 := chunkRange(p.Chunks, size, k)
				all[k], all[size+k] = free, int64(localPlan(p, c0, c1).Edges)
				if 2*all[size+k] < 1<<32 {
					t.Fatalf("rank %d draws %d arcs, fewer than 2^32", k, 2*all[size+k])
				}
			}
			return &rankGen{rank: 2, size: size, N: job.n, common: job.common}, all
		}
		// Every rank receives what it drew (the permutation spreads them).
		received := func(rg *rankGen, free int64) []int64 {
			all := make([]int64, size*size+size)
			for k := range size {
				all[k*size+k] = 2 * rg.edges[k]
				all[size*size+k] = free - 2*rg.edges[k]*(8+rg.weightBytes())
			}
			return all
		}
		for _, free := range []int64{h200, h100} {
			rg, all := view(free)
			fits := free == h200 || c.fitH100
			refused := rg.checkDraw(all)
			if refused == nil {
				refused = rg.checkCounts(received(rg, free))
			}
			switch {
			case fits && refused != nil:
				t.Errorf("%s with %s free a rank: %v", c.name, card.Bytes(free), refused)
			case !fits && (refused == nil || !errors.Is(refused, ErrTooBig) || !strings.Contains(refused.Error(), "rank 0 needs about 103") ||
				!strings.Contains(refused.Error(), "79.0 GiB is free")):
				t.Errorf("%s with %s free a rank: %v, want rank 0's refusal with both figures", c.name, card.Bytes(free), refused)
			}
			if refused != nil {
				t.Logf("%s, %s free: %v", c.name, card.Bytes(free), refused)
			}
		}
	}
}

// TestGPURMATPartsLarge generates one large R-MAT graph (edge factor 16,
// permuted) over a group of the first GPUs, named by
// GPUGEN_LARGE="SCALE:RANKS:WEIGHTS" (weights none, uniform or f64; e.g.
// "29:4:none", 2^32 arcs drawn by each rank), logs each rank's figures
// and free memory, and checks every part's offsets (from 0, rising, to
// its arcs); with GPUGEN_LARGE_SAME=RANKS2 it then generates the graph
// over RANKS2 GPUs too and compares the two bit for bit on the host (e.g.
// "28:2:none" against 4 ranks: 2^32 arcs a rank against 2^31). It skips
// unless GPUGEN_LARGE is set (build/arcs64/run.sh sets it).
func TestGPURMATPartsLarge(t *testing.T) {
	spec := os.Getenv("GPUGEN_LARGE")
	if spec == "" {
		t.Skip("GPUGEN_LARGE=SCALE:RANKS:WEIGHTS unset")
	}
	var scale, ranks int
	var weights string
	_, err := fmt.Sscanf(strings.ReplaceAll(spec, ":", " "), "%d %d %s", &scale, &ranks, &weights)
	if err != nil {
		t.Fatalf("GPUGEN_LARGE=%q: %v; want SCALE:RANKS:WEIGHTS, e.g. 29:4:none", spec, err)
	}
	other := 0
	if same := os.Getenv("GPUGEN_LARGE_SAME"); same != "" {
		if other, err = strconv.Atoi(same); err != nil || other < 1 {
			t.Fatalf("GPUGEN_LARGE_SAME=%q: want a number of ranks", same)
		}
	}
	opts, ok := map[string][]gen.Option{"none": {gen.Unweighted()}, "uniform": {gen.Uniform()}, "f64": {gen.Float64()}}[weights]
	if !ok {
		t.Fatalf("GPUGEN_LARGE=%q: weights %q, want none, uniform or f64", spec, weights)
	}
	opts = append(opts, gen.PermuteVertices(true))
	gpuDevice(t)
	devs, err := gpu.Devices()
	if err != nil {
		t.Fatal(err)
	}
	generate := func(ranks int) *graph.CSR {
		if len(devs) < ranks {
			t.Skipf("%d GPUs, %d wanted", len(devs), ranks)
		}
		g, err := gpu.NewGroup(devs[:ranks]...)
		if err != nil {
			t.Fatal(err)
		}
		defer g.Close()
		start := time.Now()
		pg, phases, err := RMATPartsTimed(g, scale, 16, opts...)
		if err != nil {
			t.Fatalf("scale %d over %d ranks, weights %s: %v", scale, ranks, weights, err)
		}
		defer pg.Close()
		t.Logf("scale %d over %d ranks, weights %s: %d arcs in %v", scale, ranks, weights, pg.Arcs, time.Since(start))
		for k, p := range phases {
			info, err := devs[k].Info()
			if err != nil {
				t.Fatal(err)
			}
			part := pg.Parts[k]
			held := part.Offsets.Bytes() + part.Adj.Bytes() + part.Weights.Bytes() + part.Weights64.Bytes()
			t.Logf("%v; part %s, %s free after", p, card.Bytes(held), card.Bytes(info.FreeMemory))
			off, err := part.Offsets.ToHost()
			if err != nil {
				t.Fatal(err)
			}
			if off[0] != 0 || off[len(off)-1] != int64(part.Adj.Len()) || !slices.IsSorted(off) {
				t.Fatalf("rank %d: offsets from %d to %d (%d arcs), rising: %v", k, off[0], off[len(off)-1], part.Adj.Len(), slices.IsSorted(off))
			}
		}
		if other == 0 {
			return nil
		}
		c, err := pg.Host()
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	got := generate(ranks)
	if other > 0 {
		sameCSR(t, fmt.Sprintf("scale %d over %d ranks vs %d", scale, ranks, other), got, generate(other))
	}
}
