//go:build linux

package capture

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
)

const childEnv = "GRAPHNB_CAPTURE_TEST_CHILD"

// inChild runs body in a fresh process running only this test, because
// capturing fds 1 and 2 would swallow the test framework's own output. In
// the parent it returns the child's combined output after checking that
// the child passed and that body ran to the end; in the child it runs body
// and returns "".
func inChild(t *testing.T, body func(t *testing.T)) string {
	t.Helper()
	sentinel := "capture-child-done " + t.Name()
	if os.Getenv(childEnv) == t.Name() {
		body(t)
		if !t.Failed() {
			fmt.Println(sentinel)
		}
		return ""
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+regexp.QuoteMeta(t.Name())+"$", "-test.count=1", "-test.timeout=120s")
	cmd.Env = append(os.Environ(), childEnv+"="+t.Name())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child process failed: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), sentinel) {
		t.Fatalf("child process did not run the test body:\n%s", out)
	}
	return string(out)
}

type collector struct {
	mu    sync.Mutex
	out   bytes.Buffer
	err   bytes.Buffer
	calls int
}

func (c *collector) fn(stream string, data []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls++
	switch stream {
	case Stdout:
		c.out.Write(data)
	case Stderr:
		c.err.Write(data)
	default:
		panic("unknown stream " + stream)
	}
}

func (c *collector) snapshot() (out, err string, calls int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.out.String(), c.err.String(), c.calls
}

func TestCaptureAllWriters(t *testing.T) {
	inChild(t, func(t *testing.T) {
		var col collector
		c, err := Start(col.fn)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Stop()
		var want, wantErr strings.Builder

		fmt.Println("fmt.Println")
		want.WriteString("fmt.Println\n")
		os.Stdout.Write([]byte("os.Stdout.Write\n"))
		want.WriteString("os.Stdout.Write\n")
		syscall.Write(1, []byte("syscall.Write(1)\n"))
		want.WriteString("syscall.Write(1)\n")
		fmt.Fprintln(os.Stderr, "fmt.Fprintln(os.Stderr)")
		wantErr.WriteString("fmt.Fprintln(os.Stderr)\n")
		syscall.Write(2, []byte("syscall.Write(2)\n"))
		wantErr.WriteString("syscall.Write(2)\n")
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 100 {
				fmt.Printf("goroutine %d\n", i)
			}
		}()
		wg.Wait()
		for i := range 100 {
			fmt.Fprintf(&want, "goroutine %d\n", i)
		}
		var big bytes.Buffer
		for i := 0; big.Len() < 1<<20; i++ {
			fmt.Fprintf(&big, "large output line %07d\n", i)
		}
		os.Stdout.Write(big.Bytes())
		want.Write(big.Bytes())
		cmd := exec.Command("sh", "-c", "echo child-stdout; echo child-stderr >&2")
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		if err := cmd.Run(); err != nil {
			t.Fatal(err)
		}
		want.WriteString("child-stdout\n")
		wantErr.WriteString("child-stderr\n")

		if err := c.Sync(); err != nil {
			t.Fatal(err)
		}
		out, errOut, _ := col.snapshot()
		if out != want.String() {
			t.Errorf("stdout: got %d bytes, want %d; first difference at %d", len(out), want.Len(), firstDiff(out, want.String()))
		}
		if errOut != wantErr.String() {
			t.Errorf("stderr: got %q, want %q", errOut, wantErr.String())
		}
		if strings.Contains(out+errOut, "graphnb-sync") {
			t.Error("a sync marker leaked into the output")
		}
	})
}

func firstDiff(a, b string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func TestCaptureSyncIsABarrier(t *testing.T) {
	inChild(t, func(t *testing.T) {
		var col collector
		c, err := Start(col.fn)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Stop()
		for i := range 200 {
			line := fmt.Sprintf("line %d\n", i)
			syscall.Write(1, []byte(line))
			syscall.Write(2, []byte("e"+line))
			if err := c.Sync(); err != nil {
				t.Fatal(err)
			}
			out, errOut, _ := col.snapshot()
			if !strings.HasSuffix(out, line) || !strings.HasSuffix(errOut, "e"+line) {
				t.Fatalf("after Sync %d: stdout ends %q, stderr ends %q", i, tail(out), tail(errOut))
			}
		}
		// Output ending in what could start a marker is held back by the
		// reader; Sync must still deliver it.
		for _, text := range []string{"abc\x00", "\x00\x1bgraph", "plain"} {
			before, _, _ := col.snapshot()
			syscall.Write(1, []byte(text))
			if err := c.Sync(); err != nil {
				t.Fatal(err)
			}
			if out, _, _ := col.snapshot(); out != before+text {
				t.Fatalf("after writing %q and Sync: output ends %q", text, tail(out))
			}
		}
		// Sync with nothing written returns at once (the fast path).
		for range 100 {
			if err := c.Sync(); err != nil {
				t.Fatal(err)
			}
		}
		// Concurrent Syncs while other goroutines write.
		var wg sync.WaitGroup
		for g := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 50 {
					fmt.Printf("g%d-%d\n", g, i)
					if err := c.Sync(); err != nil {
						t.Error(err)
						return
					}
				}
			}()
		}
		wg.Wait()
		if err := c.Sync(); err != nil {
			t.Fatal(err)
		}
		out, _, _ := col.snapshot()
		for g := range 4 {
			if !strings.Contains(out, fmt.Sprintf("g%d-49\n", g)) {
				t.Errorf("goroutine %d output missing", g)
			}
		}
	})
}

func tail(s string) string { return s[max(0, len(s)-20):] }

func TestCaptureStopRestores(t *testing.T) {
	out := inChild(t, func(t *testing.T) {
		var col collector
		c, err := Start(col.fn)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Start(col.fn); !errors.Is(err, ErrActive) {
			t.Errorf("second Start: %v, want ErrActive", err)
		}
		fmt.Println("captured-line")
		fmt.Fprintln(c.Stderr(), "log-to-original-stderr")
		if err := c.Stop(); err != nil {
			t.Fatal(err)
		}
		if err := c.Stop(); err != nil {
			t.Errorf("second Stop: %v", err)
		}
		if err := c.Sync(); !errors.Is(err, ErrStopped) {
			t.Errorf("Sync after Stop: %v, want ErrStopped", err)
		}
		got, _, calls := col.snapshot()
		if got != "captured-line\n" {
			t.Errorf("captured %q", got)
		}
		fmt.Println("restored-line")
		fmt.Fprintln(os.Stderr, "restored-stderr")
		if _, _, after := col.snapshot(); after != calls {
			t.Errorf("callback ran after Stop")
		}
		// A new capture can start once the first has stopped.
		c2, err := Start(col.fn)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Println("second-capture")
		if err := c2.Stop(); err != nil {
			t.Fatal(err)
		}
		if got, _, _ := col.snapshot(); !strings.HasSuffix(got, "second-capture\n") {
			t.Errorf("second capture got %q", got)
		}
	})
	if out == "" {
		return // in the child
	}
	for _, s := range []string{"restored-line", "restored-stderr", "log-to-original-stderr"} {
		if !strings.Contains(out, s) {
			t.Errorf("child output lacks %q:\n%s", s, out)
		}
	}
	for _, s := range []string{"captured-line", "second-capture"} {
		if strings.Contains(out, s) {
			t.Errorf("captured text %q reached the real stdout:\n%s", s, out)
		}
	}
}
