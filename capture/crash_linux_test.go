//go:build linux

package capture

import (
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

//go:noinline
func overflow(n int) int {
	var pad [64]byte
	pad[n%64] = byte(n)
	return overflow(n+1) + int(pad[(n+1)%64])
}

// A fatal error Go cannot recover from (here a stack overflow in compiled
// code) ends the process while fd 2 is captured: the runtime writes its
// "fatal error:" headline to fd 2 before it starts its crash report, so
// the headline landed in the capture pipe that nobody read any more, and
// the original standard error (the kernel's log) got the goroutine dump
// without it. It must reach the original standard error, with the dump.
func TestCaptureFatalErrorReachesStderr(t *testing.T) {
	if os.Getenv(childEnv) == t.Name() {
		var col collector
		if _, err := Start(col.fn); err != nil {
			t.Fatal(err)
		}
		os.Stderr.WriteString("captured before the crash\n")
		debug.SetMaxStack(1 << 20)
		overflow(0)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.count=1", "-test.timeout=60s")
	cmd.Env = append(os.Environ(), childEnv+"="+t.Name(), "GOTRACEBACK=single")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	if err == nil {
		t.Fatalf("the child survived a stack overflow:\n%s", stderr.String())
	}
	// Run returns once every holder of the child's standard error has
	// closed it: the watcher has written its report.
	out := stderr.String()
	t.Logf("child: %v after %v; its standard error:\n%s", err, time.Since(start), out)
	head := strings.Index(out, "fatal error: stack overflow")
	if head < 0 {
		t.Fatal("the original standard error lacks the \"fatal error: stack overflow\" headline")
	}
	if dump := strings.Index(out[head:], "\ngoroutine "); dump < 0 {
		t.Error("no goroutine dump after the headline")
	}
}
