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
