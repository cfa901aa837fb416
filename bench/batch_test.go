package bench

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/graphnb/graphnb/algo/bfs"
	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph"
)

// batchVariant is a CPU BFS whose run number breakAt (from 1) returns a
// result with one level wrong, and whose run failAt fails; it records
// the roots it ran.
func batchVariant(breakAt, failAt int, roots *[]int32) Variant {
	return Variant{Label: "bfs", Algo: "bfs", Prepare: func(_ *gpu.Device, g *graph.CSR) (Runner, error) {
		runs := 0
		return BFSRunner(g, func(src int32) (*bfs.Result, error) {
			runs++
			if runs == failAt {
				return nil, errors.New("device fault")
			}
			*roots = append(*roots, src)
			r, err := bfs.DirectionOptimizing(g, src, bfs.Options{})
			if err == nil && runs == breakAt {
				for v, l := range r.Levels {
					if l > 0 {
						r.Levels[v]++
						break
					}
				}
			}
			return r, err
		}, 0, 0, nil), nil
	}}
}

// A CPU BFS sweep validates its results eight at a time (bfs.CheckMany):
// every run of a sweep over 12 roots is validated; a wrong result in the
// second batch stops the sweep with its own root named, keeping only the
// runs validated before it; a run that fails mid-batch still has the
// runs before it validated and kept; an interrupt keeps the held runs
// marked not validated.
func TestBatchedValidation(t *testing.T) {
	s := Sweep{Family: "rmat", Scales: []int{8}, Roots: 12}
	var roots []int32
	s.Variants = []Variant{batchVariant(0, 0, &roots)}
	tab, err := s.Run(gpu.Host(), nil)
	if err != nil {
		t.Fatal(err)
	}
	row := tab.Rows[0]
	if row.NumRuns != 12 || row.NumValidated != 12 || row.CheckTime <= 0 || row.Checker != "cpu" {
		t.Fatalf("%d runs, %d validated, check time %v, checker %q", row.NumRuns, row.NumValidated, row.CheckTime, row.Checker)
	}

	roots = nil
	s.Variants = []Variant{batchVariant(10, 0, &roots)}
	tab, err = s.Run(gpu.Host(), nil)
	want := fmt.Sprintf("bfs on rmat:8:16, root %d: the result failed validation: bfs: check: rule", roots[9])
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("err %v, want it to say %q", err, want)
	}
	if got := tab.Rows[0].Runs; len(got) != 9 || !got[8].Validated || got[8].Root != roots[8] {
		t.Fatalf("%d runs kept after the 10th failed validation (want the 9 before it, validated): %+v", len(got), got)
	}

	roots = nil
	s.Variants = []Variant{batchVariant(0, 11, &roots)}
	tab, err = s.Run(gpu.Host(), nil)
	if err == nil || !strings.Contains(err.Error(), "device fault") {
		t.Fatalf("err %v, want the run's", err)
	}
	got := tab.Rows[0].Runs
	if len(got) != 10 {
		t.Fatalf("%d runs kept when the 11th failed, want 10", len(got))
	}
	for _, r := range got {
		if !r.Validated {
			t.Fatalf("run from root %d kept without validation", r.Root)
		}
	}

	// An interrupt after the 10th run: the 8 validated runs and the 2
	// held ones stay, those not validated.
	defer cancel.Clear()
	s.Variants = []Variant{batchVariant(0, 0, &roots)}
	tab, err = s.Run(gpu.Host(), func(done, total int64) {
		if done == 10 {
			cancel.Request()
		}
	})
	if !errors.Is(err, cancel.ErrInterrupted) {
		t.Fatalf("err %v, want the interrupt", err)
	}
	row = tab.Rows[0]
	if row.NumRuns != 10 || row.NumValidated != 8 || row.Runs[7].Validated == false || row.Runs[8].Validated {
		t.Fatalf("after the interrupt: %d runs, %d validated: %+v", row.NumRuns, row.NumValidated, row.Runs)
	}
}
