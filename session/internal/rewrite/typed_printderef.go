package rewrite

import (
	"go/ast"
	"go/types"
)

// Dereferences printed: yaegi's print and println of *p, p a nil pointer,
// print "<invalid reflect.Value>" where Go panics (nil pointer
// dereference); the pass writes such an argument as a call of a function
// literal that returns *p, which yaegi evaluates, and fails on, first.
//
//	println(*p)  →  println(func() int { return *p }())

// evalPrintedDerefs rewrites the dereferences given to print and println.
func evalPrintedDerefs(x *Cell, ps []*Run) error {
	info := x.cc.Info
	var err error
	inspect(ps, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		if !ok || err != nil {
			return err == nil
		}
		id, ok := unparen(c.Fun).(*ast.Ident)
		if !ok {
			return true
		}
		if b, ok := info.Uses[id].(*types.Builtin); !ok || (b.Name() != "print" && b.Name() != "println") {
			return true
		}
		for i, a := range c.Args {
			star, ok := unparen(a).(*ast.StarExpr)
			if !ok {
				continue
			}
			tv, ok := info.Types[star]
			if !ok || !tv.IsValue() || !x.writable(tv.Type) {
				continue
			}
			t, e := x.typeExpr(tv.Type)
			if e != nil {
				err = e
				return false
			}
			pos := a.Pos()
			lit := &ast.FuncLit{
				Type: &ast.FuncType{Func: pos, Params: &ast.FieldList{Opening: pos, Closing: pos}, Results: &ast.FieldList{List: []*ast.Field{{Type: t}}}},
				Body: &ast.BlockStmt{Lbrace: pos, List: []ast.Stmt{&ast.ReturnStmt{Return: pos, Results: []ast.Expr{a}}}, Rbrace: a.End() - 1},
			}
			c.Args[i] = &ast.CallExpr{Fun: lit, Lparen: a.End() - 1, Rparen: a.End() - 1}
		}
		return true
	})
	return err
}
