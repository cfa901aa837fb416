//go:build cgo

package gpu

import (
	_ "embed"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/graphnb/graphnb/gpu/nccl"
)

// Device groups on the fake driver with several devices
// (FAKE_CUDA_DEVICES) and package nccl's fake NCCL, whose source travels
// inside the test binary like the fake driver's.

//go:embed nccl/testdata/fakenccl.c
var fakeNCCLSrc []byte

var fakeNCCL struct {
	mu   sync.Mutex
	libs map[string]string // by fakeLibs.dir and variant
}

// noSplit names the fake NCCL built without ncclCommSplit (an NCCL before
// 2.18) in ncclEnv's extra environment; it is not passed on.
const noSplit = "FAKE_NCCL_NO_SPLIT"

// ncclEnv builds the fake NCCL next to the fake driver (once) and returns
// the environment of a scenario with devices fake GPUs and it.
func ncclEnv(devices int, extra ...string) func(f fakeLibs) []string {
	return func(f fakeLibs) []string {
		variant, name, defs := "", "libnccl.so.2", []string(nil)
		for i, kv := range extra {
			if kv == noSplit {
				variant, name, defs = noSplit, "libnccl-nosplit.so.2", []string{"-D" + noSplit}
				extra = append(extra[:i:i], extra[i+1:]...)
				break
			}
		}
		fakeNCCL.mu.Lock()
		defer fakeNCCL.mu.Unlock()
		lib, ok := fakeNCCL.libs[f.dir+variant]
		if !ok {
			src := filepath.Join(f.dir, "fakenccl.c")
			lib = filepath.Join(f.dir, name)
			if err := os.WriteFile(src, fakeNCCLSrc, 0o644); err != nil {
				panic(err)
			}
			args := append([]string{"-shared", "-fPIC", "-O1", "-o", lib, src, "-lpthread"}, defs...)
			if out, err := exec.Command("gcc", args...).CombinedOutput(); err != nil {
				panic(fmt.Sprintf("building the fake NCCL: %v\n%s", err, out))
			}
			if fakeNCCL.libs == nil {
				fakeNCCL.libs = map[string]string{}
			}
			fakeNCCL.libs[f.dir+variant] = lib
		}
		return append([]string{"GRAPHNB_NCCL=" + lib, fmt.Sprintf("FAKE_CUDA_DEVICES=%d", devices),
			"TMPDIR=" + f.dir, "GRAPHNB_NCCL_TIMEOUT=30s"}, extra...)
	}
}

// ncclModes are the two ways a group's collectives run: on blocking
// communicators (the default) and on the non-blocking ones; the group
// scenarios run in both.
var ncclModes = []struct{ suffix, env string }{
	{"", "GRAPHNB_NCCL_BLOCKING="},
	{"_nonblocking", "GRAPHNB_NCCL_BLOCKING=0"},
}

// blockingMode reports whether this process's groups use blocking
// communicators (ncclModes).
func blockingMode() bool { return os.Getenv("GRAPHNB_NCCL_BLOCKING") != "0" }

// checkMode checks that g's collectives run in the mode of the process.
func checkMode(t *testing.T, g *Group) {
	t.Helper()
	on, why := g.Blocking()
	switch {
	case blockingMode() && (!on || why != "" || strings.Contains(g.String(), "non-blocking")):
		t.Errorf("Blocking() = %v, %q; String() = %q; want blocking collectives", on, why, g.String())
	case !blockingMode() && (on || why != "GRAPHNB_NCCL_BLOCKING=0" || !strings.HasSuffix(g.String(), "; collectives on non-blocking communicators (GRAPHNB_NCCL_BLOCKING=0)")):
		t.Errorf("Blocking() = %v, %q; String() = %q; want non-blocking collectives", on, why, g.String())
	}
}

// watchdogRunning reports whether package nccl's watchdog goroutine runs.
func watchdogRunning() bool {
	buf := make([]byte, 1<<20)
	return strings.Contains(string(buf[:runtime.Stack(buf, true)]), "gpu/nccl.watchLoop")
}

// checkNoWatchdog checks that the watchdog has stopped once every
// blocking communicator is closed (it looks every 50 ms).
func checkNoWatchdog(t *testing.T) {
	t.Helper()
	for i := 0; i < 20 && watchdogRunning(); i++ {
		time.Sleep(25 * time.Millisecond)
	}
	if watchdogRunning() {
		t.Error("the NCCL watchdog still runs after every group was closed")
	}
}

// fakeGroup is a group of every fake device, closed when t ends.
func fakeGroup(t *testing.T) *Group {
	t.Helper()
	devs := must[[]*Device](t)(Devices())
	g := must[*Group](t)(NewGroup(devs...))
	t.Cleanup(func() {
		if err := g.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		if err := g.Close(); err != nil {
			t.Errorf("second Close: %v", err)
		}
	})
	return g
}

// checkGroupCollectives runs every collective of a Rank on device buffers
// and checks the results on the host.
func checkGroupCollectives(r *Rank, t *Thread) error {
	d, k, size := r.Device(), r.Rank(), r.Size()
	// AllReduce of int64 (sum) and float32 (max).
	a, err := d.Int64sFrom([]int64{int64(k + 1), int64(10 * k), -1})
	if err != nil {
		return err
	}
	defer a.Free()
	if err := r.AllReduce(t, span(a, 0, -1), span(a, 0, -1), nccl.Sum); err != nil {
		return err
	}
	if got, want := must2(a.ToHost()), []int64{int64(size * (size + 1) / 2), int64(10 * size * (size - 1) / 2), -int64(size)}; !reflect.DeepEqual(got, want) {
		return fmt.Errorf("AllReduce sum: rank %d got %v, want %v", k, got, want)
	}
	f, err := d.Float32sFrom([]float32{float32(k), -float32(k), 0.5})
	if err != nil {
		return err
	}
	defer f.Free()
	fmax, err := d.AllocFloat32s(3)
	if err != nil {
		return err
	}
	defer fmax.Free()
	if err := r.AllReduce(t, span(f, 0, -1), span(fmax, 0, -1), nccl.Max); err != nil {
		return err
	}
	if got, want := must2(fmax.ToHost()), []float32{float32(size - 1), 0, 0.5}; !reflect.DeepEqual(got, want) {
		return fmt.Errorf("AllReduce max: rank %d got %v, want %v", k, got, want)
	}
	// AllGather of 2 uint32 per rank, from the middle of a buffer.
	src, err := d.Uint32sFrom([]uint32{99, uint32(100 * k), uint32(100*k + 1), 99})
	if err != nil {
		return err
	}
	defer src.Free()
	all, err := d.AllocUint32s(2 * size)
	if err != nil {
		return err
	}
	defer all.Free()
	if err := r.AllGather(t, span(src, 1, 2), span(all, 0, -1)); err != nil {
		return err
	}
	var want []uint32
	for q := 0; q < size; q++ {
		want = append(want, uint32(100*q), uint32(100*q+1))
	}
	if got := must2(all.ToHost()); !reflect.DeepEqual(got, want) {
		return fmt.Errorf("AllGather: rank %d got %v, want %v", k, got, want)
	}
	// Broadcast from the last rank.
	b, err := d.Float64sFrom([]float64{float64(k), 1.25})
	if err != nil {
		return err
	}
	defer b.Free()
	if err := r.Broadcast(t, span(b, 0, -1), size-1); err != nil {
		return err
	}
	if got, want := must2(b.ToHost()), []float64{float64(size - 1), 1.25}; !reflect.DeepEqual(got, want) {
		return fmt.Errorf("Broadcast: rank %d got %v, want %v", k, got, want)
	}
	// AllToAllV, uneven with zeros: rank k sends (k+2q)%3 int32s to rank q.
	n := func(from, to int) int { return (from + 2*to) % 3 }
	var send []int32
	sc, rc := make([]int, size), make([]int, size)
	nrecv := 0
	for q := 0; q < size; q++ {
		sc[q], rc[q] = n(k, q), n(q, k)
		for i := 0; i < sc[q]; i++ {
			send = append(send, int32(1000*k+10*q+i))
		}
		nrecv += rc[q]
	}
	sbuf, err := d.Int32sFrom(append(send, -7)) // one more than sent: never 0 long
	if err != nil {
		return err
	}
	defer sbuf.Free()
	rbuf, err := d.AllocInt32s(nrecv + 1)
	if err != nil {
		return err
	}
	defer rbuf.Free()
	if err := r.AllToAllV(t, span(sbuf, 0, -1), sc, span(rbuf, 0, -1), rc); err != nil {
		return err
	}
	var wantRecv []int32
	for q := 0; q < size; q++ {
		for i := 0; i < n(q, k); i++ {
			wantRecv = append(wantRecv, int32(1000*q+10*k+i))
		}
	}
	if got := must2(rbuf.ToHost())[:nrecv]; !reflect.DeepEqual(got, wantRecv) {
		return fmt.Errorf("AllToAllV: rank %d got %v, want %v", k, got, wantRecv)
	}
	// Queued collectives chained without a wait between them: an
	// AllReduce, an AllGather of its result, an AllToAllV; one Wait, then
	// the host reads.
	q, err := d.Int64sFrom([]int64{int64(k + 1)})
	if err != nil {
		return err
	}
	defer q.Free()
	qall, err := d.AllocInt64s(size)
	if err != nil {
		return err
	}
	defer qall.Free()
	if err := r.AllReduceQueued(t, span(q, 0, -1), span(q, 0, -1), nccl.Sum); err != nil {
		return err
	}
	if err := r.AllGatherQueued(t, span(q, 0, -1), span(qall, 0, -1)); err != nil {
		return err
	}
	if err := r.AllToAllVQueued(t, span(sbuf, 0, -1), sc, span(rbuf, 0, -1), rc); err != nil {
		return err
	}
	if err := r.Wait(t); err != nil {
		return err
	}
	wantAll := make([]int64, size)
	for i := range wantAll {
		wantAll[i] = int64(size * (size + 1) / 2)
	}
	if got := must2(qall.ToHost()); !reflect.DeepEqual(got, wantAll) {
		return fmt.Errorf("AllReduceQueued, AllGatherQueued: rank %d got %v, want %v", k, got, wantAll)
	}
	if got := must2(rbuf.ToHost())[:nrecv]; !reflect.DeepEqual(got, wantRecv) {
		return fmt.Errorf("AllToAllVQueued: rank %d got %v, want %v", k, got, wantRecv)
	}
	// AllReduceInt64 of host values, twice (the scratch buffer is reused).
	for _, op := range []nccl.Op{nccl.Sum, nccl.Min} {
		got, err := r.AllReduceInt64(t, []int64{int64(k), 5}, op)
		if err != nil {
			return err
		}
		want := []int64{int64(size * (size - 1) / 2), 5 * int64(size)}
		if op == nccl.Min {
			want = []int64{0, 5}
		}
		if !reflect.DeepEqual(got, want) {
			return fmt.Errorf("AllReduceInt64 op %d: rank %d got %v, want %v", op, k, got, want)
		}
	}
	return nil
}

// must2 drops a nil error (the buffers' reads on the fake cannot fail
// once the collectives have worked; a failure shows as wrong data).
func must2[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// joinEnv passes the group's id to the second process of group_join.
const joinEnv = "GRAPHNB_TEST_JOIN_ID"

func init() {
	for _, mode := range ncclModes {
		addGroupScenarios(mode.suffix, mode.env)
	}

	addScenario("group_errors", ncclEnv(2), func(t *testing.T) {
		devs := must[[]*Device](t)(Devices())
		_, err := NewGroup(devs[0], devs[0])
		wantErr(t, err, nil, "appears twice")
		_, err = NewGroup(devs[0], Host())
		wantErr(t, err, nil, "host device cannot join")
		_, err = JoinGroup(devs[0], 2, 2, nccl.UniqueID{})
		wantErr(t, err, nil, "rank 2 of 2")
		_, err = JoinGroup(Host(), 0, 2, nccl.UniqueID{})
		wantErr(t, err, nil, "host device cannot join")
		_, err = JoinGroup(devs[0], 0, 2, nccl.UniqueID{})
		wantErr(t, err, nil, "empty unique id")
	})

	// Without ncclCommSplit (NCCL before 2.18), or when NCCL refuses the
	// split, the collectives run on the non-blocking communicators, and
	// the group says so.
	for _, tc := range []struct{ name, env, why string }{
		{"group_no_split", noSplit, "has no ncclCommSplit"},
		{"group_split_refused", "FAKE_NCCL_SPLIT=invalid", "ncclCommSplit refused (FAKE_NCCL_SPLIT=invalid)"},
	} {
		addScenario(tc.name, ncclEnv(2, tc.env), func(t *testing.T) {
			g := fakeGroup(t)
			on, why := g.Blocking()
			if on || !strings.Contains(why, tc.why) || !strings.HasPrefix(why, "nccl: no blocking communicator: ") ||
				!strings.HasSuffix(g.String(), "; collectives on non-blocking communicators ("+why+")") {
				t.Errorf("Blocking() = %v, %q; String() = %q", on, why, g.String())
			}
			if err := g.Run(checkGroupCollectives); err != nil {
				t.Fatal(err)
			}
		})
	}

	// The split of the blocking communicators stalls on rank 1: the group
	// is not made, every rank's error says so after the timeout, and
	// nothing is left running.
	addScenario("group_split_stall", ncclEnv(2, "FAKE_NCCL_FAIL=rank=1,op=split,mode=stall", "GRAPHNB_NCCL_TIMEOUT=300ms"), func(t *testing.T) {
		start := time.Now()
		_, err := NewGroup(must[[]*Device](t)(Devices())...)
		if el := time.Since(start); el < 300*time.Millisecond || el > 3*time.Second {
			t.Errorf("NewGroup took %v with a timeout of 300 ms", el)
		}
		wantErr(t, err, nil, "gpu: group of 2 ranks: the blocking communicators: ", "ncclCommSplit on rank")
		if !errors.Is(err, nccl.ErrTimeout) {
			t.Errorf("NewGroup: %v does not wrap nccl.ErrTimeout", err)
		}
		checkNoWatchdog(t)
	})
}

// addGroupScenarios adds the group scenarios of a mode (ncclModes).
func addGroupScenarios(suffix, modeEnv string) {
	env := func(devices int, extra ...string) func(f fakeLibs) []string {
		return ncclEnv(devices, append(extra, modeEnv)...)
	}
	for _, n := range []int{2, 3} {
		addScenario(fmt.Sprintf("group_of_%d%s", n, suffix), env(n), func(t *testing.T) {
			g := fakeGroup(t)
			if g.Size() != n || len(g.Ranks()) != n || len(g.Devices()) != n || g.IsHost() {
				t.Fatalf("%s", g)
			}
			if s := g.String(); !strings.HasPrefix(s, fmt.Sprintf("group of %d ranks: 0 Fake H100 80GB HBM3, 1 Fake H100 80GB HBM3 #1", n)) {
				t.Errorf("String() = %q", s)
			}
			checkMode(t, g)
			for round := 0; round < 2; round++ {
				if err := g.Run(checkGroupCollectives); err != nil {
					t.Fatal(err)
				}
			}
			// The GPU tests' checks, small.
			if err := g.Run(func(r *Rank, th *Thread) error { return checkCollectivesAt(r, th, 12*n) }); err != nil {
				t.Fatal(err)
			}
			if d, err := timeAllReduce(g, 4096, 1, 2); err != nil || d <= 0 {
				t.Errorf("timeAllReduce: %v, %v", d, err)
			}
			if g.Err() != nil {
				t.Errorf("Err() = %v", g.Err())
			}
			// A span of another rank's device, or of mixed types, is refused.
			// (Allocated before Run: a rank's function must not use another
			// rank's device.)
			var bufs []*Int32s
			for _, d := range g.Devices() {
				bufs = append(bufs, must[*Int32s](t)(d.AllocInt32s(2)))
			}
			err := g.Run(func(r *Rank, th *Thread) error {
				b := bufs[(r.Rank()+1)%n]
				return r.AllReduce(th, span(b, 0, -1), span(b, 0, -1), nccl.Sum)
			})
			// The first rank to fail says why; the others may see a broken group.
			wantErr(t, err, nil, "): a Int32s of Fake H100 80GB HBM3")
			if err := g.Close(); err != nil {
				t.Error(err)
			}
			checkNoWatchdog(t)
		})
	}

	// A rank whose function fails breaks the group: the other rank's
	// collective fails at once, not after the timeout (a blocking one is
	// aborted from another thread).
	addScenario("group_rank_fails"+suffix, env(2), func(t *testing.T) {
		g := fakeGroup(t)
		g.SetTimeout(20 * time.Second)
		boom := errors.New("boom")
		start := time.Now()
		err := g.Run(func(r *Rank, th *Thread) error {
			if r.Rank() == 1 {
				return boom
			}
			b := must2(r.Device().AllocInt64s(4))
			defer b.Free()
			return r.AllReduce(th, span(b, 0, -1), span(b, 0, -1), nccl.Sum)
		})
		if el := time.Since(start); el > 5*time.Second {
			t.Errorf("Run took %v: rank 0 waited for a rank that had failed", el)
		}
		if !errors.Is(err, boom) {
			t.Errorf("Run: %v does not wrap rank 1's error", err)
		}
		wantErr(t, err, nil, "rank 1 (Fake H100 80GB HBM3 #1 (device 1)): boom", "rank 0 (Fake H100 80GB HBM3 (device 0)): gpu: ", "the group is broken")
		wantErr(t, g.Err(), nil, "the group is broken", "close it and make a new group")
		wantErr(t, g.Run(func(*Rank, *Thread) error { return nil }), nil, "the group is broken")
	})

	// A rank that stalls in a collective: every rank times out after the
	// group's timeout (and, blocking, the watchdog's period of 50 ms),
	// waiting in the collective or, for queued ones on non-blocking
	// communicators, in Wait (no hang either way), and the group is
	// broken. A blocking communicator of the fake NCCL waits in the
	// collective itself, queued or not (the real one only in connection
	// set-up).
	for _, queued := range []bool{false, true} {
		name, want, timeout := "group_stall", "AllReduce on rank 1 of 2", 2*time.Second
		if queued {
			name = "group_stall_queued"
		}
		if queued && suffix != "" {
			want = "Wait on rank 1 of 2"
		}
		if suffix == "" {
			timeout = 300 * time.Millisecond
		}
		addScenario(name+suffix, env(2, "FAKE_NCCL_FAIL=rank=1,op=2,mode=stall"), func(t *testing.T) {
			g := fakeGroup(t)
			g.SetTimeout(timeout)
			start := time.Now()
			err := g.Run(func(r *Rank, th *Thread) error {
				b := must2(r.Device().Int64sFrom([]int64{1}))
				defer b.Free()
				reduce := r.AllReduce
				if queued {
					reduce = r.AllReduceQueued
				}
				for i := 0; i < 3; i++ {
					if err := reduce(th, span(b, 0, -1), span(b, 0, -1), nccl.Sum); err != nil {
						return err
					}
				}
				return r.Wait(th)
			})
			if el := time.Since(start); el < timeout || el > timeout+time.Second+timeout/2 {
				t.Errorf("Run took %v with a timeout of %v", el, timeout)
			}
			wantErr(t, err, nil, "rank 0 (Fake H100 80GB HBM3 (device 0))", "rank 1 (Fake H100 80GB HBM3 #1 (device 1))", want)
			if !errors.Is(err, nccl.ErrTimeout) {
				t.Errorf("Run: %v does not wrap nccl.ErrTimeout", err)
			}
			if blockingMode() {
				wantErr(t, err, nil, "AllReduce on rank 0 of 2", "the watchdog aborted it")
			}
			wantErr(t, g.Err(), nil, "the group is broken")
			if err := g.Close(); err != nil {
				t.Error(err)
			}
			checkNoWatchdog(t)
		})
	}

	// The GPU tests of the collectives' queueing and of the watchdog (a
	// rank that never comes), on the fake.
	addScenario("group_gpu_tests"+suffix, env(2), func(t *testing.T) {
		t.Run("Queueing", TestGPUGroupQueueing)
		t.Run("Watchdog", TestGPUGroupWatchdog)
	})

	// JoinGroup over two processes: this one is rank 0 and starts rank 1.
	addScenario("group_join"+suffix, env(2), func(t *testing.T) {
		id := must[nccl.UniqueID](t)(nccl.NewUniqueID())
		exe := must[string](t)(os.Executable())
		cmd := exec.Command(exe, "-test.run=^TestFakeJoinRank1$", "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(), joinEnv+"="+id.String())
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		err := joinAndCheck(0, id)
		if werr := cmd.Wait(); werr != nil || !strings.Contains(out.String(), "--- PASS: TestFakeJoinRank1") {
			t.Errorf("rank 1's process failed (%v):\n%s", werr, out.String())
		}
		if err != nil {
			t.Fatal(err)
		}
	})
}

// joinAndCheck joins rank's part of a group of two processes and runs the
// collectives.
func joinAndCheck(rank int, id nccl.UniqueID) error {
	dev, err := Open(rank)
	if err != nil {
		return err
	}
	g, err := JoinGroup(dev, rank, 2, id)
	if err != nil {
		return err
	}
	if g.Size() != 2 || len(g.Ranks()) != 1 || g.Ranks()[0].Rank() != rank {
		return fmt.Errorf("JoinGroup made a %s", g)
	}
	if s := g.String(); !strings.HasPrefix(s, fmt.Sprintf("group of 2 ranks (1 in this process): %d Fake", rank)) {
		return fmt.Errorf("String() = %q", s)
	}
	if on, why := g.Blocking(); on != blockingMode() {
		return fmt.Errorf("Blocking() = %v, %q in a process with GRAPHNB_NCCL_BLOCKING=%q", on, why, os.Getenv("GRAPHNB_NCCL_BLOCKING"))
	}
	return errors.Join(g.Run(checkGroupCollectives), g.Close())
}

// TestFakeJoinRank1 is rank 1 of the group_join scenario, in a process of
// its own.
func TestFakeJoinRank1(t *testing.T) {
	s := os.Getenv(joinEnv)
	if s == "" {
		t.Skip("runs only as the second process of the group_join scenario")
	}
	id := must[nccl.UniqueID](t)(nccl.ParseUniqueID(s))
	if err := joinAndCheck(1, id); err != nil {
		t.Fatal(err)
	}
}
