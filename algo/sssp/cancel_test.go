package sssp

import (
	"testing"
	"time"

	"github.com/graphnb/graphnb/graph/gen"
	"github.com/graphnb/graphnb/internal/canceltest"
)

// TestLongPathsStopOnInterrupt interrupts the checker and the host side
// of the GPU preparation on a 4 M-edge graph 20 ms after they start, and
// checks that each returns cancel's error within canceltest.Bound with no
// worker left (issue 13, case 7). (TestCancel checks the algorithms.)
func TestLongPathsStopOnInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("works on a 4 M-edge graph")
	}
	g, err := gen.RMAT(18, 16, gen.Seed(6))
	if err != nil {
		t.Fatal(err)
	}
	r, err := DeltaStepping(g, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		run  func() error
	}{
		{"Check", func() error {
			for { // one check is short: repeat it
				if err := Check(g, r); err != nil {
					return err
				}
			}
		}},
		{"GPU preparation", func() error {
			for {
				if _, err := checkGPUGraphStats(g, Options{Method: NearFar}); err != nil {
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
