package rewrite

import (
	"fmt"
	"go/ast"
	"go/types"
)

// recover called other than by a deferred function: Go's recover stops a
// panic only when the deferred function itself calls it; called from a
// function that a deferred function calls, it returns nil. yaegi's
// recovers there too, so a helper that calls recover changes what its
// caller's panic does. The pass refuses a call, other than a deferred
// one, of a cell's function whose body calls recover (the session
// remembers those functions from cell to cell).
func refuseIndirectRecover(x *Cell, ps []*Run) error {
	// The cell's functions that call recover themselves.
	here := map[types.Object]bool{}
	x.recoverFuncs = map[string]bool{}
	inspect(ps, func(n ast.Node) bool {
		fd, ok := n.(*ast.FuncDecl)
		if !ok || fd.Recv != nil || fd.Body == nil {
			return true
		}
		if obj := x.cc.Info.Defs[fd.Name]; obj != nil {
			here[obj] = callsRecover(x.cc.Info, fd.Body)
			x.recoverFuncs[obj.Name()] = here[obj]
		}
		return true
	})
	calls := func(obj types.Object) bool {
		if r, ok := here[obj]; ok {
			return r
		}
		return x.env.Object(obj.Name()) == obj && x.env.CallsRecover(obj.Name())
	}
	deferred := map[*ast.CallExpr]bool{}
	var err error
	inspect(ps, func(n ast.Node) bool {
		if err != nil {
			return false
		}
		switch n := n.(type) {
		case *ast.DeferStmt:
			deferred[n.Call] = true
		case *ast.CallExpr:
			id, ok := unparen(n.Fun).(*ast.Ident)
			if !ok || deferred[n] {
				return true
			}
			fn, ok := x.cc.Info.Uses[id].(*types.Func)
			if !ok || fn.Pkg() == nil || fn.Pkg().Path() != "main" || !calls(fn) {
				return true
			}
			err = newError("Unsupported", fmt.Sprintf("%s calls recover, and is called here other than by defer: Go's recover then returns nil (it stops a panic only when a deferred function calls it itself), "+
				"yaegi's, the interpreter's, would stop the panic; call recover in the deferred function, and pass what it returns to %s", id.Name, id.Name), x.at(n))
			return false
		}
		return true
	})
	return err
}

// callsRecover reports whether body calls the builtin recover itself (not
// in a function literal, nor as defer recover()).
func callsRecover(info *types.Info, body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.DeferStmt:
			if id, ok := unparen(n.Call.Fun).(*ast.Ident); ok && len(n.Call.Args) == 0 {
				if b, ok := info.Uses[id].(*types.Builtin); ok && b.Name() == "recover" {
					return false // defer recover(): recover is the deferred call
				}
			}
		case *ast.CallExpr:
			if id, ok := unparen(n.Fun).(*ast.Ident); ok {
				if b, ok := info.Uses[id].(*types.Builtin); ok && b.Name() == "recover" {
					found = true
				}
			}
		}
		return !found
	})
	return found
}
