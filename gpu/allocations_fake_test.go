//go:build cgo

package gpu

import (
	"errors"
	"os"
	"testing"
)

func init() {
	addScenario("allocations", nil, func(t *testing.T) { checkAllocations(t, fakeDevice(t)) })

	addScenario("allocations_free_errors", nil, func(t *testing.T) {
		d := fakeDevice(t)
		a := NewAllocations(d)
		for range 3 {
			must[*Int32s](t)(a.AllocInt32s(4))
		}
		os.Setenv("FAKE_CUDA_FAIL", "cuMemFree_v2=1:2")
		defer os.Unsetenv("FAKE_CUDA_FAIL")
		err := a.Free()
		var joined interface{ Unwrap() []error }
		if !errors.As(err, &joined) || len(joined.Unwrap()) != 2 {
			t.Fatalf("Free: %v; want the two failed frees, joined", err)
		}
		var e *Error
		if !errors.As(err, &e) || e.Code != 1 {
			t.Errorf("Free: %v; want a CUDA error 1", err)
		}
		wantErr(t, err, nil, "cuMemFree_v2")
		if n := countLog(t, "cuMemFree_v2 ptr="); n != 1 {
			t.Errorf("%d buffers freed, want 1 (every free is attempted)", n)
		}
		if err := a.Free(); err != nil {
			t.Errorf("second Free: %v (want nil: Free is idempotent)", err)
		}
	})
}
