package rewrite

import (
	"go/ast"
	"go/token"
	"go/types"
)

// Variables of compiled packages: yaegi takes a package variable of a
// boolean, numeric or string type for a constant: it refuses to assign
// it (runtime.MemProfileRate = 1 fails with "cannot assign to
// %!s(int=524288) (int constant)") and folds it into constant
// expressions when it compiles them (runtime.MemProfileRate + 1 keeps the
// value of that moment). Through its address it is a variable: the pass
// writes every use of such a variable pkg.V as (*&pkg.V).

// isCompiledVar reports whether e denotes a variable of a compiled
// package whose type yaegi takes for a constant's.
func (x *Cell) isCompiledVar(sel *ast.SelectorExpr) bool {
	v, ok := x.cc.Info.Uses[sel.Sel].(*types.Var)
	if !ok || v.Pkg() == nil || v.Pkg().Path() == "main" || v.Parent() != v.Pkg().Scope() {
		return false
	}
	b, ok := v.Type().Underlying().(*types.Basic)
	return ok && b.Info()&(types.IsBoolean|types.IsNumeric|types.IsString) != 0
}

// addressCompiledVars writes the uses of such variables through their
// address.
func addressCompiledVars(x *Cell, ps []*Run) error {
	rewrite := map[ast.Expr]ast.Expr{}
	inspect(ps, func(n ast.Node) bool {
		if u, ok := n.(*ast.UnaryExpr); ok && u.Op == token.AND {
			if sel, ok := unparen(u.X).(*ast.SelectorExpr); ok && x.isCompiledVar(sel) {
				return false // its address already
			}
		}
		sel, ok := n.(*ast.SelectorExpr)
		if !ok || !x.isCompiledVar(sel) {
			return true
		}
		inner := &ast.SelectorExpr{X: sel.X, Sel: sel.Sel}
		rewrite[sel] = &ast.ParenExpr{Lparen: sel.Pos(), Rparen: sel.End(), X: &ast.StarExpr{Star: sel.Pos(), X: &ast.UnaryExpr{OpPos: sel.Pos(), Op: token.AND, X: inner}}}
		return false
	})
	replaceAll(ps, rewrite)
	return nil
}
