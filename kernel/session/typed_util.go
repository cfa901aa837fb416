package session

import (
	"go/ast"
	"go/types"
)

// calledFunc returns the function a call calls by name (pkg.F or F), or
// nil.
func calledFunc(info *types.Info, c *ast.CallExpr) *types.Func {
	var id *ast.Ident
	switch f := unparen(c.Fun).(type) {
	case *ast.Ident:
		id = f
	case *ast.SelectorExpr:
		id = f.Sel
	default:
		return nil
	}
	fn, _ := info.Uses[id].(*types.Func)
	return fn
}

// isNamed reports whether t is a named (defined) type.
func isNamed(t types.Type) bool {
	_, ok := types.Unalias(t).(*types.Named)
	return ok
}
