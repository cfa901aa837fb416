// Package cancel is the cancellation point that long compiled work polls.
//
// A notebook interrupt cannot stop compiled Go code from the outside, so
// every loop that may run for more than a fraction of a second (algorithm
// iterations, sweeps, kernel-launch loops) calls Check between steps and
// returns its error. The kernel calls Request when the user interrupts a
// cell and Clear before the next cell runs. Check costs one atomic load.
package cancel

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
)

// ErrInterrupted is returned by Check after Request. It wraps
// context.Canceled, so errors.Is(err, context.Canceled) holds too.
var ErrInterrupted = fmt.Errorf("interrupted: %w", context.Canceled)

var requested atomic.Bool

// Request asks all running work to stop at its next cancellation point.
func Request() { requested.Store(true) }

// Clear withdraws a pending request; work started afterwards runs normally.
func Clear() { requested.Store(false) }

// Requested reports whether a request is pending.
func Requested() bool { return requested.Load() }

// Check returns ErrInterrupted when a request is pending, else nil.
func Check() error {
	if requested.Load() {
		return ErrInterrupted
	}
	return nil
}

// Bind makes the end of ctx a request: when ctx is cancelled or its
// deadline passes, Request is called. The returned function undoes the
// binding (it does not Clear a request already made).
func Bind(ctx context.Context) (unbind func()) {
	stop := context.AfterFunc(ctx, Request)
	return func() { stop() }
}

// Recover, deferred by a function with an error result, turns a panic
// whose value is an error wrapping ErrInterrupted into that function's
// error. graphnb's functions without an error result panic so when
// interrupted (their partial result must not be used); a function that
// calls them returns the error instead. Any other panic goes on.
func Recover(err *error) {
	r := recover()
	if r == nil {
		return
	}
	if e, ok := r.(error); ok && errors.Is(e, ErrInterrupted) {
		*err = e
		return
	}
	panic(r)
}
