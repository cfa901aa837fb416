package fakegpu

import (
	"fmt"
	"os"
	"testing"
)

// FailFrees makes the next n device frees (cuMemFree_v2) of the fake
// driver fail with CUDA_ERROR_INVALID_VALUE, until t ends, for tests of
// how a failed free is reported. Only in the child process Run started
// (Device first); the driver reads the setting at each call. Not for
// parallel tests: the setting is the process's environment.
func FailFrees(t *testing.T, n int) {
	t.Helper()
	if os.Getenv(childEnv) == "" {
		t.Fatal("fakegpu.FailFrees: not in the fake GPU's child process (call Device first)")
	}
	t.Setenv("FAKE_CUDA_FAIL", fmt.Sprintf("cuMemFree_v2=1:%d", n))
}
