package fakegpu

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestEmulator builds testdata/selftest.cpp on the emulator and checks
// each case's line: the built-ins' results in every mode and thread
// order, and the misuses the emulator must report rather than run.
func TestEmulator(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a C++ program (seconds)")
	}
	gxx, err := exec.LookPath("g++")
	if err != nil {
		t.Skip("g++ not found: the emulator is only used where it is")
	}
	bin := filepath.Join(t.TempDir(), "selftest")
	if out, err := exec.Command(gxx, "-std=c++17", "-O1", "-pthread", "-Wall", "-Werror", "-I"+IncludeDir(), "-o", bin, filepath.Join(IncludeDir(), "selftest.cpp")).CombinedOutput(); err != nil {
		t.Fatalf("building the self-test: %v\n%s", err, out)
	}
	ctx, stop := context.WithTimeout(context.Background(), time.Minute)
	defer stop()
	out, err := exec.CommandContext(ctx, bin).CombinedOutput()
	if err != nil {
		t.Fatalf("the self-test failed (%v):\n%s", err, out)
	}
	want := map[string]string{ // case → "ok" or a part of the error
		"sum_order0": "ok", "sum_order1": "ok", "sum_order2": "ok",
		"collectives": "ok", "activemask_push": "ok", "threads_progress": "ok", "children": "ok", "ldg_inside": "ok",
		"barrier_after_return":    "threads returned while 48 wait at __syncthreads",
		"divergent_barrier":       "wait at __syncthreads",
		"collective_after_return": "reached by 31 lanes while 1 had left the kernel",
		"collective_vs_barrier":   "wait at a warp collective",
		"direct_barrier":          "direct mode called __syncthreads",
		"ldg_outside":             "outside every buffer of the launch",
	}
	got := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		name, rest, _ := strings.Cut(line, " ")
		got[name] = rest
	}
	for name, w := range want {
		g, ok := got[name]
		switch {
		case !ok:
			t.Errorf("%s: no result line", name)
		case w == "ok" && g != "ok":
			t.Errorf("%s: %s", name, g)
		case w != "ok" && (!strings.HasPrefix(g, "error: ") || !strings.Contains(g, w)):
			t.Errorf("%s: %q, want an error mentioning %q", name, g, w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d result lines, want %d:\n%s", len(got), len(want), out)
	}
}
