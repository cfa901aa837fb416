package gpu

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"time"
)

// handleState is a stream's or event's driver handle, shared with its
// cleanup.
type handleState struct {
	d      *Device
	h      uintptr
	gen    uint64
	closed atomic.Bool
}

func releaseStream(st *handleState) {
	if st.closed.CompareAndSwap(false, true) {
		st.d.release(func(t *Thread) {
			if st.gen == st.d.generation() {
				cuStreamDestroy(st.h)
			}
		})
	}
}

func releaseEvent(st *handleState) {
	if st.closed.CompareAndSwap(false, true) {
		st.d.release(func(t *Thread) {
			if st.gen == st.d.generation() {
				cuEventDestroy(st.h)
			}
		})
	}
}

// live returns the handle, or why it cannot be used (device thread).
func (st *handleState) live(what, op string, d *Device) (uintptr, error) {
	if st.d != d {
		return 0, fmt.Errorf("gpu: %s: the %s belongs to %v, not to %v", op, what, st.d, d)
	}
	if st.closed.Load() {
		return 0, fmt.Errorf("gpu: %s: the %s was closed", op, what)
	}
	if st.gen != d.generation() {
		return 0, fmt.Errorf("gpu: %s: %w", op, ErrInvalidated)
	}
	return st.h, nil
}

// Stream is a CUDA stream: work queued on one stream runs in order, work
// on different streams may overlap. Streams are created blocking with
// respect to the default stream.
type Stream struct {
	st *handleState
}

// NewStream creates a stream. The host has none (ErrHost).
func (d *Device) NewStream() (*Stream, error) {
	if d.host {
		return nil, errHost("NewStream", "host code runs in order on the calling goroutine; use goroutines for concurrency")
	}
	s := &Stream{st: &handleState{d: d}}
	err := d.exec(func(t *Thread) error {
		h, code := cuStreamCreate()
		if err := t.check("cuStreamCreate", code); err != nil {
			return err
		}
		s.st.h, s.st.gen = h, d.generation()
		return nil
	})
	if err != nil {
		return nil, err
	}
	runtime.AddCleanup(s, releaseStream, s.st)
	return s, nil
}

// Device returns the stream's device.
func (s *Stream) Device() *Device { return s.st.d }

func (s *Stream) handleOn(t *Thread, op string) (uintptr, error) {
	return s.st.live("stream", op, t.d)
}

// Synchronize waits for the work queued on the stream.
func (s *Stream) Synchronize() error {
	return s.st.d.exec(func(t *Thread) error { return t.StreamSynchronize(s) })
}

// StreamSynchronize waits for the work queued on s (nil: the default
// stream, i.e. the whole device).
func (t *Thread) StreamSynchronize(s *Stream) error {
	if s == nil {
		return t.Synchronize()
	}
	h, err := s.handleOn(t, "Stream.Synchronize")
	if err != nil {
		return err
	}
	return t.check("cuStreamSynchronize", cuStreamSync(h))
}

// Close destroys the stream after its queued work; idempotent.
func (s *Stream) Close() error {
	if s.st.closed.Load() {
		return nil
	}
	return s.st.d.exec(func(t *Thread) error {
		if !s.st.closed.CompareAndSwap(false, true) || s.st.gen != t.d.generation() {
			return nil
		}
		return t.check("cuStreamDestroy_v2", cuStreamDestroy(s.st.h))
	})
}

// Event marks a point in a stream; two events time the work between them.
type Event struct {
	st *handleState
}

// NewEvent creates an event (with timing). The host has none (ErrHost).
func (d *Device) NewEvent() (*Event, error) {
	if d.host {
		return nil, errHost("NewEvent", "time host code with time.Now and time.Since")
	}
	e := &Event{st: &handleState{d: d}}
	err := d.exec(func(t *Thread) error {
		h, code := cuEventCreate()
		if err := t.check("cuEventCreate", code); err != nil {
			return err
		}
		e.st.h, e.st.gen = h, d.generation()
		return nil
	})
	if err != nil {
		return nil, err
	}
	runtime.AddCleanup(e, releaseEvent, e.st)
	return e, nil
}

// Device returns the event's device.
func (e *Event) Device() *Device { return e.st.d }

// Record marks the event at the current end of stream s (nil: the
// default stream).
func (e *Event) Record(s *Stream) error {
	return e.st.d.exec(func(t *Thread) error { return t.Record(e, s) })
}

// Record marks e at the current end of stream s (nil: default stream).
func (t *Thread) Record(e *Event, s *Stream) error {
	h, err := e.st.live("event", "Event.Record", t.d)
	if err != nil {
		return err
	}
	var sh uintptr
	if s != nil {
		if sh, err = s.handleOn(t, "Event.Record"); err != nil {
			return err
		}
	}
	return t.check("cuEventRecord", cuEventRecord(h, sh))
}

// Synchronize waits until the work before the event's record is done.
func (e *Event) Synchronize() error {
	return e.st.d.exec(func(t *Thread) error {
		h, err := e.st.live("event", "Event.Synchronize", t.d)
		if err != nil {
			return err
		}
		return t.check("cuEventSynchronize", cuEventSync(h))
	})
}

// Close destroys the event; idempotent.
func (e *Event) Close() error {
	if e.st.closed.Load() {
		return nil
	}
	return e.st.d.exec(func(t *Thread) error {
		if !e.st.closed.CompareAndSwap(false, true) || e.st.gen != t.d.generation() {
			return nil
		}
		return t.check("cuEventDestroy_v2", cuEventDestroy(e.st.h))
	})
}

// Elapsed returns the GPU time between two recorded events of one device
// (resolution about half a microsecond). It waits for end.
func Elapsed(start, end *Event) (time.Duration, error) {
	if start == nil || end == nil {
		return 0, fmt.Errorf("gpu: Elapsed: nil event")
	}
	if start.st.d != end.st.d {
		return 0, fmt.Errorf("gpu: Elapsed: the events belong to different devices")
	}
	var dur time.Duration
	err := start.st.d.exec(func(t *Thread) error {
		a, err := start.st.live("event", "Elapsed", t.d)
		if err != nil {
			return err
		}
		b, err := end.st.live("event", "Elapsed", t.d)
		if err != nil {
			return err
		}
		dur, err = t.elapsed(a, b)
		return err
	})
	return dur, err
}

func (t *Thread) elapsed(a, b uintptr) (time.Duration, error) {
	if err := t.check("cuEventSynchronize", cuEventSync(b)); err != nil {
		return 0, err
	}
	ms, code := cuEventElapsed(a, b)
	if err := t.check(drvElapsedSymbol(), code); err != nil {
		return 0, err
	}
	return time.Duration(float64(ms) * float64(time.Millisecond)), nil
}

// Time runs f on the device thread between two events on the default
// stream and returns the GPU time it queued (f's launches, copies, …),
// waiting for it to finish. f's error is returned as is.
func (d *Device) Time(f func(t *Thread) error) (time.Duration, error) {
	if d.host {
		return 0, errHost("Time", "time host code with time.Now and time.Since")
	}
	var dur time.Duration
	err := d.exec(func(t *Thread) error {
		if t.d.timing[0] == 0 || t.d.timingGen != t.d.generation() {
			for i := range t.d.timing {
				h, code := cuEventCreate()
				if err := t.check("cuEventCreate", code); err != nil {
					return err
				}
				t.d.timing[i] = h
			}
			t.d.timingGen = t.d.generation()
		}
		start, end := t.d.timing[0], t.d.timing[1]
		if err := t.check("cuEventRecord", cuEventRecord(start, 0)); err != nil {
			return err
		}
		if err := f(t); err != nil {
			return err
		}
		// f may have faulted and reset the device; its events went with it.
		if t.d.timingGen != t.d.generation() {
			return fmt.Errorf("gpu: Time: the device was reset during the timed work")
		}
		if err := t.check("cuEventRecord", cuEventRecord(end, 0)); err != nil {
			return err
		}
		var err error
		dur, err = t.elapsed(start, end)
		return err
	})
	return dur, err
}
