package rewrite

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
)

// Finalizers written as function literals: a yaegi closure holds the
// whole frame of the function it is created in (and of the functions
// around it), not just the variables it uses. A finalizer literal set on
// an object that a local variable there reaches keeps that object
// reachable from its own finalizer, so the finalizer never runs (Go's
// runs once the object is unreachable).
//
// The pass moves such a literal, in a function declared at the top level
// of a cell, into a function of its own at the top level, whose frame
// holds only the variables the literal uses:
//
//	func f() {                          func f() {
//	    n := 0; done := make(chan int)      n := 0; done := make(chan int)
//	    x := new(T)                         x := new(T)
//	    runtime.SetFinalizer(x,        →    runtime.SetFinalizer(x, __gnb_fin3_1(&n, done))
//	        func(p *T) { n++; done <- 1 })  …
//	    …                               }
//	}                                   func __gnb_fin3_1(n *int, done chan int) func(p *T) {
//	                                        return func(p *T) { (*n)++; done <- 1 }
//	                                    }
//
// A variable the function assigns after its definition, or whose address
// it takes, or of a struct or array type or a type with pointer methods,
// goes by pointer (the literal's uses become (*v)); any other goes by
// value. A literal that uses a type or constant declared in its function
// (or a variable of such a type), a type parameter, or that is written in
// a function literal of a cell's top-level code, is refused: the message
// says to declare the finalizer at the top level.

// hoistFinalizers moves finalizer literals out of their functions'
// frames, or refuses them.
func hoistFinalizers(x *Cell, ps []*Run) error {
	h := &finalizerHoist{x: x}
	for _, p := range ps {
		var decls []ast.Decl
		var stack []ast.Node
		var err error
		ast.Inspect(p.node(), func(n ast.Node) bool {
			if n == nil {
				stack = stack[:len(stack)-1]
				return true
			}
			if err != nil {
				return false
			}
			stack = append(stack, n)
			c, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			lit, fn := h.finalizerLiteral(c)
			if lit == nil {
				return true
			}
			var decl *ast.FuncDecl
			for _, s := range stack {
				if d, ok := s.(*ast.FuncDecl); ok {
					decl = d
				}
			}
			if !p.decl || decl == nil {
				err = h.refuse(fn, lit, "it is written in a function literal of the cell's top-level code")
				return false
			}
			var d *ast.FuncDecl
			d, err = h.hoist(decl, c, lit, fn)
			if d != nil {
				decls = append(decls, d)
			}
			return err == nil
		})
		if err != nil {
			return err
		}
		if len(decls) > 0 {
			p.file.Decls = append(p.file.Decls, decls...)
		}
	}
	return nil
}

type finalizerHoist struct {
	x *Cell
	n int // functions made so far
}

// finalizerLiteral returns the function literal that c, a call of
// runtime.SetFinalizer, sets on an object rooted at a local variable, and
// that variable's name; nil when there is none.
func (h *finalizerHoist) finalizerLiteral(c *ast.CallExpr) (*ast.FuncLit, string) {
	x := h.x
	if len(c.Args) != 2 {
		return nil, ""
	}
	fn := calledFunc(x.cc.Info, c)
	if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "runtime" || fn.Name() != "SetFinalizer" {
		return nil, ""
	}
	lit, isLit := unparen(c.Args[1]).(*ast.FuncLit)
	if !isLit {
		return nil, ""
	}
	id := rootIdent(c.Args[0])
	if id == nil {
		return nil, ""
	}
	v, ok := x.cc.Info.Uses[id].(*types.Var)
	if !ok || !h.local(v) {
		return nil, ""
	}
	return lit, id.Name
}

// local reports whether v is a variable of a function's frame: not of a
// package, not a field, not a variable of the session.
func (h *finalizerHoist) local(v *types.Var) bool {
	return v.Pkg() != nil && v.Parent() != nil && v.Parent() != v.Pkg().Scope() && !h.x.isCellVar(v)
}

// refuse is the error for a finalizer literal the pass cannot move.
func (h *finalizerHoist) refuse(obj string, lit *ast.FuncLit, why string) error {
	return newError("Unsupported", "this finalizer would never run: a function literal in yaegi, the interpreter, holds every variable of the function it is written in, "+
		obj+" too, so the object stays reachable from its own finalizer, and graphnb cannot move this one out ("+why+"); "+
		"declare the finalizer as a function at the top level of a cell (func fin(p *T) {…}) and pass that", h.x.at(lit))
}

// hoist writes the function that makes lit at the top level and replaces
// lit in c by its call.
func (h *finalizerHoist) hoist(decl *ast.FuncDecl, c *ast.CallExpr, lit *ast.FuncLit, obj string) (*ast.FuncDecl, error) {
	x := h.x
	inLit := func(p token.Pos) bool { return p >= lit.Pos() && p < lit.End() }
	var used []*types.Var
	seen := map[*types.Var]bool{}
	var why string
	ast.Inspect(lit.Body, func(n ast.Node) bool {
		id, ok := n.(*ast.Ident)
		if !ok || why != "" {
			return why == ""
		}
		switch o := x.cc.Info.Uses[id].(type) {
		case *types.Var:
			if h.local(o) && !inLit(o.Pos()) && !seen[o] {
				seen[o] = true
				used = append(used, o)
			}
		case *types.TypeName:
			if _, isParam := o.Type().(*types.TypeParam); isParam {
				why = "it uses the type parameter " + o.Name()
			} else if o.Pkg() != nil && o.Parent() != o.Pkg().Scope() && !inLit(o.Pos()) {
				why = "it uses the type " + o.Name() + " declared in its function"
			}
		case *types.Const:
			if o.Pkg() != nil && o.Parent() != o.Pkg().Scope() && !inLit(o.Pos()) {
				why = "it uses the constant " + o.Name() + " declared in its function"
			}
		}
		return true
	})
	if why == "" && decl.Type.TypeParams != nil && len(decl.Type.TypeParams.List) > 0 {
		why = "its function is generic"
	}
	if why == "" && decl.Recv != nil {
		if named, ok := deref(x.cc.Info.TypeOf(decl.Recv.List[0].Type)).(*types.Named); ok && named.TypeParams().Len() > 0 {
			why = "its method's type is generic"
		}
	}
	for _, v := range used {
		if why == "" && !x.writable(v.Type()) {
			why = "it uses " + v.Name() + ", whose type cannot be written at the top level (a type declared in its function, or an unexported type of a package)"
		}
	}
	if why != "" {
		return nil, h.refuse(obj, lit, why)
	}

	byRef := h.changedVars(decl, used)
	h.n++
	pos := lit.Pos()
	name := fmt.Sprintf("__gnb_fin%d_%d", x.serial, h.n)
	params := &ast.FieldList{Opening: pos, Closing: pos}
	args := make([]ast.Expr, 0, len(used))
	derefs := map[ast.Expr]ast.Expr{}
	for _, v := range used {
		t, err := x.typeExpr(v.Type())
		if err != nil {
			return nil, err
		}
		arg := ast.Expr(&ast.Ident{Name: v.Name(), NamePos: pos})
		x.cc.Info.Uses[arg.(*ast.Ident)] = v
		if byRef[v] {
			t = &ast.StarExpr{Star: pos, X: t}
			arg = &ast.UnaryExpr{OpPos: pos, Op: token.AND, X: arg}
			ast.Inspect(lit.Body, func(n ast.Node) bool {
				if id, ok := n.(*ast.Ident); ok && x.cc.Info.Uses[id] == v {
					use := &ast.Ident{Name: id.Name, NamePos: id.NamePos}
					x.cc.Info.Uses[use] = v
					r := &ast.ParenExpr{Lparen: id.Pos(), X: &ast.StarExpr{Star: id.Pos(), X: use}, Rparen: id.End()}
					if tv, ok := x.cc.Info.Types[id]; ok {
						x.cc.Info.Types[r] = tv
						x.cc.Info.Types[r.X] = tv
					}
					derefs[id] = r
				}
				return true
			})
		}
		params.List = append(params.List, &ast.Field{Names: []*ast.Ident{{Name: v.Name(), NamePos: pos}}, Type: t})
		args = append(args, arg)
	}
	replaceExprs(lit.Body, derefs)
	made := &ast.FuncDecl{
		Name: &ast.Ident{Name: name, NamePos: pos},
		Type: &ast.FuncType{Func: pos, Params: params, Results: &ast.FieldList{List: []*ast.Field{{Type: lit.Type}}}},
		Body: &ast.BlockStmt{Lbrace: pos, List: []ast.Stmt{&ast.ReturnStmt{Return: pos, Results: []ast.Expr{lit}}}, Rbrace: lit.End()},
	}
	c.Args[1] = &ast.CallExpr{Fun: &ast.Ident{Name: name, NamePos: pos}, Lparen: pos, Args: args, Rparen: lit.End()}
	if tv, ok := x.cc.Info.Types[lit]; ok {
		x.cc.Info.Types[c.Args[1]] = tv
	}
	return made, nil
}

// changedVars returns the variables of used that must go by pointer: of
// a struct or array type (a field or element may be set, a method may
// take its address), of a type with pointer methods, or set in decl other
// than by their definition, or whose address decl takes.
func (h *finalizerHoist) changedVars(decl *ast.FuncDecl, used []*types.Var) map[*types.Var]bool {
	info := h.x.cc.Info
	byRef := map[*types.Var]bool{}
	want := map[*types.Var]bool{}
	for _, v := range used {
		switch v.Type().Underlying().(type) {
		case *types.Struct, *types.Array:
			byRef[v] = true
		default:
			// A method with a pointer receiver called on v takes its
			// address without a &.
			byRef[v] = types.NewMethodSet(types.NewPointer(v.Type())).Len() > types.NewMethodSet(v.Type()).Len()
			want[v] = !byRef[v]
		}
	}
	mark := func(e ast.Expr) {
		if id, ok := unparen(e).(*ast.Ident); ok {
			if v, ok := info.Uses[id].(*types.Var); ok && want[v] {
				byRef[v] = true
			}
		}
	}
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		switch s := n.(type) {
		case *ast.AssignStmt:
			for _, l := range s.Lhs {
				mark(l) // a definition's new variables are in Defs, not Uses
			}
		case *ast.IncDecStmt:
			mark(s.X)
		case *ast.RangeStmt:
			if s.Tok == token.ASSIGN {
				mark(s.Key)
				mark(s.Value)
			}
		case *ast.UnaryExpr:
			if s.Op == token.AND {
				mark(s.X)
			}
		}
		return true
	})
	return byRef
}

// rootIdent returns the variable an expression such as v, &v, v.f, v[i]
// or *v starts from, or nil.
func rootIdent(e ast.Expr) *ast.Ident {
	for {
		switch t := e.(type) {
		case *ast.Ident:
			return t
		case *ast.ParenExpr:
			e = t.X
		case *ast.UnaryExpr:
			e = t.X
		case *ast.StarExpr:
			e = t.X
		case *ast.SelectorExpr:
			e = t.X
		case *ast.IndexExpr:
			e = t.X
		default:
			return nil
		}
	}
}

// isCellVar reports whether v is a variable of the session: a top-level
// definition of the cell (held by the interpreter's globals, not by a
// frame), declared in the scope of the function the checker puts the
// cell's statements in.
func (x *Cell) isCellVar(v *types.Var) bool {
	fn, ok := x.cc.Pkg.Scope().Lookup(CellFuncName).(*types.Func)
	return ok && v.Parent() == fn.Scope()
}
