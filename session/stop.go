package session

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/token"
	"reflect"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/traefik/yaegi/interp"
)

// Running a program so that an interrupt can stop it and the session can
// tell when it has stopped.
//
// yaegi's ExecuteWithContext returns as soon as the context ends, while
// its goroutine may still be finishing the program (or be blocked in a
// compiled call); the next cell would then race with it on the
// interpreter's global frame (the race detector sees it). So the session
// runs each program with Execute on a goroutine of its own, and on an
// interrupt calls the interpreter's own stop method — what
// ExecuteWithContext calls — then waits (up to stopGrace) for that
// goroutine to end. stop is unexported: it is reached with go:linkname,
// which ties this file to yaegi v0.16.1 (go.mod pins it; TestInterrupt
// fails if the method goes away or changes).
//
// stop closes the channel that yaegi's cancellable channel operations
// select on, so it may be called once per arming: arm installs a fresh
// channel (through ExecuteWithContext with a context that never ends,
// which is race-free) before the first program and after every stop.

//go:linkname yaegiStop github.com/traefik/yaegi/interp.(*Interpreter).stop
func yaegiStop(in *interp.Interpreter)

// stopGrace is how long an interrupted cell waits for its program to
// end. Interpreted code stops at once, time.Sleep returns, and graphnb's
// algorithms poll cancel.Check; a compiled call that does neither keeps
// running in the background, and the cell returns anyway.
const stopGrace = 500 * time.Millisecond

// arm prepares the interpreter for a cancellable run, if needed.
func (s *Session) arm() error {
	if s.armed {
		return nil
	}
	if s.nop == nil {
		pos := s.anchor
		prog, err := s.compileNode(&ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: []ast.Stmt{
			&ast.AssignStmt{Lhs: []ast.Expr{ident("_", pos)}, TokPos: pos, Tok: token.ASSIGN,
				Rhs: []ast.Expr{ident("true", pos)}},
		}})
		if err != nil {
			return err
		}
		s.nop = prog
	}
	if _, err := s.in.ExecuteWithContext(context.Background(), s.nop); err != nil {
		return err
	}
	s.armed = true
	return nil
}

// runProgram runs prog until it ends or ctx does. interrupted reports the
// latter; the program has then been stopped.
//
// Stopping increments the interpreter's run id: every frame whose id
// differs stops at its next step. But yaegi gives a function value (a
// function literal, a method value) the id of the frame it was made in,
// for good: after a stop, every function value made before it would
// return zero values at once, for the rest of the session. So once the
// stopped program has ended, the id is set back to what it was; function
// values made before the interrupt work again. The program may not end
// at once: blocked in a compiled call (sync.WaitGroup.Wait, a compiled
// algorithm that does not poll cancel.Check), it would run on with the
// id restored, racing with later cells. The interpreter then stays
// stopped, and the next cell waits for the program to end (see drain).
func (s *Session) runProgram(ctx context.Context, prog *interp.Program) (v reflect.Value, err error, interrupted bool) {
	if err := s.arm(); err != nil {
		return reflect.Value{}, err, false
	}
	type result struct {
		v   reflect.Value
		err error
	}
	done := make(chan result, 1)
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		defer s.unwatch(s.watch(&watched{what: "the cell", cell: s.current.Load()}))
		v, err := s.in.Execute(prog)
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err, false
	case <-ended:
		select {
		case r := <-done:
			return r.v, r.err, false
		default: // the goroutine ended without a result: runtime.Goexit
			return reflect.Value{}, errGoexit, false
		}
	case <-ctx.Done():
	}
	s.stopRun(ended)
	return reflect.Value{}, ctx.Err(), true
}

// stopRun stops the interpreted code running on a goroutine that closes
// ended when it returns, for an interrupt: see runProgram. It leaves
// s.stalled set when that goroutine is still in a compiled call after
// stopGrace.
func (s *Session) stopRun(ended <-chan struct{}) {
	id := runID(s.in)
	old := atomic.LoadUint64(id)
	yaegiStop(s.in)
	s.armed = false
	deadline := time.Now().Add(stopGrace)
	t := time.NewTimer(stopGrace)
	defer t.Stop()
	select {
	case <-ended:
		// Goroutines the cells started stop too: at their next step, or
		// when they wake from a channel operation or a sleep.
		for time.Now().Before(deadline) && s.goroutineCount() > 0 {
			time.Sleep(time.Millisecond)
		}
		atomic.StoreUint64(id, old)
	case <-t.C:
		s.stalled = &stalledProgram{ended: ended, id: old, serial: s.current.Load()}
	}
}

// errGoexit is runProgram's error when the program called runtime.Goexit,
// which ends the goroutine that runs it (deferred calls run) and so the
// cell: Execute never returns there.
var errGoexit = errors.New("runtime.Goexit")

// stalledMessage is the error of a cell whose program was interrupted
// but is still in a compiled call: Go cannot stop compiled code from the
// outside, so the kernel says what that means.
const stalledMessage = "the cell was interrupted, but it is still inside a compiled call that does not stop when interrupted " +
	"(Go code that polls no cancel.Check, e.g. sort.Slice or a blocking call): the call keeps running in the background, " +
	"may go on changing what it was given, and its results are assigned when it returns. " +
	"The next cell waits until then (interrupt it to stop waiting; restart the kernel to end the call)"

// stalledProgram is an interrupted program still blocked in a compiled
// call.
type stalledProgram struct {
	ended  <-chan struct{}
	id     uint64 // the run id to restore once it has ended
	serial *Cell  // the cell it belongs to
}

// drain waits for the program of an interrupted cell that was still
// blocked in a compiled call to end, then restores the interpreter's run
// id. It says on stderr what it waits for. An interrupt of the wait
// returns an Interrupted error that says what is still running.
func (s *Session) drain(ctx context.Context) error {
	st := s.stalled
	if st == nil {
		return nil
	}
	label := "an interrupted cell"
	if st.serial != nil {
		label = fmt.Sprintf("cell[%d]", st.serial.Count)
	}
	select {
	case <-st.ended:
	default:
		fmt.Fprintf(s.stderr, "graphnb: waiting for %s, still in a compiled call that does not stop when interrupted; this cell runs once it returns (interrupt to stop waiting)\n", label)
	}
	select {
	case <-st.ended:
	case <-ctx.Done():
		return newError("Interrupted", label+" is still blocked in a compiled call that does not stop when interrupted (it polls no cancel.Check); "+
			"this cell runs once it returns; restart the kernel to get rid of it")
	}
	s.stalled = nil
	atomic.StoreUint64(runID(s.in), st.id)
	return nil
}

// goroutineCount is the number of guarded goroutines still running.
func (s *Session) goroutineCount() int {
	s.meta.RLock()
	defer s.meta.RUnlock()
	return len(s.goroutines)
}

// runIDOffset is where the interpreter keeps its run id (the field id,
// which stop increments); found by reflection, it ties this file to yaegi
// v0.16.1 like yaegiStop (TestInterruptKeepsFunctionValues fails if it
// changes).
var runIDOffset = func() uintptr {
	f, ok := reflect.TypeOf(interp.Interpreter{}).FieldByName("id")
	if !ok || f.Type.Kind() != reflect.Uint64 {
		panic("session: yaegi's Interpreter has no id field (uint64): this file supports yaegi v0.16.1")
	}
	return f.Offset
}()

// runID returns the interpreter's run id.
func runID(in *interp.Interpreter) *uint64 {
	return (*uint64)(unsafe.Add(unsafe.Pointer(in), runIDOffset))
}

// yaegi keeps the root of every program it compiles in an unexported
// slice that only its debugger reads, so a session would grow by a few
// kilobytes per cell forever. dropRoots empties it after each compilation
// (the programs stay reachable while something uses them: functions
// through their symbols, a running program through its goroutine). The
// field is found by reflection; if yaegi changes it, nothing is dropped.
var rootsOffset = func() uintptr {
	f, ok := reflect.TypeOf(interp.Interpreter{}).FieldByName("roots")
	if !ok || f.Type.Kind() != reflect.Slice || f.Type.Elem().Kind() != reflect.Ptr {
		return 0
	}
	return f.Offset
}()

// dropRoots forgets the compiled roots; the caller holds s.mu.
func dropRoots(in *interp.Interpreter) {
	if rootsOffset == 0 {
		return
	}
	*(*[]unsafe.Pointer)(unsafe.Add(unsafe.Pointer(in), rootsOffset)) = nil
}
