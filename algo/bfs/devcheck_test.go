package bfs

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/graph/gen"
	"github.com/graphnb/graphnb/internal/cudasrc"
	tg "github.com/graphnb/graphnb/internal/testgraphs"
)

func TestCheckSource(t *testing.T) {
	cudasrc.Check(t, "check.cu", checkSource, 1, checkKernelNames)
	cudasrc.CheckDefines(t, "check.cu", checkSource, map[string]int64{
		"CK_BLOCK": blockSize, "CK_ERR": ckErr, "CK_REACHED": ckReached, "CK_ARCS": ckArcs, "CK_LEVELS": ckLevels, "CK_MARKS": ckMarks,
		"CK_WORDS": ckWords, "CK_CHUNK": ckChunk, "R_SOURCE": ruleSource, "R_LEVEL": ruleLevel, "R_PARENT": ruleParent, "R_CYCLE": ruleCycle,
		"R_TREELEVEL": ruleTreeLevel, "R_SPAN": ruleSpan, "R_EDGELEVEL": ruleEdgeLevel, "R_TREEARC": ruleTreeArc,
	})
}

// On the host device Check is the CPU checker.
func TestHostDeviceCheck(t *testing.T) {
	g, err := gen.Path(5)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Prepare(gpu.Host(), g, Options{Parents: true})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	r, err := p.Run(0)
	if err != nil {
		t.Fatal(err)
	}
	if p.Checker() != "cpu" {
		t.Errorf("Checker() = %q on the host", p.Checker())
	}
	if err := p.Check(r); err != nil {
		t.Error(err)
	}
	r.Levels[3] = 7
	if err := p.Check(r); err == nil || !strings.Contains(err.Error(), "rule 2") {
		t.Errorf("wrong level: %v", err)
	}
}

// checkCase is a graph, the roots to search from and the variants to run.
type checkCase struct {
	name  string
	g     *graph.CSR
	roots []int32
}

// deviceCheckCases are the small graphs of the agreement test: the
// shortest-path table (directed ones too), random graphs with isolated
// vertices and parallel edges, and an R-MAT graph.
func deviceCheckCases(t *testing.T, random int) []checkCase {
	var cases []checkCase
	for _, c := range tg.ShortestPaths() {
		cases = append(cases, checkCase{c.Name, c.Graph(t), []int32{c.Source}})
	}
	r := rand.New(rand.NewPCG(15, 1))
	for i := range random {
		n := 1 + r.IntN(60)
		g := tg.Build(t, n, i%3 == 2, tg.Unweighted, tg.Random(r, n, r.IntN(3*n), nil)...)
		cases = append(cases, checkCase{"random", g, []int32{int32(r.IntN(n)), int32(r.IntN(n))}})
	}
	g, err := gen.RMAT(8, 8, gen.Seed(5), gen.Unweighted())
	if err != nil {
		t.Fatal(err)
	}
	return append(cases, checkCase{"rmat_s8", g, g.Roots(2, 1)})
}

// checkDeviceAgrees runs every variant on every case and requires the
// device checks and the CPU check to agree: all accept the result, and
// all reject it after a random mutation (or all accept one that left it
// valid); CheckDevice, on the mutated result put on the device, says
// what Check says.
func checkDeviceAgrees(t *testing.T, dev *gpu.Device, cases []checkCase) {
	r := rand.New(rand.NewPCG(15, 2))
	for _, c := range cases {
		for _, v := range allVariants() {
			if c.g.Directed && v.Options.Method != DirectionOptimizingGPU {
				continue
			}
			p, err := Prepare(dev, c.g, withParents(v.Options))
			if err != nil {
				t.Fatalf("%s, %s: %v", c.name, v.Label, err)
			}
			if p.Checker() != "device" {
				t.Fatalf("%s: Checker() = %q on %v", v.Label, p.Checker(), dev)
			}
			for _, src := range c.roots {
				dr, err := p.RunOnDevice(src)
				if err != nil {
					t.Fatalf("%s, %s from %d: %v", c.name, v.Label, src, err)
				}
				if err := p.CheckDevice(dr); err != nil {
					t.Errorf("%s (%v), %s from %d: CheckDevice: %v", c.name, c.g, v.Label, src, err)
				}
				res, err := dr.Result()
				if err != nil {
					t.Fatal(err)
				}
				if err := Check(c.g, res); err != nil {
					t.Fatalf("%s, %s from %d: CPU check: %v", c.name, v.Label, src, err)
				}
				if err := p.Check(res); err != nil {
					t.Errorf("%s (%v), %s from %d: device check: %v", c.name, c.g, v.Label, src, err)
				}
				for range 3 {
					m := cloneResult(res)
					what := mutateRandomly(r, m)
					cpu, devErr := Check(c.g, m), p.Check(m)
					if (cpu == nil) != (devErr == nil) {
						t.Errorf("%s, %s from %d, %s: CPU check %v, device check %v", c.name, v.Label, src, what, cpu, devErr)
					}
					sameCheck(t, p, m, devErr, what)
				}
				if err := dr.Close(); err != nil {
					t.Fatal(err)
				}
			}
			if err := p.Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// onDevice puts m's levels and parents on p's device as a DeviceResult
// with m's bookkeeping.
func onDevice(t *testing.T, p *Prepared, m *Result) *DeviceResult {
	t.Helper()
	lv, err := p.Device().Int32sFrom(m.Levels)
	if err != nil {
		t.Fatal(err)
	}
	par, err := p.Device().Int32sFrom(m.Parents)
	if err != nil {
		t.Fatal(err)
	}
	return newDeviceResult(m, len(m.Levels), lv, par, &resultPool{})
}

// sameCheck requires CheckDevice on m put on the device to return what
// Check returned on m (want).
func sameCheck(t *testing.T, p *Prepared, m *Result, want error, what string) {
	t.Helper()
	dm := onDevice(t, p, m)
	defer dm.Close()
	if got := p.CheckDevice(dm); (got == nil) != (want == nil) || got != nil && got.Error() != want.Error() {
		t.Errorf("%s, %s: CheckDevice says %v, Check %v", p.Label(), what, got, want)
	}
}

func cloneResult(r *Result) *Result {
	c := *r
	c.Levels, c.Parents, c.FrontierSizes = slices.Clone(r.Levels), slices.Clone(r.Parents), slices.Clone(r.FrontierSizes)
	return &c
}

// mutateRandomly changes one level or parent of m at random, or its
// frontier sizes or Reached, and says what it did.
func mutateRandomly(r *rand.Rand, m *Result) string {
	n := len(m.Levels)
	v := r.IntN(n)
	switch r.IntN(6) {
	case 0:
		m.Levels[v] += int32(r.IntN(3)) - 1
		return "level ±1"
	case 1:
		m.Parents[v] = int32(r.IntN(n))
		return "random parent"
	case 2:
		m.Levels[v], m.Parents[v] = -1, -1
		return "unreached"
	case 3:
		m.Parents[v] = -1
		return "no parent"
	case 4:
		m.FrontierSizes[r.IntN(len(m.FrontierSizes))]++
		return "frontier size"
	}
	m.Reached++
	return "reached"
}

// mutation is a planted error and the words the device check must say.
type mutation struct {
	name string
	want string
	// plant changes m (a valid result of g from m.Source) and returns
	// false when g offers no place for it.
	plant func(g *graph.CSR, m *Result) bool
}

// children returns the vertices whose parent is v.
func children(m *Result, v int32) []int32 {
	var out []int32
	for c, p := range m.Parents {
		if p == v && int32(c) != v {
			out = append(out, int32(c))
		}
	}
	return out
}

func adjacent(g *graph.CSR, u, v int32) bool {
	return slices.Contains(g.Neighbors(u), v) || slices.Contains(g.Neighbors(v), u)
}

var mutations = []mutation{
	{"source level", "source", func(g *graph.CSR, m *Result) bool { m.Levels[m.Source] = 1; return true }},
	{"source parent", "source", func(g *graph.CSR, m *Result) bool {
		for v, l := range m.Levels {
			if l == 1 {
				m.Parents[m.Source] = int32(v)
				return true
			}
		}
		return false
	}},
	{"wrong level", "rule 2 (tree levels)", func(g *graph.CSR, m *Result) bool {
		for v, l := range m.Levels {
			if l >= 2 && len(children(m, int32(v))) == 0 {
				m.Levels[v]++
				return true
			}
		}
		return false
	}},
	{"level -2", "want level ≥ 0", func(g *graph.CSR, m *Result) bool { m.Levels[len(m.Levels)-1] = -2; return true }},
	{"unreached with a parent", "want level ≥ 0, or -1 and parent -1", func(g *graph.CSR, m *Result) bool {
		for v, l := range m.Levels {
			if l < 0 {
				m.Parents[v] = m.Source
				return true
			}
		}
		return false
	}},
	{"no parent", "rule 1 (tree)", func(g *graph.CSR, m *Result) bool {
		for v, l := range m.Levels {
			if l >= 1 {
				m.Parents[v] = -1
				return true
			}
		}
		return false
	}},
	{"parent out of range", "rule 1 (tree)", func(g *graph.CSR, m *Result) bool {
		for v, l := range m.Levels {
			if l >= 1 {
				m.Parents[v] = int32(len(m.Levels))
				return true
			}
		}
		return false
	}},
	{"unreached parent", "not a reached vertex", func(g *graph.CSR, m *Result) bool {
		u := slices.Index(m.Levels, -1)
		for v, l := range m.Levels {
			if l >= 1 && u >= 0 {
				m.Parents[v] = int32(u)
				return true
			}
		}
		return false
	}},
	{"cycle", "does not reach source", func(g *graph.CSR, m *Result) bool {
		for v, l := range m.Levels {
			if l >= 1 {
				if cs := children(m, int32(v)); len(cs) > 0 {
					m.Parents[v] = cs[0]
					return true
				}
			}
		}
		return false
	}},
	{"parent not a neighbour", "rule 5 (tree arcs)", func(g *graph.CSR, m *Result) bool {
		for v, l := range m.Levels {
			if l < 2 {
				continue
			}
			for w, lw := range m.Levels {
				if lw == l-1 && !adjacent(g, int32(w), int32(v)) {
					m.Parents[v] = int32(w)
					return true
				}
			}
		}
		return false
	}},
	{"missing tree edge", "rule 4 (spanning)", func(g *graph.CSR, m *Result) bool {
		for v, l := range m.Levels {
			if l >= 1 && len(children(m, int32(v))) == 0 {
				m.Levels[v], m.Parents[v] = -1, -1
				return true
			}
		}
		return false
	}},
	{"levels two apart", "rule 3 (edge levels)", func(g *graph.CSR, m *Result) bool {
		// A leaf v re-hung below a neighbour z of its own level: the tree
		// stays consistent, but v's old parent is now two levels up.
		for v, l := range m.Levels {
			if l < 1 || len(children(m, int32(v))) > 0 {
				continue
			}
			for _, z := range g.Neighbors(int32(v)) {
				if m.Levels[z] == l && z != int32(v) && (!g.Directed || slices.Contains(g.Neighbors(z), int32(v))) {
					m.Levels[v], m.Parents[v] = l+1, z
					m.FrontierSizes = append(m.FrontierSizes, 0)
					return true
				}
			}
		}
		return false
	}},
	{"frontier size", "FrontierSizes[1]", func(g *graph.CSR, m *Result) bool {
		if len(m.FrontierSizes) < 2 {
			return false
		}
		m.FrontierSizes[1]++
		return true
	}},
	{"missing level", "frontier sizes for", func(g *graph.CSR, m *Result) bool {
		m.FrontierSizes = m.FrontierSizes[:len(m.FrontierSizes)-1]
		return len(m.FrontierSizes) > 0
	}},
	{"reached", "Reached", func(g *graph.CSR, m *Result) bool { m.Reached++; return true }},
}

// checkDeviceMutations plants every kind of error in a valid result of
// every variant and requires the device check to name it (and the CPU
// check to reject it too).
func checkDeviceMutations(t *testing.T, dev *gpu.Device, g *graph.CSR, src int32) {
	for _, v := range allVariants() {
		p, err := Prepare(dev, g, withParents(v.Options))
		if err != nil {
			t.Fatal(err)
		}
		res, err := p.Run(src)
		if err != nil {
			t.Fatal(err)
		}
		for _, mu := range mutations {
			m := cloneResult(res)
			if !mu.plant(g, m) {
				t.Fatalf("%s: %v offers no place for the mutation", mu.name, g)
			}
			err := p.Check(m)
			if err == nil || !strings.Contains(err.Error(), mu.want) {
				t.Errorf("%s, %s: device check %v, want an error saying %q", v.Label, mu.name, err, mu.want)
			}
			sameCheck(t, p, m, err, mu.name)
			if Check(g, m) == nil {
				t.Errorf("%s, %s: the CPU check accepts it", v.Label, mu.name)
			}
		}
		// ComponentEdges is checked where the CSR is on the device.
		m := cloneResult(res)
		m.ComponentEdges++
		err = p.Check(m)
		if (err == nil) == (p.coo == nil) {
			t.Errorf("%s: ComponentEdges+1: device check %v", v.Label, err)
		}
		sameCheck(t, p, m, err, "ComponentEdges+1")
		if err := p.Check(res); err != nil {
			t.Errorf("%s: the unchanged result after the mutations: %v", v.Label, err)
		}
		p.Close()
	}
}

// mutationGraph is an R-MAT graph (triangles, many levels) with isolated
// vertices, and a source in its big component.
func mutationGraph(t *testing.T, scale int) (*graph.CSR, int32) {
	g, err := gen.RMAT(scale, 8, gen.Seed(9), gen.Unweighted())
	if err != nil {
		t.Fatal(err)
	}
	if g.Degree(0) == 0 {
		t.Fatal("vertex 0 is isolated")
	}
	return g, 0
}

func TestGPUDeviceCheck(t *testing.T) {
	dev := requireGPU(t)
	var cases []checkCase
	for _, c := range gpuCases(t) {
		cases = append(cases, checkCase{c.name, c.g, c.roots})
	}
	checkDeviceAgrees(t, dev, append(deviceCheckCases(t, 100), cases...))
	g, src := mutationGraph(t, 12)
	checkDeviceMutations(t, dev, g, src)
}

// BenchmarkGPUCheck compares the device check with the CPU check on one
// result of the direction-optimizing BFS, R-MAT scale 20 (the upload of
// levels and parents included in the device check's time).
func BenchmarkGPUCheck(b *testing.B) {
	dev := requireGPU(b)
	g, err := gen.RMAT(20, 16, gen.Seed(1), gen.Unweighted())
	if err != nil {
		b.Fatal(err)
	}
	p, err := Prepare(dev, g, Options{Method: DirectionOptimizingGPU, Parents: true})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	r, err := p.Run(g.Roots(1, 1)[0])
	if err != nil {
		b.Fatal(err)
	}
	b.Run("device", func(b *testing.B) {
		// The first check loads (or compiles) the check module and
		// allocates its buffers: outside the timed loop.
		if err := p.Check(r); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if err := p.Check(r); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cpu", func(b *testing.B) {
		for b.Loop() {
			if err := Check(g, r); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// checkDeviceDeepLevels plants a rule 3 error at a head whose level does
// not fit the check's byte levels: on the path 0–1–…–599 with the chord
// 260–599 (directed too), the result that follows the path is a valid
// tree but the chord joins levels 260 and 599. The device Check must
// word what Check says, and CheckDevice say what the device Check says.
func checkDeviceDeepLevels(t *testing.T, dev *gpu.Device) {
	const n = 600
	m := &Result{Source: 0, Levels: make([]int32, n), Parents: make([]int32, n), FrontierSizes: make([]int64, n), Reached: n}
	for v := range int32(n) {
		m.Levels[v], m.Parents[v], m.FrontierSizes[v] = v, max(v-1, 0), 1
	}
	for _, directed := range []bool{false, true} {
		g := tg.Build(t, n, directed, tg.Unweighted, append(tg.Path(n, nil), tg.Edge{260, 599, 1})...)
		want := Check(g, m)
		if want == nil || !strings.Contains(want.Error(), "rule 3") {
			t.Fatalf("directed %v: Check of the path's levels: %v, want a rule 3 error", directed, want)
		}
		for _, v := range allVariants() {
			if directed && v.Options.Method != DirectionOptimizingGPU {
				continue
			}
			p, err := Prepare(dev, g, withParents(v.Options))
			if err != nil {
				t.Fatalf("%s: %v", v.Label, err)
			}
			got := p.Check(m)
			if got == nil || !strings.Contains(got.Error(), strings.TrimPrefix(want.Error(), "bfs: check: ")) {
				t.Errorf("%s, directed %v: device Check says %v, Check %v", v.Label, directed, got, want)
			}
			sameCheck(t, p, m, got, "path levels across a chord")
			if err := p.Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
}
