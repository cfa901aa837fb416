package session

import (
	"bytes"
	"context"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"
)

// A finalizer given to runtime.SetFinalizer runs guarded: its panic is the
// cell's asynchronous error, not the end of the process. (yaegi's closures
// keep objects reachable, so a cell's finalizer seldom runs at all: the
// guard is called directly here.)
func TestGuardFinalizer(t *testing.T) {
	s, _ := newTestSession(t, nil)
	got := make(chan error, 1)
	if _, err := s.Execute(context.Background(), "1", Cell{Count: 1, AsyncError: func(err error) { got <- err }}); err != nil {
		t.Fatal(err)
	}
	fin := func(*bytes.Buffer) int { panic("finalizer boom") }
	g := s.guardFinalizer(1, 1, "runtime.SetFinalizer", fin)
	if reflect.TypeOf(g) != reflect.TypeOf(fin) {
		t.Fatalf("guarded finalizer has type %T, want %T", g, fin)
	}
	if n := g.(func(*bytes.Buffer) int)(new(bytes.Buffer)); n != 0 {
		t.Errorf("guarded finalizer returned %d after a panic, want 0", n)
	}
	select {
	case err := <-got:
		if !strings.Contains(err.Error(), "panic: in a runtime.SetFinalizer callback: finalizer boom") {
			t.Errorf("async error %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no async error")
	}
	if g := s.guardFinalizer(1, 1, "runtime.SetFinalizer", 3); g != 3 {
		t.Errorf("a non-function finalizer became %v; runtime.SetFinalizer should see it as given", g)
	}
}

// BenchmarkExecuteCalls measures a cell made of interpreted calls (fib(20),
// 21,891 calls) through Execute: what the stack watchdog (stack.go) costs
// a cell that runs for a while (compare BenchmarkExecuteTrivial for one
// that does not).
func BenchmarkExecuteCalls(b *testing.B) {
	s := benchSession(b)
	if _, err := s.Execute(context.Background(), "func fib(n int) int { if n < 2 { return n }; return fib(n-1) + fib(n-2) }", Cell{Count: 1}); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		r, err := s.Execute(context.Background(), "fib(20)", Cell{Count: 2})
		if err != nil || r["text/plain"] != "6765" {
			b.Fatalf("fib(20) = %v, %v", r, err)
		}
	}
}

// benchSession is a session whose output is discarded.
func benchSession(b *testing.B) *Session {
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { null.Close() })
	s, err := New(withGraphnb(Options{Stdout: null, Stderr: null}))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(s.Close)
	return s
}
