package main

import (
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/graphnb/graphnb/internal/membudget"
)

// TestTooLargeIsRefused runs the commands of issue 13, case 7c, under a
// fake memory budget of 24 GiB (GRAPHNB_MEMORY, the machine of the
// issue, or less where the machine has less): each must be refused at
// once with the size asked, the size available and what to do — not attempted until the OS or Go's runtime
// kills the process, as before (24 GB and 65 s for the sweep; 12 GB in
// 10 s for the run; 6 GB in 13 s for info). The budget is the least of
// GRAPHNB_MEMORY and the machine's, so the test allocates nothing large
// wherever it runs.
func TestTooLargeIsRefused(t *testing.T) {
	t.Setenv(membudget.EnvVar, "24GiB")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"info", "rmat:27"}, "gen: R-MAT scale 27"},
		{[]string{"run", "apsp", "rmat:16"}, "apsp: blocked Floyd-Warshall with its matrix on 65536 vertices"},
		{[]string{"run", "fw", "rmat:16"}, "apsp: Floyd-Warshall with its matrix on 65536 vertices"},
		{[]string{"bench", "apsp", "rmat", "-scales", "16", "-variants", "cpu/fw", "-quiet", "-o", "OUT"}, "apsp: Floyd-Warshall with its matrix on 65536 vertices"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			var before runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			args := append([]string(nil), c.args...)
			for i, a := range args {
				if a == "OUT" {
					args[i] = filepath.Join(t.TempDir(), "out.json")
				}
			}
			code, _, stderr := runCLI(args...)
			took := time.Since(start)
			var after runtime.MemStats
			runtime.ReadMemStats(&after)
			grew := int64(after.TotalAlloc - before.TotalAlloc)
			t.Logf("exit %d after %v, %s allocated: %s", code, took.Round(time.Millisecond), membudget.Format(grew), strings.TrimSpace(stderr))
			if code == 0 {
				t.Fatal("the command succeeded; want a refusal")
			}
			for _, want := range []string{c.want, "needs about", "is available", "smaller"} {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr lacks %q", want)
				}
			}
			if grew > 1<<30 {
				t.Errorf("the refused command allocated %s first", membudget.Format(grew))
			}
		})
	}
}
