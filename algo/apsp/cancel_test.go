package apsp

import (
	"errors"
	"testing"
	"time"

	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/graph/gen"
	"github.com/graphnb/graphnb/internal/canceltest"
	"github.com/graphnb/graphnb/internal/membudget"
)

// TestLongPathsStopOnInterrupt interrupts the CPU algorithms, the checker
// and the host side of the GPU preparation on a 1024-vertex matrix 20 ms
// after they start, and checks that each returns cancel's error within
// canceltest.Bound with no worker left (issue 13, case 7).
func TestLongPathsStopOnInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("works on a 1024-vertex matrix")
	}
	g, err := gen.RMAT(10, 16, gen.Seed(5))
	if err != nil {
		t.Fatal(err)
	}
	d, err := g.Dense(false)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Blocked(d, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		run  func() error
	}{
		{"FloydWarshall", func() error { _, err := FloydWarshall(d); return err }},
		{"Blocked", func() error { _, err := Blocked(d, 0); return err }},
		{"Blocked/tile 1024", func() error { _, err := Blocked(d, 1024); return err }},
		{"Check", func() error { return Check(d, r, 64, 1) }},
		{"GPU preparation", func() error {
			for { // scanMatrix alone is short: repeat it
				if _, err := scanMatrix(d, "Prepare"); err != nil {
					return err
				}
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			canceltest.Interrupt(t, 20*time.Millisecond, c.run)
		})
	}
}

// TestTooLargeIsRefused checks, under a fake budget of 8 MiB
// (GRAPHNB_MEMORY), that the CPU algorithms refuse a matrix whose
// working copies do not fit before allocating them (issue 13, case 7c),
// and that CheckCPUMemory refuses `graphnb run apsp rmat:16` on a
// 24 GiB machine.
func TestTooLargeIsRefused(t *testing.T) {
	d, err := graph.NewDense(1024, false) // 4 MiB; the copies need 12 or 24
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(membudget.EnvVar, "8MiB")
	for name, run := range map[string]func() error{
		"FloydWarshall": func() error { _, err := FloydWarshall(d); return err },
		"Blocked":       func() error { _, err := Blocked(d, 0); return err },
	} {
		if err := run(); !errors.Is(err, membudget.ErrTooLarge) {
			t.Errorf("%s: %v, want a membudget refusal", name, err)
		}
	}
	t.Setenv(membudget.EnvVar, "24GiB")
	if err := CheckCPUMemory(1<<16, true, true); !errors.Is(err, membudget.ErrTooLarge) {
		t.Errorf("blocked FW with its matrix on 65536 vertices under 24 GiB: %v", err)
	}
	if err := CheckCPUMemory(1<<12, true, true); err != nil {
		t.Errorf("4096 vertices under 24 GiB: %v", err)
	}
}
