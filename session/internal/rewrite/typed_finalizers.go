package rewrite

import (
	"go/ast"
	"go/types"
)

// Finalizers written as function literals: a yaegi closure holds the
// whole frame of the function it is created in (and of the functions
// around it), not just the variables it uses. A finalizer literal set on
// an object that a local variable there reaches keeps that object
// reachable from its own finalizer, so the finalizer never runs (Go's
// runs once the object is unreachable). The pass refuses
// runtime.SetFinalizer(obj, func…{…}) inside a function where obj is
// rooted at a local variable.

// checkFinalizers refuses finalizer literals that would never run.
func checkFinalizers(x *Cell, ps []*Run) error {
	var err error
	inspect(ps, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		if !ok || err != nil || len(c.Args) != 2 {
			return err == nil
		}
		fn := calledFunc(x.cc.Info, c)
		if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "runtime" || fn.Name() != "SetFinalizer" {
			return true
		}
		if _, isLit := unparen(c.Args[1]).(*ast.FuncLit); !isLit {
			return true
		}
		id := rootIdent(c.Args[0])
		if id == nil {
			return true
		}
		v, ok := x.cc.Info.Uses[id].(*types.Var)
		if !ok || v.Pkg() == nil || v.Parent() == nil || v.Parent() == v.Pkg().Scope() || x.isCellVar(v) {
			return true
		}
		err = newError("Unsupported", "this finalizer would never run: a function literal in yaegi, the interpreter, holds every variable of the function it is written in, "+
			id.Name+" too, so the object stays reachable from its own finalizer; declare the finalizer as a function at the top level of a cell (func fin(p *T) {…}) and pass that", x.at(c.Args[1]))
		return false
	})
	return err
}

// rootIdent returns the variable an expression such as v, &v, v.f, v[i]
// or *v starts from, or nil.
func rootIdent(e ast.Expr) *ast.Ident {
	for {
		switch t := e.(type) {
		case *ast.Ident:
			return t
		case *ast.ParenExpr:
			e = t.X
		case *ast.UnaryExpr:
			e = t.X
		case *ast.StarExpr:
			e = t.X
		case *ast.SelectorExpr:
			e = t.X
		case *ast.IndexExpr:
			e = t.X
		default:
			return nil
		}
	}
}

// isCellVar reports whether v is a variable of the session: a top-level
// definition of the cell (held by the interpreter's globals, not by a
// frame), declared in the scope of the function the checker puts the
// cell's statements in.
func (x *Cell) isCellVar(v *types.Var) bool {
	fn, ok := x.cc.Pkg.Scope().Lookup(CellFuncName).(*types.Func)
	return ok && v.Parent() == fn.Scope()
}
