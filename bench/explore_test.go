package bench

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/internal/fakegpu"
)

// TestExplorer measures every algorithm and switch on a small resident
// graph of the host device: each point validated, a re-measured point
// replacing the old one, a new scale making a new graph.
func TestExplorer(t *testing.T) { checkExplorer(t, gpu.Host(), 8) }

// TestFakeGPUExplorer is TestExplorer on the fake driver: the graph made
// on the device, every variant prepared on it (PrepareResident), and the
// runs' traversed edges equal to the host device's.
func TestFakeGPUExplorer(t *testing.T) {
	fakegpu.Run(t, "TestFakeGPUExplorerChild", 4*time.Minute, func(b *fakegpu.Builder) []string {
		// As bfs's TestFakeGPU: the emulator queues dp.cu's device-side
		// launches, which C++ cannot parse.
		src, err := os.ReadFile("../algo/bfs/dp.cu")
		if err != nil {
			t.Fatal(err)
		}
		dp := regexp.MustCompile(`(\w+)<<<(.*?)>>>\((.*?)\);`).ReplaceAll(src, []byte("emu::child($2, [=] { $1($3); });"))
		if err := os.WriteFile(filepath.Join(b.Dir, "dp_emu.cu"), dp, 0o644); err != nil {
			t.Fatal(err)
		}
		return []string{
			b.CXX("../graph/gen/gpugen/testdata/fake_kernels.cpp", "-I../graph/gen/gpugen"),
			b.CXX("../algo/bfs/testdata/fake_kernels.cpp", "-I../algo/bfs"),
			b.CXX("../algo/bfs/testdata/fake_check.cpp", "-I../algo/bfs"),
			b.CXX("../algo/bfs/testdata/fake_dp.cpp", "-I../algo/bfs"),
			b.CXX("../algo/sssp/testdata/fake_kernels.cpp", "-I../algo/sssp"),
			b.CXX("../algo/sssp/testdata/fake_check.cpp", "-I../algo/sssp"),
			b.CXX("../algo/sssp/testdata/fake_resident.cpp", "-I../algo/sssp"),
			b.CXX("../algo/mst/testdata/fake_kernels.cpp", "-I../algo/mst"),
			b.CXX("../algo/mst/testdata/fake_prepare.cpp", "-I../algo/mst"),
			b.CXX("../algo/mst/testdata/fake_check.cpp", "-I../algo/mst"),
			b.CXX("../gpu/transform/testdata/fake_kernels.cpp"),
			b.CXX("../gpu/reorder/testdata/fake_kernels.cpp"),
		}
	})
}

// TestFakeGPUExplorerChild is TestFakeGPUExplorer's child.
func TestFakeGPUExplorerChild(t *testing.T) { compareExplorers(t, fakegpu.Device(t), 7) }

// TestGPUExplorer is TestFakeGPUExplorer on a real GPU.
func TestGPUExplorer(t *testing.T) {
	dev := gpu.Default()
	if dev.IsHost() {
		t.Skip(gpu.DefaultReason())
	}
	compareExplorers(t, dev, 14)
}

// compareExplorers runs checkExplorer on dev and on the host device and
// compares the points: made and validated on the device, the same
// traversed edges run for run.
func compareExplorers(t *testing.T, dev *gpu.Device, scale int) {
	onDevice := checkExplorer(t, dev, scale)
	onHost := checkExplorer(t, gpu.Host(), scale)
	for i, r := range onDevice.Rows {
		if !r.GraphOnDevice || r.Checker != "device" {
			t.Errorf("%s: graph on the device %v, checker %q; want true, \"device\"", r.Variant, r.GraphOnDevice, r.Checker)
		}
		h := onHost.Rows[i]
		edges := func(r Row) []int64 {
			var e []int64
			for _, run := range r.Runs {
				e = append(e, run.ComponentEdges)
			}
			return e
		}
		if r.Variant != h.Variant || !slices.Equal(edges(r), edges(h)) {
			t.Errorf("%s on %s traversed %v edges; the host device's %s traversed %v", r.Variant, r.Graph, edges(r), h.Variant, edges(h))
		}
	}
}

// checkExplorer measures every algorithm under several switch settings
// at scale, then one point at scale+1, and returns the points.
func checkExplorer(t *testing.T, dev *gpu.Device, scale int) *Table {
	t.Helper()
	e := NewExplorer(dev)
	defer e.Close()
	if _, err := e.Measure(BFSTopDown(), 2); err == nil {
		t.Fatal("Measure before SetScale: no error")
	}
	if err := e.SetScale(0); err == nil {
		t.Fatal("SetScale(0): no error")
	}
	if err := e.SetScale(scale); err != nil {
		t.Fatal(err)
	}
	all := []Switches{{}, {Restrict: true, Cache: true}, {DynamicParallelism: true, NearFar: true},
		{Renumber: true, Ranks: true, Compress: true}}
	want := 0
	for _, algo := range ExploreAlgos {
		labels := map[string]bool{}
		for _, s := range all {
			v, err := s.Variant(algo)
			if err != nil {
				t.Fatal(err)
			}
			if !labels[v.Label] {
				labels[v.Label] = true
				want++
			}
			row, err := e.Measure(v, 2)
			if err != nil {
				t.Fatalf("%s: %v", v.Label, err)
			}
			if row.NumRuns == 0 || row.NumValidated != row.NumRuns {
				t.Errorf("%s: %d of %d runs validated", v.Label, row.NumValidated, row.NumRuns)
			}
			if !strings.Contains(row.Summary(), v.Label) {
				t.Errorf("summary %q does not name %q", row.Summary(), v.Label)
			}
		}
	}
	if got := len(e.Points().Rows); got != want {
		t.Errorf("%d points after measuring %d distinct variants", got, want)
	}
	if _, err := (Switches{}).Variant("apsp"); err == nil {
		t.Error("Variant(apsp): no error")
	}
	if err := e.SetScale(scale + 1); err != nil {
		t.Fatal(err)
	}
	v, _ := Switches{}.Variant("sssp")
	if _, err := e.Measure(v, 1); err != nil {
		t.Fatal(err)
	}
	if got := len(e.Points().Rows); got != want+1 {
		t.Errorf("%d points after a new scale, want %d", got, want+1)
	}
	return e.Points()
}
