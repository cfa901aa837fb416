package mst

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/graph/gen"
	"github.com/graphnb/graphnb/internal/cudasrc"
	"github.com/graphnb/graphnb/internal/fakegpu"
	tg "github.com/graphnb/graphnb/internal/testgraphs"
)

func TestCheckSource(t *testing.T) {
	cudasrc.Check(t, "check.cu", checkSource, 1, checkKernelNames)
	cudasrc.CheckDefines(t, "check.cu", checkSource, map[string]int64{
		"CK_BLOCK": ckBlock, "CK_CHUNK": ckChunk, "CK_ERR": ckErr, "CK_ROOTS": ckRoots, "CK_DEEP": ckDeep, "CK_WORDS": ckWords,
		"R_RANGE": ruleRange, "R_EDGE": ruleEdge, "R_WEIGHT": ruleWeight, "R_SPAN": ruleSpan, "R_MINIMAL": ruleMinimal,
	})
}

// On the host device the checker is the CPU's Check.
func TestHostDeviceCheck(t *testing.T) {
	g := mustGraph(t)(gen.RMAT(5, 8, gen.Seed(1)))
	c, err := NewDeviceCheck(gpu.Host(), g)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r, err := Kruskal(g)
	if err != nil {
		t.Fatal(err)
	}
	if c.Checker() != "cpu" || c.Bytes() != 0 {
		t.Errorf("Checker() = %q, Bytes() = %d on the host", c.Checker(), c.Bytes())
	}
	if err := c.Check(r); err != nil {
		t.Error(err)
	}
	r.Weight++
	if err := c.Check(r); err == nil {
		t.Error("the host device's check accepts a wrong weight")
	}
	if _, err := NewDeviceCheck(gpu.Host(), tg.Build(t, 3, true, tg.Float32, tg.Path(3, nil)...)); err == nil {
		t.Error("NewDeviceCheck accepts a directed graph")
	}
	if _, err := NewDeviceCheck(nil, g); err == nil {
		t.Error("NewDeviceCheck accepts a nil device")
	}
}

func cloneResult(r *Result) *Result {
	c := *r
	c.Edges = slices.Clone(r.Edges)
	return &c
}

// reweigh sets r.Weight to the sum of its edges in their order.
func reweigh(r *Result) {
	r.Weight = 0
	for _, e := range r.Edges {
		r.Weight += e.W
	}
}

// graphEdges returns every edge of g once (U < V, self-loops left out).
func graphEdges(t testing.TB, g *graph.CSR) []Edge {
	es, err := undirectedEdges(g, "test")
	if err != nil {
		t.Fatal(err)
	}
	return slices.DeleteFunc(es, func(e Edge) bool { return e.U == e.V })
}

// forestPath returns the indices of r's edges on the forest path from a
// to b, or nil when they are in different trees or equal.
func forestPath(r *Result, n int, a, b int32) []int {
	type arc struct {
		to int32
		e  int
	}
	adj := make([][]arc, n)
	for i, e := range r.Edges {
		adj[e.U] = append(adj[e.U], arc{e.V, i})
		adj[e.V] = append(adj[e.V], arc{e.U, i})
	}
	via := make([]int, n)
	for i := range via {
		via[i] = -1
	}
	seen := make([]bool, n)
	seen[a] = true
	queue := []int32{a}
	for len(queue) > 0 {
		x := queue[0]
		queue = queue[1:]
		for _, ar := range adj[x] {
			if !seen[ar.to] {
				seen[ar.to], via[ar.to] = true, ar.e
				queue = append(queue, ar.to)
			}
		}
	}
	if a == b || !seen[b] {
		return nil
	}
	var path []int
	for x := b; x != a; {
		e := r.Edges[via[x]]
		path = append(path, via[x])
		if e.U == x {
			x = e.V
		} else {
			x = e.U
		}
	}
	return path
}

// isForestEdge reports whether {e.U, e.V} is an edge of r.
func isForestEdge(r *Result, e Edge) bool {
	return slices.ContainsFunc(r.Edges, func(f Edge) bool { return f.U == e.U && f.V == e.V })
}

// mutation is a planted error and the words the device check must say.
type mutation struct {
	name, want string
	// plant changes m (a minimum spanning forest of g) and returns false
	// when g offers no place for it.
	plant func(t testing.TB, g *graph.CSR, m *Result) bool
}

var mutations = []mutation{
	{"out of range", "must have 0 ≤ U < V", func(_ testing.TB, g *graph.CSR, m *Result) bool {
		m.Edges[len(m.Edges)-1].V = int32(g.NumVertices())
		return true
	}},
	{"U > V", "must have 0 ≤ U < V", func(_ testing.TB, g *graph.CSR, m *Result) bool {
		e := &m.Edges[0]
		e.U, e.V = e.V, e.U
		return true
	}},
	{"wrong weight", "weighs", func(_ testing.TB, g *graph.CSR, m *Result) bool {
		m.Edges[1].W += 0.5
		reweigh(m)
		return true
	}},
	{"non-edge", "is not an edge of the graph", func(t testing.TB, g *graph.CSR, m *Result) bool {
		// Move an edge's end to a vertex that is no neighbour.
		for i, e := range m.Edges {
			for v := e.U + 1; v < int32(g.NumVertices()); v++ {
				if !slices.Contains(g.Neighbors(e.U), v) {
					m.Edges[i].V = v
					return true
				}
			}
		}
		return false
	}},
	{"missing tree edge", "rule 3 (spanning)", func(_ testing.TB, g *graph.CSR, m *Result) bool {
		m.Edges = slices.Delete(m.Edges, 2, 3)
		m.Trees++
		reweigh(m)
		return true
	}},
	{"extra edge closing a cycle", "closes a cycle", func(t testing.TB, g *graph.CSR, m *Result) bool {
		for _, e := range graphEdges(t, g) {
			if !isForestEdge(m, e) {
				m.Edges = append(m.Edges, e)
				reweigh(m)
				return true
			}
		}
		return false
	}},
	{"non-minimal tree edge", "rule 5 (cycle property)", func(t testing.TB, g *graph.CSR, m *Result) bool {
		// Swap a tree edge for a heavier non-tree edge that reconnects.
		for _, e := range graphEdges(t, g) {
			if isForestEdge(m, e) {
				continue
			}
			for _, i := range forestPath(m, g.NumVertices(), e.U, e.V) {
				if m.Edges[i].W < e.W {
					m.Edges[i] = e
					reweigh(m)
					return true
				}
			}
		}
		return false
	}},
	{"trees", "result says", func(_ testing.TB, g *graph.CSR, m *Result) bool { m.Trees++; return true }},
	{"weight", "rule 4 (weight)", func(_ testing.TB, g *graph.CSR, m *Result) bool { m.Weight += 1; return true }},
}

// checkDeviceMutations plants every kind of error in g's minimum
// spanning forest and requires the device check to name it and the CPU
// check to reject it too.
func checkDeviceMutations(t *testing.T, c *DeviceCheck, g *graph.CSR) {
	r, err := Kruskal(g)
	if err != nil {
		t.Fatal(err)
	}
	for _, mu := range mutations {
		m := cloneResult(r)
		if !mu.plant(t, g, m) {
			t.Fatalf("%s: %v offers no place for the mutation", mu.name, g)
		}
		err := c.Check(m)
		if err == nil || !strings.Contains(err.Error(), mu.want) {
			t.Errorf("%s: device check %v, want an error saying %q", mu.name, err, mu.want)
		}
		if Check(g, m) == nil {
			t.Errorf("%s: the CPU check accepts it", mu.name)
		}
	}
	if err := c.Check(r); err != nil {
		t.Errorf("the unchanged forest after the mutations: %v", err)
	}
}

// mutateRandomly plants a random error in m (or a change that keeps it
// valid, e.g. a swap between equal weights) and says what it did.
func mutateRandomly(t testing.TB, rng *rand.Rand, g *graph.CSR, m *Result) string {
	n := g.NumVertices()
	switch rng.IntN(4) {
	case 0:
		if len(m.Edges) > 0 {
			i := rng.IntN(len(m.Edges))
			m.Edges = slices.Delete(m.Edges, i, i+1)
			m.Trees++
			reweigh(m)
		}
		return "edge removed"
	case 1:
		es := graphEdges(t, g)
		if len(es) > 0 {
			e := es[rng.IntN(len(es))]
			if p := forestPath(m, n, e.U, e.V); len(p) > 0 {
				m.Edges[p[rng.IntN(len(p))]] = e
				reweigh(m)
			}
		}
		return "swap"
	case 2:
		if len(m.Edges) > 0 {
			m.Edges[rng.IntN(len(m.Edges))].W *= 1.5
			reweigh(m)
		}
		return "weight × 1.5"
	}
	es := graphEdges(t, g)
	if len(es) > 0 {
		m.Edges = append(m.Edges, es[rng.IntN(len(es))])
		reweigh(m)
	}
	return "edge added"
}

// checkDeviceAgrees checks the minimum spanning forest of every case
// (Kruskal's, which the GPU Borůvka equals edge for edge) on the device,
// and random mutations of it, against the CPU check.
func checkDeviceAgrees(t *testing.T, dev *gpu.Device, cases []gpuCase, mutants int) {
	rng := rand.New(rand.NewPCG(15, 4))
	for _, cs := range cases {
		c, err := NewDeviceCheck(dev, cs.g)
		if err != nil {
			t.Fatalf("%s: %v", cs.name, err)
		}
		if c.Checker() != "device" {
			t.Fatalf("Checker() = %q on %v", c.Checker(), dev)
		}
		r, err := Kruskal(cs.g)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Check(r); err != nil {
			t.Errorf("%s: device check of Kruskal's forest: %v", cs.name, err)
		}
		for range mutants {
			m := cloneResult(r)
			what := mutateRandomly(t, rng, cs.g, m)
			cpu, devErr := Check(cs.g, m), c.Check(m)
			if (cpu == nil) != (devErr == nil) {
				t.Errorf("%s, %s: CPU check %v, device check %v", cs.name, what, cpu, devErr)
			}
		}
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// checkGPUResults checks the forests of the GPU Borůvka's variants on the
// device, through a checker of the resident graph.
func checkGPUResults(t *testing.T, dev *gpu.Device, cases []gpuCase, variants []Variant) {
	for _, cs := range cases {
		dg, err := dev.Upload(cs.g)
		if err != nil {
			t.Fatal(err)
		}
		c, err := NewResidentCheck(dg)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range variants {
			p, err := Prepare(dev, cs.g, v.Options)
			if err != nil {
				t.Fatalf("%s, %s: %v", cs.name, v.Label, err)
			}
			r, err := p.Run()
			if err != nil {
				t.Fatalf("%s, %s: %v", cs.name, v.Label, err)
			}
			if err := c.Check(r); err != nil {
				t.Errorf("%s, %s: device check: %v", cs.name, v.Label, err)
			}
			p.Close()
		}
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		if err := dg.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// mutationGraphs are graphs with room for every mutation: R-MAT with
// float32 weights (isolated vertices, several components), with few
// distinct integer weights (ties), with float64 weights, and a random
// graph with ties.
func mutationGraphs(t testing.TB, scale int) []*graph.CSR {
	return []*graph.CSR{
		mustGraph(t)(gen.RMAT(scale, 8, gen.Seed(9))),
		mustGraph(t)(gen.RMAT(scale, 8, gen.Seed(10), gen.Integer(3))),
		mustGraph(t)(gen.RMAT(scale, 8, gen.Seed(11), gen.Float64())),
		randomGraph(t, rand.New(rand.NewPCG(40, 41)), 60, 180, "int3"),
		mustGraph(t)(gen.Grid(9, 13, gen.Seed(12))), // deep trees: several lifting levels
		tg.Build(t, 9, false, tg.Float64, tg.Path(9, func(i int) float64 { return float64(i % 3) })...),
	}
}

// checkLongCycles checks forests whose only violation of the cycle
// property is one chord of a long cycle, the heaviest edge of its path
// anywhere along it: the path maximum needs every lifting level.
func checkLongCycles(t *testing.T, dev *gpu.Device) {
	for _, k := range []int{9, 40, 130} {
		for _, heavy := range []int{1, k / 2, k - 3} {
			for _, chord := range [][2]int{{0, k - 1}, {1, k - 2}} {
				var edges []tg.Edge
				for i := 0; i+1 < k; i++ {
					w := 1.0 + float64(i%3)/8
					if i == heavy {
						w = 3
					}
					edges = append(edges, tg.Edge{float64(i), float64(i + 1), w})
				}
				edges = append(edges, tg.Edge{float64(chord[0]), float64(chord[1]), 2})
				g := tg.Build(t, k, false, tg.Float32, edges...)
				c, err := NewDeviceCheck(dev, g)
				if err != nil {
					t.Fatal(err)
				}
				r, err := Kruskal(g)
				if err != nil {
					t.Fatal(err)
				}
				if err := c.Check(r); err != nil {
					t.Errorf("cycle of %d, heavy edge %d, chord %v: the minimum forest: %v", k, heavy, chord, err)
				}
				// The path without the chord: not minimal when the heavy
				// edge lies between the chord's ends.
				m := &Result{Trees: 1}
				for _, e := range edges[:k-1] {
					m.Edges = append(m.Edges, Edge{int32(e[0]), int32(e[1]), e[2]})
				}
				reweigh(m)
				err = c.Check(m)
				if inside := heavy >= chord[0] && heavy < chord[1]; inside != (err != nil) || inside && !strings.Contains(err.Error(), "rule 5 (cycle property)") {
					t.Errorf("cycle of %d, heavy edge %d, chord %v: the path: device check %v", k, heavy, chord, err)
				}
				c.Close()
			}
		}
	}
}

func runMutations(t *testing.T, dev *gpu.Device, scale int) {
	checkLongCycles(t, dev)
	for _, g := range mutationGraphs(t, scale) {
		c, err := NewDeviceCheck(dev, g)
		if err != nil {
			t.Fatal(err)
		}
		if g.NumEdges() < 9 {
			// the path: only a few mutations apply
			r, _ := Kruskal(g)
			m := cloneResult(r)
			m.Edges[3].W += 1
			reweigh(m)
			if err := c.Check(m); err == nil || !strings.Contains(err.Error(), "weighs") {
				t.Errorf("path: %v", err)
			}
		} else {
			checkDeviceMutations(t, c, g)
		}
		c.Close()
	}
}

// TestFakeGPUDeviceCheck runs the device check on the fake GPU: every
// small case of the GPU tests (Kruskal's forests, and random mutations
// against the CPU check), the GPU Borůvka's forests of two cases, and
// every planted error.
func TestFakeGPUDeviceCheck(t *testing.T) {
	fakegpu.Run(t, "TestFakeGPUDeviceCheckChild", 4*time.Minute, func(b *fakegpu.Builder) []string {
		return []string{b.CXX("testdata/fake_kernels.cpp"), b.CXX("testdata/fake_check.cpp", "-Wall")}
	})
}

// TestFakeGPUDeviceCheckChild is TestFakeGPUDeviceCheck's child process.
func TestFakeGPUDeviceCheckChild(t *testing.T) {
	dev := fakegpu.Device(t)
	cases := gpuCases(t, true)
	deep := gpuCase{"grid_9x13", mustGraph(t)(gen.Grid(9, 13, gen.Seed(13)))}
	checkDeviceAgrees(t, dev, append(cases, deep, deep, deep), 4)
	checkGPUResults(t, dev, cases[:2], SeedVariants())
	runMutations(t, dev, 7)
}

func TestGPUDeviceCheck(t *testing.T) {
	dev := gpuDevice(t)
	cases := gpuCases(t, false)
	checkDeviceAgrees(t, dev, cases, 8)
	checkGPUResults(t, dev, cases, testVariants())
	runMutations(t, dev, 12)
}

// BenchmarkGPUCheck compares the device check with the CPU check on the
// minimum spanning forest of R-MAT scale 20, edge factor 16, float32
// weights (the upload of the forest included in the device check's time;
// the graph is uploaded once, before).
func BenchmarkGPUCheck(b *testing.B) {
	dev := gpuDevice(b)
	g := mustGraph(b)(gen.RMAT(20, 16, gen.Seed(1)))
	c, err := NewDeviceCheck(dev, g)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	r, err := Kruskal(g)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("device", func(b *testing.B) {
		for b.Loop() {
			if err := c.Check(r); err != nil {
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
