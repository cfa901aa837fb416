package bench

import (
	"testing"
	"time"

	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/internal/fakegpu"
)

// TestFakeGPUResidentSweep runs a sweep on the fake GPU (internal/fakegpu)
// with the device generator's and BFS's kernels: the graph is made on the
// device, the GPU variant runs resident and validates there, and the CPU
// variant of the same sweep gets the host copy — the same graph, so the
// two rows agree on its size and their results both validate.
func TestFakeGPUResidentSweep(t *testing.T) {
	fakegpu.Run(t, "TestFakeGPUResidentSweepChild", 4*time.Minute, func(b *fakegpu.Builder) []string {
		return []string{
			b.CXX("../graph/gen/gpugen/testdata/fake_kernels.cpp", "-I../graph/gen/gpugen"),
			b.CXX("../algo/bfs/testdata/fake_kernels.cpp", "-I../algo/bfs"),
			b.CXX("../algo/bfs/testdata/fake_check.cpp", "-I../algo/bfs"),
			b.CXX("../algo/sssp/testdata/fake_kernels.cpp", "-I../algo/sssp"),
			b.CXX("../algo/sssp/testdata/fake_check.cpp", "-I../algo/sssp"),
			b.CXX("../algo/sssp/testdata/fake_resident.cpp", "-I../algo/sssp"),
			b.CXX("../gpu/transform/testdata/fake_kernels.cpp"),
		}
	})
}

// TestFakeGPUResidentSweepChild is TestFakeGPUResidentSweep's child.
func TestFakeGPUResidentSweepChild(t *testing.T) {
	dev := fakegpu.Device(t)
	checkResidentSweep(t, dev, 9)
}

// TestGPUResidentSweep is TestFakeGPUResidentSweep on a real GPU, at a
// scale where the device generator runs many chunks.
func TestGPUResidentSweep(t *testing.T) {
	dev := gpu.Default()
	if dev.IsHost() {
		t.Skip(gpu.DefaultReason())
	}
	checkResidentSweep(t, dev, 16)
}

func checkResidentSweep(t *testing.T, dev *gpu.Device, scale int) {
	t.Helper()
	t.Run("one_graph_at_a_time", func(t *testing.T) { checkPointGraphsFreed(t, dev, scale) })
	for _, c := range [][3]string{
		{"bfs", "gpu/direction-optimizing-gpu", "cpu/do"},
		{"bfs", "gpu/cache-restrict-on", "cpu/ptd"},
		{"sssp", "gpu/near-far-delta-stepping", "cpu/dijkstra"},
		{"sssp", "gpu/cache-restrict-on", "cpu/delta"},
	} {
		t.Run(c[0]+"/"+c[1], func(t *testing.T) { checkResidentPair(t, dev, scale, c[0], c[1], c[2]) })
	}
}

// checkResidentPair sweeps a GPU variant and a CPU variant of algo on
// one R-MAT graph, on dev and on the host device.
func checkResidentPair(t *testing.T, dev *gpu.Device, scale int, algo, gpuName, cpuName string) {
	gpuV, err := Lookup(algo, gpuName)
	if err != nil {
		t.Fatal(err)
	}
	cpuV, err := Lookup(algo, cpuName)
	if err != nil {
		t.Fatal(err)
	}
	sw := Sweep{Variants: []Variant{gpuV, cpuV}, Family: "rmat", Scales: []int{scale}, Roots: 4, Seed: 3}
	tab, err := sw.Run(dev, nil)
	if err != nil {
		t.Fatal(err)
	}
	host, err := sw.Run(gpu.Host(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.Rows) != 2 || len(host.Rows) != 2 {
		t.Fatalf("%d and %d rows, want 2 each", len(tab.Rows), len(host.Rows))
	}
	for i, r := range tab.Rows {
		if r.NumRuns != 4 || r.NumValidated != 4 {
			t.Errorf("%s: %d runs, %d validated, want 4 and 4", r.Variant, r.NumRuns, r.NumValidated)
		}
		if h := host.Rows[i]; r.Vertices != h.Vertices || r.Arcs != h.Arcs {
			t.Errorf("%s: %d vertices, %d arcs on the device-made graph; the host's has %d, %d", r.Variant, r.Vertices, r.Arcs, h.Vertices, h.Arcs)
		}
		for k, run := range r.Runs {
			if h := host.Rows[i].Runs[k]; run.Root != h.Root || run.ComponentEdges != h.ComponentEdges {
				t.Errorf("%s run %d: root %d, %d component edges; host sweep: root %d, %d", r.Variant, k, run.Root, run.ComponentEdges, h.Root, h.ComponentEdges)
			}
		}
	}
	if r := tab.Rows[0]; r.Checker != "device" || !r.GraphOnDevice {
		t.Errorf("GPU row: checker %q, graph on device %v; want device, true", r.Checker, r.GraphOnDevice)
	}
	if r := tab.Rows[1]; r.CopyTime <= 0 {
		t.Errorf("CPU row: copy time %v, want the host copy of the device-made graph counted", r.CopyTime)
	}
	if host.Rows[0].GraphOnDevice {
		t.Error("host sweep: a row claims its graph was made on a device")
	}
}

// checkPointGraphsFreed sweeps two scales and requires that when the
// second graph is prepared, the device holds no more than it held at the
// first preparation, less the first graph, plus the second: the first
// point's device graph was freed before the next was made.
func checkPointGraphsFreed(t *testing.T, dev *gpu.Device, scale int) {
	v, err := Lookup("bfs", "gpu/direction-optimizing-gpu")
	if err != nil {
		t.Fatal(err)
	}
	var other []int64 // device memory besides the graph being prepared
	inner := v.PrepareResident
	v.PrepareResident = func(g *gpu.Graph) (Runner, error) {
		other = append(other, g.Device().MemoryUsed()-g.Bytes())
		return inner(g)
	}
	if _, err := (Sweep{Variants: []Variant{v}, Family: "rmat", Scales: []int{scale - 1, scale}, Roots: 2}).Run(dev, nil); err != nil {
		t.Fatal(err)
	}
	if len(other) != 2 {
		t.Fatalf("%d resident preparations, want 2", len(other))
	}
	if other[1] > other[0] {
		t.Errorf("the second graph was prepared with %d bytes of other device memory held, the first with %d: the first graph was not freed", other[1], other[0])
	}
}
