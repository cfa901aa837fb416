package sssp

import (
	"math"
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
		"CK_BLOCK": blockSize, "CK_ERR": ckErr, "CK_REACHED": ckReached, "CK_ARCS": ckArcs, "CK_JUMPED": ckJumped, "CK_FLAT": ckFlat, "CK_CHASE": ckChase, "CK_WORDS": ckWords, "CK_TILE": ckTile,
		"CK_FORM_CSR": formCSR, "CK_FORM_COO": formCOO, "CK_FORM_UNDIRECTED": formUndirected,
		"R_SOURCE": ruleSource, "R_REACH": ruleReach, "R_TREE": ruleTree, "R_BOUND": ruleBound, "R_PARENTARC": ruleParentArc,
	})
}

// On the host device Check is the CPU checker.
func TestHostDeviceCheck(t *testing.T) {
	g := twoComponents(t)
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
	r.Dist[3] *= 2
	if err := p.Check(r); err == nil {
		t.Error("a doubled distance passes")
	}
}

// checkCase is a graph and the roots to search from.
type checkCase struct {
	name  string
	g     *graph.CSR
	roots []int32
}

// deviceCheckCases are the graphs of the agreement test: the
// shortest-path table (directed ones too), random graphs with float32 and
// float64 weights, zero weights and isolated vertices, and the GPU
// tests' cases.
func deviceCheckCases(t *testing.T, random int, small bool) []checkCase {
	var cases []checkCase
	for _, c := range tg.ShortestPaths() {
		cases = append(cases, checkCase{c.Name, c.Graph(t), []int32{c.Source}})
	}
	r := rand.New(rand.NewPCG(15, 3))
	weights := func(r *rand.Rand) float64 { return float64(r.IntN(4)) / 4 }
	for i := range random {
		n := 1 + r.IntN(40)
		w := []tg.Weights{tg.Float32, tg.Float64, tg.Unweighted}[i%3]
		g := tg.Build(t, n, i%4 == 3, w, tg.Random(r, n, r.IntN(3*n), weights)...)
		cases = append(cases, checkCase{"random " + w.String(), g, []int32{int32(r.IntN(n)), int32(r.IntN(n))}})
	}
	for _, c := range gpuCases(t, small) {
		cases = append(cases, checkCase{c.name, c.g, c.srcs[:min(2, len(c.srcs))]})
	}
	return cases
}

// checkDeviceAgrees runs the variants on every case and requires the
// device check and the CPU check, at the tolerance bench uses, to agree:
// both accept the result, and both reject it after a random mutation (or
// both accept one that left it valid).
func checkDeviceAgrees(t *testing.T, dev *gpu.Device, cases []checkCase, variants []Variant) {
	r := rand.New(rand.NewPCG(15, 4))
	for _, c := range cases {
		for _, v := range variants {
			if c.g.Directed && v.Options.Method == EdgeSweep {
				continue
			}
			o := v.Options
			o.Parents = true
			p, err := Prepare(dev, c.g, o)
			if err != nil {
				t.Fatalf("%s, %s: %v", c.name, v.Label, err)
			}
			if p.Checker() != "device" {
				t.Fatalf("%s: Checker() = %q on %v", v.Label, p.Checker(), dev)
			}
			tol := DefaultTolerance
			if o.Float32 {
				tol = Float32Tolerance
			}
			for _, src := range c.roots {
				res, err := p.Run(src)
				if err != nil {
					t.Fatalf("%s, %s from %d: %v", c.name, v.Label, src, err)
				}
				if err := CheckTolerance(c.g, res, tol); err != nil {
					t.Fatalf("%s, %s from %d: CPU check: %v", c.name, v.Label, src, err)
				}
				if err := p.Check(res); err != nil {
					t.Errorf("%s (%v), %s from %d: device check: %v", c.name, c.g, v.Label, src, err)
				}
				dr, err := p.RunOnDevice(src)
				if err != nil {
					t.Fatalf("%s, %s from %d: RunOnDevice: %v", c.name, v.Label, src, err)
				}
				if err := p.CheckDevice(dr); err != nil {
					t.Errorf("%s (%v), %s from %d: CheckDevice: %v", c.name, c.g, v.Label, src, err)
				}
				for range 3 {
					m := cloneResult(res)
					what := mutateRandomly(r, m)
					cpu, devErr := CheckTolerance(c.g, m, tol), p.Check(m)
					if (cpu == nil) != (devErr == nil) {
						t.Errorf("%s, %s from %d, %s: CPU check %v, device check %v", c.name, v.Label, src, what, cpu, devErr)
					}
					plant(t, dr, m) // the same through a DeviceResult, with the same words
					if resErr := p.CheckDevice(dr); errText(resErr) != errText(devErr) {
						t.Errorf("%s, %s from %d, %s: Check %v, CheckDevice %v", c.name, v.Label, src, what, devErr, resErr)
					}
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

func cloneResult(r *Result) *Result {
	c := *r
	c.Dist, c.Parents = slices.Clone(r.Dist), slices.Clone(r.Parents)
	return &c
}

// mutateRandomly changes one distance or parent of m at random, or
// Reached, and says what it did.
func mutateRandomly(r *rand.Rand, m *Result) string {
	n := len(m.Dist)
	v := r.IntN(n)
	switch r.IntN(7) {
	case 0:
		m.Dist[v] = math.Nextafter(m.Dist[v], math.Inf(1))
		return "one ulp up"
	case 1:
		m.Dist[v] *= 1 + 1e-4
		return "distance ×(1+1e-4)"
	case 2:
		m.Dist[v] -= 0.25
		return "distance -0.25"
	case 3:
		m.Parents[v] = int32(r.IntN(n))
		return "random parent"
	case 4:
		m.Dist[v], m.Parents[v] = math.Inf(1), -1
		return "unreached"
	case 5:
		m.Parents[v] = -1
		return "no parent"
	}
	m.Reached++
	return "reached"
}

// mutation is a planted error, the tolerance to check with and the words
// the device check must say.
type mutation struct {
	name string
	tol  float64 // -1: Check's own
	want string
	// plant changes m (a valid result of g from m.Source, float64
	// distances) and returns false when g offers no place for it.
	plant func(g *graph.CSR, m *Result) bool
}

// reachedLeaf returns a reached vertex other than the source that is no
// vertex's parent and whose distance is positive, or -1.
func reachedLeaf(m *Result) int32 {
	isParent := make([]bool, len(m.Parents))
	for v, p := range m.Parents {
		if p >= 0 && int32(v) != p {
			isParent[p] = true
		}
	}
	for v, d := range m.Dist {
		if int32(v) != m.Source && d > 0 && !math.IsInf(d, 1) && !isParent[v] {
			return int32(v)
		}
	}
	return -1
}

func weightOf(g *graph.CSR, u, v int32) (float64, bool) {
	for k := g.Offsets[u]; k < g.Offsets[u+1]; k++ {
		if g.Adj[k] == v {
			return g.ArcWeight(k), true
		}
	}
	return 0, false
}

var mutations = []mutation{
	{"source distance", -1, "source", func(g *graph.CSR, m *Result) bool { m.Dist[m.Source] = 1; return true }},
	{"source parent", -1, "source", func(g *graph.CSR, m *Result) bool { m.Parents[m.Source] = -1; return true }},
	{"NaN distance", -1, "reach", func(g *graph.CSR, m *Result) bool { m.Dist[reachedLeaf(m)] = math.NaN(); return true }},
	{"no parent", -1, "reach", func(g *graph.CSR, m *Result) bool { m.Parents[reachedLeaf(m)] = -1; return true }},
	{"unreached with a parent", -1, "reach", func(g *graph.CSR, m *Result) bool {
		for v, d := range m.Dist {
			if math.IsInf(d, 1) {
				m.Parents[v] = m.Source
				return true
			}
		}
		return false
	}},
	{"unreached parent", -1, "reach", func(g *graph.CSR, m *Result) bool {
		u := slices.IndexFunc(m.Dist, func(d float64) bool { return math.IsInf(d, 1) })
		m.Parents[reachedLeaf(m)] = int32(u)
		return u >= 0
	}},
	{"cycle", -1, "parent tree", func(g *graph.CSR, m *Result) bool {
		for c, p := range m.Parents {
			if p >= 0 && p != m.Source && int32(c) != p {
				m.Parents[p] = int32(c)
				return true
			}
		}
		return false
	}},
	{"distance one ulp too large", 0, "bound", func(g *graph.CSR, m *Result) bool {
		v := reachedLeaf(m)
		m.Dist[v] = math.Nextafter(m.Dist[v], math.Inf(1))
		return true
	}},
	{"distance one ulp too small", 0, "parent arc", func(g *graph.CSR, m *Result) bool {
		v := reachedLeaf(m)
		m.Dist[v] = math.Nextafter(m.Dist[v], 0)
		return true
	}},
	{"distance 1e-6 too large", -1, "bound", func(g *graph.CSR, m *Result) bool {
		v := reachedLeaf(m)
		m.Dist[v] *= 1 + 1e-6
		return true
	}},
	{"unreached vertex with a path", -1, "bound", func(g *graph.CSR, m *Result) bool {
		v := reachedLeaf(m)
		m.Dist[v], m.Parents[v] = math.Inf(1), -1
		return true
	}},
	{"non-tight parent", -1, "parent arc", func(g *graph.CSR, m *Result) bool {
		for v, d := range m.Dist {
			if int32(v) == m.Source || math.IsInf(d, 1) {
				continue
			}
			for _, u := range g.Neighbors(int32(v)) {
				w, ok := weightOf(g, u, int32(v))
				// u must not lie below v in the tree, or the new parent
				// arc closes a cycle, which the check reports first.
				if ok && u != m.Parents[v] && u != int32(v) && !math.IsInf(m.Dist[u], 1) && math.Abs(m.Dist[u]+w-d) > 1e-3 &&
					!below(m, u, int32(v)) {
					m.Parents[v] = u
					return true
				}
			}
		}
		return false
	}},
	{"parent not a neighbour", -1, "parent arc", func(g *graph.CSR, m *Result) bool {
		v := reachedLeaf(m)
		for u, d := range m.Dist {
			if int32(u) != v && !math.IsInf(d, 1) && !slices.Contains(g.Neighbors(int32(u)), v) {
				m.Parents[v] = int32(u)
				return true
			}
		}
		return false
	}},
	{"reached", -1, "Reached", func(g *graph.CSR, m *Result) bool { m.Reached++; return true }},
}

// checkDeviceMutations plants every kind of error in a valid result of
// each variant with float64 distances and requires the device check to
// name it (and the CPU check, at the same tolerance, to reject it too).
func checkDeviceMutations(t *testing.T, dev *gpu.Device, g *graph.CSR, src int32) {
	for _, v := range append(SeedVariants(), ModernVariants()...) {
		o := v.Options
		o.Parents = true
		p, err := Prepare(dev, g, o)
		if err != nil {
			t.Fatal(err)
		}
		res, err := p.Run(src)
		if err != nil {
			t.Fatal(err)
		}
		if reachedLeaf(res) < 0 {
			t.Fatalf("%v from %d: no reached leaf to plant errors at", g, src)
		}
		dr, err := p.RunOnDevice(src)
		if err != nil {
			t.Fatal(err)
		}
		for _, mu := range mutations {
			m := cloneResult(res)
			if !mu.plant(g, m) {
				t.Fatalf("%s: %v offers no place for the mutation", mu.name, g)
			}
			tol := mu.tol
			if tol < 0 {
				tol = DefaultTolerance
			}
			err := p.CheckTolerance(m, tol)
			if err == nil || !strings.Contains(err.Error(), mu.want) {
				t.Errorf("%s, %s: device check %v, want an error saying %q", v.Label, mu.name, err, mu.want)
			}
			plant(t, dr, m)
			if resErr := p.checkDeviceTolerance(dr, tol); errText(resErr) != errText(err) {
				t.Errorf("%s, %s: CheckDevice %v, Check %v", v.Label, mu.name, resErr, err)
			}
			if CheckTolerance(g, m, tol) == nil {
				t.Errorf("%s, %s: the CPU check accepts it", v.Label, mu.name)
			}
		}
		m := cloneResult(res)
		m.ComponentEdges++
		if err := p.Check(m); (err == nil) == (p.coo == nil) {
			t.Errorf("%s: ComponentEdges+1: device check %v", v.Label, err)
		}
		if err := p.CheckTolerance(res, 0); err != nil {
			t.Errorf("%s: the unchanged result at tolerance 0: %v", v.Label, err)
		}
		plant(t, dr, res)
		if err := p.checkDeviceTolerance(dr, 0); err != nil {
			t.Errorf("%s: the unchanged result at tolerance 0 through CheckDevice: %v", v.Label, err)
		}
		dr.Close()
		p.Close()
	}
}

// mutationGraph is an R-MAT graph with float32 weights and isolated
// vertices.
func mutationGraph(t *testing.T, scale int) *graph.CSR {
	g, err := gen.RMAT(scale, 8, gen.Seed(9))
	if err != nil {
		t.Fatal(err)
	}
	if g.Degree(0) == 0 {
		t.Fatal("vertex 0 is isolated")
	}
	return g
}

// fakeCheckVariants are the variants the fake GPU's agreement test runs:
// the edge sweep (COO) and the frontier and near-far methods (CSR), with
// float64 and float32 distances.
func fakeCheckVariants() []Variant {
	all := allVariants()
	return []Variant{all[0], all[4], all[5], all[7], all[9]}
}

func TestGPUDeviceCheck(t *testing.T) {
	dev := gpuDevice(t)
	checkDeviceAgrees(t, dev, deviceCheckCases(t, 60, false), allVariants())
	checkDeviceMutations(t, dev, mutationGraph(t, 12), 0)
}

// BenchmarkGPUCheck compares the device check with the CPU check on one
// near-far result, R-MAT scale 20: "device" is Check (the upload of
// distances and parents included), "device-resident" CheckDevice on the
// same run's DeviceResult (nothing uploaded).
func BenchmarkGPUCheck(b *testing.B) {
	dev := gpuDevice(b)
	g, err := gen.RMAT(20, 16, gen.Seed(1))
	if err != nil {
		b.Fatal(err)
	}
	p, err := Prepare(dev, g, Options{Method: NearFar, Parents: true})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	r, err := p.Run(g.Roots(1, 1)[0])
	if err != nil {
		b.Fatal(err)
	}
	b.Run("device", func(b *testing.B) {
		for b.Loop() {
			if err := p.Check(r); err != nil {
				b.Fatal(err)
			}
		}
	})
	dr, err := p.RunOnDevice(r.Source)
	if err != nil {
		b.Fatal(err)
	}
	defer dr.Close()
	b.Run("device-resident", func(b *testing.B) { // CheckDevice: nothing uploaded
		for b.Loop() {
			if err := p.CheckDevice(dr); err != nil {
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

// below reports whether u is v or a descendant of v in m's parent tree.
func below(m *Result, u, v int32) bool {
	for steps := 0; u >= 0 && steps <= len(m.Parents); steps++ {
		if u == v {
			return true
		}
		if u == m.Source {
			return false
		}
		u = m.Parents[u]
	}
	return true // a cycle already: not a clean place for the mutation
}

// errText is err's message, "" for nil.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
