//go:build cgo

package nccl

import (
	_ "embed"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"
)

// The fake NCCL (testdata/fakenccl.c) is built with gcc when the tests
// start and loaded through GRAPHNB_NCCL; its source travels inside the test
// binary. Ranks are goroutines on Go memory here, and child processes of
// this test binary in TestFakeProcesses.

//go:embed testdata/fakenccl.c
var fakeSrc []byte

// fakeSkip is why the fake tests skip ("" when the fake is loaded).
var fakeSkip string

func TestMain(m *testing.M) {
	os.Exit(func() int {
		if os.Getenv("GRAPHNB_NCCL") == "" {
			dir, err := os.MkdirTemp("", "fakenccl-test")
			if err != nil {
				panic(err)
			}
			defer os.RemoveAll(dir)
			// The ids (directories) the fake makes go there too.
			os.Setenv("TMPDIR", dir)
			lib, err := buildFake(dir, "libnccl.so.2")
			if err != nil {
				fakeSkip = err.Error()
			} else {
				os.Setenv("GRAPHNB_NCCL", lib)
			}
		}
		return m.Run()
	}())
}

// buildFake compiles the fake NCCL into dir/name.
func buildFake(dir, name string) (string, error) {
	cc, err := exec.LookPath("gcc")
	if err != nil {
		return "", fmt.Errorf("no gcc: the fake NCCL tests build their libnccl.so.2 with it")
	}
	src := filepath.Join(dir, "fakenccl.c")
	if err := os.WriteFile(src, fakeSrc, 0o644); err != nil {
		return "", err
	}
	lib := filepath.Join(dir, name)
	if out, err := exec.Command(cc, "-shared", "-fPIC", "-O1", "-o", lib, src, "-lpthread").CombinedOutput(); err != nil {
		return "", fmt.Errorf("building the fake NCCL: %v\n%s", err, out)
	}
	return lib, nil
}

// loadFake loads the fake NCCL or skips t.
func loadFake(t *testing.T) {
	t.Helper()
	if fakeSkip != "" {
		t.Skip(fakeSkip)
	}
	if err := Load(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(Path(), "libnccl.so.2") || !strings.Contains(cErrorString(resRemoteError), "fake NCCL") {
		t.Fatalf("Load opened %s, not the fake", Path())
	}
}

// addr is the address of s's first element; s must stay reachable and
// pinned (pin) while NCCL uses it.
func addr[T any](pin *runtime.Pinner, s []T) uint64 {
	if len(s) == 0 {
		return 0
	}
	pin.Pin(&s[0])
	return uint64(uintptr(unsafe.Pointer(&s[0])))
}

// ranks runs f on size goroutines, each locked to its OS thread with a
// communicator of one group, and returns each rank's error (InitRank's,
// f's, or Close's). A rank whose f fails aborts its communicator.
func ranks(t *testing.T, size int, timeout time.Duration, f func(c *Comm) error) []error {
	t.Helper()
	id, err := NewUniqueID()
	if err != nil {
		t.Fatal(err)
	}
	errs := make([]error, size)
	var wg sync.WaitGroup
	for r := 0; r < size; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			c, err := InitRank(size, id, r, timeout)
			if err != nil {
				errs[r] = err
				return
			}
			if c.Rank() != r || c.Size() != size {
				errs[r] = fmt.Errorf("Comm says rank %d of %d", c.Rank(), c.Size())
			}
			if err := f(c); err != nil {
				errs[r] = err
				c.Abort()
				return
			}
			errs[r] = c.Close(timeout)
		}()
	}
	wg.Wait()
	return errs
}

func noErrors(t *testing.T, errs []error) {
	t.Helper()
	for r, err := range errs {
		if err != nil {
			t.Errorf("rank %d: %v", r, err)
		}
	}
}

const testTimeout = 10 * time.Second

func TestFakeVersionAndID(t *testing.T) {
	loadFake(t)
	major, minor, patch, err := Version()
	if err != nil || major != 2 || minor != 28 || patch != 3 {
		t.Errorf("Version() = %d.%d.%d, %v; want 2.28.3", major, minor, patch, err)
	}
	if v, set := os.LookupEnv("NCCL_COMM_BLOCKING"); os.Getenv("NCCL_NVLS_ENABLE") != "0" || !set || v != "" {
		t.Errorf("Load left NCCL_NVLS_ENABLE=%q NCCL_COMM_BLOCKING=%q", os.Getenv("NCCL_NVLS_ENABLE"), os.Getenv("NCCL_COMM_BLOCKING"))
	}
	id, err := NewUniqueID()
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseUniqueID(id.String())
	if err != nil || back != id {
		t.Errorf("ParseUniqueID(String()) = %v, %v", back, err)
	}
	if _, err := InitRank(2, UniqueID{}, 0, time.Second); err == nil || !strings.Contains(err.Error(), "empty unique id") {
		t.Errorf("InitRank with an empty id: %v", err)
	}
	if _, err := InitRank(2, id, 2, time.Second); err == nil || !strings.Contains(err.Error(), "rank 2 of 2") {
		t.Errorf("InitRank(rank 2 of 2): %v", err)
	}
	var bad UniqueID
	copy(bad[:], "/nonexistent/fakenccl")
	_, err = InitRank(2, bad, 0, time.Second)
	var e *Error
	if !errors.As(err, &e) || e.Call != "ncclCommInitRank" || e.Result != resInvalidArgument || e.Name != "ncclInvalidArgument" ||
		!strings.Contains(e.Msg, "names no directory") || e.Hint == "" {
		t.Errorf("InitRank with a bad id: %#v", err)
	}
}

// TestLoadMissingSymbol opens a library without NCCL's symbols.
func TestLoadMissingSymbol(t *testing.T) {
	loadFake(t)
	cc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("no gcc")
	}
	dir := t.TempDir()
	src, lib := filepath.Join(dir, "empty.c"), filepath.Join(dir, "libempty.so")
	if err := os.WriteFile(src, []byte("int graphnb_nothing;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(cc, "-shared", "-fPIC", "-o", lib, src).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	_, err = open("", []string{lib})
	if !errors.Is(err, ErrNoNCCL) || !strings.Contains(err.Error(), "lacks the symbol ncclGetVersion") {
		t.Errorf("open of a library without NCCL: %v", err)
	}
}

// TestFakeCollectives runs every collective on 1, 2 and 3 in-process ranks
// and checks the results against Go.
func TestFakeCollectives(t *testing.T) {
	loadFake(t)
	for _, size := range []int{1, 2, 3} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			noErrors(t, ranks(t, size, testTimeout, func(c *Comm) error { return collectives(c) }))
		})
	}
}

// collectives runs each collective on c and checks what it received.
func collectives(c *Comm) error {
	var pin runtime.Pinner
	defer pin.Unpin()
	r, size := c.Rank(), c.Size()
	wait := func(what string, err error) error {
		if err == nil {
			err = c.Wait(testTimeout, nil)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		return nil
	}
	// AllReduce, every op, int64 and float64 (in place too).
	for _, op := range []Op{Sum, Prod, Max, Min} {
		send := []int64{int64(r + 1), int64(-r), 7, int64(r * r)}
		recv := make([]int64, len(send))
		if err := wait("AllReduce", c.AllReduce(addr(&pin, send), addr(&pin, recv), len(send), Int64, op, 0)); err != nil {
			return err
		}
		want := make([]int64, len(send))
		for q := 0; q < size; q++ {
			v := []int64{int64(q + 1), int64(-q), 7, int64(q * q)}
			for i := range want {
				switch {
				case q == 0:
					want[i] = v[i]
				case op == Sum:
					want[i] += v[i]
				case op == Prod:
					want[i] *= v[i]
				case op == Max:
					want[i] = max(want[i], v[i])
				case op == Min:
					want[i] = min(want[i], v[i])
				}
			}
		}
		if fmt.Sprint(recv) != fmt.Sprint(want) {
			return fmt.Errorf("AllReduce op %d: rank %d got %v, want %v", op, r, recv, want)
		}
	}
	f := []float64{float64(r) + 0.5, -1}
	if err := wait("AllReduce in place", c.AllReduce(addr(&pin, f), addr(&pin, f), 2, Float64, Sum, 0)); err != nil {
		return err
	}
	if want := []float64{float64(size*(size-1))/2 + 0.5*float64(size), -float64(size)}; fmt.Sprint(f) != fmt.Sprint(want) {
		return fmt.Errorf("AllReduce in place: got %v, want %v", f, want)
	}
	// AllGather of 3 int32s per rank, and of nothing.
	mine := []int32{int32(10 * r), int32(10*r + 1), int32(10*r + 2)}
	all := make([]int32, 3*size)
	if err := wait("AllGather", c.AllGather(addr(&pin, mine), addr(&pin, all), 3, Int32, 0)); err != nil {
		return err
	}
	for q := 0; q < size; q++ {
		for i := 0; i < 3; i++ {
			if all[3*q+i] != int32(10*q+i) {
				return fmt.Errorf("AllGather: rank %d got %v", r, all)
			}
		}
	}
	if err := wait("AllGather of 0", c.AllGather(0, 0, 0, Uint8, 0)); err != nil {
		return err
	}
	// Broadcast from the last rank, in place, float32.
	root := size - 1
	b := []float32{float32(r), float32(r) * 2, 3}
	if err := wait("Broadcast", c.Broadcast(addr(&pin, b), addr(&pin, b), 3, Float32, root, 0)); err != nil {
		return err
	}
	if want := []float32{float32(root), float32(root) * 2, 3}; fmt.Sprint(b) != fmt.Sprint(want) {
		return fmt.Errorf("Broadcast: rank %d got %v, want %v", r, b, want)
	}
	// AllToAllV with uneven and zero counts: rank r sends (r+p)%3 elements
	// to p, valued 1000r+100p+i.
	count := func(from, to int) int { return (from + to) % 3 }
	sendCounts, sendOff, recvCounts, recvOff := make([]int, size), make([]int, size), make([]int, size), make([]int, size)
	var send []uint32
	nrecv := 0
	for p := 0; p < size; p++ {
		sendCounts[p], sendOff[p] = count(r, p), len(send)
		for i := 0; i < count(r, p); i++ {
			send = append(send, uint32(1000*r+100*p+i))
		}
		recvCounts[p], recvOff[p] = count(p, r), nrecv
		nrecv += count(p, r)
	}
	recv := make([]uint32, nrecv)
	err := c.AllToAllV(addr(&pin, send), sendCounts, sendOff, addr(&pin, recv), recvCounts, recvOff, Uint32, 0)
	if err := wait("AllToAllV", err); err != nil {
		return err
	}
	var want []uint32
	for p := 0; p < size; p++ {
		for i := 0; i < count(p, r); i++ {
			want = append(want, uint32(1000*p+100*r+i))
		}
	}
	if fmt.Sprint(recv) != fmt.Sprint(want) {
		return fmt.Errorf("AllToAllV: rank %d got %v, want %v", r, recv, want)
	}
	// Bad arguments are refused before NCCL.
	if size > 1 {
		if err := c.AllToAllV(0, []int{1}, []int{0}, 0, []int{1}, []int{0}, Uint32, 0); err == nil || !strings.Contains(err.Error(), "counts or offsets") {
			return fmt.Errorf("AllToAllV with 1 count: %v", err)
		}
	}
	if err := c.Broadcast(0, 0, 1, Int32, size, 0); err == nil || !strings.Contains(err.Error(), "root") {
		return fmt.Errorf("Broadcast with a bad root: %v", err)
	}
	return nil
}

// failures are the fake's failure modes that a test binary survives.
var failures = []struct {
	mode string
	// remote reports that the peers see the rank's failure as
	// ncclRemoteError (else they time out).
	remote bool
}{{"error", true}, {"stall", false}}

// TestFakeFailures makes rank 1 of 2 and 3 fail in its first collective
// and at InitRank: every rank returns a clear error within the timeout
// and a little, and none hangs.
func TestFakeFailures(t *testing.T) {
	loadFake(t)
	const timeout = time.Second
	for _, size := range []int{2, 3} {
		for _, f := range failures {
			for _, op := range []int{0, 1, 2} {
				t.Run(fmt.Sprintf("%d/%s/op%d", size, f.mode, op), func(t *testing.T) {
					t.Setenv("FAKE_NCCL_FAIL", fmt.Sprintf("rank=1,op=%d,mode=%s", op, f.mode))
					start := time.Now()
					errs := ranks(t, size, timeout, func(c *Comm) error {
						for i := 0; i < 3; i++ {
							v := []int64{int64(c.Rank())}
							var pin runtime.Pinner
							err := c.AllReduce(addr(&pin, v), addr(&pin, v), 1, Int64, Sum, 0)
							if err == nil {
								err = c.Wait(timeout, nil)
							}
							pin.Unpin()
							if err != nil {
								return fmt.Errorf("AllReduce %d: %w", i+1, err)
							}
						}
						return nil
					})
					if el := time.Since(start); el > timeout+2*time.Second {
						t.Errorf("took %v with a timeout of %v", el, timeout)
					}
					checkFailure(t, errs, f.mode, f.remote)
				})
			}
		}
	}
}

// checkFailure checks the errors of ranks where rank 1 failed in mode.
func checkFailure(t *testing.T, errs []error, mode string, remote bool) {
	t.Helper()
	for r, err := range errs {
		var e *Error
		switch {
		case err == nil:
			t.Errorf("rank %d: no error", r)
		case r == 1 && mode == "error":
			if !errors.As(err, &e) || e.Result != resSystemError || e.Rank != 1 || !strings.Contains(e.Msg, "injected failure") {
				t.Errorf("rank 1: %v", err)
			}
		case errors.Is(err, ErrTimeout):
			if remote {
				t.Errorf("rank %d timed out instead of seeing the remote error: %v", r, err)
			}
			if !strings.Contains(err.Error(), fmt.Sprintf("rank %d of %d waited", r, len(errs))) {
				t.Errorf("rank %d: the timeout does not say who waited: %v", r, err)
			}
		case errors.As(err, &e) && e.Result == resRemoteError:
			if !strings.Contains(e.Error(), "another rank failed") || !strings.Contains(e.Msg, "aborted its communicator") {
				t.Errorf("rank %d: %v", r, err)
			}
		default:
			t.Errorf("rank %d: neither a timeout nor a remote error: %v", r, err)
		}
	}
}

// TestFakeAbortedComm checks that a communicator refuses work after Abort
// and that Abort and Close are idempotent.
func TestFakeAbortedComm(t *testing.T) {
	loadFake(t)
	noErrors(t, ranks(t, 1, testTimeout, func(c *Comm) error {
		if err := c.Abort(); err != nil {
			return err
		}
		if err := c.Abort(); err != nil {
			return err
		}
		if err := c.AllReduce(0, 0, 0, Int32, Sum, 0); err == nil || !strings.Contains(err.Error(), "aborted or closed") {
			return fmt.Errorf("AllReduce after Abort: %v", err)
		}
		if err := c.Wait(time.Second, nil); err == nil {
			return fmt.Errorf("Wait after Abort: no error")
		}
		return c.Close(0)
	}))
}

// TestFakeWaitDone checks that Wait waits for done and aborts on its error
// or the timeout.
func TestFakeWaitDone(t *testing.T) {
	loadFake(t)
	noErrors(t, ranks(t, 1, testTimeout, func(c *Comm) error {
		n := 0
		if err := c.Wait(time.Second, func() (bool, error) { n++; return n == 5, nil }); err != nil || n != 5 {
			return fmt.Errorf("Wait returned %v after %d polls, want nil after 5", err, n)
		}
		boom := errors.New("boom")
		if err := c.Wait(time.Second, func() (bool, error) { return false, boom }); !errors.Is(err, boom) {
			return fmt.Errorf("Wait: %v, want boom", err)
		}
		if c.usable("Wait") == nil {
			return errors.New("the communicator was not aborted after done's error")
		}
		return nil
	}))
	errs := ranks(t, 1, testTimeout, func(c *Comm) error {
		start := time.Now()
		err := c.Wait(50*time.Millisecond, func() (bool, error) { return false, nil })
		if el := time.Since(start); el < 50*time.Millisecond || el > 2*time.Second {
			t.Errorf("Wait(50ms) took %v", el)
		}
		return err
	})
	if !errors.Is(errs[0], ErrTimeout) || !strings.Contains(errs[0].Error(), "rank 0 of 1 waited") {
		t.Errorf("Wait past its timeout: %v", errs[0])
	}
}
