package session

import (
	"go/ast"
	"go/token"
)

// Assignments of several values: yaegi lets a call, a receive or a
// composite literal on the right of a, b = x+1, f() store its value
// straight into its variable and then drops the whole assignment, so the
// other variables keep their old values (and a call reading a variable
// assigned before it sees the new value); the pass puts such an operand
// in parentheses, which yaegi evaluates into a value of its own first.
//
//	want, got = a+c, add(a)  →  want, got = a+c, (add(a))
//	p, n := P{1, 2}, n+1      →  p, n := (P{1, 2}), n+1

// parenParallelOperands wraps the operands yaegi would store directly.
func parenParallelOperands(x *execution, ps []*parsed) error {
	wrap := func(values []ast.Expr, targets int) {
		if targets < 2 || len(values) != targets {
			return
		}
		for i, v := range values {
			if storesDirectly(v) {
				values[i] = &ast.ParenExpr{Lparen: v.Pos(), X: v, Rparen: v.End() - 1}
			}
		}
	}
	inspect(ps, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if n.Tok == token.ASSIGN || n.Tok == token.DEFINE {
				wrap(n.Rhs, len(n.Lhs))
			}
		case *ast.ValueSpec:
			wrap(n.Values, len(n.Names))
		}
		return true
	})
	return nil
}

// storesDirectly reports whether yaegi compiles e to write its result
// into the variable it is assigned to.
func storesDirectly(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.CallExpr, *ast.CompositeLit:
		return true
	case *ast.UnaryExpr:
		return e.Op == token.ARROW
	}
	return false
}
