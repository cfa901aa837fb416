package gpugen

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/graph/gen"
	"github.com/graphnb/graphnb/internal/fakegpu"
)

// On the GPU machine (two GPUs for TestGPURMATParts' second half):
//
//	PKGS=graph/gen/gpugen ops/gpu-test.sh build
//	PKGS=graph/gen/gpugen TESTRUN='GPURMATParts' BENCH='RMATParts' ops/gpu-test.sh run

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

// partCSR downloads a part's arrays.
func partCSR(t *testing.T, p *gpu.Part) *graph.CSR {
	t.Helper()
	var c graph.CSR
	var err error
	if c.Offsets, err = p.Offsets.ToHost(); err != nil {
		t.Fatal(err)
	}
	if c.Adj, err = p.Adj.ToHost(); err != nil {
		t.Fatal(err)
	}
	if p.Weights != nil {
		if c.Weights, err = p.Weights.ToHost(); err != nil {
			t.Fatal(err)
		}
	}
	if p.Weights64 != nil {
		if c.Weights64, err = p.Weights64.ToHost(); err != nil {
			t.Fatal(err)
		}
	}
	return &c
}

// checkParts generates every case over g with RMATParts and compares
// each rank's part with its rows of gen.RMAT, and the assembled graph
// with gen.RMAT, bit for bit.
func checkParts(t *testing.T, g *gpu.Group, cases []rmatCase) {
	t.Helper()
	for _, c := range cases {
		want, err := gen.RMAT(c.scale, c.ef, c.opts...)
		if err != nil {
			t.Fatal(err)
		}
		pg, phases, err := RMATPartsTimed(g, c.scale, c.ef, c.opts...)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if pg.N != want.NumVertices() || pg.Arcs != want.NumArcs() || pg.Directed || len(pg.Parts) != len(g.Ranks()) {
			t.Fatalf("%s: %v with %d parts, directed %v; want %d vertices, %d arcs, undirected", c.name, pg, len(pg.Parts), pg.Directed, want.NumVertices(), want.NumArcs())
		}
		for i, p := range pg.Parts {
			r := g.Ranks()[i]
			lo, hi := gpu.Block(pg.N, g.Size(), r.Rank())
			if p.Lo != lo || p.Hi != hi || p.Rank != r {
				t.Fatalf("%s: part %d holds [%d, %d) of rank %v; want [%d, %d) of rank %d", c.name, i, p.Lo, p.Hi, p.Rank, lo, hi, r.Rank())
			}
			sameCSR(t, fmt.Sprintf("%s rank %d", c.name, r.Rank()), partCSR(t, p), rowsOf(want, lo, hi))
			if !g.IsHost() && (phases[i].Rank != r.Rank() || phases[i].Kept != int64(p.Adj.Len())) {
				t.Fatalf("%s: phases %v for rank %d with %d arcs", c.name, phases[i], r.Rank(), p.Adj.Len())
			}
		}
		if len(pg.Parts) == g.Size() {
			got, err := pg.Host()
			if err != nil {
				t.Fatal(err)
			}
			sameCSR(t, c.name, got, want)
		}
		if err := pg.Close(); err != nil {
			t.Error(err)
		}
	}
}

// virtualParts runs RMATParts' steps for size ranks in turn on one
// device (the collectives done on the host), as rmatPart runs them on
// each rank of a group: the multi-rank logic without several GPUs.
func virtualParts(dev *gpu.Device, p *gen.RMATPlan, size int) (parts []*gpu.Part, phases []PartPhases, refused, err error) {
	parts = make([]*gpu.Part, size)
	phases = make([]PartPhases, size)
	err = dev.Exec(func(t *gpu.Thread) error {
		tmp := gpu.NewAllocations(dev)
		defer tmp.Free()
		rgs := make([]*rankGen, size)
		for k := range rgs {
			var err error
			if rgs[k], err = newRankGen(p, k, size, t, tmp.Sub(), &phases[k]); err != nil {
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
		free, err := sum((*rankGen).freeMemory)
		if err != nil {
			return err
		}
		for _, rg := range rgs {
			if refused = rg.checkDraw(free); refused != nil {
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
	used := dev.MemoryUsed()
	for _, c := range cases {
		name := fmt.Sprintf("%s_%dranks", c.name, size)
		want, err := gen.RMAT(c.scale, c.ef, c.opts...)
		if err != nil {
			t.Fatal(err)
		}
		p, err := gen.PlanRMAT(c.scale, c.ef, c.opts...)
		if err != nil {
			t.Fatal(err)
		}
		parts, phases, refused, err := virtualParts(dev, p, size)
		if err != nil || refused != nil {
			t.Fatalf("%s: %v %v", name, err, refused)
		}
		var drawn, received int64
		for k, part := range parts {
			lo, hi := gpu.Block(p.N, size, k)
			if part.Lo != lo || part.Hi != hi {
				t.Fatalf("%s: rank %d holds [%d, %d), want [%d, %d)", name, k, part.Lo, part.Hi, lo, hi)
			}
			sameCSR(t, fmt.Sprintf("%s rank %d", name, k), partCSR(t, part), rowsOf(want, lo, hi))
			drawn += phases[k].Drawn
			received += phases[k].Received
			if phases[k].Drawn != drawnArcs(p, size, k) {
				t.Errorf("%s: rank %d drew %d arcs, want %d", name, k, phases[k].Drawn, drawnArcs(p, size, k))
			}
		}
		if drawn != 2*int64(p.Edges) || received != drawn {
			t.Errorf("%s: %d arcs drawn and %d received, want %d", name, drawn, received, 2*p.Edges)
		}
		if err := freeParts(parts); err != nil {
			t.Error(err)
		}
	}
	if got := dev.MemoryUsed(); got != used {
		t.Errorf("%d ranks: %d bytes left allocated", size, got-used)
	}
}

// checkPartsErrors: arguments are refused as gen.RMAT refuses them, a nil
// group clearly, a rank over the 32-bit numbering or its device's free
// memory before anything is allocated, the group left usable.
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
	if g.IsHost() {
		return
	}
	dev := g.Devices()[0]
	used := dev.MemoryUsed()
	// 2^33 arcs: over 32 bits per rank below 3 ranks.
	if g.Size() < 3 {
		if _, err := RMATParts(g, 28, 16); err == nil || !strings.Contains(err.Error(), "32 bits") || !errors.Is(err, ErrTooBig) {
			t.Errorf("scale 28 over %d ranks: %v, want the 32-bit limit", g.Size(), err)
		}
	}
	// About 4·10^9 arcs of float64 weights per rank: about 130 GB each.
	_, err := RMATParts(g, 27, 15*g.Size(), gen.Float64())
	if err == nil || !strings.Contains(err.Error(), "device memory") || !strings.Contains(err.Error(), "rank 0") || !errors.Is(err, ErrTooBig) {
		t.Errorf("scale 27, edge factor %d: %v, want the memory error", 15*g.Size(), err)
	}
	if err := g.Err(); err != nil {
		t.Errorf("a refused generation broke the group: %v", err)
	}
	if got := dev.MemoryUsed(); got != used {
		t.Errorf("refused generations left %d bytes allocated", got-used)
	}
}

// checkPartsCancel: an interrupt stops RMATParts with cancel's error,
// frees what it allocated and breaks the group (Group.Run's rule).
func checkPartsCancel(t *testing.T, g *gpu.Group) {
	dev := g.Devices()[0]
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
		total += drawnArcs(p, 3, r)
		c0, c1 := chunkRange(p.Chunks, 3, r)
		q := localPlan(p, c0, c1)
		if 2*int64(q.Edges) != drawnArcs(p, 3, r) || len(q.EdgeStates) != 4*q.Chunks || len(q.WeightStates) != 4*q.Chunks {
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
	checkPartsCancel(t, g)
	g2, err := gpu.NewGroup(dev)
	if err != nil {
		t.Fatal(err)
	}
	defer g2.Close()
	checkParts(t, g2, []rmatCase{{6, 16, "after_cancel", nil}})
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

// compareWithRMAT compares RMATParts over g with RMAT's graph on the
// first device of g, without gen.RMAT.
func compareWithRMAT(t *testing.T, g *gpu.Group, c rmatCase) {
	one, err := RMAT(g.Devices()[0], c.scale, c.ef, c.opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer one.Close()
	want, err := one.Host()
	if err != nil {
		t.Fatal(err)
	}
	pg, phases, err := RMATPartsTimed(g, c.scale, c.ef, c.opts...)
	if err != nil {
		t.Fatalf("%s: %v", c.name, err)
	}
	defer pg.Close()
	got, err := pg.Host()
	if err != nil {
		t.Fatal(err)
	}
	sameCSR(t, c.name+" vs RMAT", got, want)
	for _, p := range phases {
		t.Logf("%s: %v", c.name, p)
	}
}
