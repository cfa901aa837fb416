package rewrite

import (
	"go/ast"
	"go/token"
	"go/types"
)

// Fresh variables: yaegi gives a variable one slot in its function's
// frame and allocates it anew only for a plain definition (v := e). The
// variables of a definition of several (v, ok := m[k], a, b := f()), of
// a select case (case v := <-c) and of a type switch (switch v :=
// x.(type)) keep their slot each time the statement runs again, so in a
// loop &v, or a closure using v, sees one variable where Go has one per
// execution; and v := <-c makes a variable whose address cannot be taken
// (a panic: reflect.Value.Addr of unaddressable value). Where such a
// variable has its address taken or is used by a function literal, the
// pass defines it by a plain definition from a temporary:
//
//	v, ok := e              →  __gnb_v1, __gnb_v2 := e; v := __gnb_v1; ok := __gnb_v2
//	case v := <-c: body     →  case __gnb_v1 := <-c: v := __gnb_v1; body
//	switch v := x.(type) {  →  switch __gnb_v1 := x.(type) {
//	case T: body                case T: v := __gnb_v1; body
//	if v, ok := e; ok {…}   →  { __gnb_v1, __gnb_v2 := e; v := __gnb_v1; ok := __gnb_v2; if ok {…} }
//
// (the same for a switch's init). The cell's own top-level statements,
// which define the session's variables, are left to the other passes.

// freshVars rewrites the definitions whose variables must be fresh.
func freshVars(x *Cell, ps []*Run) error {
	escaping := x.escapingVars(ps)
	if len(escaping) == 0 {
		return nil
	}
	f := &freshener{x: x, escaping: escaping}
	for _, p := range ps {
		top := map[ast.Stmt]bool{}
		if p.body != nil {
			for _, st := range p.body.List {
				top[st] = true
			}
		}
		f.top = top
		ast.Inspect(p.node(), f.visit)
	}
	return nil
}

type freshener struct {
	x        *Cell
	escaping map[types.Object]bool
	top      map[ast.Stmt]bool
}

// visit rewrites the statement lists and clauses under n.
func (f *freshener) visit(n ast.Node) bool {
	switch n := n.(type) {
	case *ast.BlockStmt:
		n.List = f.list(n.List)
	case *ast.CaseClause:
		n.Body = f.list(n.Body)
	case *ast.CommClause:
		f.commClause(n)
		n.Body = f.list(n.Body)
	case *ast.TypeSwitchStmt:
		f.typeSwitch(n)
	case *ast.IfStmt:
		// An else-if with an init becomes a block.
		if elif, ok := n.Else.(*ast.IfStmt); ok && !f.top[elif] {
			if b := f.withInit(elif); b != nil {
				n.Else = b
			}
		}
	}
	return true
}

// list rewrites the statements of a list.
func (f *freshener) list(list []ast.Stmt) []ast.Stmt {
	var out []ast.Stmt
	changed := false
	for _, st := range list {
		if f.top[st] {
			out = append(out, st)
			continue
		}
		switch s := st.(type) {
		case *ast.AssignStmt:
			if repl := f.define(s); repl != nil {
				out = append(out, repl...)
				changed = true
				continue
			}
		case *ast.DeclStmt:
			if repl := f.varDecl(s); repl != nil {
				out = append(out, repl...)
				changed = true
				continue
			}
		case *ast.IfStmt, *ast.SwitchStmt:
			if b := f.withInit(s); b != nil {
				out = append(out, b)
				changed = true
				continue
			}
		}
		out = append(out, st)
	}
	if !changed {
		return list
	}
	return out
}

// needs reports whether a definition defines an escaping variable and is
// of a form yaegi does not allocate anew.
func (f *freshener) needs(as *ast.AssignStmt) bool {
	if as.Tok != token.DEFINE {
		return false
	}
	if len(as.Lhs) == 1 {
		if u, ok := unparen(as.Rhs[0]).(*ast.UnaryExpr); !ok || u.Op != token.ARROW {
			return false // a plain definition: fresh already
		}
	}
	for _, l := range as.Lhs {
		if id, ok := l.(*ast.Ident); ok {
			if obj := f.x.cc.Info.Defs[id]; obj != nil && f.escaping[obj] {
				return true
			}
		}
	}
	return false
}

// define returns what replaces a definition that needs fresh variables,
// or nil.
func (f *freshener) define(as *ast.AssignStmt) []ast.Stmt {
	if !f.needs(as) {
		return nil
	}
	tmp, after := f.temps(as.Lhs)
	first := &ast.AssignStmt{Lhs: tmp, TokPos: as.TokPos, Tok: token.DEFINE, Rhs: as.Rhs}
	return append([]ast.Stmt{first}, after...)
}

// varDecl returns what replaces `var a, b = e` (or `var v = <-c`, with
// a type or not) when it needs fresh variables, or nil.
func (f *freshener) varDecl(ds *ast.DeclStmt) []ast.Stmt {
	g, ok := ds.Decl.(*ast.GenDecl)
	if !ok || g.Tok != token.VAR || len(g.Specs) != 1 {
		return nil
	}
	vs := g.Specs[0].(*ast.ValueSpec)
	if len(vs.Values) != 1 {
		return nil
	}
	lhs := make([]ast.Expr, len(vs.Names))
	for i, id := range vs.Names {
		lhs[i] = id
	}
	as := &ast.AssignStmt{Lhs: lhs, TokPos: g.TokPos, Tok: token.DEFINE, Rhs: vs.Values}
	if !f.needs(as) {
		return nil
	}
	tmp, _ := f.temps(lhs)
	out := []ast.Stmt{&ast.AssignStmt{Lhs: tmp, TokPos: g.TokPos, Tok: token.DEFINE, Rhs: vs.Values}}
	for i, id := range vs.Names {
		if id.Name == "_" {
			continue
		}
		spec := &ast.ValueSpec{Names: []*ast.Ident{id}, Type: vs.Type, Values: []ast.Expr{&ast.Ident{Name: tmp[i].(*ast.Ident).Name, NamePos: id.Pos()}}}
		out = append(out, &ast.DeclStmt{Decl: &ast.GenDecl{TokPos: g.TokPos, Tok: token.VAR, Specs: []ast.Spec{spec}}})
	}
	return out
}

// temps returns temporaries for the left-hand sides of a definition, and
// the statements that give the variables their values (a plain
// definition for a new variable, an assignment for one redeclared).
func (f *freshener) temps(lhs []ast.Expr) ([]ast.Expr, []ast.Stmt) {
	tmp := make([]ast.Expr, len(lhs))
	var after []ast.Stmt
	for i, l := range lhs {
		id, ok := l.(*ast.Ident)
		if !ok || id.Name == "_" {
			tmp[i] = l
			continue
		}
		name := f.x.ci.tmpName("v")
		tmp[i] = &ast.Ident{Name: name, NamePos: id.Pos()}
		tok := token.ASSIGN
		if f.x.cc.Info.Defs[id] != nil {
			tok = token.DEFINE
		}
		after = append(after, &ast.AssignStmt{Lhs: []ast.Expr{id}, TokPos: id.Pos(), Tok: tok, Rhs: []ast.Expr{&ast.Ident{Name: name, NamePos: id.Pos()}}})
	}
	return tmp, after
}

// withInit returns the block that replaces an if or switch statement
// whose init needs fresh variables, or nil.
func (f *freshener) withInit(st ast.Stmt) *ast.BlockStmt {
	var init ast.Stmt
	switch s := st.(type) {
	case *ast.IfStmt:
		init = s.Init
	case *ast.SwitchStmt:
		init = s.Init
	}
	as, ok := init.(*ast.AssignStmt)
	if !ok {
		return nil
	}
	repl := f.define(as)
	if repl == nil {
		return nil
	}
	switch s := st.(type) {
	case *ast.IfStmt:
		s.Init = nil
	case *ast.SwitchStmt:
		s.Init = nil
	}
	return &ast.BlockStmt{Lbrace: st.Pos(), List: append(repl, st), Rbrace: st.End()}
}

// commClause gives a select case's definition fresh variables.
func (f *freshener) commClause(cc *ast.CommClause) {
	as, ok := cc.Comm.(*ast.AssignStmt)
	if !ok || as.Tok != token.DEFINE {
		return
	}
	escapes := false
	for _, l := range as.Lhs {
		if id, ok := l.(*ast.Ident); ok {
			if obj := f.x.cc.Info.Defs[id]; obj != nil && f.escaping[obj] {
				escapes = true
			}
		}
	}
	if !escapes {
		return
	}
	tmp, after := f.temps(as.Lhs)
	as.Lhs = tmp
	cc.Body = append(after, cc.Body...)
}

// typeSwitch gives the variable of a type switch a fresh copy in each
// clause where it escapes.
func (f *freshener) typeSwitch(ts *ast.TypeSwitchStmt) {
	as, ok := ts.Assign.(*ast.AssignStmt)
	if !ok || len(as.Lhs) != 1 {
		return
	}
	id, ok := as.Lhs[0].(*ast.Ident)
	if !ok {
		return
	}
	var name string
	for _, c := range ts.Body.List {
		cc := c.(*ast.CaseClause)
		obj := f.x.cc.Info.Implicits[cc]
		if obj == nil || !f.escaping[obj] {
			continue
		}
		if name == "" {
			name = f.x.ci.tmpName("v")
		}
		def := &ast.AssignStmt{Lhs: []ast.Expr{&ast.Ident{Name: id.Name, NamePos: cc.Colon}}, TokPos: cc.Colon, Tok: token.DEFINE, Rhs: []ast.Expr{&ast.Ident{Name: name, NamePos: cc.Colon}}}
		cc.Body = append([]ast.Stmt{def}, cc.Body...)
	}
	if name == "" {
		return
	}
	// Every clause reads the switch's value through the temporary.
	for _, c := range ts.Body.List {
		cc := c.(*ast.CaseClause)
		if obj := f.x.cc.Info.Implicits[cc]; obj != nil && !f.escaping[obj] {
			def := &ast.AssignStmt{Lhs: []ast.Expr{&ast.Ident{Name: id.Name, NamePos: cc.Colon}}, TokPos: cc.Colon, Tok: token.DEFINE, Rhs: []ast.Expr{&ast.Ident{Name: name, NamePos: cc.Colon}}}
			cc.Body = append([]ast.Stmt{def}, cc.Body...)
		}
	}
	id.Name = name
}

// escapingVars returns the local variables of the cell whose address is
// taken (&v, &v.f, v[:] of an array, a pointer method called on v) or
// that a function literal uses.
func (x *Cell) escapingVars(ps []*Run) map[types.Object]bool {
	out := map[types.Object]bool{}
	var stack []ast.Node
	var lits []*ast.FuncLit
	local := func(obj types.Object) bool {
		v, ok := obj.(*types.Var)
		return ok && !v.IsField() && v.Pkg() != nil && v.Parent() != nil && v.Parent() != v.Pkg().Scope()
	}
	// root returns the variable an addressed operand is rooted at.
	var root func(e ast.Expr) *ast.Ident
	root = func(e ast.Expr) *ast.Ident {
		switch e := unparen(e).(type) {
		case *ast.Ident:
			return e
		case *ast.SelectorExpr:
			if s := x.cc.Info.Selections[e]; s != nil && s.Kind() == types.FieldVal && !s.Indirect() {
				return root(e.X)
			}
		case *ast.IndexExpr:
			if t := x.cc.Info.TypeOf(e.X); t != nil {
				if _, isArray := t.Underlying().(*types.Array); isArray {
					return root(e.X)
				}
			}
		}
		return nil
	}
	mark := func(e ast.Expr) {
		if id := root(e); id != nil {
			if obj := x.cc.Info.Uses[id]; obj != nil && local(obj) {
				out[obj] = true
			}
		}
	}
	inspect(ps, func(n ast.Node) bool {
		if n == nil {
			if lit, ok := stack[len(stack)-1].(*ast.FuncLit); ok && len(lits) > 0 && lits[len(lits)-1] == lit {
				lits = lits[:len(lits)-1]
			}
			stack = stack[:len(stack)-1]
			return true
		}
		stack = append(stack, n)
		switch n := n.(type) {
		case *ast.FuncLit:
			lits = append(lits, n)
		case *ast.UnaryExpr:
			if n.Op == token.AND {
				mark(n.X)
			}
		case *ast.SliceExpr:
			if t := x.cc.Info.TypeOf(n.X); t != nil {
				if _, isArray := t.Underlying().(*types.Array); isArray {
					mark(n.X)
				}
			}
		case *ast.SelectorExpr:
			if s := x.cc.Info.Selections[n]; s != nil && s.Kind() != types.FieldVal {
				if fn, ok := s.Obj().(*types.Func); ok {
					if sig, ok := fn.Type().(*types.Signature); ok && sig.Recv() != nil {
						if _, ptrRecv := sig.Recv().Type().(*types.Pointer); ptrRecv {
							if _, ptrOperand := s.Recv().Underlying().(*types.Pointer); !ptrOperand {
								mark(n.X)
							}
						}
					}
				}
			}
		case *ast.Ident:
			if len(lits) == 0 {
				return true
			}
			obj := x.cc.Info.Uses[n]
			if obj == nil || !local(obj) {
				return true
			}
			lit := lits[len(lits)-1]
			if obj.Pos() < lit.Pos() || obj.Pos() >= lit.End() {
				out[obj] = true // declared outside the literal that uses it
			}
		}
		return true
	})
	return out
}
