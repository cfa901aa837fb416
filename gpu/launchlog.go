package gpu

import (
	_ "embed"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/graphnb/graphnb/trace"
)

//go:embed launchlog.cuh
var launchLogHeader string

// PrependLaunchLog returns the text to compile for body, a kernel file
// whose kernels log their launches (launchlog.cuh): the header, then
// body. NVRTC takes no #include; the fake GPU's sources include
// gpu/launchlog.cuh instead.
func PrependLaunchLog(body string) string { return launchLogHeader + "\n" + body }

// The ring's layout: launchlog.cuh's LLOG_* (TestLaunchLogHeader compares
// them).
const (
	launchLogWords = 16 // words an entry
	launchLogStart = 0  // the launch's start, ns of the GPU's global timer
	launchLogEnd   = 1  // the first of its end words (the largest is its end)
	launchLogEnds  = 15 // end words: block b raises word b % launchLogEnds
	launchLogOpen  = 1  // the open bit of an entry's address (LaunchOpen)

	// LaunchLogCap is the entries of a log's ring (128 bytes each). A run
	// of more logged launches than LaunchLogCap-1 makes the log read the
	// ring in the middle of the run (the host then waits for the GPU
	// once).
	LaunchLogCap = 512
)

// LaunchLog times kernel launches by the GPU's own clock, for run traces
// (trace.Launch): each logged kernel stamps its start and end in an entry
// of a ring in device memory (launchlog.cuh says how a kernel does it),
// and Launches reads the ring once, after the run (or QueueRead queues
// that read on a stream, and Launches parses what it copied: a traced
// run's reading then costs no synchronisation of its own). A run's host records
// nothing between two launches — against LaunchTimer's one or two CUDA
// events a launch, a microsecond or two of host time each, which a
// search of a fraction of a millisecond feels (DO-BFS at R-MAT scale 20:
// 12–25% traced with events, measured on an H100). A launch's time is
// its kernel's span on the device: from its first block's start to its
// last block's end, the launch latency before it not included. An open
// launch (LaunchOpen) logs its start only, and its time runs to the next
// logged launch's start; Launches marks it (trace.Launch.Open), so that a
// test can tell which launches' times include the gap after them.
//
// Only kernels written for it can be logged: they take the entry's and
// the next entry's addresses as their last two arguments, which Launch
// appends. A nil *LaunchLog launches them with both NULL (the kernel then
// logs nothing), and its Launches, Drop and Close do nothing: code with
// an optional trace holds a nil log when it is not tracing.
//
// Launch takes the *Thread of Device.Exec or Device.Time; the log's state
// is the device thread's, like LaunchTimer's. Launches on several
// streams may be logged when the caller orders them (each kernel zeroes
// the next entry's end, so the next logged launch must start after it).
type LaunchLog struct {
	d      *Device
	closed atomic.Bool

	// Owned by the device thread. A launch, logged or not, allocates
	// nothing (the run's host time between two launches is time the GPU
	// may wait for: a search's levels are a few microseconds; an
	// allocation a launch cost DO-BFS 2–3% of a search, measured): the
	// entries' addresses are boxed once, and pending keeps its room from
	// run to run.
	ring    *Uint64s       // LaunchLogCap entries of launchLogWords
	pinned  *Pinned        // host's memory, page-locked (QueueRead's copies land there)
	host    []uint64       // the ring, downloaded (a view of pinned)
	copied  *Event         // recorded after QueueRead's copy
	queued  int            // pending[:queued] are being copied by QueueRead (0: no read queued)
	entries []any          // entry j's device address, as a kernel argument
	opens   []any          // the same with the open bit set (LaunchOpen)
	pos     int            // ring index of pending[0] (or of the next launch)
	pending []trace.Launch // logged since the ring was last read (Open: launched open)
	read    []trace.Launch // launches of this run read in the middle of it
	dirty   bool           // the ring's entries are unknown: zero it before use
}

// nullEntries are an unlogged launch's entries (NULL, NULL).
var nullEntries = [2]any{uint64(0), uint64(0)}

// NewLaunchLog returns a launch log for launches on d, with its ring (64
// KiB of device memory, made here so that no run's time holds its
// allocation; again after a device reset, at the next launch). The host
// device has no kernels: there it returns an error wrapping ErrHost.
func (d *Device) NewLaunchLog() (*LaunchLog, error) {
	if d == nil {
		return nil, errors.New("gpu: launch log: NewLaunchLog on a nil *Device")
	}
	if d.host {
		return nil, errHost("launch log: NewLaunchLog", "the host device has no kernels to log; time host code with time.Now and time.Since")
	}
	if err := d.open(); err != nil {
		return nil, fmt.Errorf("gpu: launch log: opening %v: %w", d, err)
	}
	l := &LaunchLog{d: d}
	if err := d.exec(l.makeRing); err != nil {
		return nil, err
	}
	return l, nil
}

// makeRing allocates the ring (zeroed), its page-locked host copy and
// the event QueueRead records, and boxes its entries' addresses (again
// after a device reset, which took the old ones with its context).
// Device thread only.
func (l *LaunchLog) makeRing(t *Thread) error {
	l.freeRing()
	ring, err := t.d.AllocUint64s(LaunchLogCap * launchLogWords)
	if err != nil {
		return fmt.Errorf("gpu: launch log: allocating its ring: %w", err)
	}
	pinned, err := t.d.AllocPinned(8 * LaunchLogCap * launchLogWords)
	if err != nil {
		ring.Free()
		return fmt.Errorf("gpu: launch log: allocating its host copy: %w", err)
	}
	copied, err := t.d.NewEvent()
	if err != nil {
		ring.Free()
		pinned.Free()
		return fmt.Errorf("gpu: launch log: creating its event: %w", err)
	}
	l.ring, l.pinned, l.host, l.copied = ring, pinned, pinned.Uint64s(), copied
	l.entries, l.opens = make([]any, LaunchLogCap), make([]any, LaunchLogCap)
	for j := range l.entries {
		l.entries[j], l.opens[j] = l.entry(j), l.entry(j)|launchLogOpen
	}
	l.pending, l.read, l.pos, l.queued, l.dirty = l.pending[:0], nil, 0, 0, false
	return nil
}

// freeRing releases the ring, its host copy and the event (those of a
// context that a reset replaced release nothing on the device) and
// returns the first error. Device thread only.
func (l *LaunchLog) freeRing() error {
	var errs []error
	if l.ring != nil {
		errs = append(errs, l.ring.Free())
	}
	if l.pinned != nil {
		errs = append(errs, l.pinned.Free())
	}
	if l.copied != nil {
		errs = append(errs, l.copied.Close())
	}
	l.ring, l.pinned, l.host, l.copied = nil, nil, nil, nil
	return errors.Join(errs...)
}

// KeepLaunchLog returns *kept, making it on d first when it is nil: the
// log a prepared algorithm keeps for its traced runs, its ring reused
// from run to run (the algorithm's Close closes it).
func (d *Device) KeepLaunchLog(kept **LaunchLog) (*LaunchLog, error) {
	if *kept == nil {
		l, err := d.NewLaunchLog()
		if err != nil {
			return nil, err
		}
		*kept = l
	}
	return *kept, nil
}

// Launch launches f like t.Launch(f, grid, block, shared, args...) with
// the launch's log entry and the next one appended to args (NULL, NULL
// on a nil log); step is the caller's step index stored in the
// trace.Launch (-1 for set-up). A grid of zero blocks launches nothing
// (as Thread.Launch) and is not logged. The launch's own errors are
// Thread.Launch's, unchanged (a launch that fails is not logged); the
// log's start with "gpu: launch log:".
func (l *LaunchLog) Launch(t *Thread, step int, f *Function, grid, block Dim, shared int, args ...any) error {
	return l.LaunchOn(t, nil, step, f, grid, block, shared, args...)
}

// LaunchOn is Launch on stream s (nil: the default stream).
func (l *LaunchLog) LaunchOn(t *Thread, s *Stream, step int, f *Function, grid, block Dim, shared int, args ...any) error {
	return l.launch(t, s, false, step, f, grid, block, shared, args)
}

// LaunchOpen is LaunchOn for a launch that the caller follows at once
// with another logged launch on the same stream, with no host work, copy,
// memset or other stream's work that it waits for between them: the
// kernel logs its start only (launchlog.cuh: its entry's address carries
// the open bit, and llog_end returns at once: no barrier, no atomic, no
// timer read on any block's way out), and its time runs from its start
// to the next launch's, the launch gap between them included (as with an
// event between two launches). Launches fails for an open launch that no
// logged launch followed. Untraced (a nil log) it is Thread.Launch with
// NULL entries, like LaunchOn.
func (l *LaunchLog) LaunchOpen(t *Thread, s *Stream, step int, f *Function, grid, block Dim, shared int, args ...any) error {
	return l.launch(t, s, true, step, f, grid, block, shared, args)
}

// launch is LaunchOn, and LaunchOpen when open.
func (l *LaunchLog) launch(t *Thread, s *Stream, open bool, step int, f *Function, grid, block Dim, shared int, args []any) error {
	if l == nil || grid.X == 0 || f == nil {
		// Untraced, or nothing to log: Thread.Launch checks the rest of
		// the launch (and queues nothing for an empty grid).
		if t == nil {
			return fmt.Errorf("gpu: launch log: Launch(%s) needs the *Thread that Device.Exec or Device.Time hands their callback, not nil", funcName(f))
		}
		return t.launch(s, f, grid, block, shared, args, nullEntries[:])
	}
	if l.closed.Load() {
		return fmt.Errorf("gpu: launch log: Launch(%s) after Close: its ring was freed; make a new log", f.name)
	}
	if t == nil {
		return fmt.Errorf("gpu: launch log: Launch(%s) needs the *Thread that Device.Exec or Device.Time hands their callback, not nil", f.name)
	}
	if t.d != l.d {
		return fmt.Errorf("gpu: launch log: Launch(%s): the log belongs to %v, the thread to %v", f.name, l.d, t.d)
	}
	if step < -1 {
		return fmt.Errorf("gpu: launch log: Launch(%s): step %d: steps count from 0, and -1 marks set-up", f.name, step)
	}
	if err := l.ready(t); err != nil {
		return err
	}
	j := (l.pos + len(l.pending)) % LaunchLogCap
	entries := [2]any{l.entries[j], l.entries[(j+1)%LaunchLogCap]}
	if open {
		entries[0] = l.opens[j]
	}
	if err := t.launch(s, f, grid, block, shared, args, entries[:]); err != nil {
		return err
	}
	l.pending = append(l.pending, trace.Launch{Name: f.name, Grid: dim3(grid), Block: dim3(block), Step: step, Open: open})
	return nil
}

// ready makes the ring usable for one more launch: made again after a
// device reset, zeroed when dirty, and read when the launch's next
// entry would reach the oldest unread one. A read that QueueRead queued
// is finished first (waiting for its copy): the launches after it go on
// in the ring from its launches' entries on.
func (l *LaunchLog) ready(t *Thread) error {
	if l.ring == nil || l.ring.b.a.gen != t.d.generation() {
		if err := l.makeRing(t); err != nil {
			return err
		}
	}
	if l.queued > 0 {
		got, err := l.finishQueued(t, false)
		if err != nil {
			return err
		}
		l.read = append(l.read, got...)
	}
	if l.dirty {
		if err := l.ring.Fill(0); err != nil {
			return fmt.Errorf("gpu: launch log: zeroing its ring: %w", err)
		}
		l.pending, l.read, l.pos, l.dirty = l.pending[:0], nil, 0, false
	}
	if len(l.pending)+2 > LaunchLogCap {
		got, err := l.readRing(t, false)
		if err != nil {
			return err
		}
		l.read = append(l.read, got...)
	}
	return nil
}

// entry returns the device address of the ring's entry j (mod the cap).
func (l *LaunchLog) entry(j int) uint64 {
	return l.ring.Ptr() + uint64(8*launchLogWords*(j%LaunchLogCap))
}

// readRing waits for the logged launches, reads their entries and
// returns them with their times (a slice of their own), forgetting them.
// In the middle of a run (final false) an open last launch stays pending:
// its time needs the next launch's start. A failure marks the ring dirty
// (which entries the launches wrote is unknown).
func (l *LaunchLog) readRing(t *Thread, final bool) ([]trace.Launch, error) {
	if len(l.pending) == 0 {
		return nil, nil
	}
	// Launches on other streams are done once the context is.
	if err := t.Synchronize(); err != nil {
		return nil, l.fail(fmt.Errorf("gpu: launch log: waiting for the %d logged launches: %w", len(l.pending), err))
	}
	if err := l.ring.b.live("LaunchLog.Launches"); err != nil {
		return nil, l.fail(fmt.Errorf("gpu: launch log: reading its ring: %w", err))
	}
	err := l.copyPending(func(off, words int) error {
		return t.dtoh("LaunchLog.Launches", unsafe.Pointer(&l.host[off]), l.ring.Ptr()+uint64(8*off), int64(8*words))
	})
	if err != nil {
		return nil, l.fail(fmt.Errorf("gpu: launch log: reading its ring: %w", err))
	}
	return l.parse(len(l.pending), final)
}

// copyPending copies the pending entries, from pos on, in one or two
// pieces of the ring (it wraps): copy(off, words) copies ring words
// [off, off+words) to the same words of host.
func (l *LaunchLog) copyPending(copy func(off, words int) error) error {
	for from, left := l.pos, len(l.pending); left > 0; from = 0 {
		k := min(left, LaunchLogCap-from)
		if err := copy(launchLogWords*from, launchLogWords*k); err != nil {
			return err
		}
		left -= k
	}
	return nil
}

// fail forgets the pending launches and marks the ring dirty (which
// entries they wrote is unknown: the next launch zeroes it); it returns
// err.
func (l *LaunchLog) fail(err error) error {
	l.pending, l.queued, l.dirty = l.pending[:0], 0, true
	return err
}

// parse takes the first k pending launches, whose entries host holds,
// and returns them with their times (a slice of their own), forgetting
// them and advancing pos past them. In the middle of a run (final false)
// an open last launch of the k stays pending: its time needs the next
// launch's start. A failure forgets every pending launch and marks the
// ring dirty.
func (l *LaunchLog) parse(k int, final bool) ([]trace.Launch, error) {
	pending := slices.Clone(l.pending[:k])
	entry := func(i int) []uint64 { return l.host[launchLogWords*((l.pos+i)%LaunchLogCap):][:launchLogWords] }
	done := k
	if !final && pending[done-1].Open {
		done-- // its end is the next launch's start, not logged yet
	}
	for i := range done {
		e := entry(i)
		start, end := e[launchLogStart], slices.Max(e[launchLogEnd:launchLogEnd+launchLogEnds])
		if pending[i].Open {
			if i+1 == len(pending) {
				return nil, l.fail(fmt.Errorf("gpu: launch log: launch %d of %d (%s) was launched open (LaunchOpen) but no logged launch followed it, so its end is unknown (a caller bug: launch the last one with LaunchOn)",
					i+1, len(pending), pending[i].Name))
			}
			end = entry(i + 1)[launchLogStart]
		}
		if start == 0 || end < start {
			return nil, l.fail(fmt.Errorf("gpu: launch log: the entry of launch %d of %d (%s) is incomplete (start %d, end %d): its kernel does not call llog_begin and llog_end from every thread (a kernel bug: please report it)",
				i+1, len(pending), pending[i].Name, start, end))
		}
		pending[i].Time = time.Duration(end - start)
	}
	l.pending = append(l.pending[:0], l.pending[done:]...)
	l.pos = (l.pos + done) % LaunchLogCap
	return pending[:done], nil
}

// QueueRead queues, on stream s (nil: the default stream), the copy of
// the entries of the launches logged since the last read into the log's
// page-locked host memory, and an event after it, and returns without
// waiting: the read that Launches would make, started early, so that
// the caller's own synchronisation serves it. Queue it after a run's
// last logged launch and before the run's synchronous work on s (a
// result download on the default stream, say), and call Launches after
// that work: Launches then waits for nothing (the event has passed) and
// copies nothing; it only parses the entries. Launches called before the
// copy is done waits for it (the event): never wrong, only as slow as
// the synchronous read. A logged launch after QueueRead and before
// Launches first finishes the queued read (waits for its copy), as the
// ring does when it fills in the middle of a run. Launches on other
// streams than s must have been ordered before s's copy (by the caller's
// events or synchronisation), as for every read of the ring.
//
// It queues nothing when no launch is pending, or when a read is queued
// already. t is the device thread's (Device.Exec); a nil log does
// nothing. Its errors (a closed log, a device reset since the launches:
// ErrInvalidated, a failed copy) forget the pending launches, and the
// ring is zeroed before the next launch.
func (l *LaunchLog) QueueRead(t *Thread, s *Stream) error {
	if l == nil {
		return nil
	}
	if l.closed.Load() {
		return errors.New("gpu: launch log: QueueRead after Close")
	}
	if t == nil || t.d != l.d {
		return fmt.Errorf("gpu: launch log: QueueRead needs the *Thread of %v that Device.Exec hands its callback", l.d)
	}
	if len(l.pending) == 0 || l.queued > 0 {
		return nil
	}
	if err := l.ring.b.live("LaunchLog.QueueRead"); err != nil {
		return l.fail(fmt.Errorf("gpu: launch log: queueing the read of its ring: %w", err))
	}
	queued := 0 // pieces queued
	err := l.copyPending(func(off, words int) error {
		if err := l.ring.DownloadAsync(s, off, l.host[off:off+words]); err != nil {
			return err
		}
		queued++
		return nil
	})
	if err == nil {
		err = t.Record(l.copied, s)
	}
	if err != nil {
		if queued > 0 {
			_ = t.StreamSynchronize(s) // let the copy land before the memory is reused
		}
		return l.fail(fmt.Errorf("gpu: launch log: queueing the read of its ring: %w", err))
	}
	l.queued = len(l.pending)
	return nil
}

// finishQueued waits for QueueRead's copy (its event) and parses the
// launches it copied, which are all the pending ones (a launch after
// QueueRead finishes the read first): final as Launches, else as the
// read in the middle of a run. A device reset since QueueRead fails it
// (ErrInvalidated).
func (l *LaunchLog) finishQueued(t *Thread, final bool) ([]trace.Launch, error) {
	k := l.queued
	l.queued = 0
	if err := l.copied.Synchronize(); err != nil {
		return nil, l.fail(fmt.Errorf("gpu: launch log: waiting for the read of its ring queued by QueueRead: %w", err))
	}
	if err := l.ring.b.live("LaunchLog.Launches"); err != nil {
		return nil, l.fail(fmt.Errorf("gpu: launch log: reading its ring: %w", err))
	}
	return l.parse(k, final)
}

// Launches returns the launches logged since the last call (or Drop), in
// order, with their times (nil when there were none). It waits for them,
// so call it after the timed region: it synchronises the context and
// copies their entries, or, after QueueRead, waits for the queued copy
// (at once when the caller has synchronised since) and only parses. It
// forgets them also when it fails; the log then zeroes its ring before
// the next launch.
func (l *LaunchLog) Launches() ([]trace.Launch, error) {
	if l == nil {
		return nil, nil
	}
	if l.closed.Load() {
		return nil, errors.New("gpu: launch log: Launches after Close")
	}
	var out []trace.Launch
	err := l.d.exec(func(t *Thread) error {
		var got []trace.Launch
		var err error
		if l.queued > 0 {
			got, err = l.finishQueued(t, true)
		} else {
			got, err = l.readRing(t, true)
		}
		out, l.read = append(l.read, got...), nil
		if err != nil {
			out = nil
		}
		return err
	})
	return out, err
}

// Drop forgets the launches logged since the last Launches, unread: what
// a failed run calls (its launches may not all have run, so the log
// zeroes its ring before the next launch). A read QueueRead queued is
// waited for first (its copy must land before the memory is reused; a
// failure to wait, after a device fault, is ignored).
func (l *LaunchLog) Drop() {
	if l == nil {
		return
	}
	_ = l.d.exec(func(*Thread) error {
		l.settle()
		l.pending, l.read, l.dirty = l.pending[:0], nil, true
		return nil
	})
}

// settle waits for a queued read's copy, if any, and forgets that it
// was queued (errors ignored: the device failed, and its copies with
// it). Device thread only.
func (l *LaunchLog) settle() {
	if l.queued > 0 {
		_ = l.copied.Synchronize()
		l.queued = 0
	}
}

// Close frees the ring, its host copy and its event (after a queued
// read's copy). Launch, QueueRead and Launches fail after it; Close
// again does nothing.
func (l *LaunchLog) Close() error {
	if l == nil || l.closed.Swap(true) {
		return nil
	}
	return l.d.exec(func(*Thread) error {
		l.settle()
		err := l.freeRing()
		l.entries, l.opens, l.pending, l.read = nil, nil, nil, nil
		if err != nil && l.d.Err() != nil {
			return nil // the device is unusable: its memory is gone already
		}
		return err
	})
}
