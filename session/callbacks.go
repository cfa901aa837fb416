package session

import (
	"go/ast"
	"reflect"
	"sort"
)

// The session's side of the typed passes: what the rewritten code calls.

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

// importNames returns the names bound to an import path, sorted.
func (s *Session) importNames(path string) []string {
	s.meta.RLock()
	defer s.meta.RUnlock()
	var names []string
	for name, p := range s.imports {
		if p == path {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}

// setGeneric records the type of a generic function a cell declared
// (nil, or a function that is not generic: forget the name). The caller
// holds s.meta.
func (s *Session) setGeneric(name string, ft *ast.FuncType) {
	if ft == nil || ft.TypeParams == nil {
		delete(s.generics, name)
		return
	}
	if s.generics == nil {
		s.generics = map[string]*ast.FuncType{}
	}
	s.generics[name] = ft
}

// generic returns the type of a generic function an earlier cell
// declared, or nil.
func (s *Session) generic(name string) *ast.FuncType {
	s.meta.RLock()
	defer s.meta.RUnlock()
	return s.generics[name]
}
