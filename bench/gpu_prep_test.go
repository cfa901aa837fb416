package bench

import (
	"strings"
	"testing"

	"github.com/graphnb/graphnb/gpu"
)

// The GPU adapters of mst, apsp and densebf pass Prepared.Run's result
// through: on the host device a run's PrepTime is then the CPU
// algorithm's own per-run preparation (Boruvka's edge ranking, APSP's
// validation and copy, densebf's transposition), which is never zero,
// while the preparation made once is the row's PrepTime. (On a GPU the
// runs report 0, out-of-core APSP its packing; the packages' tests
// check that.)
func TestHostDeviceGPUAdaptersPrepTime(t *testing.T) {
	for _, algo := range []string{"mst", "apsp", "densebf"} {
		for _, e := range Entries(algo) {
			if !strings.HasPrefix(e.Name, "gpu/") {
				continue
			}
			t.Run(algo+"/"+e.Name, func(t *testing.T) {
				tab, err := Sweep{Variants: []Variant{e.New()}, Family: "rmat", Scales: []int{6},
					Roots: 2, Repetitions: map[bool]int{true: 1, false: 2}[Rooted(algo)]}.Run(gpu.Host(), nil)
				if err != nil {
					t.Fatal(err)
				}
				if len(tab.Rows) != 1 {
					t.Fatalf("%d rows, want 1", len(tab.Rows))
				}
				r := tab.Rows[0]
				if r.PrepTime <= 0 || r.NumRuns != 2 || r.NumValidated != 2 || len(r.Runs) != 2 {
					t.Fatalf("row: prep %v, %d runs (%d validated, %d kept), want prep > 0 and 2 validated runs",
						r.PrepTime, r.NumRuns, r.NumValidated, len(r.Runs))
				}
				if r.Checker != "cpu" {
					t.Errorf("Checker = %q on the host device, want cpu", r.Checker)
				}
				for k, run := range r.Runs {
					if run.PrepTime <= 0 {
						t.Errorf("run %d: PrepTime %v, want the CPU algorithm's own per-run preparation (> 0)", k, run.PrepTime)
					}
				}
			})
		}
	}
}

// On a GPU the BFS and SSSP variants validate on the device, and say so.
func TestGPUSweepChecksOnDevice(t *testing.T) {
	dev := gpu.Default()
	if dev.IsHost() {
		t.Skip(gpu.DefaultReason())
	}
	for _, c := range [][2]string{{"bfs", "gpu/direction-optimizing-gpu"}, {"bfs", "gpu/cache-restrict-on"},
		{"sssp", "gpu/near-far-delta-stepping"}, {"sssp", "gpu/cache-restrict-on"}} {
		name := c[0] + " " + c[1]
		v, err := Lookup(c[0], c[1])
		if err != nil {
			t.Fatal(err)
		}
		tab, err := Sweep{Variants: []Variant{v}, Family: "rmat", Scales: []int{12}, Roots: 4}.Run(dev, nil)
		if err != nil {
			t.Fatal(err)
		}
		if r := tab.Rows[0]; r.Checker != "device" || r.NumValidated != r.NumRuns {
			t.Errorf("%s: checker %q, %d of %d runs validated", name, r.Checker, r.NumValidated, r.NumRuns)
		}
		if s := tab.String(); !strings.Contains(s, "✓ device") {
			t.Errorf("%s: the table does not say the device validated:\n%s", name, s)
		}
	}
}
