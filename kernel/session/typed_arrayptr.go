package session

import (
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
)

// Pointers to arrays: yaegi cannot take the address of an element through
// one (&p[i]: "cannot take address of"), and its len and cap of a nil one
// fail (reflect Len on zero Value) where Go gives the array's length; the
// pass writes &(*p)[i], and len(f()) of a *[N]T as a call that evaluates
// f() and gives N. (len(p) of a pointer p, with no call or receive in it,
// is a constant: foldConstExprs writes it.)
//
//	&p[i]       →  &(*p)[i]
//	len(<-c)    →  func(interface{}) int { return 50 }(<-c)

// rewriteArrayPointers applies the two rewrites.
func rewriteArrayPointers(x *execution, ps []*parsed) error {
	info := x.cc.info
	w := x.newLiteralWriter()
	for _, p := range ps {
		walkExprs(p.node(), func(slot *ast.Expr, _ ast.Node) bool {
			switch e := (*slot).(type) {
			case *ast.UnaryExpr:
				ix, ok := unparen(e.X).(*ast.IndexExpr)
				if e.Op != token.AND || !ok || arrayPointerLen(info, ix.X) < 0 {
					return true
				}
				ix.X = &ast.ParenExpr{Lparen: ix.X.Pos(), X: &ast.StarExpr{Star: ix.X.Pos(), X: ix.X}, Rparen: ix.X.End() - 1}
			case *ast.CallExpr:
				n := x.lenOfArrayPointer(e)
				if n < 0 {
					return true
				}
				if !w.free("int") {
					return true
				}
				*slot = arrayLenCall(e, n) // its argument is walked next
			}
			return true
		})
	}
	return nil
}

// arrayPointerLen returns the length of the array e points to, or -1 when
// e is not a pointer to an array.
func arrayPointerLen(info *types.Info, e ast.Expr) int64 {
	tv, ok := info.Types[e]
	if !ok || tv.Type == nil || tv.IsType() {
		return -1
	}
	ptr, ok := tv.Type.Underlying().(*types.Pointer)
	if !ok {
		return -1
	}
	arr, ok := ptr.Elem().Underlying().(*types.Array)
	if !ok {
		return -1
	}
	return arr.Len()
}

// lenOfArrayPointer returns N for a call of the builtin len or cap, not a
// constant, of a pointer to an array of N elements; else -1.
func (x *execution) lenOfArrayPointer(c *ast.CallExpr) int64 {
	info := x.cc.info
	id, ok := unparen(c.Fun).(*ast.Ident)
	if !ok || len(c.Args) != 1 || info.Types[c].Value != nil {
		return -1
	}
	b, ok := info.Uses[id].(*types.Builtin)
	if !ok || (b.Name() != "len" && b.Name() != "cap") {
		return -1
	}
	return arrayPointerLen(info, c.Args[0])
}

// arrayLenCall writes func(interface{}) int { return n }(arg).
func arrayLenCall(c *ast.CallExpr, n int64) ast.Expr {
	pos := c.Pos()
	lit := &ast.FuncLit{
		Type: &ast.FuncType{Func: pos,
			Params:  &ast.FieldList{Opening: pos, List: []*ast.Field{{Type: &ast.InterfaceType{Interface: pos, Methods: &ast.FieldList{Opening: pos, Closing: pos}}}}, Closing: pos},
			Results: &ast.FieldList{List: []*ast.Field{{Type: ident("int", pos)}}}},
		Body: &ast.BlockStmt{Lbrace: pos, List: []ast.Stmt{
			&ast.ReturnStmt{Return: pos, Results: []ast.Expr{&ast.BasicLit{ValuePos: pos, Kind: token.INT, Value: strconv.FormatInt(n, 10)}}},
		}, Rbrace: pos},
	}
	return &ast.CallExpr{Fun: lit, Lparen: pos, Args: []ast.Expr{c.Args[0]}, Rparen: c.End() - 1}
}
