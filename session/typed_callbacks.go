package session

import (
	"go/ast"
	"go/token"
	"go/types"
	"reflect"
	"strconv"
)

// Callbacks that compiled code runs on a goroutine of its own: a panic
// there has no cell to unwind into, and Go ends the process (the kernel
// died, every variable was lost: issue 13, case 6). The pass hands each
// such callback to a compiled guard that runs it as the session runs a
// cell's goroutine (see goStmt): a panic fails the running cell, or is
// reported through AsyncError of the cell that gave the callback.
//
//	time.AfterFunc(d, f)         → time.AfterFunc(d, __gnb.GuardFunc(serial, line, "time.AfterFunc", f))
//	context.AfterFunc(ctx, f)    → context.AfterFunc(ctx, __gnb.GuardFunc(…, f))
//	runtime.SetFinalizer(p, fin) → runtime.SetFinalizer(p, __gnb.GuardFinalizer(…, fin))
//
// A call of such a function through a function value (g := time.AfterFunc)
// is not seen.

// asyncCallbacks maps a package path and function name to the index of
// the argument that the function calls on another goroutine.
var asyncCallbacks = map[string]map[string]int{
	"time":    {"AfterFunc": 1},
	"context": {"AfterFunc": 1},
	"runtime": {"SetFinalizer": 1},
}

// guardCallbacks wraps the callbacks of asyncCallbacks in their guards.
func guardCallbacks(x *execution, ps []*parsed) error {
	inspect(ps, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		fn := calledFunc(x.cc.info, c)
		if fn == nil || fn.Pkg() == nil || fn.Type().(*types.Signature).Recv() != nil {
			return true
		}
		i, ok := asyncCallbacks[fn.Pkg().Path()][fn.Name()]
		if !ok || i >= len(c.Args) {
			return true
		}
		arg := c.Args[i]
		if tv, ok := x.cc.info.Types[arg]; ok && tv.IsNil() {
			return true // SetFinalizer(p, nil) removes the finalizer
		}
		guard := "GuardFunc"
		if fn.Name() == "SetFinalizer" {
			guard = "GuardFinalizer"
		}
		pos := arg.Pos()
		serial, line := x.cellLine(c)
		intLit := func(n int) ast.Expr { return &ast.BasicLit{ValuePos: pos, Kind: token.INT, Value: strconv.Itoa(n)} }
		c.Args[i] = &ast.CallExpr{
			Fun:    &ast.SelectorExpr{X: &ast.Ident{Name: "__gnb", NamePos: pos}, Sel: &ast.Ident{Name: guard, NamePos: pos}},
			Lparen: pos,
			Args: []ast.Expr{intLit(serial), intLit(line),
				&ast.BasicLit{ValuePos: pos, Kind: token.STRING, Value: strconv.Quote(fn.Pkg().Name() + "." + fn.Name())}, arg},
			Rparen: arg.End(),
		}
		x.keepSource = true
		return true
	})
	return nil
}

// cellLine returns the serial number of the cell that n was written in
// (a declaration checked again may come from an earlier cell) and its line.
func (x *execution) cellLine(n ast.Node) (serial, line int) {
	pos := x.s.in.FileSet().Position(n.Pos())
	serial = x.serial
	if m := cellPosRE.FindStringSubmatch(pos.Filename + ":1:1"); m != nil {
		serial, _ = strconv.Atoi(m[1])
	}
	return serial, pos.Line
}

// guardFunc returns f run as a guarded goroutine of the cell running now:
// what returns its panic, for the callback that what (e.g.
// "time.AfterFunc") was given at the cell line.
func (s *Session) guardFunc(serial, line int, what string, f func()) func() {
	cell := s.current.Load()
	given := givenNow()
	return func() {
		<-given
		h := s.callbackStart(serial, line, cell, what)
		s.goWatch(h)
		defer func() { s.goEnd(h, recover()) }()
		f()
	}
}

// givenNow returns a closed channel: a callback that receives from it
// happens after the cell gave it. The runtime runs timer callbacks on
// goroutines of its own, with no such edge to the cell: the race detector
// then saw the callback's first interpreted frame read what the cell's
// Execute wrote when it began.
func givenNow() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}

// guardFinalizer is guardFunc for a finalizer, a function of any type of
// one argument (runtime.SetFinalizer checks it).
func (s *Session) guardFinalizer(serial, line int, what string, fin any) any {
	v := reflect.ValueOf(fin)
	if v.Kind() != reflect.Func || v.IsNil() {
		return fin // runtime.SetFinalizer says what is wrong
	}
	cell := s.current.Load()
	given := givenNow()
	t := v.Type()
	return reflect.MakeFunc(t, func(args []reflect.Value) (out []reflect.Value) {
		<-given
		h := s.callbackStart(serial, line, cell, what)
		s.goWatch(h)
		defer func() {
			r := recover()
			s.goEnd(h, r)
			if r != nil { // the results of a finalizer are ignored
				out = make([]reflect.Value, t.NumOut())
				for i := range out {
					out[i] = reflect.Zero(t.Out(i))
				}
			}
		}()
		return v.Call(args)
	}).Interface()
}

// callbackStart records a guarded callback about to run and returns its
// handle for goEnd.
func (s *Session) callbackStart(serial, line int, cell *Cell, what string) int {
	s.meta.Lock()
	defer s.meta.Unlock()
	s.goNext++
	s.goroutines[s.goNext] = goroutineStart{serial: serial, line: line, cell: cell, callback: what}
	return s.goNext
}
