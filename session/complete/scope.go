package complete

import "reflect"

// Scope is what completion and inspection need to know about the live
// interpreter. *session.Session implements it; tests use fakes.
type Scope interface {
	// Names returns the identifiers declared by earlier cells (variables,
	// constants, types, functions), in no particular order.
	Names() []string
	// Packages maps every package name a cell may use without an import
	// line (standard library and graphnb packages) to its import path,
	// plus the packages the cells imported under other names.
	Packages() map[string]string
	// Members returns the exported symbols of a compiled package, by
	// import path: name → the symbol's value (a function, a pointer to a
	// variable, a typed nil pointer for a type, a constant), as yaegi's
	// symbol tables hold them.
	Members(importPath string) map[string]reflect.Value
	// Value returns the current value of a top-level variable, if any;
	// for struct fields and methods after "x.".
	Value(name string) (reflect.Value, bool)
}
