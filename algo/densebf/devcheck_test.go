package densebf

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
		"CK_BLOCK": ckBlock, "CK_TILE": ckTile, "CK_ERR": ckErr, "CK_WORDS": ckWords, "INF_I32": int64(graph.InfI32),
		"R_SOURCE": ruleSource, "R_REACH": ruleReach, "R_TREE": ruleTree, "R_PARENTARC": ruleParentArc, "R_BOUND": ruleBound,
	})
}

// On the host device Check is the CPU checker.
func TestHostDeviceCheck(t *testing.T) {
	d := mustRandom(t, 12, 0.3, 9, 1, true)
	p, err := Prepare(gpu.Host(), d, Options{})
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
	r.Dist[0] = 1
	if err := p.Check(r); err == nil {
		t.Error("the host device's Check accepts Dist[src] = 1")
	}
	if err := p.Check(nil); err == nil {
		t.Error("Check(nil) = nil")
	}
}

// checkVariants are the layouts the device check reads: the matrix as
// given (Naive) and transposed (ReduceCoarse).
func checkVariants() []Options {
	return []Options{{Method: Naive}, {Method: ReduceCoarse, ScalarLoads: true}}
}

func cloneResult(r *Result) *Result {
	c := *r
	c.Dist, c.Parents = slices.Clone(r.Dist), slices.Clone(r.Parents)
	return &c
}

// mutateRandomly changes one distance or parent of m and says what it did.
func mutateRandomly(rng *rand.Rand, m *Result) string {
	n := len(m.Dist)
	v := rng.IntN(n)
	switch rng.IntN(5) {
	case 0:
		m.Dist[v]++
		return "distance + 1"
	case 1:
		m.Dist[v]--
		return "distance − 1"
	case 2:
		m.Parents[v] = int32(rng.IntN(n))
		return "random parent"
	case 3:
		m.Dist[v], m.Parents[v] = math.Inf(1), -1
		return "unreached"
	}
	m.Dist[v] = math.NaN()
	return "NaN"
}

// checkDeviceAgrees runs both layouts on every case and requires the
// device check and the CPU check to agree: both accept the result, and
// both reject it after random mutations (or both accept one that left it
// valid).
func checkDeviceAgrees(t *testing.T, dev *gpu.Device, cases []gpuCase) {
	rng := rand.New(rand.NewPCG(15, 3))
	for _, c := range cases {
		for _, o := range checkVariants() {
			p, err := Prepare(dev, c.d, o)
			if err != nil {
				t.Fatalf("%s, %s: %v", c.name, o.Label(), err)
			}
			if p.Checker() != "device" {
				t.Fatalf("Checker() = %q on %v", p.Checker(), dev)
			}
			for _, src := range c.srcs {
				r, err := p.Run(src)
				if err != nil {
					t.Fatalf("%s, %s from %d: %v", c.name, o.Label(), src, err)
				}
				if err := p.Check(r); err != nil {
					t.Errorf("%s, %s from %d: device check: %v", c.name, o.Label(), src, err)
				}
				for range 6 {
					m := cloneResult(r)
					what := mutateRandomly(rng, m)
					cpu, devErr := Check(c.d, src, m), p.Check(m)
					if (cpu == nil) != (devErr == nil) {
						t.Errorf("%s, %s from %d, %s: CPU check %v, device check %v", c.name, o.Label(), src, what, cpu, devErr)
					}
				}
			}
			if err := p.Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// mutation is a planted error and the words the device check must say.
type mutation struct {
	name, want string
	// plant changes m (a valid result of d) and returns false when d
	// offers no place for it.
	plant func(d *graph.Dense, m *Result) bool
}

// leaf returns a reached vertex other than the source that is nobody's
// parent, or -1.
func leaf(m *Result) int {
	for v := range m.Dist {
		if int32(v) != m.Source && !math.IsInf(m.Dist[v], 1) && !slices.Contains(m.Parents, int32(v)) {
			return v
		}
	}
	return -1
}

// ulp moves x one step of the matrix's arithmetic towards dir.
func ulp(d *graph.Dense, x float64, dir int) float64 {
	if d.IsInt() {
		return x + float64(dir)
	}
	return float64(math.Nextafter32(float32(x), float32(math.Inf(dir))))
}

var mutations = []mutation{
	{"source distance", "source", func(d *graph.Dense, m *Result) bool { m.Dist[m.Source] = 1; return true }},
	{"one step too small", "parent arc", func(d *graph.Dense, m *Result) bool {
		v := leaf(m)
		if v >= 0 {
			m.Dist[v] = ulp(d, m.Dist[v], -1)
		}
		return v >= 0
	}},
	{"one step too large", "parent arc", func(d *graph.Dense, m *Result) bool {
		v := leaf(m)
		if v >= 0 {
			m.Dist[v] = ulp(d, m.Dist[v], 1)
		}
		return v >= 0
	}},
	{"NaN", "reach", func(d *graph.Dense, m *Result) bool {
		v := leaf(m)
		if v >= 0 {
			m.Dist[v] = math.NaN()
		}
		return v >= 0
	}},
	{"unreached wrongly", "bound", func(d *graph.Dense, m *Result) bool {
		v := leaf(m)
		if v >= 0 {
			m.Dist[v], m.Parents[v] = math.Inf(1), -1
		}
		return v >= 0
	}},
	{"reached wrongly", "reach", func(d *graph.Dense, m *Result) bool {
		v := slices.IndexFunc(m.Dist, func(x float64) bool { return math.IsInf(x, 1) })
		if v >= 0 {
			m.Dist[v] = 7
		}
		return v >= 0
	}},
	{"unreached with a parent", "reach", func(d *graph.Dense, m *Result) bool {
		v := slices.IndexFunc(m.Dist, func(x float64) bool { return math.IsInf(x, 1) })
		if v >= 0 {
			m.Parents[v] = m.Source
		}
		return v >= 0
	}},
	{"parent not an edge", "no edge", func(d *graph.Dense, m *Result) bool {
		v := leaf(m)
		for u := range d.N {
			if v >= 0 && u != v && !math.IsInf(m.Dist[u], 1) && math.IsInf(d.At(u, v), 1) {
				m.Parents[v] = int32(u)
				return true
			}
		}
		return false
	}},
	{"cycle", "parent tree", func(d *graph.Dense, m *Result) bool {
		for v := range m.Dist {
			if int32(v) == m.Source || math.IsInf(m.Dist[v], 1) {
				continue
			}
			if c := slices.Index(m.Parents, int32(v)); c >= 0 && c != v {
				m.Parents[v] = int32(c)
				return true
			}
		}
		return false
	}},
}

// checkDeviceMutations plants every kind of error in a valid result of
// both layouts and requires the device check to name it, and the CPU
// check to reject it too.
func checkDeviceMutations(t *testing.T, dev *gpu.Device, d *graph.Dense, src int32) {
	for _, o := range checkVariants() {
		p, err := Prepare(dev, d, o)
		if err != nil {
			t.Fatal(err)
		}
		r, err := p.Run(src)
		if err != nil {
			t.Fatal(err)
		}
		for _, mu := range mutations {
			m := cloneResult(r)
			if !mu.plant(d, m) {
				t.Fatalf("%s: the matrix offers no place for the mutation", mu.name)
			}
			err := p.Check(m)
			if err == nil || !strings.Contains(err.Error(), mu.want) {
				t.Errorf("%s, %s: device check %v, want an error saying %q", o.Label(), mu.name, err, mu.want)
			}
			if Check(d, src, m) == nil {
				t.Errorf("%s, %s: the CPU check accepts it", o.Label(), mu.name)
			}
		}
		if err := p.Check(r); err != nil {
			t.Errorf("%s: the unchanged result after the mutations: %v", o.Label(), err)
		}
		bad := cloneResult(r)
		bad.Dist = bad.Dist[1:]
		if err := p.Check(bad); err == nil || !strings.Contains(err.Error(), "distances") {
			t.Errorf("a short Dist: %v", err)
		}
		p.Close()
	}
}

// mutationMatrix is a matrix with unreachable vertices (the second block
// of twoBlocks, a source in the first).
func mutationMatrix(t *testing.T, integer bool) (*graph.Dense, int32) {
	return twoBlocks(t, 30, integer), 0
}

// TestFakeGPUDeviceCheck runs the device check on the fake GPU (see
// TestFakeGPU) against the CPU checker: the small cases, and every
// planted error.
func TestFakeGPUDeviceCheck(t *testing.T) {
	fakegpu.Run(t, "TestFakeGPUDeviceCheckChild", 3*time.Minute, func(b *fakegpu.Builder) []string {
		return []string{b.CXX("testdata/fake_kernels.cpp"), b.CXX("testdata/fake_check.cpp", "-Wall")}
	})
}

// TestFakeGPUDeviceCheckChild is TestFakeGPUDeviceCheck's child process.
func TestFakeGPUDeviceCheckChild(t *testing.T) {
	dev := fakegpu.Device(t)
	checkDeviceAgrees(t, dev, gpuCases(t, true))
	for _, integer := range []bool{true, false} {
		d, src := mutationMatrix(t, integer)
		checkDeviceMutations(t, dev, d, src)
	}
}

func TestGPUDeviceCheck(t *testing.T) {
	dev := gpuDevice(t)
	checkDeviceAgrees(t, dev, gpuCases(t, false))
	for _, integer := range []bool{true, false} {
		d, src := mutationMatrix(t, integer)
		checkDeviceMutations(t, dev, d, src)
	}
}

// BenchmarkGPUCheck compares the device check with the CPU check on one
// result of BF_Reduce_Coarse, a random float32 matrix of 8192 vertices
// (the upload of Dist and Parents included in the device check's time).
func BenchmarkGPUCheck(b *testing.B) {
	dev := gpuDevice(b)
	d := mustRandom(b, 8192, 0.01, 100, 13, false)
	p, err := Prepare(dev, d, Options{Method: ReduceCoarse})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	r, err := p.Run(7)
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
	b.Run("cpu", func(b *testing.B) {
		for b.Loop() {
			if err := Check(d, r.Source, r); err != nil {
				b.Fatal(err)
			}
		}
	})
}
