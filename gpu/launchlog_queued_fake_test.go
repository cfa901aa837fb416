//go:build cgo

package gpu

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/graphnb/graphnb/trace"
)

// LaunchLog.QueueRead's tests: scenarios on the fake driver, as
// launchlog_fake_test.go's, registered there (the scenario writes the
// entries; the fake's asynchronous copies are done when queued, so a
// scenario writes them before QueueRead).

// queuedLog is a scenario's log with its kernel, buffer and ring mirror.
type queuedLog struct {
	t      *testing.T
	d      *Device
	l      *LaunchLog
	plain  *Function
	buf    *Int32s
	mirror []uint64
}

func newQueuedLog(t *testing.T) *queuedLog {
	d := fakeDevice(t)
	q := &queuedLog{t: t, d: d, plain: fn(t, fakeModule(t, d), "plain"), buf: must[*Int32s](t)(d.AllocInt32s(16)),
		mirror: make([]uint64, LaunchLogCap*launchLogWords)}
	q.l = must[*LaunchLog](t)(d.NewLaunchLog())
	t.Cleanup(func() { q.l.Close() })
	return q
}

// run launches steps first..first+n-1 on th, open where open says so,
// each stamped at start(step) for 300 ns, and returns the launches to
// expect back (an open one's time: to the next start, 1000 ns later).
// It runs on the device thread: it returns errors, never fails the test.
func (q *queuedLog) run(th *Thread, s *Stream, first, n int, open func(step int) bool, start func(step int) uint64) ([]trace.Launch, error) {
	var want []trace.Launch
	for step := first; step < first+n; step++ {
		launch, o := q.l.LaunchOn, open != nil && open(step)
		if o {
			launch = q.l.LaunchOpen
		}
		if err := launch(th, s, step, q.plain, D1(1), D1(32), 0, q.buf); err != nil {
			return nil, err
		}
		// The entry, as stamp writes it.
		j := (q.l.pos + len(q.l.pending) - 1) % LaunchLogCap
		from := start(step)
		q.mirror[launchLogWords*j+launchLogStart] = from
		q.mirror[launchLogWords*j+launchLogEnd] = from + 150
		q.mirror[launchLogWords*j+launchLogEnd+launchLogEnds-1] = from + 300
		if err := q.l.ring.Upload(q.mirror); err != nil {
			return nil, err
		}
		w := trace.Launch{Name: "plain", Grid: [3]int{1, 1, 1}, Block: [3]int{32, 1, 1}, Step: step, Open: o, Time: 300}
		if o {
			w.Time = 1000
		}
		want = append(want, w)
	}
	return want, nil
}

// every1000 starts step i at base + 1000·i ns.
func every1000(base uint64) func(int) uint64 {
	return func(i int) uint64 { return base + 1000*uint64(i) }
}

// sameLaunches requires got to be want, times included.
func sameLaunches(t *testing.T, what string, got, want []trace.Launch) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d launches back, want %d", what, len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s: launch %d is %+v, want %+v", what, i, got[i], want[i])
		}
	}
}

// fakeLaunchLogQueued: a read queued after a run's launches (on the
// default stream and on a stream of its own) copies the pending entries
// asynchronously — in two pieces where they wrap around the ring's end —
// and records its event on that stream; Launches then neither
// synchronises the context nor copies, waits for the event once and
// returns the launches with their times, run after run (a run longer
// than the ring read in the middle as before). QueueRead with nothing
// pending, or twice, queues nothing.
func fakeLaunchLogQueued(t *testing.T) {
	q := newQueuedLog(t)
	s := must[*Stream](t)(q.d.NewStream())
	defer s.Close()
	if err := q.d.Exec(func(th *Thread) error { return q.l.QueueRead(th, nil) }); err != nil {
		t.Fatal(err)
	}
	if n := countLog(t, "cuMemcpyDtoHAsync_v2"); n != 0 {
		t.Errorf("QueueRead with no launch pending queued %d copies", n)
	}
	// Runs of 3, LaunchLogCap+7 (read in the middle), 2 and 505 (from
	// entry 12: its entries wrap around the ring's end).
	wrapped := false
	for run, n := range []int{3, LaunchLogCap + 7, 2, 505} {
		var stream *Stream
		if run%2 == 1 {
			stream = s
		}
		what := fmt.Sprintf("run %d (%d launches)", run, n)
		var want []trace.Launch
		var wantCopies int
		copies, syncs := countLog(t, "cuMemcpyDtoHAsync_v2"), countLog(t, "cuCtxSynchronize")
		err := q.d.Exec(func(th *Thread) error {
			var err error
			if want, err = q.run(th, stream, 0, n, nil, every1000(uint64(1_000_000*(run+1)))); err != nil {
				return err
			}
			wantCopies = 1
			if q.l.pos+len(q.l.pending) > LaunchLogCap {
				wantCopies = 2 // the entries wrap around the ring's end
			}
			if err := q.l.QueueRead(th, stream); err != nil {
				return err
			}
			return q.l.QueueRead(th, stream) // queued already: nothing more
		})
		if err != nil {
			t.Fatal(err)
		}
		wrapped = wrapped || wantCopies == 2
		if got := countLog(t, "cuMemcpyDtoHAsync_v2") - copies; got != wantCopies {
			t.Errorf("%s: QueueRead queued %d copies, want %d", what, got, wantCopies)
		}
		rec := strings.Split(grepLog(t, "cuEventRecord "), "\n")
		if last, h := rec[len(rec)-1], "stream=(nil)"; stream != nil && strings.Contains(last, h) || stream == nil && !strings.Contains(last, h) {
			t.Errorf("%s: QueueRead's event recorded as %q; want it on stream %v", what, last, stream)
		}
		midRun := countLog(t, "cuCtxSynchronize") - syncs // the read in the middle of the long run
		waits, dtoh := countLog(t, "cuEventSynchronize"), countLog(t, "cuMemcpyDtoH_v2")
		got := must[[]trace.Launch](t)(q.l.Launches())
		sameLaunches(t, what, got, want)
		if n := countLog(t, "cuCtxSynchronize") - syncs - midRun; n != 0 {
			t.Errorf("%s: Launches after QueueRead synchronised the context %d times", what, n)
		}
		if n := countLog(t, "cuMemcpyDtoH_v2") - dtoh; n != 0 {
			t.Errorf("%s: Launches after QueueRead copied %d times", what, n)
		}
		if n := countLog(t, "cuEventSynchronize") - waits; n != 1 {
			t.Errorf("%s: Launches after QueueRead waited for %d events, want 1", what, n)
		}
	}
	if !wrapped {
		t.Error("no run's queued read wrapped around the ring's end")
	}
	if ls, err := q.l.Launches(); ls != nil || err != nil {
		t.Errorf("Launches again: %v, %v; want nothing", ls, err)
	}
}

// fakeLaunchLogQueuedOpen: open launches read through QueueRead take
// their time to the next launch's start; logged launches after
// QueueRead, before Launches, finish the queued read (an open last
// launch of it kept for the next launch's start) and come back after
// its launches, in order; an open last launch before Launches fails it
// with what to do, as without QueueRead.
func fakeLaunchLogQueuedOpen(t *testing.T) {
	q := newQueuedLog(t)
	open := func(step int) bool { return step%3 != 2 }
	start := every1000(5_000_000)
	var want []trace.Launch
	err := q.d.Exec(func(th *Thread) error {
		var err error
		if want, err = q.run(th, nil, 0, 3, open, start); err != nil { // steps 0 and 1 open, 2 closed
			return err
		}
		if err := q.l.QueueRead(th, nil); err != nil {
			return err
		}
		more, err := q.run(th, nil, 3, 2, open, start) // 3 open: the queued read is finished here
		if err != nil {
			return err
		}
		want = append(want, more...)
		if q.l.queued != 0 || len(q.l.read) != 3 {
			t.Errorf("a launch after QueueRead left %d queued, %d read; want 0 and 3", q.l.queued, len(q.l.read))
		}
		if err := q.l.QueueRead(th, nil); err != nil {
			return err
		}
		if more, err = q.run(th, nil, 5, 1, nil, start); err != nil { // after an open 4: its end is 5's start
			return err
		}
		want = append(want, more...)
		return q.l.QueueRead(th, nil)
	})
	if err != nil {
		t.Fatal(err)
	}
	sameLaunches(t, "launches around QueueRead", must[[]trace.Launch](t)(q.l.Launches()), want)

	err = q.d.Exec(func(th *Thread) error {
		if _, err := q.run(th, nil, 0, 2, func(int) bool { return true }, start); err != nil {
			return err
		}
		return q.l.QueueRead(th, nil)
	})
	if err != nil {
		t.Fatal(err)
	}
	if ls, err := q.l.Launches(); err == nil || !strings.Contains(err.Error(), "no logged launch followed it") || ls != nil {
		t.Errorf("an open last launch read through QueueRead: %v, %v", ls, err)
	}
}

// fakeLaunchLogQueuedErrors: Drop after QueueRead waits for the queued
// copy and forgets the launches (the ring zeroed before the next); a
// device reset between QueueRead and Launches fails Launches
// (ErrInvalidated) and the next run makes a new ring; a failed copy
// fails QueueRead and forgets the launches; misuse says what to do.
func fakeLaunchLogQueuedErrors(t *testing.T) {
	q := newQueuedLog(t)
	start := every1000(7_000_000)
	queue := func(n int) {
		t.Helper()
		err := q.d.Exec(func(th *Thread) error {
			if _, err := q.run(th, nil, 0, n, nil, start); err != nil {
				return err
			}
			return q.l.QueueRead(th, nil)
		})
		if err != nil {
			t.Fatal(err)
		}
	}

	queue(2)
	waits, fills := countLog(t, "cuEventSynchronize"), countLog(t, "cuMemsetD")
	q.l.Drop()
	if countLog(t, "cuEventSynchronize") != waits+1 {
		t.Error("Drop after QueueRead did not wait for the queued copy")
	}
	if ls, err := q.l.Launches(); ls != nil || err != nil {
		t.Errorf("Launches after Drop = %v, %v; want nothing", ls, err)
	}
	queue(1)
	if countLog(t, "cuMemsetD") == fills {
		t.Error("the ring was not zeroed after Drop")
	}
	sameLaunches(t, "after Drop", must[[]trace.Launch](t)(q.l.Launches()), []trace.Launch{
		{Name: "plain", Grid: [3]int{1, 1, 1}, Block: [3]int{32, 1, 1}, Step: 0, Time: 300}})

	queue(2)
	if err := q.d.Reset(); err != nil {
		t.Fatal(err)
	}
	_, err := q.l.Launches()
	wantErr(t, err, ErrInvalidated, "gpu: launch log: waiting for the read of its ring queued by QueueRead")
	q.mirror = make([]uint64, LaunchLogCap*launchLogWords) // the new ring is zeroed
	q.buf = must[*Int32s](t)(q.d.AllocInt32s(16))          // the old one went with the context
	queue(3)
	if got := must[[]trace.Launch](t)(q.l.Launches()); len(got) != 3 || q.l.pos != 3 {
		t.Errorf("after the reset: %d launches back, ring at %d; want 3 from a new ring", len(got), q.l.pos)
	}

	os.Setenv("FAKE_CUDA_FAIL", "cuMemcpyDtoHAsync_v2=1:1")
	err = q.d.Exec(func(th *Thread) error {
		if _, err := q.run(th, nil, 0, 2, nil, start); err != nil {
			return err
		}
		return q.l.QueueRead(th, nil)
	})
	os.Unsetenv("FAKE_CUDA_FAIL")
	wantErr(t, err, nil, "gpu: launch log: queueing the read of its ring", "cuMemcpyDtoHAsync_v2")
	if ls, err := q.l.Launches(); ls != nil || err != nil || !q.l.dirty {
		t.Errorf("Launches after a failed QueueRead = %v, %v (dirty %v); want nothing, the ring dirty", ls, err, q.l.dirty)
	}

	var nilLog *LaunchLog
	if err := q.d.Exec(func(th *Thread) error { return nilLog.QueueRead(th, nil) }); err != nil {
		t.Errorf("a nil log's QueueRead: %v", err)
	}
	if err := q.l.QueueRead(nil, nil); err == nil || !strings.Contains(err.Error(), "*Thread") {
		t.Errorf("QueueRead with a nil thread: %v", err)
	}
	if err := q.l.Close(); err != nil {
		t.Fatal(err)
	}
	if err := q.d.Exec(func(th *Thread) error { return q.l.QueueRead(th, nil) }); err == nil || !strings.Contains(err.Error(), "after Close") {
		t.Errorf("QueueRead after Close: %v", err)
	}
}

// TestGPULaunchLogQueued: on a GPU, a read queued right after logged
// kernels that spin 50 and 100 µs returns their spans, whether
// Launches follows a synchronous download on the same stream (the
// intended use: the download waits for the copy) or comes at once,
// before the kernels are done (it waits for the queued copy's event);
// and a launch after QueueRead finishes the queued read first.
func TestGPULaunchLogQueued(t *testing.T) {
	d := requireGPU(t)
	m := must[*Module](t)(d.Compile("launchlog_test", PrependLaunchLog(launchLogTestKernels)))
	spin := must[*Function](t)(m.Function("spin"))
	buf := must[*Int32s](t)(d.AllocInt32s(1024))
	l := must[*LaunchLog](t)(d.NewLaunchLog())
	defer l.Close()
	spins := []time.Duration{50 * time.Microsecond, 100 * time.Microsecond}
	check := func(what string, ls []trace.Launch, want []time.Duration) {
		t.Helper()
		if len(ls) != len(want) {
			t.Fatalf("%s: %d launches, want %d", what, len(ls), len(want))
		}
		for i, lg := range ls {
			if lg.Time < want[i] || lg.Time > want[i]+30*time.Microsecond {
				t.Errorf("%s: launch %d (step %d): %v, want %v to %v", what, i, lg.Step, lg.Time, want[i], want[i]+30*time.Microsecond)
			}
		}
	}
	for _, download := range []bool{true, false, true} {
		host := make([]int32, buf.Len())
		err := d.Exec(func(th *Thread) error {
			for i, ns := range spins {
				if err := l.Launch(th, i, spin, D1(264), D1(256), 0, int64(ns)); err != nil {
					return err
				}
			}
			if err := l.QueueRead(th, nil); err != nil {
				return err
			}
			if download {
				return buf.Download(host)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		check(fmt.Sprintf("download %v", download), must[[]trace.Launch](t)(l.Launches()), spins)
	}
	err := d.Exec(func(th *Thread) error {
		if err := l.Launch(th, 0, spin, D1(264), D1(256), 0, int64(spins[0])); err != nil {
			return err
		}
		if err := l.QueueRead(th, nil); err != nil {
			return err
		}
		return l.Launch(th, 1, spin, D1(264), D1(256), 0, int64(spins[1]))
	})
	if err != nil {
		t.Fatal(err)
	}
	check("a launch after QueueRead", must[[]trace.Launch](t)(l.Launches()), spins)
}
