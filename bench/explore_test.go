package bench

import (
	"strings"
	"testing"

	"github.com/graphnb/graphnb/gpu"
)

// TestExplorer measures every algorithm and switch on a small resident
// graph of the host device: each point validated, a re-measured point
// replacing the old one, a new scale making a new graph.
func TestExplorer(t *testing.T) {
	e := NewExplorer(gpu.Host())
	defer e.Close()
	if _, err := e.Measure(BFSTopDown(), 2); err == nil {
		t.Fatal("Measure before SetScale: no error")
	}
	if err := e.SetScale(0); err == nil {
		t.Fatal("SetScale(0): no error")
	}
	if err := e.SetScale(8); err != nil {
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
	if err := e.SetScale(9); err != nil {
		t.Fatal(err)
	}
	v, _ := Switches{}.Variant("sssp")
	if _, err := e.Measure(v, 1); err != nil {
		t.Fatal(err)
	}
	if got := len(e.Points().Rows); got != want+1 {
		t.Errorf("%d points after a new scale, want %d", got, want+1)
	}
}
