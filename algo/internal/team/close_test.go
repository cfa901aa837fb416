package team

import (
	"runtime"
	"testing"
	"time"
)

// TestCloseEndsWorkers checks that Close ends spinning and sleeping
// workers: the goroutine count returns to where it was.
func TestCloseEndsWorkers(t *testing.T) {
	before := runtime.NumGoroutine()
	for _, pause := range []time.Duration{0, 3 * Spin} {
		tm := New(8)
		tm.Run(8, func(int) {})
		time.Sleep(pause) // past Spin the workers sleep
		tm.Close()
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines after Close, %d before", runtime.NumGoroutine(), before)
		}
		time.Sleep(time.Millisecond)
	}
}
