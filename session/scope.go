package session

import (
	"go/token"
	"go/types"
	"reflect"
	"strings"

	"github.com/graphnb/graphnb/session/complete"
)

// The complete.Scope methods: what completion and inspection know of the
// live interpreter.

// Names returns the identifiers declared by earlier cells: variables,
// constants, types and functions (not the session's own helpers).
func (s *Session) Names() []string {
	s.meta.RLock()
	defer s.meta.RUnlock()
	names := make([]string, 0, len(s.kinds))
	for n := range s.kinds {
		if !strings.HasPrefix(n, "__gnb") {
			names = append(names, n)
		}
	}
	return names
}

// Packages maps every package name a cell may use without an import line
// to its import path, plus the packages cells imported (under their own or
// another name).
func (s *Session) Packages() map[string]string {
	m := make(map[string]string, len(s.tables.auto)+8)
	for k, v := range s.tables.auto {
		m[k] = v
	}
	s.meta.RLock()
	defer s.meta.RUnlock()
	for k, v := range s.imports {
		if !strings.HasPrefix(k, "__gnb") {
			m[k] = v
		}
	}
	return m
}

// Members returns the exported symbols of a compiled package by import
// path, as yaegi's symbol tables hold them (nil for an unknown path). The
// map is shared: do not modify it.
func (s *Session) Members(importPath string) map[string]reflect.Value {
	return s.tables.members[importPath]
}

// Value returns the current value of a variable, constant or function
// that a cell declared. Only identifiers are evaluated, never expressions.
// It returns false while a cell runs.
func (s *Session) Value(name string) (reflect.Value, bool) {
	if !token.IsIdentifier(name) || strings.HasPrefix(name, "__gnb") {
		return reflect.Value{}, false
	}
	switch s.kind(name) {
	case kindVar, kindConst, kindFunc:
	default:
		return reflect.Value{}, false
	}
	if !s.mu.TryLock() {
		return reflect.Value{}, false
	}
	defer s.mu.Unlock()
	return s.value(name)
}

// value is Value for a caller that holds s.mu (the rewrites, while a cell
// is prepared).
func (s *Session) value(name string) (reflect.Value, bool) {
	switch s.kind(name) {
	case kindVar, kindConst, kindFunc:
	default:
		return reflect.Value{}, false
	}
	v, err := s.evalIdent(name)
	if err != nil {
		return reflect.Value{}, false
	}
	v = unwrap(v)
	return v, v.IsValid()
}

// Object returns what the cells declared under name, as Go's type checker
// sees it (complete.Typed): nil for a name no cell declared.
func (s *Session) Object(name string) types.Object {
	s.check.mu.RLock()
	defer s.check.mu.RUnlock()
	if b := s.check.names[name]; b != nil && !strings.HasPrefix(name, "__gnb") {
		return b.obj
	}
	return nil
}

var _ complete.Typed = (*Session)(nil)

// heldScope is the session as a complete.Scope for code that runs while the
// session holds its lock (the %doc magic, inside a cell): Value reads
// without taking the lock, which Value would fail to take.
type heldScope struct{ *Session }

func (h heldScope) Value(name string) (reflect.Value, bool) { return h.value(name) }
