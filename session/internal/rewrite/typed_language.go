package rewrite

import (
	"go/ast"
	"go/token"
	"go/types"
)

// The language after Go 1.22. Cells are checked as the Go of the kernel's
// own toolchain checks them (check.go: checkGoVersion), while yaegi
// implements Go 1.22. The pass writes what it can in Go 1.22 and refuses
// the rest, each with the construct's name and what to write instead:
//
//   - new(expr) (Go 1.26), a pointer to a new variable holding expr's
//     value, becomes a function literal called at once:
//     new(x+1) → func(v int) *int { return &v }(x+1);
//   - range over a function (an iterator, Go 1.23) is refused;
//   - a generic type alias (type A[T any] = …, Go 1.24) is refused;
//   - a generic type whose type parameters' constraints name the type
//     itself (type T[P T[P]] …, Go 1.26) is refused.
func rewriteNewerLanguage(x *Cell, ps []*Run) error {
	info := x.cc.Info
	with := map[ast.Expr]ast.Expr{}
	var err error
	inspect(ps, func(n ast.Node) bool {
		if err != nil {
			return false
		}
		switch n := n.(type) {
		case *ast.RangeStmt:
			if t := info.TypeOf(n.X); t != nil {
				if _, ok := t.Underlying().(*types.Signature); ok {
					err = newError("Unsupported", "range over a function (an iterator, Go 1.23): yaegi, the interpreter, implements Go 1.22; "+
						"call the function with the loop body as its yield function (f(func(v T) bool { …; return true })), or range over a slice", x.at(n))
				}
			}
		case *ast.TypeSpec:
			if n.TypeParams == nil {
				break
			}
			if n.Assign.IsValid() {
				err = newError("Unsupported", "a generic type alias (type "+n.Name.Name+"[…] = …, Go 1.24): yaegi, the interpreter, implements Go 1.22; "+
					"declare a generic type (type "+n.Name.Name+"[…] …) or use the aliased type with its type arguments", x.at(n))
				break
			}
			self := info.Defs[n.Name]
			ast.Inspect(n.TypeParams, func(m ast.Node) bool {
				if id, ok := m.(*ast.Ident); ok && self != nil && info.Uses[id] == self && err == nil {
					err = newError("Unsupported", "type "+n.Name.Name+" names itself in its type parameters' constraints (Go 1.26): yaegi, the interpreter, implements Go 1.22; "+
						"declare the constraint as an interface of its own", x.at(id))
				}
				return err == nil
			})
		case *ast.CallExpr:
			if len(n.Args) != 1 {
				break
			}
			id, ok := unparen(n.Fun).(*ast.Ident)
			if !ok {
				break
			}
			if b, ok := info.Uses[id].(*types.Builtin); !ok || b.Name() != "new" || !info.Types[n.Args[0]].IsValue() {
				break
			}
			ptr, ok := info.TypeOf(n).(*types.Pointer)
			if !ok {
				break
			}
			if !x.writable(ptr) {
				err = newError("Unsupported", "new of an expression whose type is declared in a function (Go 1.26's new(expr)): "+
					"the kernel cannot name the type for yaegi, the interpreter; write v := expr and use &v", x.at(n))
				return false
			}
			elem, e := x.typeExpr(ptr.Elem())
			if e != nil {
				err = e
				return false
			}
			result, e := x.typeExpr(ptr)
			if e != nil {
				err = e
				return false
			}
			pos := n.Pos()
			v := &ast.Ident{Name: x.ci.tmpName("new"), NamePos: pos}
			maker := &ast.FuncLit{
				Type: &ast.FuncType{Func: pos,
					Params:  &ast.FieldList{Opening: pos, List: []*ast.Field{{Names: []*ast.Ident{v}, Type: elem}}, Closing: pos},
					Results: &ast.FieldList{List: []*ast.Field{{Type: result}}}},
				Body: &ast.BlockStmt{Lbrace: pos, List: []ast.Stmt{&ast.ReturnStmt{Return: pos, Results: []ast.Expr{
					&ast.UnaryExpr{OpPos: pos, Op: token.AND, X: &ast.Ident{Name: v.Name, NamePos: pos}}}}}, Rbrace: pos},
			}
			with[n] = &ast.CallExpr{Fun: maker, Lparen: n.Lparen, Args: n.Args, Rparen: n.Rparen}
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	replaceAll(ps, with)
	return nil
}
