package rewrite

import (
	"go/ast"
	"go/types"
)

// Closures called by deferred calls: a function value that yaegi makes
// from a function literal locks the frame of the function it was made
// in when it returns, and that function holds its own frame's lock while
// its deferred calls run. So in
//
//	func f() {
//		cleanup := func() { … }
//		defer cleanup()              // or defer func() { cleanup() }()
//	}
//
// cleanup never returns: the kernel hangs, and an interrupt cannot stop
// the wait. The pass refuses a deferred call that calls, or is given, a
// variable of the function that a function literal of that function
// (not a nested one) is assigned to. A function literal deferred
// directly (defer func() { … }()) is called another way and works.

// checkDeferredClosures refuses deferred calls that would deadlock.
func checkDeferredClosures(x *Cell, ps []*Run) error {
	var err error
	inspect(ps, func(n ast.Node) bool {
		if err != nil {
			return false
		}
		var body *ast.BlockStmt
		switch n := n.(type) {
		case *ast.FuncDecl:
			body = n.Body
		case *ast.FuncLit:
			body = n.Body
		}
		if body != nil {
			err = x.deferredClosures(body)
		}
		return err == nil
	})
	return err
}

// deferredClosures checks the deferred calls of one function body.
func (x *Cell) deferredClosures(body *ast.BlockStmt) error {
	// The variables a function literal of this function is assigned to.
	closures := map[types.Object]bool{}
	var defers []*ast.DeferStmt
	note := func(lhs ast.Expr, rhs ast.Expr) {
		if _, ok := unparen(rhs).(*ast.FuncLit); !ok {
			return
		}
		id, ok := lhs.(*ast.Ident)
		if !ok {
			return
		}
		obj := x.cc.Info.Defs[id]
		if obj == nil {
			obj = x.cc.Info.Uses[id]
		}
		if v, ok := obj.(*types.Var); ok && !x.isCellVar(v) && v.Parent() != v.Pkg().Scope() {
			closures[obj] = true
		}
	}
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false // another function's frame
		case *ast.AssignStmt:
			if len(n.Lhs) == len(n.Rhs) {
				for i := range n.Lhs {
					note(n.Lhs[i], n.Rhs[i])
				}
			}
		case *ast.ValueSpec:
			if len(n.Names) == len(n.Values) {
				for i := range n.Names {
					note(n.Names[i], n.Values[i])
				}
			}
		case *ast.DeferStmt:
			defers = append(defers, n)
			// Its arguments and a deferred literal are looked at below.
			for _, a := range n.Call.Args {
				ast.Inspect(a, func(m ast.Node) bool {
					if as, ok := m.(*ast.AssignStmt); ok && len(as.Lhs) == len(as.Rhs) {
						for i := range as.Lhs {
							note(as.Lhs[i], as.Rhs[i])
						}
					}
					return true
				})
			}
			return false
		}
		return true
	})
	if len(closures) == 0 {
		return nil
	}
	for _, d := range defers {
		var bad *ast.Ident
		ast.Inspect(d.Call, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && bad == nil && closures[x.cc.Info.Uses[id]] {
				bad = id
			}
			return bad == nil
		})
		if bad != nil {
			return newError("Unsupported", "yaegi, the interpreter, deadlocks when a deferred call calls "+bad.Name+
				", a function literal of the same function (it locks that function's frame, which the deferred calls hold): the kernel would hang; "+
				"defer a function literal holding the code instead (defer func() { … }()), or declare "+bad.Name+" as a function at the top level of a cell", x.at(bad))
		}
	}
	return nil
}
