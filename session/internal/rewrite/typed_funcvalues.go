package rewrite

import (
	"go/ast"
	"go/types"
)

// Functions as values: yaegi hands a function declared in a cell, named as
// a value (not called), to an interface as its own syntax node (*interp.node):
// `var v any = f` then fails every assertion v.(func(int) int), %T prints
// *interp.node. Converted to its own type first, the value is a function.
// The pass writes every such use as a conversion:
//
//	return f  →  return (func(int) int)(f)
func convertFuncValues(x *Cell, ps []*Run) error {
	var stack []ast.Node
	rewrite := map[ast.Expr]ast.Expr{}
	var err error
	inspect(ps, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		stack = append(stack, n)
		id, ok := n.(*ast.Ident)
		if !ok || err != nil {
			return true
		}
		fn, ok := x.cc.Info.Uses[id].(*types.Func)
		if !ok || fn.Pkg() == nil || fn.Pkg().Path() != "main" {
			return true
		}
		sig := fn.Type().(*types.Signature)
		if sig.Recv() != nil || sig.TypeParams() != nil {
			return true
		}
		if len(stack) >= 2 {
			switch p := stack[len(stack)-2].(type) {
			case *ast.CallExpr:
				if unparen(p.Fun) == id {
					return true // called
				}
			case *ast.ParenExpr:
				if len(stack) >= 3 {
					if c, ok := stack[len(stack)-3].(*ast.CallExpr); ok && c.Fun == p {
						return true
					}
				}
			case *ast.SelectorExpr, *ast.FuncDecl, *ast.IndexExpr, *ast.IndexListExpr:
				return true
			}
		}
		if !x.writable(sig) {
			return true
		}
		t, e := x.typeExpr(sig)
		if e != nil {
			err = e
			return false
		}
		cp := *id
		rewrite[id] = &ast.CallExpr{Fun: &ast.ParenExpr{Lparen: id.Pos(), X: t, Rparen: id.Pos()}, Lparen: id.Pos(), Args: []ast.Expr{&cp}, Rparen: id.End()}
		return true
	})
	if err != nil {
		return err
	}
	replaceAll(ps, rewrite)
	return nil
}
