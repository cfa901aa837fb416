package bench

import (
	"strings"
	"testing"

	"github.com/graphnb/graphnb/gpu"
)

// On a GPU the MST, APSP and dense Bellman-Ford variants validate on the
// device, and say so.
func TestGPUSweepChecksOnDeviceMSTAPSPDenseBF(t *testing.T) {
	dev := gpu.Default()
	if dev.IsHost() {
		t.Skip(gpu.DefaultReason())
	}
	for _, c := range [][2]string{{"mst", "gpu/gpu"}, {"mst", "gpu/gpu-cpu"}, {"apsp", "gpu/blocked-gpu"},
		{"apsp", "gpu/plain-gpu"}, {"densebf", "gpu/bf-naive"}, {"densebf", "gpu/bf-reduce-coarse"}} {
		name := c[0] + " " + c[1]
		v, err := Lookup(c[0], c[1])
		if err != nil {
			t.Fatal(err)
		}
		tab, err := Sweep{Variants: []Variant{v}, Family: "rmat", Scales: []int{10}, Roots: 3,
			Repetitions: map[bool]int{true: 1, false: 3}[Rooted(c[0])]}.Run(dev, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if r := tab.Rows[0]; r.Checker != "device" || r.NumValidated != r.NumRuns || r.NumRuns == 0 {
			t.Errorf("%s: checker %q, %d of %d runs validated", name, r.Checker, r.NumValidated, r.NumRuns)
		}
		if s := tab.String(); !strings.Contains(s, "✓ device") {
			t.Errorf("%s: the table does not say the device validated:\n%s", name, s)
		}
	}
}
