//go:build cgo

package gpu

import (
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/graphnb/graphnb/trace"
)

// The launch timer's tests: scenarios on the fake driver, run by
// TestFakeDriver each in a child process (`go test -run
// 'TestFakeDriver/launch_timer'`), TestLaunchTimerHost, and
// TestGPULaunchTimer on a real GPU (it skips without one).

// fakeElapsed is what the fake driver's cuEventElapsedTime_v2 returns for
// every pair of recorded events.
const fakeElapsed = 2500 * time.Microsecond

// The scenarios run as TestFakeDriver's (fake_test.go), each in a child
// process with the fake driver.
func init() {
	for _, sc := range launchTimerScenarios {
		addScenario(sc.name, sc.env, sc.run)
	}
}

var launchTimerScenarios = []scenario{
	{name: "launch_timer", run: fakeLaunchTimer},
	{name: "launch_timer_errors", run: fakeLaunchTimerErrors},
	{name: "launch_timer_reset", run: fakeLaunchTimerReset},
	{name: "launch_timer_chain", run: fakeLaunchTimerChain},
}

// fakeLaunchTimerChain: with Chain, launches back to back on one stream
// share an event (the fill between two of them counts in the second's
// time), a launch on another stream starts with an event of its own, and
// a run of n launches on one stream uses n+1 events, pooled as before.
func fakeLaunchTimerChain(t *testing.T) {
	d := fakeDevice(t)
	plain := fn(t, fakeModule(t, d), "plain")
	buf := must[*Int32s](t)(d.AllocInt32s(16))
	lt := must[*LaunchTimer](t)(d.NewLaunchTimer())
	defer lt.Close()
	lt.Chain(true)
	for run := range 2 { // the second reuses the pool
		from := logLines(t)
		_, err := d.Time(func(th *Thread) error {
			for i := range 3 {
				if err := lt.Launch(th, i, plain, D1(i+1), D1(32), 0, buf); err != nil {
					return err
				}
				if i == 0 {
					if err := buf.Fill(1); err != nil {
						return err
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		ls := must[[]trace.Launch](t)(lt.Launches())
		checkLaunches(t, ls, []trace.Launch{
			{Name: "plain", Grid: [3]int{1, 1, 1}, Block: [3]int{32, 1, 1}, Step: 0},
			{Name: "plain", Grid: [3]int{2, 1, 1}, Block: [3]int{32, 1, 1}, Step: 1},
			{Name: "plain", Grid: [3]int{3, 1, 1}, Block: [3]int{32, 1, 1}, Step: 2},
		})
		// Time's start, one event before the first launch, one after each.
		if got, want := timerOrder(t, from), "RRLRMLRLRR"; got != want {
			t.Errorf("run %d: records (R), launches (L) and memsets (M) in order: %s, want %s", run, got, want)
		}
		if n := len(lt.events); n != 4 {
			t.Errorf("run %d: %d pooled events for 3 chained launches, want 4", run, n)
		}
	}
	// On another stream a launch does not chain to the default stream's.
	s := must[*Stream](t)(d.NewStream())
	defer s.Close()
	err := d.Exec(func(th *Thread) error {
		if err := lt.Launch(th, 0, plain, D1(1), D1(32), 0, buf); err != nil {
			return err
		}
		return lt.LaunchOn(th, s, 1, plain, D1(1), D1(32), 0, buf)
	})
	if err != nil {
		t.Fatal(err)
	}
	if ls := must[[]trace.Launch](t)(lt.Launches()); len(ls) != 2 || len(lt.events) != 4 {
		t.Errorf("two streams: %+v, %d events; want 2 launches and 4 events", ls, len(lt.events))
	}
	var nilTimer *LaunchTimer
	nilTimer.Chain(true) // does nothing
	// Break: the launch after it starts with an event of its own, the
	// one after that is chained again.
	from := logLines(t)
	_, err = d.Time(func(th *Thread) error {
		for i := range 3 {
			if i == 1 {
				lt.Break()
			}
			if err := lt.Launch(th, i, plain, D1(1), D1(32), 0, buf); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lt.Launches(); err != nil {
		t.Fatal(err)
	}
	if got, want := timerOrder(t, from), "RRLRRLRLRR"; got != want {
		t.Errorf("with a Break before the second launch: records (R) and launches (L) in order: %s, want %s", got, want)
	}
}

// checkLaunches compares recorded launches with want, ignoring Time, which
// must be ≥ 0; it returns their total time.
func checkLaunches(t *testing.T, got, want []trace.Launch) time.Duration {
	t.Helper()
	var sum time.Duration
	strip := make([]trace.Launch, len(got))
	for i, l := range got {
		if l.Time < 0 {
			t.Errorf("launch %d (%s): time %v < 0", i, l.Name, l.Time)
		}
		sum += l.Time
		l.Time = 0
		strip[i] = l
	}
	if !reflect.DeepEqual(strip, want) {
		t.Errorf("launches (times left out)\n got %+v\nwant %+v", strip, want)
	}
	return sum
}

// timerOrder returns the fake driver's log of event records (R), launches
// (L) and memsets (M) from line from on, as a string.
func timerOrder(t *testing.T, from int) string {
	t.Helper()
	lines := strings.Split(readLog(t), "\n")
	var b strings.Builder
	for _, l := range lines[min(from, len(lines)):] {
		switch {
		case strings.HasPrefix(l, "cuEventRecord "):
			if l != "cuEventRecord stream=(nil)" {
				t.Errorf("an event recorded off the default stream: %q", l)
			}
			b.WriteByte('R')
		case strings.HasPrefix(l, "cuLaunchKernel "):
			b.WriteByte('L')
		case strings.HasPrefix(l, "cuMemset"):
			b.WriteByte('M')
		}
	}
	return b.String()
}

func logLines(t *testing.T) int { return strings.Count(readLog(t), "\n") }

func fakeLaunchTimer(t *testing.T) {
	d := fakeDevice(t)
	m := fakeModule(t, d)
	iota, plain := fn(t, m, "fake_iota"), fn(t, m, "plain")
	buf := must[*Int32s](t)(d.AllocInt32s(16))
	lt := must[*LaunchTimer](t)(d.NewLaunchTimer())
	if lt.Device() != d {
		t.Error("LaunchTimer.Device")
	}
	if ls, err := lt.Launches(); ls != nil || err != nil {
		t.Errorf("Launches before any launch = %v, %v; want nil, nil", ls, err)
	}

	// Round 1: three launches over two steps, a fill between them (not
	// timed) and an empty grid (not recorded).
	created := countLog(t, "cuEventCreate")
	from := logLines(t)
	el, err := d.Time(func(th *Thread) error {
		if err := lt.Launch(th, 0, iota, Blocks(16, 8), D1(8), 0, buf, 16); err != nil {
			return err
		}
		if err := buf.Fill(7); err != nil {
			return err
		}
		if err := lt.Launch(th, 0, plain, D2(2, 3), D3(32, 2, 1), 0, buf); err != nil {
			return err
		}
		if err := lt.Launch(th, 1, plain, Blocks(0, 128), D1(128), 0, buf); err != nil {
			return err
		}
		return lt.Launch(th, 1, plain, Dim{X: 4}, D1(64), 128, buf)
	})
	if err != nil {
		t.Fatal(err)
	}
	ls := must[[]trace.Launch](t)(lt.Launches())
	sum := checkLaunches(t, ls, []trace.Launch{
		{Name: "fake_iota", Grid: [3]int{2, 1, 1}, Block: [3]int{8, 1, 1}, Step: 0},
		{Name: "plain", Grid: [3]int{2, 3, 1}, Block: [3]int{32, 2, 1}, Step: 0},
		{Name: "plain", Grid: [3]int{4, 1, 1}, Block: [3]int{64, 1, 1}, Step: 1},
	})
	// The fake's elapsed time is 2.5 ms for any pair of events, Time's
	// included: each launch gets it, and the launches' sum (7.5 ms)
	// exceeds Time's 2.5 ms, which a real GPU's does not (see
	// TestGPULaunchTimer).
	for i, l := range ls {
		if l.Time != fakeElapsed {
			t.Errorf("launch %d: time %v, want the fake driver's %v", i, l.Time, fakeElapsed)
		}
	}
	if el != fakeElapsed || sum != 3*fakeElapsed {
		t.Errorf("Time %v, launches' sum %v; want %v and %v from the fake driver", el, sum, fakeElapsed, 3*fakeElapsed)
	}
	// Time's start, then a start and an end event around each launch, the
	// fill outside them, then Time's end.
	if got, want := timerOrder(t, from), "RRLRMRLRRLRR"; got != want {
		t.Errorf("records (R), launches (L) and memsets (M) in order: %s, want %s", got, want)
	}
	if n := len(lt.events); n != 6 {
		t.Errorf("%d pooled events after 3 launches, want 6", n)
	}
	timeEvents := 0
	if created == 0 {
		timeEvents = 2 // Time's own, created on its first call
	}
	if n := countLog(t, "cuEventCreate") - created; n != 6+timeEvents {
		t.Errorf("%d events created, want %d", n, 6+timeEvents)
	}
	if got := must[[]int32](t)(buf.ToHost()); got[0] != 7 || got[15] != 7 {
		t.Errorf("buffer %v after the fill", got)
	}
	if ls, err := lt.Launches(); ls != nil || err != nil {
		t.Errorf("Launches again = %v, %v; want nil, nil (forgotten)", ls, err)
	}

	// Round 2: fewer launches, set-up included; the pool is reused.
	created = countLog(t, "cuEventCreate")
	from = logLines(t)
	_, err = d.Time(func(th *Thread) error {
		if err := lt.Launch(th, -1, iota, D1(2), D1(8), 0, buf, 16); err != nil {
			return err
		}
		return lt.Launch(th, 0, plain, D1(1), D1(32), 0, buf)
	})
	if err != nil {
		t.Fatal(err)
	}
	ls = must[[]trace.Launch](t)(lt.Launches())
	checkLaunches(t, ls, []trace.Launch{
		{Name: "fake_iota", Grid: [3]int{2, 1, 1}, Block: [3]int{8, 1, 1}, Step: -1},
		{Name: "plain", Grid: [3]int{1, 1, 1}, Block: [3]int{32, 1, 1}, Step: 0},
	})
	if n := len(lt.events); n != 6 {
		t.Errorf("%d pooled events after a second run of 2 launches, want still 6", n)
	}
	if n := countLog(t, "cuEventCreate") - created; n != 0 {
		t.Errorf("the second run created %d events, want 0 (pooled)", n)
	}
	if got, want := timerOrder(t, from), "RRLRRLRR"; got != want {
		t.Errorf("second run: %s, want %s", got, want)
	}

	// Round 3: more launches than before grow the pool, by what they need.
	err = d.Exec(func(th *Thread) error {
		for i := range 4 {
			if err := lt.Launch(th, i, plain, D1(i+1), D1(32), 0, buf); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	ls = must[[]trace.Launch](t)(lt.Launches())
	if len(ls) != 4 || ls[3].Grid != [3]int{4, 1, 1} || ls[3].Step != 3 || len(lt.events) != 8 {
		t.Errorf("4 launches: %+v, %d events; want 4 launches and 8 events", ls, len(lt.events))
	}
	// Launches may be called on the device thread too.
	err = d.Exec(func(th *Thread) error {
		if err := lt.Launch(th, 0, plain, D1(1), D1(32), 0, buf); err != nil {
			return err
		}
		ls, err := lt.Launches()
		if err == nil && len(ls) != 1 {
			t.Errorf("Launches inside Exec: %+v", ls)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}

	// Close releases every event; after it the timer refuses work.
	destroyed := countLog(t, "cuEventDestroy_v2")
	if err := lt.Close(); err != nil {
		t.Fatal(err)
	}
	if n := countLog(t, "cuEventDestroy_v2") - destroyed; n != 8 {
		t.Errorf("Close destroyed %d events, want 8", n)
	}
	if err := lt.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	launches := countLog(t, "cuLaunchKernel ")
	err = d.Exec(func(th *Thread) error { return lt.Launch(th, 0, plain, D1(1), D1(32), 0, buf) })
	wantErr(t, err, nil, "gpu: launch timer: Launch(plain) after Close")
	if n := countLog(t, "cuLaunchKernel ") - launches; n != 0 {
		t.Errorf("a closed timer launched %d kernels", n)
	}
	_, err = lt.Launches()
	wantErr(t, err, nil, "gpu: launch timer: Launches after Close")
}

func fakeLaunchTimerErrors(t *testing.T) {
	d := fakeDevice(t)
	m := fakeModule(t, d)
	plain := fn(t, m, "plain")
	lt := must[*LaunchTimer](t)(d.NewLaunchTimer())
	defer lt.Close()
	err := d.Exec(func(th *Thread) error {
		// A launch Thread.Launch refuses is refused alike, and not recorded.
		wantErr(t, lt.Launch(th, 0, plain, D1(1), D1(32), 0, "oops"), nil, "gpu: launching plain", "argument 1 of 1 has type string")
		wantErr(t, lt.Launch(th, 0, plain, D1(1), Dim{}, 0), nil, "at least one thread")
		wantErr(t, lt.Launch(th, 0, plain, D1(-1), D1(1), 0), nil, "out of range")
		wantErr(t, lt.Launch(th, 0, nil, D1(1), D1(1), 0), nil, "nil *Function")
		wantErr(t, lt.Launch(nil, 0, plain, D1(1), D1(1), 0), nil, "gpu: launch timer: Launch(plain)", "*Thread")
		wantErr(t, lt.Launch(th, -2, plain, D1(1), D1(1), 0), nil, "gpu: launch timer: Launch(plain): step -2")
		// An empty grid is checked as Thread.Launch checks it, and not
		// recorded.
		wantErr(t, lt.Launch(th, 0, plain, Dim{X: 0, Y: -1}, D1(1), 0), nil, "out of range")
		if err := lt.Launch(th, 0, plain, Blocks(0, 256), D1(256), 0); err != nil {
			t.Errorf("empty grid: %v", err)
		}
		return lt.Launch(th, 2, plain, D1(1), D1(32), 0)
	})
	if err != nil {
		t.Fatal(err)
	}
	ls := must[[]trace.Launch](t)(lt.Launches())
	checkLaunches(t, ls, []trace.Launch{{Name: "plain", Grid: [3]int{1, 1, 1}, Block: [3]int{32, 1, 1}, Step: 2}})
	if n := countLog(t, "cuLaunchKernel "); n != 1 {
		t.Errorf("%d launches reached the driver, want 1", n)
	}
	// A failed event record names the timer and the kernel; the launch is
	// not recorded.
	os.Setenv("FAKE_CUDA_FAIL", "cuEventRecord=1:1")
	err = d.Exec(func(th *Thread) error { return lt.Launch(th, 0, plain, D1(1), D1(32), 0) })
	os.Unsetenv("FAKE_CUDA_FAIL")
	wantErr(t, err, nil, "gpu: launch timer: recording the event before plain", "cuEventRecord", "CUDA_ERROR_INVALID_VALUE")
	if ls, err := lt.Launches(); ls != nil || err != nil {
		t.Errorf("Launches after a failed record = %v, %v; want nil, nil", ls, err)
	}
	// A failed elapsed-time query names the launch; the launches are
	// forgotten all the same.
	err = d.Exec(func(th *Thread) error { return lt.Launch(th, 5, plain, D1(1), D1(32), 0) })
	if err != nil {
		t.Fatal(err)
	}
	os.Setenv("FAKE_CUDA_FAIL", "cuEventElapsedTime_v2=1:1")
	_, err = lt.Launches()
	os.Unsetenv("FAKE_CUDA_FAIL")
	wantErr(t, err, nil, "gpu: launch timer: timing launch 1 of 1 (plain)", "cuEventElapsedTime_v2")
	if ls, err := lt.Launches(); ls != nil || err != nil {
		t.Errorf("Launches after a failed one = %v, %v; want nil, nil", ls, err)
	}
	// A thread of another device is refused: the host has none, so use a
	// Thread value of another device.
	other := &Thread{d: &Device{ordinal: 7, static: Info{Name: "Other GPU"}}}
	wantErr(t, lt.Launch(other, 0, plain, D1(1), D1(1), 0), nil, "gpu: launch timer: Launch(plain): the timer belongs to", "Other GPU (device 7)")
}

// fakeLaunchTimerReset: a device reset between a run's launches and
// Launches loses their times (ErrInvalidated); the pool's invalidated
// events are replaced, not added to.
func fakeLaunchTimerReset(t *testing.T) {
	d := fakeDevice(t)
	plain := fn(t, fakeModule(t, d), "plain")
	lt := must[*LaunchTimer](t)(d.NewLaunchTimer())
	defer lt.Close()
	run := func(n int) error {
		return d.Exec(func(th *Thread) error {
			for i := range n {
				if err := lt.Launch(th, i, plain, D1(1), D1(32), 0); err != nil {
					return err
				}
			}
			return nil
		})
	}
	if err := run(2); err != nil {
		t.Fatal(err)
	}
	if err := d.Reset(); err != nil {
		t.Fatal(err)
	}
	_, err := lt.Launches()
	wantErr(t, err, ErrInvalidated, "gpu: launch timer: the events of launch 1 of 2 (plain)")
	if err := run(2); err != nil {
		t.Fatal(err)
	}
	ls := must[[]trace.Launch](t)(lt.Launches())
	if len(ls) != 2 || len(lt.events) != 4 {
		t.Errorf("after the reset: %+v, %d events; want 2 launches and 4 events", ls, len(lt.events))
	}
}

func TestLaunchTimerHost(t *testing.T) {
	lt, err := Host().NewLaunchTimer()
	if lt != nil {
		t.Errorf("NewLaunchTimer on the host returned a timer")
	}
	wantErr(t, err, ErrHost, "gpu: launch timer", "host device", "no kernels to time")
	_, err = (*Device)(nil).NewLaunchTimer()
	wantErr(t, err, nil, "gpu: launch timer", "nil *Device")

	// KeepLaunchTimer keeps nothing when it cannot make a timer.
	var kept *LaunchTimer
	if lt, err := Host().KeepLaunchTimer(&kept); lt != nil || kept != nil || !errors.Is(err, ErrHost) {
		t.Errorf("KeepLaunchTimer on the host: %v, kept %v, %v", lt, kept, err)
	}
	// A nil timer records nothing and has nothing to close.
	if l, err := kept.Launches(); l != nil || err != nil {
		t.Errorf("a nil timer's Launches: %v, %v", l, err)
	}
	if err := kept.Close(); err != nil {
		t.Errorf("a nil timer's Close: %v", err)
	}
}

// TestGPULaunchTimer times launches on a real GPU: each launch's time is
// positive, and the launches' sum, fills between them left out, is at
// most Time's.
func TestGPULaunchTimer(t *testing.T) {
	d := requireGPU(t)
	vadd := must[*Function](t)(testModule(t, d).Function("vadd"))
	n := 1 << 22
	x := must[*Float32s](t)(d.AllocFloat32s(n))
	defer x.Free()
	y := must[*Float32s](t)(d.AllocFloat32s(n))
	defer y.Free()
	lt := must[*LaunchTimer](t)(d.NewLaunchTimer())
	defer lt.Close()
	for round := range 2 {
		el, err := d.Time(func(th *Thread) error {
			if err := lt.Launch(th, 0, vadd, Blocks(n, 256), D1(256), 0, x, x, y, n); err != nil {
				return err
			}
			for range 4 { // untimed work between launches
				if err := x.Fill(1); err != nil {
					return err
				}
			}
			if err := lt.Launch(th, 0, vadd, Blocks(n, 512), D1(512), 0, x, x, y, n); err != nil {
				return err
			}
			return lt.Launch(th, 1, vadd, Blocks(n, 128), D1(128), 0, x, y, y, n)
		})
		if err != nil {
			t.Fatal(err)
		}
		ls := must[[]trace.Launch](t)(lt.Launches())
		g := func(b int) [3]int { return [3]int{(n + b - 1) / b, 1, 1} }
		sum := checkLaunches(t, ls, []trace.Launch{
			{Name: "vadd", Grid: g(256), Block: [3]int{256, 1, 1}, Step: 0},
			{Name: "vadd", Grid: g(512), Block: [3]int{512, 1, 1}, Step: 0},
			{Name: "vadd", Grid: g(128), Block: [3]int{128, 1, 1}, Step: 1},
		})
		for i, l := range ls {
			if l.Time <= 0 {
				t.Errorf("round %d launch %d: time %v, want > 0", round, i, l.Time)
			}
		}
		const slack = 20 * time.Microsecond // event resolution, about 0.5 µs per event
		if sum > el+slack {
			t.Errorf("round %d: launches' sum %v exceeds Time's %v", round, sum, el)
		}
		if len(lt.events) != 6 {
			t.Errorf("round %d: %d pooled events, want 6", round, len(lt.events))
		}
		t.Logf("round %d: Time %v, launches %v + %v + %v = %v (4 fills of %d floats between launches 1 and 2)",
			round, el, ls[0].Time, ls[1].Time, ls[2].Time, sum, n)
	}
	got := must[[]float32](t)(y.ToHost())
	if got[0] != 3 || got[n-1] != 3 { // x = 1 after the fills, y = x + x = 2, then y = x + y = 3
		t.Errorf("y = %v … %v, want 3", got[0], got[n-1])
	}
}
