package gen

import (
	"errors"
	"strings"
	"testing"

	"github.com/graphnb/graphnb/internal/membudget"
)

// TestTooLargeIsRefused checks, under a fake budget of 64 MiB
// (GRAPHNB_MEMORY), that every generator refuses a graph whose peak
// memory does not fit before generating anything (issue 13, case 7c),
// with the size asked and the size available, and that a small graph is
// still made.
func TestTooLargeIsRefused(t *testing.T) {
	t.Setenv(membudget.EnvVar, "64MiB")
	for _, c := range []struct {
		name string
		run  func() error
	}{
		{"RMAT", func() error { _, err := RMAT(20, 16); return err }},
		{"RMATEdges", func() error { _, err := RMATEdges(21, 16); return err }},
		{"SSCA2", func() error { _, err := SSCA2(20); return err }},
		{"ErdosRenyi", func() error { _, err := ErdosRenyi(1_000_000, 1e-4); return err }},
		{"Complete", func() error { _, err := Complete(MaxComplete); return err }},
		{"Grid", func() error { _, err := Grid(2000, 2000); return err }},
		{"Path", func() error { _, err := Path(5_000_000); return err }},
	} {
		err := c.run()
		var e *membudget.Error
		if !errors.As(err, &e) || !errors.Is(err, membudget.ErrTooLarge) {
			t.Errorf("%s: %v, want a membudget refusal", c.name, err)
			continue
		}
		if e.Need <= 64<<20 || e.Available > 64<<20 || !strings.HasPrefix(err.Error(), "gen: ") {
			t.Errorf("%s: %v (need %d, available %d)", c.name, err, e.Need, e.Available)
		}
	}
	if _, err := RMAT(10, 16); err != nil {
		t.Errorf("a small graph under the budget: %v", err)
	}
	// The limit follows the budget, not a fixed edge count: 2^32 edges
	// were refused on any machine, and 2^31 attempted on any.
	t.Setenv(membudget.EnvVar, "1TiB")
	if err := checkMemory("test", 1<<27, 1<<33, &config{}, true); err == nil {
		t.Error("2^33 edges fit in 1 TiB?")
	}
}
