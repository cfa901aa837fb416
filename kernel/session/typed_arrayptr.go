package session

import (
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
)

// Pointers to arrays: yaegi cannot range over a pointer to an array ("call
// of reflect.Value.Int on array Value"; with a nil pointer "call of
// reflect.Value.Len on zero Value", where Go iterates over the indices
// without reading the array), and computes len(p) and cap(p) by reading
// the array (a nil p panics; Go's value is the constant length). The pass
// writes those lengths as constants and such a loop over the indices,
// evaluating the pointer once unless Go does not (a loop with at most one
// variable over an expression without calls or receives):
//
//	len(p)                     →  int(10)
//	len(f())                   →  func(any) int { return 10 }(f())
//	for i := range p { … }     →  for __gnb_i := 0; __gnb_i < 10; __gnb_i++ { i := __gnb_i; … }
//	for i, v := range p { … }  →  { __gnb_arr := p; for __gnb_i := 0; __gnb_i < 10; __gnb_i++ { i := __gnb_i; v := __gnb_arr[__gnb_i]; … } }
func fixArrayPointers(x *execution, ps []*parsed) error {
	consts := map[ast.Expr]ast.Expr{}
	inspect(ps, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) != 1 {
			return true
		}
		id, ok := unparen(call.Fun).(*ast.Ident)
		if !ok {
			return true
		}
		if b, ok := x.cc.info.Uses[id].(*types.Builtin); !ok || (b.Name() != "len" && b.Name() != "cap") {
			return true
		}
		t := x.cc.info.Types[call.Args[0]].Type
		if !isArrayPointer(t) {
			return true
		}
		length := strconv.FormatInt(t.Underlying().(*types.Pointer).Elem().Underlying().(*types.Array).Len(), 10)
		lit := &ast.BasicLit{ValuePos: call.Pos(), Kind: token.INT, Value: length}
		if x.cc.info.Types[call].Value != nil {
			consts[call] = &ast.CallExpr{Fun: &ast.Ident{Name: "int", NamePos: call.Pos()}, Lparen: call.Pos(), Args: []ast.Expr{lit}, Rparen: call.End()}
			return true
		}
		// The pointer has calls or receives: evaluated, not read.
		f, err := x.parseGenerated("func(any) int { return "+length+" }", call)
		if err != nil {
			return true
		}
		consts[call] = &ast.CallExpr{Fun: f, Lparen: call.Pos(), Args: call.Args, Rparen: call.End()}
		return true
	})
	for _, p := range ps {
		replaceExprs(p.node(), consts)
	}
	rewriteStmtLists(ps, func(st ast.Stmt) ast.Stmt {
		loop, label := st, (*ast.LabeledStmt)(nil)
		if l, ok := st.(*ast.LabeledStmt); ok {
			loop, label = l.Stmt, l
		}
		r, ok := loop.(*ast.RangeStmt)
		if !ok || r.X == nil {
			return st
		}
		t := x.cc.info.Types[r.X].Type
		if !isArrayPointer(t) {
			return st
		}
		n := t.Underlying().(*types.Pointer).Elem().Underlying().(*types.Array).Len()
		pos := r.For
		id := func(name string) *ast.Ident { return &ast.Ident{Name: name, NamePos: pos} }
		blank := func(e ast.Expr) bool {
			i, ok := e.(*ast.Ident)
			return e == nil || (ok && i.Name == "_")
		}
		evaluated := !blank(r.Value) || hasCallOrReceive(x.cc.info, r.X)
		var pre []ast.Stmt
		assign := func(lhs, rhs ast.Expr) {
			if blank(lhs) {
				return
			}
			tok := token.ASSIGN
			if r.Tok == token.DEFINE {
				tok = token.DEFINE
			}
			pre = append(pre, &ast.AssignStmt{Lhs: []ast.Expr{lhs}, TokPos: pos, Tok: tok, Rhs: []ast.Expr{rhs}})
		}
		assign(r.Key, id("__gnb_i"))
		assign(r.Value, &ast.IndexExpr{X: id("__gnb_arr"), Lbrack: pos, Index: id("__gnb_i"), Rbrack: pos})
		r.Body.List = append(pre, r.Body.List...)
		var newLoop ast.Stmt = &ast.ForStmt{
			For:  r.For,
			Init: &ast.AssignStmt{Lhs: []ast.Expr{id("__gnb_i")}, TokPos: pos, Tok: token.DEFINE, Rhs: []ast.Expr{&ast.BasicLit{ValuePos: pos, Kind: token.INT, Value: "0"}}},
			Cond: &ast.BinaryExpr{X: id("__gnb_i"), OpPos: pos, Op: token.LSS, Y: &ast.BasicLit{ValuePos: pos, Kind: token.INT, Value: strconv.FormatInt(n, 10)}},
			Post: &ast.IncDecStmt{X: id("__gnb_i"), TokPos: pos, Tok: token.INC},
			Body: r.Body,
		}
		if label != nil {
			label.Stmt = newLoop
			newLoop = label
		}
		if !evaluated {
			return newLoop
		}
		arr := &ast.AssignStmt{Lhs: []ast.Expr{id("__gnb_arr")}, TokPos: pos, Tok: token.DEFINE, Rhs: []ast.Expr{r.X}}
		list := []ast.Stmt{arr, newLoop}
		if blank(r.Value) {
			// Evaluated for its effects only.
			list[0] = &ast.AssignStmt{Lhs: []ast.Expr{id("_")}, TokPos: pos, Tok: token.ASSIGN, Rhs: []ast.Expr{r.X}}
		}
		return &ast.BlockStmt{Lbrace: st.Pos(), List: list, Rbrace: st.End()}
	})
	return nil
}

// isArrayPointer reports whether t is a pointer to an array.
func isArrayPointer(t types.Type) bool {
	if t == nil {
		return false
	}
	p, ok := t.Underlying().(*types.Pointer)
	if !ok {
		return false
	}
	_, ok = p.Elem().Underlying().(*types.Array)
	return ok
}

// hasCallOrReceive reports whether e holds a call (a conversion is not
// one) or a receive: Go evaluates such a range expression.
func hasCallOrReceive(info *types.Info, e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			if tv, ok := info.Types[n.Fun]; !ok || !tv.IsType() {
				found = true
			}
		case *ast.UnaryExpr:
			if n.Op == token.ARROW {
				found = true
			}
		}
		return !found
	})
	return found
}
