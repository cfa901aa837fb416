package gpu

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/graphnb/graphnb/gpu/nccl"
)

// The TestGPUGroup* tests and BenchmarkGPUGroup need two GPUs or more and
// NCCL (they skip with fewer GPUs; a missing NCCL fails them). On the GPU
// machine:
//
//	PKGS="gpu gpu/nccl" ops/gpu-test.sh build                 (here)
//	PKGS=gpu TESTRUN=GPUGroup BENCH=GPUGroup ops/gpu-test.sh run (there)
//
// They run on blocking communicators unless GRAPHNB_NCCL_BLOCKING=0.

// span is SpanOf that panics instead of returning an error (the tests'
// spans are in range).
func span(buf any, off, n int) Span {
	s, err := SpanOf(buf, off, n)
	if err != nil {
		panic(err)
	}
	return s
}

// requireGroup makes a group of every GPU, or skips t with fewer than two.
func requireGroup(t testing.TB) *Group {
	t.Helper()
	devs, err := Devices()
	if err != nil || len(devs) < 2 {
		t.Skipf("needs 2 GPUs or more (%d: %v)", len(devs), err)
	}
	g, err := NewGroup(devs...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := g.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	major, minor, patch, _ := nccl.Version()
	t.Logf("%s; NCCL %d.%d.%d from %s", g, major, minor, patch, nccl.Path())
	return g
}

// TestGPUGroupCollectives runs each collective of a group of every GPU on
// 1 MiB, 64 MiB and 1 GiB per rank and checks every element on the host.
func TestGPUGroupCollectives(t *testing.T) {
	g := requireGroup(t)
	size := g.Size()
	for _, mib := range []int{1, 64, 1024} {
		n := mib << 20 / 4 // int32s per rank
		n -= n % size      // AllToAllV sends n/size to each rank
		t.Run(fmt.Sprintf("%dMiB", mib), func(t *testing.T) {
			err := g.Run(func(r *Rank, th *Thread) error {
				return checkCollectivesAt(r, th, n)
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// checkCollectivesAt runs AllReduce, AllGather, Broadcast and AllToAllV
// on n int32s per rank (filled with rank+1), then AllReduceQueued and
// AllGatherQueued chained before one Wait, and checks the results.
func checkCollectivesAt(r *Rank, th *Thread, n int) error {
	d, k, size := r.Device(), r.Rank(), r.Size()
	send, err := d.AllocInt32s(n)
	if err != nil {
		return err
	}
	defer send.Free()
	recv, err := d.AllocInt32s(n * size) // AllGather's size; the others use its start
	if err != nil {
		return err
	}
	defer recv.Free()
	host := make([]int32, n*size)
	check := func(what string, m int, want func(i int) int32) error {
		if err := recv.Download(host); err != nil {
			return err
		}
		for i := 0; i < m; i++ {
			if host[i] != want(i) {
				return fmt.Errorf("%s of %d int32s: rank %d has %d at %d, want %d", what, n, k, host[i], i, want(i))
			}
		}
		return nil
	}
	if err := send.Fill(int32(k + 1)); err != nil {
		return err
	}
	if err := r.AllReduce(th, span(send, 0, -1), span(recv, 0, n), nccl.Sum); err != nil {
		return err
	}
	if err := check("AllReduce", n, func(int) int32 { return int32(size * (size + 1) / 2) }); err != nil {
		return err
	}
	if err := r.AllGather(th, span(send, 0, -1), span(recv, 0, -1)); err != nil {
		return err
	}
	if err := check("AllGather", n*size, func(i int) int32 { return int32(i/n + 1) }); err != nil {
		return err
	}
	if err := recv.Fill(int32(100 + k)); err != nil {
		return err
	}
	if err := r.Broadcast(th, span(recv, 0, n), size-1); err != nil {
		return err
	}
	if err := check("Broadcast", n, func(int) int32 { return int32(100 + size - 1) }); err != nil {
		return err
	}
	counts := make([]int, size)
	for q := range counts {
		counts[q] = n / size
	}
	if err := r.AllToAllV(th, span(send, 0, -1), counts, span(recv, 0, n), counts); err != nil {
		return err
	}
	if err := check("AllToAllV", n, func(i int) int32 { return int32(i/(n/size) + 1) }); err != nil {
		return err
	}
	// Queued, chained with no wait between them: an AllReduce in place,
	// an AllGather of its result, then one Wait.
	if err := r.AllReduceQueued(th, span(send, 0, -1), span(send, 0, -1), nccl.Sum); err != nil {
		return err
	}
	if err := r.AllGatherQueued(th, span(send, 0, -1), span(recv, 0, -1)); err != nil {
		return err
	}
	if err := r.Wait(th); err != nil {
		return err
	}
	return check("AllReduceQueued then AllGatherQueued", n*size, func(int) int32 { return int32(size * (size + 1) / 2) })
}

// TestGPUGroupBandwidth prints the time and bus bandwidth of AllReduce of
// 1 GiB of float32 per rank (bus bandwidth = size/time × 2(n−1)/n, as
// nccl-tests reports it), the mean of 10 after 3 warm-ups. The figure
// includes Rank.AllReduce's polling wait (up to 1 ms of sleep per call).
func TestGPUGroupBandwidth(t *testing.T) {
	g := requireGroup(t)
	const bytes = 1 << 30
	perOp, err := timeAllReduce(g, bytes, 3, 10)
	if err != nil {
		t.Fatal(err)
	}
	n := float64(g.Size())
	bus := bytes / perOp.Seconds() * 2 * (n - 1) / n / 1e9
	t.Logf("AllReduce of 1 GiB float32 on %d GPUs: %.2f ms, bus bandwidth %.1f GB/s", g.Size(), float64(perOp.Microseconds())/1e3, bus)
}

// timeAllReduce is the mean time of an in-place AllReduce of bytes per
// rank, measured on rank 0 over runs after warm warm-ups.
func timeAllReduce(g *Group, bytes, warm, runs int) (time.Duration, error) {
	var perOp time.Duration
	err := g.Run(func(r *Rank, th *Thread) error {
		buf, err := r.Device().AllocFloat32s(bytes / 4)
		if err != nil {
			return err
		}
		defer buf.Free()
		if err := buf.Fill(1); err != nil {
			return err
		}
		s := span(buf, 0, -1)
		var start time.Time
		for i := 0; i < warm+runs; i++ {
			if i == warm {
				start = time.Now()
			}
			if err := r.AllReduce(th, s, s, nccl.Sum); err != nil {
				return err
			}
		}
		if r.Rank() == 0 {
			perOp = time.Since(start) / time.Duration(runs)
		}
		return nil
	})
	return perOp, err
}

// BenchmarkGPUGroupAllReduce measures AllReduce of 1 MiB to 1 GiB of
// float32 per rank over every GPU, reporting the bus bandwidth (busGB/s).
func BenchmarkGPUGroupAllReduce(b *testing.B) {
	g := requireGroup(b)
	n := float64(g.Size())
	for _, mib := range []int{1, 64, 1024} {
		b.Run(fmt.Sprintf("%dMiB", mib), func(b *testing.B) {
			bytes := mib << 20
			perOp, err := timeAllReduce(g, bytes, 2, b.N)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(perOp.Nanoseconds()), "ns/op")
			b.ReportMetric(float64(bytes)/perOp.Seconds()*2*(n-1)/n/1e9, "busGB/s")
		})
	}
}

// TestGPUGroupQueueing prints how long queueing a small AllReduce takes on
// rank 0 (AllReduceQueued of 3 int64s, the counts of a BFS level; the mean
// of 500 after 20 warm-ups, with a Wait every 50) and which communicators
// the collectives use: blocking ones by default, non-blocking ones with
// GRAPHNB_NCCL_BLOCKING=0 (run it both ways to compare). With NCCL 2.18
// or later and no GRAPHNB_NCCL_BLOCKING=0 the group must be blocking.
func TestGPUGroupQueueing(t *testing.T) {
	g := requireGroup(t)
	on, why := g.Blocking()
	_, minor, _, _ := nccl.Version()
	if !on && minor >= 18 && why != "GRAPHNB_NCCL_BLOCKING=0" {
		t.Errorf("NCCL 2.%d: collectives on non-blocking communicators (%s)", minor, why)
	}
	const warm, runs = 20, 500
	var queued time.Duration
	err := g.Run(func(r *Rank, th *Thread) error {
		buf, err := r.Device().Int64sFrom([]int64{1, 2, 3})
		if err != nil {
			return err
		}
		defer buf.Free()
		s := span(buf, 0, -1)
		for i := 0; i < warm+runs; i++ {
			start := time.Now()
			if err := r.AllReduceQueued(th, s, s, nccl.Min); err != nil {
				return err
			}
			if i >= warm && r.Rank() == 0 {
				queued += time.Since(start)
			}
			if i%50 == 49 {
				if err := r.Wait(th); err != nil {
					return err
				}
			}
		}
		return r.Wait(th)
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("blocking %v (%s): AllReduceQueued of 3 int64s on %d GPUs: %.1f µs a call on rank 0", on, why, g.Size(), float64(queued.Nanoseconds())/runs/1e3)
}

// TestGPUGroupWatchdog calls the first AllReduce of a new group on rank 0
// only: NCCL waits in it for the other ranks (connection set-up) on a
// blocking communicator until the watchdog aborts it after the timeout
// (5 s); on a non-blocking one the call or the wait times out. Either way
// rank 0's error must wrap nccl.ErrTimeout within the timeout and a few
// seconds, and nothing may hang. NCCL does not promise that aborting a
// call blocked on another thread is safe (package nccl, blocking.go):
// this is the evidence on real NCCL. Run it in a process of its own.
func TestGPUGroupWatchdog(t *testing.T) {
	g := requireGroup(t)
	const timeout = 5 * time.Second
	g.SetTimeout(timeout)
	on, why := g.Blocking()
	start := time.Now()
	err := g.Run(func(r *Rank, th *Thread) error {
		if r.Rank() != 0 {
			return nil // never comes
		}
		buf, err := r.Device().Int64sFrom([]int64{1})
		if err != nil {
			return err
		}
		defer buf.Free()
		return r.AllReduce(th, span(buf, 0, -1), span(buf, 0, -1), nccl.Sum)
	})
	el := time.Since(start)
	t.Logf("blocking %v (%s): rank 0 returned after %v: %v", on, why, el.Round(time.Millisecond), err)
	if !errors.Is(err, nccl.ErrTimeout) {
		t.Errorf("rank 0's AllReduce without the other ranks: %v, want a timeout", err)
	}
	if el < timeout || el > timeout+5*time.Second {
		t.Errorf("rank 0 returned after %v with a timeout of %v", el, timeout)
	}
}
