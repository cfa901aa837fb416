package rewrite

import (
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
)

// Pointers to arrays: yaegi cannot take the address of an element through
// one (&p[i]: "cannot take address of"), its len and cap of a nil one
// fail (reflect Len on zero Value) where Go gives the array's length, and
// its range over one fails with both an index and a value, with neither,
// or when it is nil. The pass writes &(*p)[i]; len(f()) of a *[N]T as a
// call that evaluates f() and gives N (len(p) of a pointer p, with no call
// or receive in it, is a constant: foldConstExprs writes it); and a range
// over p as a range over p[:] when it has a value (Go reads the elements
// through p as the loop goes, as from the slice, and fails on nil p), else
// over N (Go does not dereference p then).
//
//	&p[i]                →  &(*p)[i]
//	len(<-c)             →  func(interface{}) int { return 50 }(<-c)
//	for i, v := range p  →  for i, v := range p[:]
//	for i := range p     →  for i := range int(4)
//	for i := range f()   →  for i := range int(func(interface{}) int { return 4 }(f()))

// rewriteArrayPointers applies the two rewrites.
func rewriteArrayPointers(x *Cell, ps []*Run) error {
	info := x.cc.Info
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
	inspect(ps, func(n ast.Node) bool {
		rs, ok := n.(*ast.RangeStmt)
		if !ok {
			return true
		}
		length := arrayPointerLen(info, rs.X)
		switch {
		case length < 0:
		case rs.Value != nil && !isBlank(rs.Value):
			rs.X = &ast.SliceExpr{X: rs.X, Lbrack: rs.X.End(), Rbrack: rs.X.End()}
		case rs.Tok == token.ASSIGN && rs.Key != nil && !isBlank(rs.Key):
			// Left as written: the session's loop for a range over an
			// integer ends with the variable at N, not N-1.
		case hasCallOrReceive(info, rs.X) && w.free("int"):
			// Evaluated (Go calls it), not dereferenced.
			pos := rs.X.Pos()
			call := &ast.CallExpr{Fun: ident("len", pos), Lparen: pos, Args: []ast.Expr{rs.X}, Rparen: rs.X.End() - 1}
			rs.X = &ast.CallExpr{Fun: ident("int", pos), Lparen: pos, Args: []ast.Expr{arrayLenCall(call, length)}, Rparen: rs.X.End() - 1}
		case w.free("int"):
			pos := rs.X.Pos()
			rs.X = &ast.CallExpr{Fun: ident("int", pos), Lparen: pos, Args: []ast.Expr{&ast.BasicLit{ValuePos: pos, Kind: token.INT, Value: strconv.FormatInt(length, 10)}}, Rparen: rs.X.End() - 1}
		}
		return true
	})
	return nil
}

// hasCallOrReceive reports whether e holds a call (not a conversion or a
// builtin without effects) or a receive, outside function literals.
func hasCallOrReceive(info *types.Info, e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			if tv, ok := info.Types[n.Fun]; !ok || !tv.IsType() {
				found = true
			}
		case *ast.UnaryExpr:
			found = found || n.Op == token.ARROW
		}
		return !found
	})
	return found
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
func (x *Cell) lenOfArrayPointer(c *ast.CallExpr) int64 {
	info := x.cc.Info
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
