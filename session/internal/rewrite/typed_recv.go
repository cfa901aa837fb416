package rewrite

import (
	"go/ast"
	"go/token"
)

// Receives: yaegi writes a receive straight into its destination's frame
// slot, wrongly for anything but a local variable (a[i] = <-c, s.f = <-c,
// *p = <-c and a captured x = <-c silently store nothing; return <-c, an
// assignment to a named result, and x = f() after x := <-c panic
// "reflect.Value.Set using unaddressable value"), and a select case that
// assigns (case x = <-c:) panics "reflect.Select: invalid Dir". The pass
// parenthesizes a receive assigned or returned (a parenthesized operand is
// computed, then assigned) and writes an assigning select case as a
// definition followed by the assignment, which Go performs when the case
// is chosen:
//
//	a[i] = <-c            →  a[i] = (<-c)
//	x := <-c              →  x := (<-c)
//	return <-c            →  return (<-c)
//	case a[i], ok = <-c:  →  case __gnb_v, __gnb_ok := <-c: a[i], ok = __gnb_v, __gnb_ok
func fixReceives(x *Cell, ps []*Run) error {
	isRecv := func(e ast.Expr) bool {
		u, ok := e.(*ast.UnaryExpr)
		return ok && u.Op == token.ARROW
	}
	paren := func(list []ast.Expr) {
		for i, e := range list {
			if isRecv(e) {
				list[i] = &ast.ParenExpr{Lparen: e.Pos(), X: e, Rparen: e.End()}
			}
		}
	}
	comms := map[ast.Stmt]bool{} // a select case's receive stays as written
	inspect(ps, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CommClause:
			comms[n.Comm] = true
			a, ok := n.Comm.(*ast.AssignStmt)
			if !ok || a.Tok != token.ASSIGN || len(a.Rhs) != 1 || !isRecv(a.Rhs[0]) {
				return true
			}
			pos := a.Pos()
			names := []string{"__gnb_v", "__gnb_ok"}[:len(a.Lhs)]
			var defs, uses []ast.Expr
			for _, name := range names {
				defs = append(defs, &ast.Ident{Name: name, NamePos: pos})
				uses = append(uses, &ast.Ident{Name: name, NamePos: pos})
			}
			assign := &ast.AssignStmt{Lhs: a.Lhs, TokPos: a.TokPos, Tok: token.ASSIGN, Rhs: uses}
			n.Comm = &ast.AssignStmt{Lhs: defs, TokPos: a.TokPos, Tok: token.DEFINE, Rhs: a.Rhs}
			comms[n.Comm] = true
			n.Body = append([]ast.Stmt{assign}, n.Body...)
		case *ast.AssignStmt:
			if len(n.Lhs) == len(n.Rhs) && !comms[n] {
				paren(n.Rhs)
			}
		case *ast.ValueSpec:
			if len(n.Names) == len(n.Values) {
				paren(n.Values)
			}
		case *ast.ReturnStmt:
			paren(n.Results)
		}
		return true
	})
	return nil
}
