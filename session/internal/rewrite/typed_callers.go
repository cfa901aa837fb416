package rewrite

import (
	"fmt"
	"go/ast"
	"go/types"
)

// Stack introspection: a cell's functions are not Go functions to the
// runtime; in the stack the interpreter's own frames stand for them, so
// runtime.Caller, Callers, CallersFrames and FuncForPC give yaegi's files,
// lines and function names (a heap profile's stacks name none of the
// cell's functions either). The pass refuses them, and runtime.MemProfile,
// whose records count the interpreter's allocations (its frames and
// values), not what the cell's Go allocates, under stacks that name none
// of the cell's functions.

// introspection lists the functions of package runtime the pass refuses.
var introspection = map[string]bool{"Caller": true, "Callers": true, "CallersFrames": true, "FuncForPC": true, "MemProfile": true}

// checkIntrospection refuses stack introspection through package runtime.
func checkIntrospection(x *Cell, ps []*Run) error {
	var err error
	inspect(ps, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok || err != nil {
			return err == nil
		}
		fn, ok := x.cc.Info.Uses[sel.Sel].(*types.Func)
		if !ok || fn.Pkg() == nil || fn.Pkg().Path() != "runtime" || !introspection[fn.Name()] {
			return true
		}
		if fn.Name() == "MemProfile" {
			err = newError("Unsupported", "runtime.MemProfile records the allocations of yaegi, the interpreter (its frames and values, under its own stacks), not those the cell's Go would make: "+
				"measure allocations in compiled code, or compare runtime.ReadMemStats before and after as a rough figure", x.at(sel))
			return false
		}
		err = newError("Unsupported", fmt.Sprintf("runtime.%s cannot see a cell's functions: to the Go runtime they are frames of yaegi, the interpreter (its files, lines and function names); the kernel's tracebacks name cell lines", fn.Name()), x.at(sel))
		return false
	})
	return err
}
