package gpu

import (
	"errors"
	"strings"
	"testing"

	"github.com/graphnb/graphnb/internal/membudget"
)

// TestHostAllocationTooLargeIsRefused asks the host device for 4 TiB
// (issue 13, case 7c: gpu.Default().AllocFloat32s(1<<40) on the host used
// to kill the kernel with Go's fatal out-of-memory error), then, under a
// fake budget of 64 MiB (GRAPHNB_MEMORY), for 128 MiB: both are refused
// with an error wrapping ErrOutOfMemory that gives the sizes, and a small
// buffer is still allocated.
func TestHostAllocationTooLargeIsRefused(t *testing.T) {
	check := func(err error) {
		t.Helper()
		if !errors.Is(err, ErrOutOfMemory) || !errors.Is(err, membudget.ErrTooLarge) ||
			!strings.Contains(err.Error(), "needs about") || !strings.Contains(err.Error(), "on the host device") {
			t.Errorf("%v, want a refusal wrapping ErrOutOfMemory and membudget.ErrTooLarge", err)
		}
	}
	_, err := Host().AllocFloat32s(1 << 40)
	check(err)
	t.Setenv(membudget.EnvVar, "64MiB")
	_, err = Host().AllocInt64s(16 << 20)
	check(err)
	b, err := Host().AllocInt32s(1 << 20)
	if err != nil || b.Len() != 1<<20 {
		t.Fatalf("4 MiB under the budget: %v", err)
	}
	b.Free()
}
