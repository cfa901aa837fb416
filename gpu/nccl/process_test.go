//go:build cgo

package nccl

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// processEnv tells a child of TestFakeProcesses its rank: "rank size id".
const processEnv = "GRAPHNB_NCCL_TEST_RANK"

// processTimeout bounds every call and wait of a child.
const processTimeout = 1500 * time.Millisecond

// TestFakeProcesses runs groups whose ranks are processes (this test
// binary, re-executed) on the fake NCCL: InitRank, AllReduce and
// AllToAllV, healthy and with each failure mode on one rank. Every rank
// must end within the timeout and a little with its expected outcome, and
// the fake's log must show no operation issued or completed twice.
func TestFakeProcesses(t *testing.T) {
	if os.Getenv(processEnv) != "" {
		t.Skip("the parent test; this is a child process")
	}
	loadFake(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		size int
		fail string
		// want is per rank: "ok", "error", "remote", "timeout", "exit" or
		// "wait": a timeout or, once a rank that timed out has aborted,
		// the remote error; one at least must time out.
		want []string
	}{
		{"healthy2", 2, "", []string{"ok", "ok"}},
		{"healthy3", 3, "", []string{"ok", "ok", "ok"}},
		{"error", 2, "rank=1,op=2,mode=error", []string{"remote", "error"}},
		{"error_init", 3, "rank=0,op=0,mode=error", []string{"error", "remote", "remote"}},
		{"stall", 3, "rank=1,op=3,mode=stall", []string{"wait", "wait", "wait"}},
		{"exit", 3, "rank=2,op=2,mode=exit", []string{"wait", "wait", "exit"}},
		{"exit_init", 2, "rank=1,op=0,mode=exit", []string{"timeout", "exit"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id, err := NewUniqueID()
			if err != nil {
				t.Fatal(err)
			}
			log := filepath.Join(t.TempDir(), "nccl.log")
			outs := make([][]byte, tc.size)
			codes := make([]int, tc.size)
			ctx, stop := context.WithTimeout(context.Background(), 30*time.Second)
			defer stop()
			start := time.Now()
			var wg sync.WaitGroup
			for r := 0; r < tc.size; r++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					cmd := exec.CommandContext(ctx, exe, "-test.run=^TestFakeProcessChild$", "-test.v", "-test.count=1")
					cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d %d %s", processEnv, r, tc.size, id),
						"FAKE_NCCL_FAIL="+tc.fail, "FAKE_NCCL_LOG="+log)
					outs[r], err = cmd.CombinedOutput()
					var ee *exec.ExitError
					if errors.As(err, &ee) {
						codes[r] = ee.ExitCode()
					}
				}()
			}
			wg.Wait()
			if ctx.Err() != nil {
				t.Fatalf("the ranks ran past 30 s (a hang):\n%s", bytes.Join(outs, []byte("\n")))
			}
			if el := time.Since(start); el > 4*processTimeout+5*time.Second {
				t.Errorf("the ranks took %v with a timeout of %v per call", el, processTimeout)
			}
			timeouts := 0
			for r, want := range tc.want {
				got := "exit"
				if codes[r] != 3 {
					m := regexp.MustCompile(`RESULT (\w+)`).FindSubmatch(outs[r])
					if m == nil || codes[r] != 0 {
						t.Errorf("rank %d: exit status %d, no result:\n%s", r, codes[r], outs[r])
						continue
					}
					got = string(m[1])
				}
				if got == "timeout" {
					timeouts++
				}
				if got != want && (want != "wait" || got != "timeout" && got != "remote") {
					t.Errorf("rank %d: %s, want %s:\n%s", r, got, want, outs[r])
				}
			}
			if strings.Contains(strings.Join(tc.want, " "), "wait") && timeouts == 0 {
				t.Errorf("no rank timed out:\n%s", bytes.Join(outs, []byte("\n")))
			}
			checkLogOnce(t, log)
		})
	}
}

// checkLogOnce fails t when the fake's log shows an operation issued or
// completed twice on a rank.
func checkLogOnce(t *testing.T, log string) {
	t.Helper()
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	re := regexp.MustCompile(`^(ncclAllReduce|ncclGroupEnd|complete) rank=(\d+) op=(\d+)(?: count=.*| parts=.*)?$`)
	for _, line := range strings.Split(string(b), "\n") {
		m := re.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		key := strings.Join(m[1:], " ")
		if seen[key] {
			t.Errorf("twice in the fake's log: %s", key)
		}
		seen[key] = true
	}
}

// TestFakeProcessChild is one rank of TestFakeProcesses: it prints
// RESULT ok, or the kind of error it got (error, remote, timeout).
func TestFakeProcessChild(t *testing.T) {
	spec := os.Getenv(processEnv)
	if spec == "" {
		t.Skip("runs only as a child of TestFakeProcesses")
	}
	loadFake(t)
	f := strings.Fields(spec)
	rank, _ := strconv.Atoi(f[0])
	size, _ := strconv.Atoi(f[1])
	id, err := ParseUniqueID(f[2])
	if err != nil {
		t.Fatal(err)
	}
	runtime.LockOSThread()
	err = processRank(t, rank, size, id)
	var e *Error
	switch {
	case err == nil:
		fmt.Println("RESULT ok")
	case errors.Is(err, ErrTimeout):
		fmt.Println("RESULT timeout:", err)
	case errors.As(err, &e) && e.Result == resRemoteError:
		fmt.Println("RESULT remote:", err)
	case errors.As(err, &e) && e.Result == resSystemError:
		fmt.Println("RESULT error:", err)
	default:
		t.Fatalf("unexpected error: %v", err)
	}
}

// processRank joins the group and runs AllReduce, AllToAllV, AllReduce,
// AllToAllV (operations 1 to 4), checking the data.
func processRank(t *testing.T, rank, size int, id UniqueID) error {
	c, err := InitRank(size, id, rank, processTimeout)
	if err != nil {
		return err
	}
	for round := 0; round < 2; round++ {
		var pin runtime.Pinner
		v := []int32{int32(rank + 1), int32(round)}
		err := c.AllReduce(addr(&pin, v), addr(&pin, v), 2, Int32, Sum, 0)
		if err == nil {
			err = c.Wait(processTimeout, nil)
		}
		if err != nil {
			pin.Unpin()
			return err
		}
		if want := int32(size * (size + 1) / 2); v[0] != want || v[1] != int32(size*round) {
			t.Fatalf("AllReduce: rank %d got %v, want [%d %d]", rank, v, want, size*round)
		}
		// Rank r sends r+p+round elements to p (p = r, round 0: none to itself).
		sc, so, rc, ro := make([]int, size), make([]int, size), make([]int, size), make([]int, size)
		var send []float64
		nrecv := 0
		for p := 0; p < size; p++ {
			n := (rank + p + round) % 4
			sc[p], so[p] = n, len(send)
			for i := 0; i < n; i++ {
				send = append(send, float64(100*rank+10*p+i))
			}
			rc[p], ro[p] = (p+rank+round)%4, nrecv
			nrecv += rc[p]
		}
		recv := make([]float64, nrecv)
		err = c.AllToAllV(addr(&pin, send), sc, so, addr(&pin, recv), rc, ro, Float64, 0)
		if err == nil {
			err = c.Wait(processTimeout, nil)
		}
		pin.Unpin()
		if err != nil {
			return err
		}
		for p := 0; p < size; p++ {
			for i := 0; i < rc[p]; i++ {
				if recv[ro[p]+i] != float64(100*p+10*rank+i) {
					t.Fatalf("AllToAllV: rank %d got %v", rank, recv)
				}
			}
		}
	}
	return c.Close(processTimeout)
}
