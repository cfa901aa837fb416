//go:build cgo

package gpu

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/graphnb/graphnb/internal/cudasrc"
	"github.com/graphnb/graphnb/trace"
)

// The launch log's tests: scenarios on the fake driver, run by
// TestFakeDriver each in a child process (`go test -run
// 'TestFakeDriver/launch_log'`). The fake driver runs no kernel, so a
// scenario plays the kernels' part: after each launch it writes the
// launch's entry as llog_begin and llog_end would (stamp). The kernels'
// side runs in the algorithms' fake-GPU tests (bfs's trace) and on GPUs.
func init() {
	addScenario("launch_log", nil, fakeLaunchLog)
	addScenario("launch_log_errors", nil, fakeLaunchLogErrors)
	addScenario("launch_log_open", nil, fakeLaunchLogOpen)
	// launchlog_queued_fake_test.go: QueueRead's
	addScenario("launch_log_queued", nil, fakeLaunchLogQueued)
	addScenario("launch_log_queued_open", nil, fakeLaunchLogQueuedOpen)
	addScenario("launch_log_queued_errors", nil, fakeLaunchLogQueuedErrors)
}

// TestLaunchLogHeader: launchlog.cuh's layout is the Go side's.
func TestLaunchLogHeader(t *testing.T) {
	cudasrc.CheckDefines(t, "launchlog.cuh", launchLogHeader, map[string]int64{
		"LLOG_WORDS": launchLogWords, "LLOG_START": launchLogStart, "LLOG_END": launchLogEnd, "LLOG_ENDS": launchLogEnds,
		"LLOG_OPEN": launchLogOpen})
	if launchLogEnd+launchLogEnds > launchLogWords {
		t.Errorf("an entry of %d words holds no %d end words from word %d", launchLogWords, launchLogEnds, launchLogEnd)
	}
	if !strings.HasPrefix(PrependLaunchLog("BODY"), launchLogHeader) || !strings.HasSuffix(PrependLaunchLog("BODY"), "\nBODY") {
		t.Error("PrependLaunchLog does not put the header before the body")
	}
}

// TestLaunchLogHost: the host device has no kernels to log; a nil log
// does nothing.
func TestLaunchLogHost(t *testing.T) {
	if _, err := Host().NewLaunchLog(); !errors.Is(err, ErrHost) {
		t.Errorf("NewLaunchLog on the host: %v, want ErrHost", err)
	}
	var l *LaunchLog
	if ls, err := l.Launches(); ls != nil || err != nil {
		t.Errorf("nil log's Launches = %v, %v", ls, err)
	}
	l.Drop()
	if err := l.Close(); err != nil {
		t.Error(err)
	}
}

// stamp writes the entry of the launch logged last, as its kernel's
// blocks would: start at ns from, end dur later (mirror is the ring's contents, kept by
// the scenario).
func stamp(t *testing.T, l *LaunchLog, mirror []uint64, from uint64, dur time.Duration) {
	t.Helper()
	j := (l.pos + len(l.pending) - 1) % LaunchLogCap
	mirror[launchLogWords*j+launchLogStart] = from
	// Two blocks' end words; the later is the launch's end.
	mirror[launchLogWords*j+launchLogEnd] = from + uint64(dur/2)
	mirror[launchLogWords*j+launchLogEnd+launchLogEnds-1] = from + uint64(dur)
	if err := l.ring.Upload(mirror); err != nil {
		t.Fatal(err)
	}
}

// lastEntries returns the last two arguments of the fake driver's last
// launch: the entry and next-entry addresses.
func lastEntries(t *testing.T) (ent, nxt uint64) {
	t.Helper()
	_, _, _, _, _, args := lastLaunch(t)
	if len(args) < 2 {
		t.Fatalf("the last launch has %d arguments", len(args))
	}
	return binary.LittleEndian.Uint64(args[len(args)-2][:]), binary.LittleEndian.Uint64(args[len(args)-1][:])
}

// fakeLaunchLog: launches get their entries and the next ones, in ring
// order; Launches returns them with the stamped spans; a run longer than
// the ring is read in the middle and comes back whole and in order; the
// ring goes on from where the last run stopped; empty grids and a nil log
// launch with NULL entries and log nothing.
func fakeLaunchLog(t *testing.T) {
	d := fakeDevice(t)
	plain := fn(t, fakeModule(t, d), "plain")
	buf := must[*Int32s](t)(d.AllocInt32s(16))
	l := must[*LaunchLog](t)(d.NewLaunchLog())
	defer l.Close()
	if ls, err := l.Launches(); ls != nil || err != nil {
		t.Errorf("Launches before any launch = %v, %v; want nil, nil", ls, err)
	}
	mirror := make([]uint64, LaunchLogCap*launchLogWords)
	var want []trace.Launch
	var times []time.Duration
	runs := []int{3, LaunchLogCap + 7, 2} // the second wraps, the third starts mid-ring
	for run, n := range runs {
		want, times = want[:0], times[:0]
		err := d.Exec(func(th *Thread) error {
			for i := range n {
				if err := l.Launch(th, i, plain, D1(i%3+1), D1(32), 0, buf); err != nil {
					return err
				}
				j := (l.pos + len(l.pending) - 1) % LaunchLogCap
				if ent, nxt := lastEntries(t); ent != l.entry(j) || nxt != l.entry(j+1) {
					t.Fatalf("run %d launch %d: entries %#x, %#x; want %#x, %#x", run, i, ent, nxt, l.entry(j), l.entry(j+1))
				}
				dur := time.Duration(100*(i+1)) * time.Nanosecond
				stamp(t, l, mirror, uint64(1_000_000*(run+1)+1000*i), dur)
				want = append(want, trace.Launch{Name: "plain", Grid: [3]int{i%3 + 1, 1, 1}, Block: [3]int{32, 1, 1}, Step: i})
				times = append(times, dur)
				if i == 0 {
					// Nothing to log: launched (not) with NULL entries.
					if err := l.Launch(th, i, plain, D1(0), D1(32), 0, buf); err != nil {
						return err
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		got := must[[]trace.Launch](t)(l.Launches())
		checkLaunches(t, got, want)
		for i, g := range got {
			if g.Time != times[i] {
				t.Fatalf("run %d launch %d: time %v, want %v", run, i, g.Time, times[i])
			}
		}
	}
	if l.pos != (3+LaunchLogCap+7+2)%LaunchLogCap {
		t.Errorf("the ring's next entry is %d after %v launches", l.pos, runs)
	}
	// A nil log launches with NULL entries.
	var nilLog *LaunchLog
	err := d.Exec(func(th *Thread) error { return nilLog.Launch(th, 0, plain, D1(1), D1(32), 0, buf) })
	if err != nil {
		t.Fatal(err)
	}
	if ent, nxt := lastEntries(t); ent != 0 || nxt != 0 {
		t.Errorf("a nil log's launch passed entries %#x, %#x", ent, nxt)
	}
}

// fakeLaunchLogOpen: an open launch gets its entry with the open bit
// set and takes its time from its start to the next launch's (its own
// end words ignored), also across a read in the middle of a run longer
// than the ring; a run whose last launch is open fails Launches with
// what to do.
func fakeLaunchLogOpen(t *testing.T) {
	d := fakeDevice(t)
	plain := fn(t, fakeModule(t, d), "plain")
	buf := must[*Int32s](t)(d.AllocInt32s(16))
	l := must[*LaunchLog](t)(d.NewLaunchLog())
	defer l.Close()
	mirror := make([]uint64, LaunchLogCap*launchLogWords)
	for run, n := range []int{4, LaunchLogCap + 7} {
		var times []time.Duration
		err := d.Exec(func(th *Thread) error {
			for i := range n {
				open := i < n-1 && i%5 != 2 // every fifth launches closed, and the last
				launch := l.LaunchOn
				if open {
					launch = l.LaunchOpen
				}
				if err := launch(th, nil, i, plain, D1(1), D1(32), 0, buf); err != nil {
					return err
				}
				j := (l.pos + len(l.pending) - 1) % LaunchLogCap
				want := l.entry(j)
				if open {
					want |= launchLogOpen
				}
				if ent, _ := lastEntries(t); ent != want {
					t.Fatalf("run %d launch %d (open %v): entry %#x, want %#x", run, i, open, ent, want)
				}
				// Starts 1000 ns apart; a closed launch ends 300 ns after
				// its start, an open one's end words hold a stale 1 (ignored).
				start := uint64(1_000_000*(run+1) + 1000*i)
				stamp(t, l, mirror, start, 300*time.Nanosecond)
				if open {
					mirror[launchLogWords*j+launchLogEnd] = 1
					mirror[launchLogWords*j+launchLogEnd+launchLogEnds-1] = 1
					if err := l.ring.Upload(mirror); err != nil {
						t.Fatal(err)
					}
					times = append(times, 1000*time.Nanosecond)
				} else {
					times = append(times, 300*time.Nanosecond)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		got := must[[]trace.Launch](t)(l.Launches())
		if len(got) != n {
			t.Fatalf("run %d: %d launches back, want %d", run, len(got), n)
		}
		for i, g := range got {
			open := times[i] == 1000*time.Nanosecond
			if g.Step != i || g.Time != times[i] || g.Open != open {
				t.Fatalf("run %d launch %d: step %d, time %v, open %v; want step %d, %v, open %v", run, i, g.Step, g.Time, g.Open, i, times[i], open)
			}
		}
	}
	err := d.Exec(func(th *Thread) error { return l.LaunchOpen(th, nil, 0, plain, D1(1), D1(32), 0, buf) })
	if err != nil {
		t.Fatal(err)
	}
	stamp(t, l, mirror, 9_000_000, time.Microsecond)
	if ls, err := l.Launches(); err == nil || !strings.Contains(err.Error(), "no logged launch followed it") || ls != nil {
		t.Errorf("an open last launch: %v, %v", ls, err)
	}
}

// fakeLaunchLogErrors: an entry its kernel did not complete fails
// Launches with the launch named, and the ring is zeroed before the next
// launch; Drop forgets a failed run's launches; misuse says what to do.
func fakeLaunchLogErrors(t *testing.T) {
	d := fakeDevice(t)
	plain := fn(t, fakeModule(t, d), "plain")
	buf := must[*Int32s](t)(d.AllocInt32s(16))
	l := must[*LaunchLog](t)(d.NewLaunchLog())
	mirror := make([]uint64, LaunchLogCap*launchLogWords)
	launch := func(steps ...int) {
		t.Helper()
		err := d.Exec(func(th *Thread) error {
			for _, s := range steps {
				if err := l.Launch(th, s, plain, D1(1), D1(32), 0, buf); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	launch(0)
	stamp(t, l, mirror, 5000, time.Microsecond)
	launch(1) // not stamped: its kernel did not log
	if ls, err := l.Launches(); err == nil || !strings.Contains(err.Error(), "launch 2 of 2 (plain) is incomplete") || ls != nil {
		t.Errorf("an unstamped entry: %v, %v", ls, err)
	}
	fills := countLog(t, "cuMemsetD")
	launch(0)
	if countLog(t, "cuMemsetD") == fills || l.pos != 0 {
		t.Errorf("the ring was not zeroed after the failed read (position %d)", l.pos)
	}
	l.Drop()
	if ls, err := l.Launches(); ls != nil || err != nil {
		t.Errorf("Launches after Drop = %v, %v; want nothing", ls, err)
	}
	err := d.Exec(func(th *Thread) error { return l.Launch(th, -2, plain, D1(1), D1(32), 0, buf) })
	if err == nil || !strings.Contains(err.Error(), "step -2") {
		t.Errorf("step -2: %v", err)
	}
	if err := l.Launch(nil, 0, plain, D1(1), D1(32), 0, buf); err == nil || !strings.Contains(err.Error(), "*Thread") {
		t.Errorf("a nil thread: %v", err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Errorf("Close twice: %v", err)
	}
	err = d.Exec(func(th *Thread) error { return l.Launch(th, 0, plain, D1(1), D1(32), 0, buf) })
	if err == nil || !strings.Contains(err.Error(), "after Close") {
		t.Errorf("Launch after Close: %v", err)
	}
	if _, err := l.Launches(); err == nil {
		t.Error("Launches after Close: no error")
	}
}

// launchLogTestKernels spin for ns of the global timer, every thread
// (spin) or the threads of the first half of the blocks (halfSpin: the
// others return at once, before llog_end's barrier would be reached if
// they were not inside llog_kernel's lambda).
const launchLogTestKernels = `
extern "C" __global__ void spin(long long ns, unsigned long long *ent, unsigned long long *nxt) {
	llog_begin(ent, nxt);
	unsigned long long t0 = llog_clock();
	while (llog_clock() - t0 < (unsigned long long)ns) {
	}
	llog_end(ent);
}

extern "C" __global__ void half_spin(long long ns, unsigned long long *ent, unsigned long long *nxt) {
	llog_kernel(ent, nxt, [&] {
		if (blockIdx.x >= gridDim.x / 2) {
			return;
		}
		unsigned long long t0 = llog_clock();
		while (llog_clock() - t0 < (unsigned long long)ns) {
		}
	});
}
`

// TestGPULaunchLog: on a GPU, logged kernels that spin 20, 50 and 100 µs
// (one on another stream, one returning early from llog_kernel's lambda)
// log spans of at least that and not much more, in order, run after run.
func TestGPULaunchLog(t *testing.T) {
	d := requireGPU(t)
	m := must[*Module](t)(d.Compile("launchlog_test", PrependLaunchLog(launchLogTestKernels)))
	spin := must[*Function](t)(m.Function("spin"))
	half := must[*Function](t)(m.Function("half_spin"))
	s := must[*Stream](t)(d.NewStream())
	defer s.Close()
	l := must[*LaunchLog](t)(d.NewLaunchLog())
	defer l.Close()
	spins := []time.Duration{20 * time.Microsecond, 50 * time.Microsecond, 100 * time.Microsecond}
	for run := range 3 {
		_, err := d.Time(func(th *Thread) error {
			if err := l.Launch(th, 0, spin, D1(264), D1(256), 0, int64(spins[0])); err != nil {
				return err
			}
			if err := l.LaunchOn(th, s, 1, spin, D1(4), D1(128), 0, int64(spins[1])); err != nil {
				return err
			}
			if err := th.Synchronize(); err != nil { // the next launch zeroed by the last: keep the order
				return err
			}
			return l.Launch(th, 2, half, D1(528), D1(256), 0, int64(spins[2]))
		})
		if err != nil {
			t.Fatal(err)
		}
		ls := must[[]trace.Launch](t)(l.Launches())
		if len(ls) != 3 {
			t.Fatalf("run %d: %d launches, want 3", run, len(ls))
		}
		for i, lg := range ls {
			if lg.Step != i || lg.Time < spins[i] || lg.Time > spins[i]+30*time.Microsecond {
				t.Errorf("run %d launch %d (%s, step %d): %v, want %v to %v", run, i, lg.Name, lg.Step, lg.Time,
					spins[i], spins[i]+30*time.Microsecond)
			}
		}
	}
}
