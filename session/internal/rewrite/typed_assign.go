package rewrite

import (
	"go/ast"
	"go/token"
)

// Direct stores: yaegi compiles the operand of an assignment that is a
// call, a receive or a composite literal to store its value straight into
// the variable assigned, and then skips the assignment itself. That loses
// values: in an assignment of several values the others are not assigned
// (a, b = x+1, f() leaves a unchanged, and a call reading a variable
// assigned before it sees the new value); a receive or a composite
// literal assigned to an element, a field, a pointed-to variable or a
// variable of an enclosing function is never stored (xs[i] = <-c,
// func() { p = P{1, 2} }()). The pass puts such an operand in
// parentheses, which yaegi evaluates into a value of its own before the
// assignment.
//
//	want, got = a+c, add(a)  →  want, got = a+c, (add(a))
//	xs[i] = <-c              →  xs[i] = (<-c)

// parenDirectStores wraps the operands yaegi would store directly.
func parenDirectStores(x *Cell, ps []*Run) error {
	wrap := func(values []ast.Expr, targets int) {
		if len(values) != targets {
			return
		}
		for i, v := range values {
			if storesDirectly(v, targets > 1) {
				values[i] = &ast.ParenExpr{Lparen: v.Pos(), X: v, Rparen: v.End() - 1}
			}
		}
	}
	comm := map[ast.Stmt]bool{} // the receives of select cases: the receives pass writes those
	inspect(ps, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CommClause:
			if n.Comm != nil {
				comm[n.Comm] = true
			}
		case *ast.AssignStmt:
			if comm[n] {
				return true
			}
			// A single definition stores its value rightly.
			if n.Tok == token.ASSIGN || (n.Tok == token.DEFINE && len(n.Lhs) > 1) {
				wrap(n.Rhs, len(n.Lhs))
			}
		case *ast.ValueSpec:
			if len(n.Names) > 1 {
				wrap(n.Values, len(n.Names))
			}
		}
		return true
	})
	return nil
}

// storesDirectly reports whether yaegi compiles e, the value of an
// assignment, to store it into its variable where that loses it: a
// receive or a composite literal, and a call among several values.
func storesDirectly(e ast.Expr, several bool) bool {
	switch e := e.(type) {
	case *ast.CompositeLit:
		return true
	case *ast.CallExpr:
		return several
	case *ast.UnaryExpr:
		return e.Op == token.ARROW
	}
	return false
}
