//go:build linux

package capture

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
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

// transcript records the callbacks in the order they happen, merging
// consecutive chunks of one stream: "O:…" and "E:…" entries.
type transcript struct {
	mu  sync.Mutex
	out []string
}

func (tr *transcript) fn(stream string, data []byte) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.out = appendMerged(tr.out, map[string]string{Stdout: "O:", Stderr: "E:"}[stream]+string(data))
}

// appendMerged appends entry ("O:text" or "E:text") to list, extending the
// last entry when it is of the same stream.
func appendMerged(list []string, entry string) []string {
	if n := len(list); n > 0 && list[n-1][:2] == entry[:2] {
		list[n-1] += entry[2:]
		return list
	}
	return append(list, entry)
}

// TestCaptureKeepsOrderAcrossStreams: a write to one stream followed by a
// write to the other reaches the callback in that order (issue 13, case
// 10: fmt.Println("a"); fmt.Fprintln(os.Stderr, "b") arrived reversed in
// 11 of 20 runs). Each round alternates which stream goes first, so a
// reader that simply prefers one stream fails too.
func TestCaptureKeepsOrderAcrossStreams(t *testing.T) {
	inChild(t, func(t *testing.T) {
		var tr transcript
		c, err := Start(tr.fn)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Stop()
		var want []string
		for i := range 300 {
			first, second := os.Stdout, os.Stderr
			tags := [2]string{"O:", "E:"}
			if i%2 == 1 {
				first, second = second, first
				tags[0], tags[1] = tags[1], tags[0]
			}
			a, b := fmt.Sprintf("a%d\n", i), fmt.Sprintf("b%d\n", i)
			fmt.Fprint(first, a)
			fmt.Fprint(second, b)
			if err := c.Sync(); err != nil {
				t.Fatal(err)
			}
			want = appendMerged(appendMerged(want, tags[0]+a), tags[1]+b)
		}
		// Three writes, each once the reader has taken the one before out
		// of its pipe (a pause long enough on an idle machine; on a loaded
		// one the reader may be descheduled for any time, and a pipe it
		// has not read yet holds both writes): all three keep their order.
		taken := func(i int) {
			for deadline := time.Now().Add(5 * time.Second); !c.drained(i) && time.Now().Before(deadline); {
				time.Sleep(50 * time.Microsecond)
			}
		}
		for i := range 20 {
			syscall.Write(1, []byte(fmt.Sprintf("x%d\n", i)))
			taken(0)
			syscall.Write(2, []byte(fmt.Sprintf("y%d\n", i)))
			taken(1)
			syscall.Write(1, []byte(fmt.Sprintf("z%d\n", i)))
			if err := c.Sync(); err != nil {
				t.Fatal(err)
			}
			want = appendMerged(want, fmt.Sprintf("O:x%d\n", i))
			want = appendMerged(want, fmt.Sprintf("E:y%d\n", i))
			want = appendMerged(want, fmt.Sprintf("O:z%d\n", i))
		}
		tr.mu.Lock()
		got := slices.Clone(tr.out)
		tr.mu.Unlock()
		reversed := 0
		for i := range min(len(got), len(want)) {
			if got[i] != want[i] {
				reversed++
			}
		}
		if reversed > 0 || len(got) != len(want) {
			t.Errorf("%d of %d entries out of order (%d entries, want %d); first differences:\n%s",
				reversed, len(want), len(got), len(want), firstDiffs(got, want, 5))
		}
	})
}

func firstDiffs(got, want []string, n int) string {
	var b strings.Builder
	for i := range max(len(got), len(want)) {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			fmt.Fprintf(&b, "  #%d: got %q, want %q\n", i, g, w)
			if n--; n == 0 {
				break
			}
		}
	}
	return b.String()
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
