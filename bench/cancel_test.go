package bench

import (
	"testing"
	"time"

	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/internal/canceltest"
)

// TestSweepStopsOnInterrupt interrupts sweeps while they make their graph
// and while they run, and checks that Run returns cancel's error within
// canceltest.Bound with no worker left (issue 13, case 7).
func TestSweepStopsOnInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("generates graphs of millions of edges")
	}
	for _, c := range []struct {
		name  string
		after time.Duration
		sweep Sweep
	}{
		{"making the graph", 20 * time.Millisecond,
			Sweep{Variants: []Variant{MSTKruskal()}, Family: "rmat", Scales: []int{19}, NoValidate: true}},
		{"running", 1500 * time.Millisecond,
			Sweep{Variants: []Variant{MSTBoruvka()}, Family: "rmat", Scales: []int{16}, Repetitions: 1000}},
	} {
		t.Run(c.name, func(t *testing.T) {
			canceltest.Interrupt(t, c.after, func() error {
				_, err := c.sweep.Run(gpu.Host(), nil)
				return err
			})
		})
	}
}
