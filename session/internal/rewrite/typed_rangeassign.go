package rewrite

import (
	"go/ast"
	"go/token"
)

// Range loops that assign existing variables (for i = range x, for k,
// m[k] = range y).
//
// yaegi does not assign the variables of `for i = range x` as Go does:
// after `for i = range [5]int{}` i is 0, not 4, and a closure made in the
// loop reads a value i never had. The pass ranges over fresh variables and
// assigns them at the start of each iteration, as an assignment statement
// (the operands of index expressions and pointer indirections on the left
// first, then the stores from left to right):
//
//	for i, x[i] = range y { body }  →  for __gnb_k, __gnb_v := range y { __gnb_t1 := x; __gnb_t2 := i; i = __gnb_k; __gnb_t1[__gnb_t2] = __gnb_v; { body } }
//
// Ranges over strings are the stringrange pass's.

// rangeAssigned rewrites every range loop with =.
func rangeAssigned(x *Cell, ps []*Run) error {
	for _, p := range ps {
		rewriteStmts(p.node(), func(st ast.Stmt, simple bool, depth int) ast.Stmt {
			rs, ok := st.(*ast.RangeStmt)
			if !ok || rs.Tok != token.ASSIGN || rs.Key == nil {
				return nil
			}
			pos := rs.For
			var lhs, vals []ast.Expr
			key, value := ast.Expr(ident("_", pos)), ast.Expr(nil)
			if !isBlank(rs.Key) {
				k := x.ci.tmpName("k")
				key = ident(k, pos)
				lhs, vals = append(lhs, rs.Key), append(vals, ident(k, pos))
			}
			if rs.Value != nil && !isBlank(rs.Value) {
				v := x.ci.tmpName("v")
				value = ident(v, pos)
				lhs, vals = append(lhs, rs.Value), append(vals, ident(v, pos))
			}
			l := x.newLowering(pos, depth+1)
			l.assignValues(lhs, vals, nil)
			if !l.ok {
				return nil
			}
			if value == nil && isBlank(key) {
				key = nil // for _ = range x
			}
			rs.Key, rs.Value, rs.Tok = key, value, token.DEFINE
			if key == nil {
				rs.Tok = token.ILLEGAL
			}
			rs.Body = &ast.BlockStmt{Lbrace: rs.Body.Lbrace, List: append(l.pre, rs.Body), Rbrace: rs.Body.Rbrace}
			return nil
		})
	}
	return nil
}
