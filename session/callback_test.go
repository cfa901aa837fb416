package session

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// callbackHolder is a compiled package for cells, "graphnb.test/cb":
// Set keeps the function a cell gives it, as package comm keeps a comm's
// OnMessage callback.
type callbackHolder struct {
	mu sync.Mutex
	f  func()
}

func (h *callbackHolder) get() func() {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.f
}

func callbackSession(t *testing.T) (*Session, *callbackHolder) {
	h := &callbackHolder{}
	s, _ := newTestSession(t, map[string]map[string]reflect.Value{
		"graphnb.test/cb/cb": {"Set": reflect.ValueOf(func(f func()) {
			h.mu.Lock()
			h.f = f
			h.mu.Unlock()
		})},
	})
	return s, h
}

// TestRunCallbackRunsCellCode: a callback a cell gave sees and changes
// the cells' variables, as a cell would.
func TestRunCallbackRunsCellCode(t *testing.T) {
	s, h := callbackSession(t)
	mustRun(t, s, "x := 1\ncb.Set(func() { x += 41 })")
	for range 2 {
		if err := s.RunCallback(context.Background(), h.get()); err != nil {
			t.Fatal(describeErr(err))
		}
	}
	if got := text(mustRun(t, s, "x")); got != "83" {
		t.Errorf("x = %s after two callbacks, want 83", got)
	}
}

// TestRunCallbackPanic: a panic in a callback is an error whose traceback
// names the cell's function; the session carries on.
func TestRunCallbackPanic(t *testing.T) {
	s, h := callbackSession(t)
	mustRun(t, s, "func fail(k string) int {\n\tvar m map[string]int\n\tm[k] = 1\n\treturn 0\n}\ncb.Set(func() { fail(\"a\") })")
	err := s.RunCallback(context.Background(), h.get())
	var e *Error
	if !errors.As(err, &e) || e.EName() != "panic" {
		t.Fatalf("error %v, want a panic", err)
	}
	if !strings.Contains(e.EValue(), "in a callback: assignment to entry in nil map") {
		t.Errorf("evalue %q", e.EValue())
	}
	if tb := strings.Join(e.Traceback(), "\n"); !strings.Contains(tb, "cell[1] in fail") {
		t.Errorf("the traceback does not name the cell's function:\n%s", tb)
	}
	if got := text(mustRun(t, s, "1 + 1")); got != "2" {
		t.Errorf("the session after: %s", got)
	}
}

// TestRunCallbackInterrupt stops callbacks stuck in a loop and in a
// sleep; function values made before the interrupt work after it.
func TestRunCallbackInterrupt(t *testing.T) {
	s, h := callbackSession(t)
	mustRun(t, s, "n := 0\nspin := func() { for { n++ } }\nnap := func() { time.Sleep(time.Hour) }\nset := func() { n = -1 }")
	for _, name := range []string{"spin", "nap"} {
		mustRun(t, s, "cb.Set("+name+")")
		ctx, cancelRun := context.WithCancel(context.Background())
		time.AfterFunc(100*time.Millisecond, cancelRun)
		start := time.Now()
		err := s.RunCallback(ctx, h.get())
		var e *Error
		if !errors.As(err, &e) || e.EName() != "Interrupted" {
			t.Fatalf("%s: error %v, want Interrupted", name, err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s: stopped after %v", name, d)
		}
		if s.stalled != nil {
			t.Fatalf("%s: the callback went on after the interrupt", name)
		}
	}
	if got := text(mustRun(t, s, "n > 0")); got != "true" {
		t.Errorf("n > 0 is %s: the loop did not run", got)
	}
	mustRun(t, s, "cb.Set(set)")
	if err := s.RunCallback(context.Background(), h.get()); err != nil {
		t.Fatal(describeErr(err))
	}
	if got := text(mustRun(t, s, "n")); got != "-1" {
		t.Errorf("n = %s, want -1: a function value made before the interrupt no longer runs", got)
	}
}
