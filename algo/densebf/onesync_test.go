package densebf

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graphnb/graphnb/gpu"
)

// driverCalls counts the fake driver's calls by name in its log (the
// first word of each line).
func driverCalls(t *testing.T, path string) map[string]int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	calls := map[string]int{}
	for _, line := range strings.Split(string(b), "\n") {
		if name, _, _ := strings.Cut(line, " "); name != "" {
			calls[name]++
		}
	}
	return calls
}

// checkTraceDriverCalls: on the fake GPU, whose driver logs its calls
// when FAKE_CUDA_LOG names a file, a traced run of every method makes
// no synchronisation, synchronous copy or memset that an untraced run of
// the same Prepared does not: its counts and the launch log's entries
// come back by two asynchronous copies and one event, queued before the
// result download, which waits for them (Prepared.collect); the same
// launches, and one wait for that event.
func checkTraceDriverCalls(t *testing.T, dev *gpu.Device) {
	d := mustRandom(t, 40, 0.1, 100, 40, false)
	path := filepath.Join(t.TempDir(), "calls.log")
	for _, v := range SeedVariants() {
		t.Run(v.Slug(), func(t *testing.T) {
			p, err := Prepare(dev, d, v.Options)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			run := func(traced bool) map[string]int {
				t.Helper()
				p.opts.Trace = traced
				os.Setenv("FAKE_CUDA_LOG", path)
				r, err := p.Run(3)
				os.Unsetenv("FAKE_CUDA_LOG")
				if err != nil {
					t.Fatal(err)
				}
				if (r.Trace != nil) != traced {
					t.Fatalf("traced %v, trace %v", traced, r.Trace)
				}
				calls := driverCalls(t, path)
				if err := os.Remove(path); err != nil {
					t.Fatal(err)
				}
				return calls
			}
			run(true) // the traced build loaded, the log made
			run(false)
			off, on := run(false), run(true)
			for name, extra := range map[string]int{
				"cuCtxSynchronize": 0, "cuStreamSynchronize": 0, "cuMemcpyDtoH_v2": 0, "cuMemsetD32_v2": 0, "cuMemsetD8_v2": 0,
				"cuLaunchKernel": 0, "cuMemcpyDtoHAsync_v2": 2, "cuEventRecord": 1, "cuEventSynchronize": 1,
			} {
				if on[name] != off[name]+extra {
					t.Errorf("%s: a traced run calls %d times, an untraced one %d; want %+d", name, on[name], off[name], extra)
				}
			}
			if t.Failed() {
				t.Logf("driver calls untraced: %v\ntraced: %v", off, on)
			}
		})
	}
}
