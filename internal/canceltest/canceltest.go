// Package canceltest checks, in tests, that long compiled work stops soon
// after a cancellation request (cancel.Request) with cancel's error, and
// leaves no goroutine behind.
package canceltest

import (
	"errors"
	"runtime"
	"runtime/debug"
	"sync/atomic"
	"testing"
	"time"

	"github.com/graphnb/graphnb/cancel"
)

// Bound is how soon after a request work must return: the session's
// grace for an interrupted cell (session stopGrace), within which
// work that polls cancel.Check at least every 50 ms returns even on a
// busy two-core CI machine. The race detector slows work down about tenfold, so under it
// the bound is raceBound.
var Bound = 500 * time.Millisecond

// Interrupt runs work on a goroutine, requests cancellation after the
// given delay, and fails t unless work returns an error wrapping
// cancel.ErrInterrupted within Bound of the request and the number of
// goroutines is back to what it was before work started. Work that ends
// before the request runs again (on a fast machine), so that the request
// always finds it running; work that fails before it fails t. Interrupt
// clears the request before it returns, and returns how long work took
// to stop.
func Interrupt(t testing.TB, after time.Duration, work func() error) time.Duration {
	t.Helper()
	cancel.Clear()
	defer cancel.Clear()
	// Memory the previous work freed goes back to the OS, so the work's
	// big allocations get fresh pages rather than heap that Go must zero
	// first (hundreds of milliseconds for a few hundred MB on a loaded
	// machine, during which nothing can poll).
	debug.FreeOSMemory()
	before := runtime.NumGoroutine()
	done := make(chan error, 1)
	start := time.Now()
	// A run that ends with nil as the request is made had not seen it:
	// the next run must stop at its first poll.
	var asked atomic.Bool
	go func() {
		for {
			err := work()
			if err == nil && asked.Load() {
				err = work()
			}
			if err != nil || asked.Load() {
				done <- err
				return
			}
		}
	}()
	var requested time.Time
	select {
	case err := <-done:
		t.Fatalf("the work failed after %v, before the interrupt at %v: %v", time.Since(start), after, err)
	case <-time.After(after):
		requested = time.Now()
		asked.Store(true)
		cancel.Request()
	}
	bound := Bound
	if raceEnabled {
		bound = raceBound
	}
	var err error
	select {
	case err = <-done:
	case <-time.After(bound + 10*time.Second):
		t.Fatalf("the work did not return within %v of the interrupt", bound+10*time.Second)
	}
	took := time.Since(requested)
	t.Logf("stopped %v after the interrupt (%v after it started)", took.Round(time.Millisecond), requested.Sub(start).Round(time.Millisecond))
	if !errors.Is(err, cancel.ErrInterrupted) {
		t.Errorf("the interrupted work returned %v, want an error wrapping cancel.ErrInterrupted", err)
	}
	if took > bound {
		t.Errorf("the work returned %v after the interrupt, want within %v", took, bound)
	}
	// A goroutine that has called wg.Done may still be on its way out.
	deadline := time.Now().Add(time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<16)
		t.Errorf("%d goroutines still run after the interrupted work returned, %d before it started:\n%s", n, before, buf[:runtime.Stack(buf, true)])
	}
	return took
}
