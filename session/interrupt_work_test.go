package session

import (
	"context"
	"errors"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"
)

// interruptAfter runs code as a cell, interrupts it after d and returns
// its error and how long the reply took after the interrupt.
func interruptAfter(t *testing.T, s *Session, code string, d time.Duration) (error, time.Duration) {
	t.Helper()
	ctx, cancelCtx := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := s.Execute(ctx, code, Cell{Count: 2})
		done <- err
	}()
	time.Sleep(d)
	start := time.Now()
	cancelCtx()
	select {
	case err := <-done:
		return err, time.Since(start)
	case <-time.After(30 * time.Second):
		t.Fatalf("%q did not answer within 30 s of the interrupt", code)
		return nil, 0
	}
}

// TestInterruptedGraphWorkDoesNotWriteLater interrupts cells that
// generate a graph and that build its CSR, well before they are done
// (issue 13, case 7). graphnb's compiled work polls cancel.Check, so the
// call returns with cancel's error within the interrupt's grace period:
// the reply is a plain Interrupted, no compiled work goes on behind it,
// and the variable stays nil afterwards. (Before, the CSR build ran on
// for seconds after the reply and then assigned g under later cells.)
func TestInterruptedGraphWorkDoesNotWriteLater(t *testing.T) {
	s, _ := newTestSession(t, nil)
	// Scale 20: graph.Build of scale 19 took 0.26–0.29 s on the 2-core
	// build machine, and the interrupt below must land inside it.
	mustRun(t, s, "el, _ := gen.RMATEdges(20, 16, gen.Seed(1))")
	for _, code := range []string{
		"g, err := gen.RMAT(20, 16, gen.Seed(1))",
		"g, err := graph.Build(el, graph.BuildOptions{Symmetrize: true})",
	} {
		before := runtime.NumGoroutine()
		err, took := interruptAfter(t, s, code, 150*time.Millisecond)
		var e *Error
		if !errors.As(err, &e) || e.EName() != "Interrupted" {
			t.Fatalf("%s: error %v, want Interrupted", code, err)
		}
		t.Logf("%s: replied %v after the interrupt", code, took)
		if s.stalled != nil || strings.Contains(e.EValue(), "still inside a compiled call") {
			t.Fatalf("%s: the call did not stop within the grace period: %s", code, e.EValue())
		}
		for _, wait := range []time.Duration{0, 1500 * time.Millisecond} {
			time.Sleep(wait)
			start := time.Now()
			if got := text(mustRun(t, s, "g == nil")); got != "true" {
				t.Fatalf("%s: %v after the reply, g == nil is %s: the interrupted cell assigned its variable later", code, took+wait, got)
			}
			if d := time.Since(start); d > time.Second {
				t.Errorf("%s: the next cell took %v: it waited for the interrupted one", code, d)
			}
		}
		deadline := time.Now().Add(2 * time.Second)
		for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if n := runtime.NumGoroutine(); n > before {
			t.Errorf("%s: %d goroutines after the interrupt, %d before: its workers go on", code, n, before)
		}
	}
}

// TestInterruptedSortStops interrupts sort.Slice of 3 M ints with a
// cell's comparison (case 7b): the session's sort polls the interrupt at
// every comparison, so the sort stops at once instead of shuffling the
// slice for seconds under the next cells.
func TestInterruptedSortStops(t *testing.T) {
	s, _ := newTestSession(t, nil)
	mustRun(t, s, "xs := make([]int, 3000000)\nfor i := range xs { xs[i] = (i * 7919) % 3000000 }")
	err, took := interruptAfter(t, s, "sort.Slice(xs, func(i, j int) bool { return xs[i] < xs[j] })", 300*time.Millisecond)
	var e *Error
	if !errors.As(err, &e) || e.EName() != "Interrupted" {
		t.Fatalf("error %v, want Interrupted", err)
	}
	t.Logf("replied %v after the interrupt", took)
	if s.stalled != nil {
		t.Fatalf("the sort went on after the reply: %s", e.EValue())
	}
	first := text(mustRun(t, s, "fmt.Sprint(xs[:4], xs[len(xs)-4:])"))
	time.Sleep(500 * time.Millisecond)
	if again := text(mustRun(t, s, "fmt.Sprint(xs[:4], xs[len(xs)-4:])")); again != first {
		t.Fatalf("the slice changed after the reply: %s, then %s", first, again)
	}
	// The replacements sort as package sort does.
	if got := text(mustRun(t, s, `ys := []int{3, 1, 2}
sort.Slice(ys, func(i, j int) bool { return ys[i] < ys[j] })
zs := sort.IntSlice{9, 7, 8}
sort.Stable(zs)
ws := []string{"b", "a"}
sort.SliceStable(ws, func(i, j int) bool { return ws[i] < ws[j] })
fmt.Sprint(ys, zs, ws)`)); got != `"[1 2 3] [7 8 9] [a b]"` {
		t.Errorf("sorting after the interrupt gave %s", got)
	}
}

// TestUnstoppableCallIsReported interrupts a compiled call that polls
// nothing (case 7b: Go cannot stop it). The reply must say that the call
// goes on and what that means, and the next cell must wait for it —
// saying so — rather than run beside it.
func TestUnstoppableCallIsReported(t *testing.T) {
	release := make(chan struct{})
	extra := map[string]map[string]reflect.Value{
		"graphnb.test/block/block": {"Wait": reflect.ValueOf(func() int { <-release; return 42 })},
	}
	errs := newCapture(t)
	out := newCapture(t)
	s, err := New(withGraphnb(Options{Stdout: out.w, Stderr: errs.w, Symbols: extra}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	mustRun(t, s, "v := 0")
	err, _ = interruptAfter(t, s, "v = block.Wait()", 100*time.Millisecond)
	var e *Error
	if !errors.As(err, &e) || e.EName() != "Interrupted" {
		t.Fatalf("error %v, want Interrupted", err)
	}
	for _, want := range []string{"still inside a compiled call", "keeps running", "assigned when it returns", "next cell waits"} {
		if !strings.Contains(e.EValue(), want) {
			t.Errorf("the reply %q does not say %q", e.EValue(), want)
		}
	}
	next := make(chan string, 1)
	go func() {
		b, err := s.Execute(context.Background(), "v + 1", Cell{Count: 3})
		if err != nil {
			next <- "error: " + err.Error()
			return
		}
		next <- text(b)
	}()
	select {
	case got := <-next:
		t.Fatalf("the next cell ran (%s) while the interrupted call was still running", got)
	case <-time.After(300 * time.Millisecond):
	}
	if msg := errs.sync(t); !strings.Contains(msg, "graphnb: waiting for cell[2]") {
		t.Errorf("stderr %q does not say what the cell waits for", msg)
	}
	close(release)
	select {
	case got := <-next:
		if got != "43" {
			t.Fatalf("after the call returned, v + 1 = %s, want 43 (the call's result, assigned before the cell ran)", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the next cell did not run once the call returned")
	}
}

// TestTooLargeInCellsIsRefused runs the cells of issue 13, cases 7b and
// 7c, that used to kill the kernel: a 4 TiB host buffer (Go's fatal out
// of memory) and 2^40 search roots (memory growing until the OS killed
// it). Each is now an error or a bounded result, and the session goes on.
func TestTooLargeInCellsIsRefused(t *testing.T) {
	s, _ := newTestSession(t, nil)
	got := text(mustRun(t, s, `buf, err := gpu.Host().AllocFloat32s(1 << 40)
buf == nil && err != nil && strings.Contains(err.Error(), "needs about 4.0 TiB")`))
	if got != "true" {
		t.Errorf("AllocFloat32s(1<<40) on the host: %s, want a refusal", got)
	}
	start := time.Now()
	got = text(mustRun(t, s, "g, _ := gen.RMAT(10, 8)\nroots := g.Roots(1<<40, 1)\nlen(roots) > 0 && len(roots) <= g.NumVertices()"))
	if got != "true" || time.Since(start) > 5*time.Second {
		t.Errorf("Roots(1<<40): %s after %v", got, time.Since(start))
	}
	if got := text(mustRun(t, s, "1 + 1")); got != "2" {
		t.Errorf("the session after: %s", got)
	}
}
