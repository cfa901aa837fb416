package densebf

import (
	"errors"
	"testing"
	"time"

	"github.com/graphnb/graphnb/internal/canceltest"
	"github.com/graphnb/graphnb/internal/membudget"
)

// TestLongPathsStopOnInterrupt interrupts the dense Bellman-Ford, its
// checker and the making of a random matrix of 4096 vertices 20 ms after
// they start, and checks that each returns cancel's error within
// canceltest.Bound with no worker left (issue 13, case 7).
func TestLongPathsStopOnInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("works on a 4096-vertex matrix")
	}
	const n = 4096
	d, err := RandomDense(n, 0.01, 100, 1, false)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Run(d, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		run  func() error
	}{
		{"RandomDense", func() error { _, err := RandomDense(n, 0.5, 100, 2, false); return err }},
		{"Run", func() error {
			for s := int32(0); ; s++ { // one run is short: run from every source
				if _, err := Run(d, s%n); err != nil {
					return err
				}
			}
		}},
		{"Check", func() error {
			for {
				if err := Check(d, 0, r); err != nil {
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
// (GRAPHNB_MEMORY), that the dense Bellman-Ford refuses a matrix whose
// transposed copy does not fit, and RandomDense a matrix that does not
// fit, before allocating (issue 13, case 7c).
func TestTooLargeIsRefused(t *testing.T) {
	d, err := RandomDense(2048, 0.01, 10, 1, false) // 16 MiB
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(membudget.EnvVar, "8MiB")
	if _, err := Run(d, 0); !errors.Is(err, membudget.ErrTooLarge) {
		t.Errorf("Run: %v, want a membudget refusal", err)
	}
	if _, err := RandomDense(4096, 0.01, 10, 1, true); !errors.Is(err, membudget.ErrTooLarge) {
		t.Errorf("RandomDense: %v, want a membudget refusal", err)
	}
}
