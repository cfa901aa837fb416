package gen

import (
	"testing"
	"time"

	"github.com/graphnb/graphnb/internal/canceltest"
)

// TestGeneratorsStopOnInterrupt interrupts each generator of a graph of a
// few million edges 20 ms after it starts (generation) and 800 ms after
// (by then R-MAT is building the CSR on the CI machine), and checks that
// it returns cancel's error within canceltest.Bound with no worker left
// (issue 13, case 7).
func TestGeneratorsStopOnInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("generates graphs of millions of edges")
	}
	for _, c := range []struct {
		name  string
		after time.Duration
		run   func() error
	}{
		{"RMAT/generating", 20 * time.Millisecond, func() error { _, err := RMAT(19, 16); return err }},
		{"RMAT/building", 800 * time.Millisecond, func() error { _, err := RMAT(19, 16); return err }},
		{"RMAT/permuted", 20 * time.Millisecond, func() error { _, err := RMATEdges(19, 16, PermuteVertices(true)); return err }},
		{"SSCA2", 20 * time.Millisecond, func() error { _, err := SSCA2(18); return err }},
		{"ErdosRenyi", 20 * time.Millisecond, func() error { _, err := ErdosRenyi(1_000_000, 1e-5); return err }},
		{"Complete", 20 * time.Millisecond, func() error { _, err := Complete(MaxComplete); return err }},
	} {
		t.Run(c.name, func(t *testing.T) {
			canceltest.Interrupt(t, c.after, c.run)
		})
	}
}
