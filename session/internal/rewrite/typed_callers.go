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
// cell's functions either). The pass refuses them.

// introspection lists the functions of package runtime the pass refuses.
var introspection = map[string]bool{"Caller": true, "Callers": true, "CallersFrames": true, "FuncForPC": true}

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
		err = newError("Unsupported", fmt.Sprintf("runtime.%s cannot see a cell's functions: to the Go runtime they are frames of yaegi, the interpreter (its files, lines and function names); the kernel's tracebacks name cell lines", fn.Name()), x.at(sel))
		return false
	})
	return err
}
