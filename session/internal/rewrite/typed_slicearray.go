package rewrite

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
)

// Slices converted to arrays: yaegi's conversion of a slice too short for
// the array ([9]byte(s), (*[9]byte)(s) with len(s) 8) panics with
// reflect's text, not Go's runtime error. The pass has a compiled helper
// check the length first, as Go does, and converts the slice cut to the
// array's length (the same elements, the same first address):
//
//	[9]byte(s)  →  [9]byte(s[:__gnb.SliceToArray(len(s), 9)])
//
// A slice expression with calls or receives is evaluated once, through a
// function literal.
func checkSliceToArray(x *Cell, ps []*Run) error {
	rewrite := map[ast.Expr]ast.Expr{}
	var err error
	inspect(ps, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		if !ok || len(c.Args) != 1 || err != nil {
			return err == nil
		}
		tv, ok := x.cc.Info.Types[c.Fun]
		if !ok || !tv.IsType() {
			return true
		}
		var length int64 = -1
		switch t := tv.Type.Underlying().(type) {
		case *types.Array:
			length = t.Len()
		case *types.Pointer:
			if a, ok := t.Elem().Underlying().(*types.Array); ok {
				length = a.Len()
			}
		}
		st := x.cc.Info.Types[c.Args[0]].Type
		if length < 0 || st == nil {
			return true
		}
		if _, ok := st.Underlying().(*types.Slice); !ok {
			return true
		}
		pos := c.Args[0].Pos()
		num := strconv.FormatInt(length, 10)
		cut := func(s ast.Expr) ast.Expr {
			check := &ast.CallExpr{
				Fun:    &ast.SelectorExpr{X: ident("__gnb", pos), Sel: ident("SliceToArray", pos)},
				Lparen: pos, Rparen: pos,
				Args: []ast.Expr{&ast.CallExpr{Fun: ident("len", pos), Lparen: pos, Args: []ast.Expr{s}, Rparen: pos}, &ast.BasicLit{ValuePos: pos, Kind: token.INT, Value: num}},
			}
			return &ast.SliceExpr{X: s, Lbrack: pos, High: check, Rbrack: pos}
		}
		if !hasCallOrReceive(x.cc.Info, c.Args[0]) {
			rewrite[c] = &ast.CallExpr{Fun: c.Fun, Lparen: c.Lparen, Args: []ast.Expr{cut(shallowCopy(c.Args[0]))}, Rparen: c.Rparen}
			return true
		}
		if !x.writable(st) || !x.writable(tv.Type) {
			return true
		}
		sliceT, e1 := x.typeExpr(st)
		resT, e2 := x.typeExpr(tv.Type)
		if e1 != nil || e2 != nil {
			err = fmt.Errorf("%v%v", e1, e2)
			return false
		}
		p := x.ci.tmpName("s")
		lit := &ast.FuncLit{
			Type: &ast.FuncType{Func: pos, Params: &ast.FieldList{List: []*ast.Field{{Names: []*ast.Ident{ident(p, pos)}, Type: sliceT}}},
				Results: &ast.FieldList{List: []*ast.Field{{Type: resT}}}},
			Body: &ast.BlockStmt{Lbrace: pos, List: []ast.Stmt{&ast.ReturnStmt{Return: pos, Results: []ast.Expr{
				&ast.CallExpr{Fun: &ast.ParenExpr{X: resT}, Lparen: pos, Args: []ast.Expr{cut(ident(p, pos))}, Rparen: pos},
			}}}, Rbrace: pos},
		}
		rewrite[c] = &ast.CallExpr{Fun: lit, Lparen: pos, Args: []ast.Expr{c.Args[0]}, Rparen: c.Rparen}
		return true
	})
	if err != nil {
		return newError("InternalError", "converting a slice to an array: "+err.Error())
	}
	replaceAll(ps, rewrite)
	return nil
}

// sliceToArray is __gnb.SliceToArray: n when a slice of length l can be
// converted to an array of n elements, else Go's run-time panic.
func sliceToArray(l, n int) int {
	if l < n {
		panic(runtimeError{fmt.Sprintf("runtime error: cannot convert slice with length %d to array or pointer to array with length %d", l, n)})
	}
	return n
}
