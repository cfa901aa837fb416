package session

import (
	"context"
	"go/ast"
	"go/token"
	"reflect"
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
func (s *Session) runProgram(ctx context.Context, prog *interp.Program) (v reflect.Value, err error, interrupted bool) {
	if err := s.arm(); err != nil {
		return reflect.Value{}, err, false
	}
	type result struct {
		v   reflect.Value
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := s.in.Execute(prog)
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err, false
	case <-ctx.Done():
	}
	yaegiStop(s.in)
	s.armed = false
	t := time.NewTimer(stopGrace)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
	return reflect.Value{}, ctx.Err(), true
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
