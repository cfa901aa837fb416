package apsp

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/internal/cudasrc"
	"github.com/graphnb/graphnb/internal/fakegpu"
)

func TestCheckSource(t *testing.T) {
	cudasrc.Check(t, "check.cu", checkSource, 1, checkKernelNames)
	cudasrc.CheckDefines(t, "check.cu", checkSource, map[string]int64{
		"CK_BLOCK": ckBlock, "CK_ERR": ckErr, "CK_CHANGED": ckChanged, "CK_MAXABS": ckMaxAbs, "CK_WORDS": ckWords,
		"INF_I32": int64(graph.InfI32), "R_VALUE": ruleValue, "R_PARENT": ruleParent, "R_TREE": ruleTree,
	})
}

func TestDeviceSources(t *testing.T) {
	for _, c := range []struct{ n, samples int }{{1, 8}, {2, 8}, {5, 5}, {10, 1}, {10, 2}, {10, 3}, {100, 8}} {
		s := deviceSources(c.n, c.samples, 7)
		if len(s) != min(c.n, c.samples) || !slices.IsSorted(s) || len(slices.Compact(slices.Clone(s))) != len(s) {
			t.Errorf("n %d, %d samples: %v", c.n, c.samples, s)
		}
		if s[0] != 0 || c.samples > 1 && s[len(s)-1] != int32(c.n-1) {
			t.Errorf("n %d, %d samples: %v lacks 0 or n−1", c.n, c.samples, s)
		}
		if !slices.Equal(s, deviceSources(c.n, c.samples, 7)) {
			t.Errorf("n %d: not deterministic", c.n)
		}
	}
}

// On the host device Check is the CPU checker.
func TestHostDeviceCheck(t *testing.T) {
	d := randDense(rand.New(rand.NewPCG(1, 2)), 12, 0.3, true, ints(1, 9))
	p, err := Prepare(gpu.Host(), d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	r, err := p.Run()
	if err != nil {
		t.Fatal(err)
	}
	if p.Checker() != "cpu" {
		t.Errorf("Checker() = %q on the host", p.Checker())
	}
	if err := p.Check(r, 12, 1); err != nil {
		t.Error(err)
	}
	r.Dist.I32[5]++
	if err := p.Check(r, 12, 1); err == nil {
		t.Error("the host device's Check accepts a wrong distance")
	}
}

func cloneResult(r *Result) *Result {
	c := *r
	c.Dist = r.Dist.Clone()
	c.Parents = slices.Clone(r.Parents)
	return &c
}

// checkResults returns the result to check of d on p: p's run on a GPU
// with its kernels (run), else the CPU's Blocked, which the GPU equals.
func checkResults(t *testing.T, p *Prepared, d *graph.Dense, run bool) *Result {
	t.Helper()
	var r *Result
	var err error
	if run {
		r, err = p.Run()
	} else {
		r, err = Blocked(d, 16)
	}
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// mutateRandomly changes one entry of row s of m (distance or parent) and
// says what it did.
func mutateRandomly(rng *rand.Rand, m *Result, s int) string {
	n := m.Dist.N
	j := rng.IntN(n)
	switch rng.IntN(4) {
	case 0:
		if m.Dist.I32 != nil {
			m.Dist.I32[s*n+j]--
		} else {
			m.Dist.F32[s*n+j] -= 1
		}
		return "distance − 1"
	case 1:
		if m.Dist.I32 != nil {
			m.Dist.I32[s*n+j] = graph.InfI32
		} else {
			m.Dist.F32[s*n+j] = float32(math.Inf(1))
		}
		m.Parents[s*n+j] = -1
		return "unreached"
	case 2:
		m.Parents[s*n+j] = int32(rng.IntN(n))
		return "random parent"
	}
	if m.Dist.F32 != nil {
		m.Dist.F32[s*n+j] = float32(math.NaN())
		return "NaN"
	}
	m.Dist.I32[s*n+j] += 3
	return "distance + 3"
}

// checkDeviceAgrees checks every case's result on the device (all rows,
// and 3 sampled rows) and requires the device and CPU checks to agree on
// random mutations of a row both check.
func checkDeviceAgrees(t *testing.T, dev *gpu.Device, cases []gpuCase, run bool) {
	rng := rand.New(rand.NewPCG(15, 5))
	for _, c := range cases {
		n := c.d.N
		p, err := Prepare(dev, c.d, Options{Method: BlockedGPU, Tile: 16})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if p.Checker() != "device" {
			t.Fatalf("Checker() = %q on %v", p.Checker(), dev)
		}
		r := checkResults(t, p, c.d, run)
		for _, samples := range []int{n, 3} {
			if err := p.Check(r, max(samples, 1), 9); err != nil {
				t.Errorf("%s, %d samples: device check: %v", c.name, samples, err)
			}
		}
		noParents := cloneResult(r)
		noParents.Parents = nil
		if err := p.Check(noParents, n+1, 1); err != nil && n > 0 {
			t.Errorf("%s, distances only: %v", c.name, err)
		}
		for i := range 6 {
			// Every row checked on both sides: the CPU's full check is
			// O(n³), minutes at n = 4096, so large cases skip this part.
			if n == 0 || n > 1024 {
				break
			}
			m := cloneResult(r)
			what := mutateRandomly(rng, m, rng.IntN(n))
			cpu, devErr := Check(c.d, m, n, uint64(i)), p.Check(m, n, uint64(i))
			if (cpu == nil) != (devErr == nil) {
				t.Errorf("%s, %s: CPU check %v, device check %v", c.name, what, cpu, devErr)
			}
		}
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// mutation is a planted error in row s of a result and the words the
// device check must say.
type mutation struct {
	name, want string
	plant      func(d *graph.Dense, m *Result, s int) bool
}

// set sets Dist[s][j] (+Inf: unreachable in either type).
func set(m *Result, s, j int, x float64) {
	n := m.Dist.N
	if m.Dist.I32 != nil {
		if math.IsInf(x, 1) {
			m.Dist.I32[s*n+j] = graph.InfI32
		} else {
			m.Dist.I32[s*n+j] = int32(x)
		}
		return
	}
	m.Dist.F32[s*n+j] = float32(x)
}

// reachedLeaf returns a vertex reached from s, not s, that is no vertex's
// parent in row s, or -1.
func reachedLeaf(m *Result, s int) int {
	n := m.Dist.N
	row := m.Parents[s*n : (s+1)*n]
	for j := range n {
		if j != s && !math.IsInf(m.Dist.At(s, j), 1) && !slices.Contains(row, int32(j)) {
			return j
		}
	}
	return -1
}

var mutations = []mutation{
	{"one too small", "value", func(d *graph.Dense, m *Result, s int) bool {
		j := reachedLeaf(m, s)
		if j >= 0 {
			set(m, s, j, m.Dist.At(s, j)-1)
		}
		return j >= 0
	}},
	{"one too large", "value", func(d *graph.Dense, m *Result, s int) bool {
		j := reachedLeaf(m, s)
		if j >= 0 {
			set(m, s, j, m.Dist.At(s, j)+1)
		}
		return j >= 0
	}},
	{"unreached wrongly", "value", func(d *graph.Dense, m *Result, s int) bool {
		j := reachedLeaf(m, s)
		if j >= 0 {
			set(m, s, j, math.Inf(1))
			m.Parents[s*d.N+j] = -1
		}
		return j >= 0
	}},
	{"reached wrongly", "value", func(d *graph.Dense, m *Result, s int) bool {
		for j := range d.N {
			if math.IsInf(m.Dist.At(s, j), 1) {
				set(m, s, j, 5)
				return true
			}
		}
		return false
	}},
	{"diagonal", "diagonal", func(d *graph.Dense, m *Result, s int) bool { set(m, s, s, 1); return true }},
	{"source parent", "diagonal", func(d *graph.Dense, m *Result, s int) bool {
		m.Parents[s*d.N+s] = -1
		return true
	}},
	{"parent not an edge", "no edge", func(d *graph.Dense, m *Result, s int) bool {
		j := reachedLeaf(m, s)
		for p := range d.N {
			if j >= 0 && p != j && !math.IsInf(m.Dist.At(s, p), 1) && math.IsInf(d.At(p, j), 1) {
				m.Parents[s*d.N+j] = int32(p)
				return true
			}
		}
		return false
	}},
	{"unreached with a parent", "unreachable", func(d *graph.Dense, m *Result, s int) bool {
		for j := range d.N {
			if math.IsInf(m.Dist.At(s, j), 1) {
				m.Parents[s*d.N+j] = int32(s)
				return true
			}
		}
		return false
	}},
	{"parent cycle", "parent", func(d *graph.Dense, m *Result, s int) bool {
		n := d.N
		row := m.Parents[s*n : (s+1)*n]
		for j := range n {
			if c := slices.Index(row, int32(j)); j != s && c >= 0 && c != j && !math.IsInf(m.Dist.At(s, j), 1) {
				row[j] = int32(c)
				return true
			}
		}
		return false
	}},
}

// checkDeviceMutations plants every kind of error in row s (a sampled
// source) of a valid result and requires the device check to name it and
// the CPU check (every row) to reject it too.
func checkDeviceMutations(t *testing.T, dev *gpu.Device, d *graph.Dense, run bool) {
	p, err := Prepare(dev, d, Options{Method: BlockedGPU, Tile: 16})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	r := checkResults(t, p, d, run)
	n := d.N
	for _, s := range []int{0, n - 1} {
		for _, mu := range mutations {
			m := cloneResult(r)
			if !mu.plant(d, m, s) {
				t.Fatalf("%s from %d: the matrix offers no place for the mutation", mu.name, s)
			}
			err := p.Check(m, 4, 1)
			if err == nil || !strings.Contains(err.Error(), mu.want) {
				t.Errorf("%s from %d: device check %v, want an error saying %q", mu.name, s, err, mu.want)
			}
			if Check(d, m, n, 1) == nil {
				t.Errorf("%s from %d: the CPU check accepts it", mu.name, s)
			}
		}
	}
	if err := p.Check(r, 4, 1); err != nil {
		t.Errorf("the unchanged result after the mutations: %v", err)
	}
}

// checkZeroCycle plants a cycle of predecessors along zero-weight edges:
// every predecessor edge stays tight, only the parent tree rule sees it.
func checkZeroCycle(t *testing.T, dev *gpu.Device) {
	d := graph.NewDenseI32(5)
	for _, e := range [][3]int32{{0, 1, 1}, {1, 2, 0}, {2, 1, 0}, {2, 3, 1}, {3, 4, 2}} {
		d.I32[e[0]*5+e[1]] = e[2]
	}
	p, err := Prepare(dev, d, Options{Method: BlockedGPU, Tile: 16})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	r, err := Blocked(d, 16)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Check(r, 5, 1); err != nil {
		t.Fatal(err)
	}
	r.Parents[1], r.Parents[2] = 2, 1
	if err := p.Check(r, 5, 1); err == nil || !strings.Contains(err.Error(), "parent tree") {
		t.Errorf("a zero-weight cycle of predecessors: device check %v", err)
	}
	if Check(d, r, 5, 1) == nil {
		t.Error("a zero-weight cycle of predecessors: the CPU check accepts it")
	}
}

// mutationMatrices have unreachable vertices from 0 and from n−1: two
// strongly connected parts (int32), and a float32 copy with negative
// entries.
func mutationMatrices(n int) []*graph.Dense {
	d := twoComponentsDense(n, 8)
	f := graph.NewDenseF32(n)
	for k, w := range d.I32 {
		if w < graph.InfI32 {
			f.F32[k] = float32(w) / 4
		}
	}
	reweight(rand.New(rand.NewPCG(3, 4)), f, 3)
	return []*graph.Dense{d, f}
}

// TestFakeGPUDeviceCheck runs the device check on the fake GPU against
// the CPU checker on the CPU's results (the fake GPU runs no
// Floyd-Warshall here: TestFakeGPU checks those equal the CPU's).
func TestFakeGPUDeviceCheck(t *testing.T) {
	fakegpu.Run(t, "TestFakeGPUDeviceCheckChild", 3*time.Minute, func(b *fakegpu.Builder) []string {
		return []string{b.CXX("testdata/fake_check.cpp", "-Wall")}
	})
}

// TestFakeGPUDeviceCheckChild is TestFakeGPUDeviceCheck's child process.
func TestFakeGPUDeviceCheckChild(t *testing.T) {
	dev := fakegpu.Device(t)
	checkDeviceAgrees(t, dev, append(gpuCases(t, true), specialCases(true)...), false)
	for _, d := range mutationMatrices(30) {
		checkDeviceMutations(t, dev, d, false)
	}
	checkZeroCycle(t, dev)
}

func TestGPUDeviceCheck(t *testing.T) {
	dev := requireGPU(t)
	checkDeviceAgrees(t, dev, append(gpuCases(t, false), specialCases(false)...), true)
	for _, d := range mutationMatrices(301) {
		checkDeviceMutations(t, dev, d, true)
	}
	checkZeroCycle(t, dev)
}

// BenchmarkGPUCheck compares the device check with the CPU check, both on
// DeviceCheckSamples rows, on the result of the blocked GPU method for a
// random float32 matrix of 4096 vertices.
func BenchmarkGPUCheck(b *testing.B) {
	dev := gpu.Default()
	if dev.IsHost() {
		b.Skip(gpu.DefaultReason())
	}
	d := randDense(rand.New(rand.NewPCG(5, 6)), 4096, 0.01, false, reals(0.01, 10))
	p, err := Prepare(dev, d, Options{Method: BlockedGPU})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	r, err := p.Run()
	if err != nil {
		b.Fatal(err)
	}
	b.Run("device", func(b *testing.B) {
		for b.Loop() {
			if err := p.Check(r, DeviceCheckSamples, 1); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cpu", func(b *testing.B) {
		for b.Loop() {
			if err := Check(d, r, DeviceCheckSamples, 1); err != nil {
				b.Fatal(err)
			}
		}
	})
}
