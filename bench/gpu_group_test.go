package bench

import (
	"strings"
	"testing"

	"github.com/graphnb/graphnb/algo/bfs"
	"github.com/graphnb/graphnb/gpu"
)

// A group sweep on the host device's group runs the group variants' CPU
// code, validated, and refuses a variant that cannot run over a group.
func TestGroupSweepOnHost(t *testing.T) {
	g, err := gpu.NewGroup(gpu.Host())
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	v, err := Lookup("bfs", "group/direction-optimizing")
	if err != nil {
		t.Fatal(err)
	}
	tab, err := Sweep{Algo: "bfs", Family: "rmat", Scales: []int{8, 9}, Roots: 4, Variants: []Variant{v}, Group: g}.Run(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tab.Meta.Ranks != 1 || len(tab.Rows) != 2 {
		t.Fatalf("ranks %d, %d rows; want 1 and 2", tab.Meta.Ranks, len(tab.Rows))
	}
	for _, r := range tab.Rows {
		if len(r.Runs) != 4 || r.Checker != "cpu" {
			t.Errorf("%s s%d: %d runs checked by %q; want 4 by cpu", r.Variant, r.Scale, len(r.Runs), r.Checker)
		}
		for _, x := range r.Runs {
			if !x.Validated || x.TEPS.Graph500 <= 0 {
				t.Errorf("s%d root %d: validated %v, %v", r.Scale, x.Root, x.Validated, x.TEPS)
			}
		}
	}
	_, err = Sweep{Algo: "bfs", Family: "rmat", Scales: []int{8}, Roots: 2, Variants: []Variant{BFSGPU(bfs.Variant{Label: "one device"})}, Group: g}.Run(nil, nil)
	if err == nil || !strings.Contains(err.Error(), "group/direction-optimizing") {
		t.Errorf("a one-device variant in a group sweep: %v; want a refusal naming the group variants", err)
	}
	_, err = Sweep{Algo: "bfs", Family: "rmat", Scales: []int{8}, Roots: 2, Variants: []Variant{v}}.Run(gpu.Host(), nil)
	if err == nil || !strings.Contains(err.Error(), "only over a group") {
		t.Errorf("a group variant in a one-device sweep: %v; want a refusal", err)
	}
	all, err := LookupAll("bfs")
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range all {
		if x.PrepareGroup != nil {
			t.Errorf("LookupAll(\"bfs\") holds the group variant %q", x.Label)
		}
	}
	gv, err := GroupVariants("bfs")
	if err != nil || len(gv) != 2 {
		t.Errorf("GroupVariants(\"bfs\"): %d, %v; want the two group BFS", len(gv), err)
	}
	sv, err := GroupVariants("sssp")
	if err != nil {
		t.Fatal(err)
	}
	st, err := Sweep{Algo: "sssp", Family: "rmat", Scales: []int{8}, Roots: 3, Variants: sv, Group: g}.Run(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Rows) != 1 || len(st.Rows[0].Runs) != 3 || !st.Rows[0].Runs[2].Validated {
		t.Errorf("the SSSP group sweep: %+v; want 3 validated runs", st.Rows)
	}
	mv, err := GroupVariants("mst")
	if err != nil {
		t.Fatal(err)
	}
	mt, err := Sweep{Algo: "mst", Family: "rmat", Scales: []int{8}, Variants: mv, Group: g}.Run(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(mt.Rows) != 1 || len(mt.Rows[0].Runs) == 0 {
		t.Fatalf("the MST group sweep: %+v; want one row of runs", mt.Rows)
	}
	for _, x := range mt.Rows[0].Runs {
		if !x.Validated || x.TEPS.ArcsPerSecond <= 0 || x.ComponentEdges != mt.Rows[0].Arcs/2 {
			t.Errorf("MST group run %+v: want validated, with a rate over arcs/2 = %d edges", x, mt.Rows[0].Arcs/2)
		}
	}
	if _, err := GroupVariants("apsp"); err == nil || !strings.Contains(err.Error(), "bfs group/direction-optimizing") {
		t.Errorf("GroupVariants(\"apsp\"): %v; want the list of group variants", err)
	}
}
