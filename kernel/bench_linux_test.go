package kernel

import (
	"syscall"
	"testing"
	"time"

	"github.com/graphnb/graphnb/widgets"
)

// BenchmarkIdleWidgets measures the CPU time (user plus system, of the
// whole test process: the kernel and its idle clients) over 2 s of quiet
// with 100 sliders displayed and fd capture on, after a trivial cell; it
// reports CPU milliseconds per second of wall time (issue 16's target:
// an idle widget costs no CPU, ~0). Each iteration is one window.
func BenchmarkIdleWidgets(b *testing.B) {
	k := startKernel(b, func(o *Options) { o.NoCapture = false; o.Logger = discardLogger() })
	c := dialClient(b, k.ci)
	showSliders(b, c, 100)
	c.execute("1+1", nil)
	var cpu, wall time.Duration
	b.ResetTimer()
	for range b.N {
		before, start := processCPU(b), time.Now()
		time.Sleep(2 * time.Second)
		cpu += processCPU(b) - before
		wall += time.Since(start)
	}
	b.StopTimer()
	b.ReportMetric(float64(cpu.Microseconds())/1e3/wall.Seconds(), "cpu_ms/s")
	widgets.CloseAll()
	c.close()
	k.stop(b)
}

// processCPU returns the user plus system CPU time of this process so far.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
