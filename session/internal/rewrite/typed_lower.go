package rewrite

import (
	"go/ast"
	"go/token"
	"go/types"
)

// The order of assignments of several values (a, b = x, y; a, b = f();
// v, ok = m[k]).
//
// Go evaluates the operands of index expressions and pointer indirections
// on the left, and every expression on the right, first; then it assigns
// left to right. yaegi evaluates a map index on the left when it stores
// (k, m[k] = "b", 1 stores into m["b"]), and fails on some values once
// the stores pass has put them in parentheses (x, s = 1, T{2} with s an
// interface: "reflect.Set: value of type interp.valueInterface is not
// assignable"). The pass writes Go's order with fresh variables, which
// yaegi runs right:
//
//	i, x[i] = f(), g()  →  { __gnb_t1 := x; __gnb_t2 := i; __gnb_t3 := f(); __gnb_t4 := g(); i = __gnb_t3; __gnb_t1[__gnb_t2] = __gnb_t4 }
//
// An init or post statement (for, if, switch) becomes a call of a function
// literal holding the same statements. The helpers here (rewriteStmts,
// lowering) serve the defer, rangeassign and stringrange passes too.

// lowerAssignments rewrites every assignment of several values.
func lowerAssignments(x *Cell, ps []*Run) error {
	for _, p := range ps {
		rewriteStmts(p.node(), func(st ast.Stmt, simple bool, depth int) ast.Stmt {
			a, ok := st.(*ast.AssignStmt)
			if !ok || a.Tok != token.ASSIGN || len(a.Lhs) < 2 {
				return nil
			}
			l := x.newLowering(a.Pos(), depth)
			l.assign(a.Lhs, a.Rhs)
			if !l.ok {
				return nil
			}
			return l.stmt(simple, a.End())
		})
		// The assignment of a select case receives first, then assigns.
		inspect([]*Run{p}, func(n ast.Node) bool {
			cc, ok := n.(*ast.CommClause)
			if !ok {
				return true
			}
			a, ok := cc.Comm.(*ast.AssignStmt)
			if !ok || a.Tok != token.ASSIGN || len(a.Lhs) < 2 {
				return true
			}
			tuple, _ := x.cc.Info.Types[a.Rhs[0]].Type.(*types.Tuple)
			if tuple == nil || tuple.Len() != len(a.Lhs) {
				return true
			}
			l := x.newLowering(a.Pos(), 1)
			vals := l.tupleTemps(a.Rhs[0], len(a.Lhs))
			comm := l.pre[0]
			l.pre = nil // the receive stays in the case
			l.assignValues(a.Lhs, vals, tuple)
			if !l.ok {
				return true
			}
			cc.Comm = comm
			cc.Body = append(l.pre, cc.Body...)
			return true
		})
	}
	return nil
}

// rewriteStmts calls f on every statement under root, innermost first,
// with whether its place needs a simple statement (an init or post
// statement) and its depth in function bodies (0: the cell's top-level
// code); a non-nil result replaces the statement. A result replacing the
// statement of a labeled statement must be a loop where the original is.
func rewriteStmts(root ast.Node, f func(st ast.Stmt, simple bool, depth int) ast.Stmt) {
	depth := 0
	var stack []ast.Node
	one := func(p *ast.Stmt, simple bool) {
		if *p == nil {
			return
		}
		if r := f(*p, simple, depth); r != nil {
			*p = r
		}
	}
	list := func(l []ast.Stmt) {
		for i := range l {
			one(&l[i], false)
		}
	}
	ast.Inspect(root, func(n ast.Node) bool {
		if n != nil {
			stack = append(stack, n)
			switch n.(type) {
			case *ast.FuncLit, *ast.FuncDecl:
				depth++
			}
			return true
		}
		n = stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch n := n.(type) {
		case *ast.FuncLit, *ast.FuncDecl:
			depth--
		case *ast.BlockStmt:
			list(n.List)
		case *ast.CaseClause:
			list(n.Body)
		case *ast.CommClause:
			list(n.Body)
		case *ast.LabeledStmt:
			one(&n.Stmt, false)
		case *ast.IfStmt:
			one(&n.Init, true)
		case *ast.ForStmt:
			one(&n.Init, true)
			one(&n.Post, true)
		case *ast.SwitchStmt:
			one(&n.Init, true)
		case *ast.TypeSwitchStmt:
			one(&n.Init, true)
		}
		return true
	})
}

// lowering collects the statements that evaluate the operands of an
// assignment (or a deferred call) into fresh variables.
type lowering struct {
	x     *Cell
	pos   token.Pos
	depth int // 0: the cell's top-level code
	pre   []ast.Stmt
	ok    bool // false: something could not be written; leave the code
}

func (x *Cell) newLowering(pos token.Pos, depth int) *lowering {
	return &lowering{x: x, pos: pos, depth: depth, ok: true}
}

// stmt returns the collected statements as a block, or as a call of a
// function literal where a simple statement must stand.
func (l *lowering) stmt(simple bool, end token.Pos) ast.Stmt {
	body := &ast.BlockStmt{Lbrace: l.pos, List: l.pre, Rbrace: end}
	if !simple {
		return body
	}
	lit := &ast.FuncLit{Type: &ast.FuncType{Func: l.pos, Params: &ast.FieldList{Opening: l.pos, Closing: l.pos}}, Body: body}
	return &ast.ExprStmt{X: &ast.CallExpr{Fun: lit, Lparen: end, Rparen: end}}
}

// assign lowers lhs = rhs (as many values on each side, or one value of
// a tuple on the right).
func (l *lowering) assign(lhs, rhs []ast.Expr) {
	places := make([]ast.Expr, len(lhs))
	for i, e := range lhs {
		places[i] = l.place(e)
	}
	var vals []ast.Expr
	var tuple *types.Tuple
	if len(rhs) == 1 && len(lhs) > 1 {
		tuple, _ = l.x.cc.Info.Types[rhs[0]].Type.(*types.Tuple)
		if tuple == nil || tuple.Len() != len(lhs) {
			l.ok = false
			return
		}
		vals = l.tupleTemps(rhs[0], len(lhs))
	} else {
		for i, e := range rhs {
			vals = append(vals, l.value(e, l.lhsType(lhs[i])))
		}
	}
	l.store(lhs, places, vals, tuple)
}

// assignValues assigns values already evaluated (fresh variables) to
// lhs, evaluating the operands of lhs first.
func (l *lowering) assignValues(lhs []ast.Expr, vals []ast.Expr, tuple *types.Tuple) {
	places := make([]ast.Expr, len(lhs))
	for i, e := range lhs {
		places[i] = l.place(e)
	}
	l.store(lhs, places, vals, tuple)
}

// store appends the assignments, left to right. A value of a tuple whose
// type is untyped (the bool of a comma-ok form) is converted to a
// variable's type that is not bool.
func (l *lowering) store(lhs, places, vals []ast.Expr, tuple *types.Tuple) {
	if !l.ok {
		return
	}
	for i, p := range places {
		v := vals[i]
		if tuple != nil && isUntyped(tuple.At(i).Type()) {
			if t := l.lhsType(lhs[i]); t != nil && !types.Identical(t, types.Default(tuple.At(i).Type())) && !types.IsInterface(t) {
				v = l.convert(v, t)
			}
		}
		l.pre = append(l.pre, &ast.AssignStmt{Lhs: []ast.Expr{p}, TokPos: p.Pos(), Tok: token.ASSIGN, Rhs: []ast.Expr{v}})
	}
}

// convert writes T(v).
func (l *lowering) convert(v ast.Expr, t types.Type) ast.Expr {
	if !l.x.writable(t) {
		l.ok = false
		return v
	}
	te, err := l.x.typeExpr(t)
	if err != nil {
		l.ok = false
		return v
	}
	return &ast.CallExpr{Fun: &ast.ParenExpr{Lparen: v.Pos(), X: te, Rparen: v.Pos()}, Lparen: v.Pos(), Args: []ast.Expr{v}, Rparen: v.End()}
}

// lhsType is the type of an assignment's left-hand side (nil for _).
func (l *lowering) lhsType(e ast.Expr) types.Type {
	if isBlank(e) {
		return nil
	}
	return l.x.cc.Info.TypeOf(e)
}

// tupleTemps defines n fresh variables from a value of several (a call,
// or a comma-ok form) and returns them.
func (l *lowering) tupleTemps(e ast.Expr, n int) []ast.Expr {
	def := &ast.AssignStmt{TokPos: e.Pos(), Tok: token.DEFINE, Rhs: []ast.Expr{e}}
	var vals []ast.Expr
	for i := 0; i < n; i++ {
		name := l.x.ci.tmpName("t")
		def.Lhs = append(def.Lhs, ident(name, e.Pos()))
		vals = append(vals, ident(name, e.Pos()))
	}
	l.x.ci.sawDefineX = true // the top-level code holding it runs in a function
	l.pre = append(l.pre, def)
	return vals
}

// value evaluates e now: a constant or nil stays where it is, anything
// else is stored in a fresh variable. want is the type the value goes
// to, for an untyped one (nil: its default type).
func (l *lowering) value(e ast.Expr, want types.Type) ast.Expr {
	tv, ok := l.x.cc.Info.Types[e]
	if !ok {
		// Parentheses other passes wrote around an expression.
		tv, ok = l.x.cc.Info.Types[ast.Unparen(e)]
	}
	if !ok {
		l.ok = false
		return e
	}
	if tv.Value != nil || tv.IsNil() {
		return e
	}
	return l.temp(e, tv.Type, want)
}

// temp stores e, of type t, in a fresh variable and returns the variable.
// An untyped value gets the type want (its default type where want is nil
// or an interface); so does every value of the top-level code, where
// yaegi types a definition poorly, when its type can be written.
func (l *lowering) temp(e ast.Expr, t, want types.Type) ast.Expr {
	name := l.x.ci.tmpName("t")
	pos := e.Pos()
	if isRecv(e) {
		// yaegi stores a received value unaddressable into the variable
		// of `v := <-c`; the comma-ok form stores it properly.
		l.pre = append(l.pre, &ast.AssignStmt{Lhs: []ast.Expr{ident(name, pos), ident("_", pos)}, TokPos: pos, Tok: token.DEFINE, Rhs: []ast.Expr{ast.Unparen(e)}})
		l.x.ci.sawDefineX = true
		return ident(name, pos)
	}
	var typ types.Type
	switch {
	case t != nil && isUntyped(t):
		typ = want
		if typ == nil || types.IsInterface(typ) {
			typ = types.Default(t)
		}
	case l.depth == 0 && t != nil && l.x.writable(t):
		typ = t
	}
	if typ != nil {
		if !l.x.writable(typ) {
			l.ok = false
			return e
		}
		te, err := l.x.typeExpr(typ)
		if err != nil {
			l.ok = false
			return e
		}
		l.pre = append(l.pre, &ast.DeclStmt{Decl: &ast.GenDecl{TokPos: pos, Tok: token.VAR, Specs: []ast.Spec{
			&ast.ValueSpec{Names: []*ast.Ident{ident(name, pos)}, Type: te, Values: []ast.Expr{e}},
		}}})
	} else {
		l.pre = append(l.pre, &ast.AssignStmt{Lhs: []ast.Expr{ident(name, pos)}, TokPos: pos, Tok: token.DEFINE, Rhs: []ast.Expr{e}})
	}
	return ident(name, pos)
}

// place returns an expression for the variable e designates whose
// operands (of index expressions and pointer indirections, explicit or
// implicit) are evaluated now.
func (l *lowering) place(e ast.Expr) ast.Expr {
	info := l.x.cc.Info
	switch e := e.(type) {
	case *ast.Ident:
		return e
	case *ast.ParenExpr:
		return l.place(e.X)
	case *ast.StarExpr:
		return &ast.StarExpr{Star: e.Star, X: l.value(e.X, nil)}
	case *ast.IndexExpr:
		t := info.TypeOf(e.X)
		if t == nil {
			break
		}
		switch u := t.Underlying().(type) {
		case *types.Map:
			return &ast.IndexExpr{X: l.value(e.X, nil), Lbrack: e.Lbrack, Index: l.value(e.Index, u.Key()), Rbrack: e.Rbrack}
		case *types.Slice, *types.Pointer:
			return &ast.IndexExpr{X: l.value(e.X, nil), Lbrack: e.Lbrack, Index: l.value(e.Index, types.Typ[types.Int]), Rbrack: e.Rbrack}
		case *types.Array:
			return &ast.IndexExpr{X: l.placeOrValue(e.X), Lbrack: e.Lbrack, Index: l.value(e.Index, types.Typ[types.Int]), Rbrack: e.Rbrack}
		}
	case *ast.SelectorExpr:
		sel := info.Selections[e]
		if sel == nil {
			return e // a package's variable
		}
		if sel.Kind() != types.FieldVal {
			break
		}
		cur, _ := l.fieldPath(e.X, sel.Index(), e.Sel)
		return cur
	}
	l.ok = false
	return e
}

// placeOrValue is place(e) for an addressable e (or a map element), else
// e evaluated now.
func (l *lowering) placeOrValue(e ast.Expr) ast.Expr {
	switch u := ast.Unparen(e).(type) {
	case *ast.Ident:
		if _, isVar := l.x.cc.Info.Uses[u].(*types.Var); isVar {
			return l.place(e)
		}
	case *ast.IndexExpr, *ast.StarExpr:
		return l.place(e)
	case *ast.SelectorExpr:
		if sel := l.x.cc.Info.Selections[u]; sel == nil || sel.Kind() == types.FieldVal {
			return l.place(e)
		}
	}
	return l.value(e, nil)
}

// fieldPath follows a path of fields from x, evaluating now the pointers
// it goes through (x itself when it is one), and returns the expression
// reached and its type. last, if not nil, names the final field as
// written.
func (l *lowering) fieldPath(x ast.Expr, path []int, last *ast.Ident) (ast.Expr, types.Type) {
	t := l.x.cc.Info.TypeOf(x)
	if t == nil {
		l.ok = false
		return x, nil
	}
	var cur ast.Expr
	if isPointer(t) {
		cur = l.value(x, nil)
	} else {
		cur = l.placeOrValue(x)
	}
	for k, idx := range path {
		if k > 0 && isPointer(t) {
			cur = l.temp(cur, t, nil)
		}
		st, ok := derefStruct(t)
		if !ok || idx >= st.NumFields() {
			l.ok = false
			return cur, t
		}
		f := st.Field(idx)
		if !f.Exported() && f.Pkg() != nil && f.Pkg().Path() != "main" {
			l.ok = false
			return cur, t
		}
		name := ident(f.Name(), x.End())
		if k == len(path)-1 && last != nil {
			name = last
		}
		cur = &ast.SelectorExpr{X: cur, Sel: name}
		t = f.Type()
	}
	return cur, t
}

// isPointer reports whether t is a pointer type.
func isPointer(t types.Type) bool {
	_, ok := t.Underlying().(*types.Pointer)
	return ok
}

// derefStruct returns the struct type of t or of what t points to.
func derefStruct(t types.Type) (*types.Struct, bool) {
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t = p.Elem()
	}
	st, ok := t.Underlying().(*types.Struct)
	return st, ok
}

// shadowed reports whether the cell or the session declares one of the
// predeclared names somewhere (code the passes write uses them).
func (x *Cell) shadowed(names ...string) bool {
	for _, n := range names {
		if x.cc.Pkg.Scope().Lookup(n) != nil {
			return true
		}
		for _, sc := range x.cc.Info.Scopes {
			if sc.Lookup(n) != nil {
				return true
			}
		}
	}
	return false
}

// isRecv reports whether e is a receive operation.
func isRecv(e ast.Expr) bool {
	u, ok := ast.Unparen(e).(*ast.UnaryExpr)
	return ok && u.Op == token.ARROW
}
