package gpu

import (
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/graphnb/graphnb/trace"
)

// LaunchTimer times kernel launches with CUDA events recorded around each
// on the default stream, for run traces (trace.Launch). Launch queues a
// kernel between a start and an end event of its own, so copies and fills
// the caller queues between launches do not count; Launches, called after
// the timed region, reads the times and hands the launches back.
//
// The events are pooled: a run of n launches uses 2n events (n+1 with
// Chain), created on first need and reused by the next run, so a timer
// lives as long as the algorithm's runs do. Launch takes the *Thread of Device.Exec or
// Device.Time (it makes no goroutine hop, so it may be called from their
// callbacks); Launches and Close are called outside them, or inside (they
// run on the device thread either way). The timer's state is owned by the
// device thread, so one timer may serve several goroutines' runs, their
// launches interleaving in the order the device thread ran them.
//
// A nil *LaunchTimer launches without timing (Launch and LaunchOn are
// then Thread's), and its Launches and Close return nil: code with an
// optional trace holds a nil timer when it is not tracing.
type LaunchTimer struct {
	d      *Device
	closed atomic.Bool

	// Owned by the device thread.
	events  []*Event        // pool, used from the front since the last Launches
	used    int             // events of the pool recorded since the last Launches
	pending []pendingLaunch // recorded since the last Launches, Time not yet read
	chained bool            // Chain: back-to-back launches share an event
	broken  bool            // Break: the next launch starts with an event of its own
}

// pendingLaunch is a recorded launch: its events' indices in the pool and
// the stream it was queued on.
type pendingLaunch struct {
	trace.Launch
	start, end int
	s          *Stream
}

// Chain sets whether launches queued back to back on one stream share
// their events: with on, a launch that follows another on the same
// stream (no Launches between them) starts at the event that ended the
// one before, so a run of n launches records n+1 events, not 2n, and a
// launch's time also holds whatever the caller queued between it and
// the launch before (fills, copies) and the gap between them. For runs of
// many short launches whose host cost matters (a blocked Floyd-Warshall
// round is three launches). Chain on a nil timer does nothing.
func (lt *LaunchTimer) Chain(on bool) {
	if lt != nil {
		lt.d.exec(func(*Thread) error { lt.chained = on; return nil })
	}
}

// Break makes the next launch start with an event of its own even when
// chained: host work (a copy the host waits for, a computation of its
// own) comes between it and the launch before, and must count in
// neither. Break on a nil timer does nothing. Call it from the device
// thread (a callback of Device.Exec or Device.Time), like Launch.
func (lt *LaunchTimer) Break() {
	if lt != nil {
		lt.broken = true
	}
}

// NewLaunchTimer returns a timer for launches on d. The host device has
// no kernels to time: there it returns an error wrapping ErrHost.
func (d *Device) NewLaunchTimer() (*LaunchTimer, error) {
	if d == nil {
		return nil, errors.New("gpu: launch timer: NewLaunchTimer on a nil *Device")
	}
	if d.host {
		return nil, errHost("launch timer: NewLaunchTimer", "the host device has no kernels to time; time host code with time.Now and time.Since")
	}
	if err := d.open(); err != nil {
		return nil, fmt.Errorf("gpu: launch timer: opening %v: %w", d, err)
	}
	return &LaunchTimer{d: d}, nil
}

// KeepLaunchTimer returns *kept, making it on d first when it is nil: the
// timer a prepared algorithm keeps for its traced runs, its events reused
// from run to run (the algorithm's Close closes it).
func (d *Device) KeepLaunchTimer(kept **LaunchTimer) (*LaunchTimer, error) {
	if *kept == nil {
		lt, err := d.NewLaunchTimer()
		if err != nil {
			return nil, err
		}
		*kept = lt
	}
	return *kept, nil
}

// Device returns the device whose launches the timer times.
func (lt *LaunchTimer) Device() *Device { return lt.d }

// Launch launches f like t.Launch(f, grid, block, shared, args...) and
// records an event before and after it on the default stream; step is
// the caller's step index stored in the trace.Launch (-1 for set-up). A
// grid of zero blocks launches nothing (as Thread.Launch) and is not
// recorded. The launch's own errors are Thread.Launch's, unchanged (a
// launch that fails is not recorded); the timer's start with
// "gpu: launch timer:".
func (lt *LaunchTimer) Launch(t *Thread, step int, f *Function, grid, block Dim, shared int, args ...any) error {
	return lt.LaunchOn(t, nil, step, f, grid, block, shared, args...)
}

// LaunchOn is Launch on stream s (nil: the default stream), the events
// recorded on s around the launch.
func (lt *LaunchTimer) LaunchOn(t *Thread, s *Stream, step int, f *Function, grid, block Dim, shared int, args ...any) error {
	if lt == nil {
		return t.LaunchOn(s, f, grid, block, shared, args...)
	}
	if lt.closed.Load() {
		return fmt.Errorf("gpu: launch timer: Launch(%s) after Close: the timer's events were released; make a new timer", funcName(f))
	}
	if t == nil {
		return fmt.Errorf("gpu: launch timer: Launch(%s) needs the *Thread that Device.Exec or Device.Time hands their callback, not nil", funcName(f))
	}
	if t.d != lt.d {
		return fmt.Errorf("gpu: launch timer: Launch(%s): the timer belongs to %v, the thread to %v", funcName(f), lt.d, t.d)
	}
	if step < -1 {
		return fmt.Errorf("gpu: launch timer: Launch(%s): step %d: steps count from 0, and -1 marks set-up", funcName(f), step)
	}
	if grid.X == 0 || f == nil {
		// Nothing to time: Thread.Launch checks the rest of the launch
		// and queues nothing (or says why f cannot launch).
		return t.LaunchOn(s, f, grid, block, shared, args...)
	}
	start := -1
	if n := len(lt.pending); lt.chained && !lt.broken && n > 0 && lt.pending[n-1].s == s {
		start = lt.pending[n-1].end // back to back: the last launch's end
	} else {
		e, err := lt.event(t, lt.used)
		if err != nil {
			return err
		}
		if err := t.Record(e, s); err != nil {
			return fmt.Errorf("gpu: launch timer: recording the event before %s: %w", f.name, err)
		}
		start = lt.used
		lt.used++
	}
	end, err := lt.event(t, lt.used)
	if err != nil {
		return err
	}
	if err := t.LaunchOn(s, f, grid, block, shared, args...); err != nil {
		return err // a fresh start event is recorded again by the next Launch
	}
	if err := t.Record(end, s); err != nil {
		return fmt.Errorf("gpu: launch timer: recording the event after %s: %w", f.name, err)
	}
	lt.broken = false
	lt.pending = append(lt.pending, pendingLaunch{
		Launch: trace.Launch{Name: f.name, Grid: dim3(grid), Block: dim3(block), Step: step},
		start:  start, end: lt.used, s: s,
	})
	lt.used++
	return nil
}

// event returns the pool's event i, creating it (or replacing one a
// device reset invalidated). Device thread only.
func (lt *LaunchTimer) event(t *Thread, i int) (*Event, error) {
	if i < len(lt.events) {
		e := lt.events[i]
		if !e.st.closed.Load() && e.st.gen == t.d.generation() {
			return e, nil
		}
	}
	e, err := t.d.NewEvent() // inline: t is the device thread
	if err != nil {
		return nil, fmt.Errorf("gpu: launch timer: creating event %d of the pool: %w", i+1, err)
	}
	if i < len(lt.events) {
		lt.events[i].Close() // invalidated by a reset: nothing to destroy
		lt.events[i] = e
	} else {
		lt.events = append(lt.events, e)
	}
	return e, nil
}

// Launches returns the launches recorded since the last call, in order,
// with their times (nil when there were none). It waits for the last
// recorded event, so call it after the timed region (after Device.Time
// returns, say). It then forgets them, also when it fails (after a device
// reset, say, their events are gone): their events serve the next
// launches.
func (lt *LaunchTimer) Launches() ([]trace.Launch, error) {
	if lt == nil {
		return nil, nil
	}
	if lt.closed.Load() {
		return nil, errors.New("gpu: launch timer: Launches after Close")
	}
	var out []trace.Launch
	err := lt.d.exec(func(t *Thread) error {
		if lt.closed.Load() {
			return errors.New("gpu: launch timer: Launches after Close")
		}
		pending, used := lt.pending, lt.used
		lt.pending, lt.used = lt.pending[:0], 0
		if len(pending) == 0 {
			return nil
		}
		handles := make([]uintptr, used)
		for i, l := range pending {
			for _, e := range []int{l.start, l.end} {
				h, err := lt.events[e].st.live("event", "Launches", t.d)
				if err != nil {
					return fmt.Errorf("gpu: launch timer: the events of launch %d of %d (%s): %w", i+1, len(pending), l.Name, err)
				}
				handles[e] = h
			}
		}
		// The last launch's end is the last event recorded: the others
		// are done once it is (one stream, or the caller's order).
		last := pending[len(pending)-1]
		if err := t.check("cuEventSynchronize", cuEventSync(handles[last.end])); err != nil {
			return fmt.Errorf("gpu: launch timer: waiting for the last of %d launches (%s): %w", len(pending), last.Name, err)
		}
		out = make([]trace.Launch, len(pending))
		for i, l := range pending {
			ms, code := cuEventElapsed(handles[l.start], handles[l.end])
			if err := t.check(drvElapsedSymbol(), code); err != nil {
				return fmt.Errorf("gpu: launch timer: timing launch %d of %d (%s): %w", i+1, len(pending), l.Name, err)
			}
			l.Time = max(time.Duration(float64(ms)*float64(time.Millisecond)), 0)
			out[i] = l.Launch
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Close releases the timer's events; Launch and Launches fail after it.
// Close is idempotent.
func (lt *LaunchTimer) Close() error {
	if lt == nil || lt.closed.Load() {
		return nil
	}
	err := lt.d.exec(func(t *Thread) error {
		if !lt.closed.CompareAndSwap(false, true) {
			return nil
		}
		var errs []error
		for _, e := range lt.events {
			if err := e.Close(); err != nil {
				errs = append(errs, err)
			}
		}
		lt.events, lt.pending, lt.used = nil, nil, 0
		if len(errs) > 0 {
			return fmt.Errorf("gpu: launch timer: Close: releasing %d of its events: %w", len(errs), errors.Join(errs...))
		}
		return nil
	})
	if err != nil && lt.d.Err() != nil {
		// The device is unusable: its context, and the events with it,
		// are gone already.
		lt.closed.Store(true)
		return nil
	}
	return err
}

// funcName names f in an error, nil included.
func funcName(f *Function) string {
	if f == nil {
		return "nil *Function"
	}
	return f.name
}

// dim3 returns d as a trace stores it, a zero Y or Z counting as 1.
func dim3(d Dim) [3]int { return [3]int{d.X, max(d.Y, 1), max(d.Z, 1)} }
