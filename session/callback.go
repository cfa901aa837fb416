package session

import (
	"context"
	"errors"
)

// RunCallback runs f, a callback that compiled code calls on the cells'
// behalf (the handler of a Jupyter comm, a widget's OnChange, which may
// call functions the cells declared), as Execute runs a cell: one at a
// time with the cells, the cancellation point cleared first, and f
// stopped when ctx is cancelled (interpreted code at its next step,
// time.Sleep at once, compiled graphnb code at its next cancel.Check); the
// error is then an *Error named "Interrupted" and every variable keeps
// its value. A panic in f, or in a goroutine of the cells while f runs,
// is returned as an *Error named "panic" whose traceback names the cell
// lines it went through; it never reaches the caller as a panic.
//
// f runs on a goroutine of its own, watched for a runaway stack as cells
// are. RunCallback returns once f has returned, or has been stopped, or
// (a compiled call that polls no cancel.Check) stopGrace after the
// interrupt, the call going on as an interrupted cell's does (the next
// cell or callback waits for it).
func (s *Session) RunCallback(ctx context.Context, f func()) (err error) {
	if s.closed.Load() {
		return errors.New("session: RunCallback after Close")
	}
	if f == nil {
		return nil
	}
	defer func() {
		if r := recover(); r != nil {
			err = newError("panic", "in a callback: "+panicText(r))
		}
	}()
	s.mu.Lock()
	defer s.mu.Unlock()
	ctx, rc, leave := s.enter(ctx)
	defer leave()
	if err := s.drainStalled(ctx); err != nil {
		return err
	}
	err = s.runFunc(ctx, f)
	if gerr := rc.failure(); gerr != nil {
		return gerr
	}
	return err
}

// callbackEnd is how a callback's goroutine ended.
type callbackEnd struct {
	panicked bool
	value    any // the panic's value
}

// runFunc runs f on a goroutine of its own until it returns or ctx ends,
// as runProgram runs a cell's program.
func (s *Session) runFunc(ctx context.Context, f func()) error {
	if err := s.arm(); err != nil {
		return err
	}
	done := make(chan callbackEnd, 1)
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		defer s.unwatch(s.watch(&watched{what: "a callback", cell: s.current.Load()}))
		returned := false
		defer func() {
			if !returned {
				done <- callbackEnd{panicked: true, value: recover()}
			}
		}()
		f()
		returned = true
		done <- callbackEnd{}
	}()
	var end callbackEnd
	select {
	case end = <-done:
	case <-ctx.Done():
		s.stopRun(ended)
		s.filter.take()
		msg := "the callback was interrupted; every variable keeps the value it had"
		if s.stalled != nil {
			msg = stalledMessage
		}
		return newError("Interrupted", msg)
	}
	if !end.panicked {
		return nil
	}
	<-ended
	if end.value == nil {
		// recover returns nil for runtime.Goexit (and for panic(nil)
		// before Go 1.21's PanicNilError).
		return newError("Goexit", "runtime.Goexit ended the callback: its deferred calls ran, the rest of it did not")
	}
	e := s.panicError(end.value, s.filter.take())
	e.Value = "in a callback: " + e.Value
	e.Trace[0] = "panic: " + e.Value
	return e
}
