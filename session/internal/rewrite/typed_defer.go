package rewrite

import (
	"go/ast"
	"go/token"
	"go/types"
)

// Deferred calls.
//
// yaegi does not evaluate the function value, the receiver and the
// arguments of a deferred call at the defer statement: it keeps the
// variables (or the slots of computed values) and reads them when the
// call runs, so `for i := 0; i < 3; i++ { defer print(i) }` prints 333,
// `x := 1; defer f(x); x = 2` passes 2, `defer t.M()` sees later changes
// of t, and a func variable reassigned after `defer f()` can hang. A
// variable defined just before the defer statement is read right. The
// pass evaluates everything there, in Go's order, into fresh variables:
//
//	defer t.M(x, y+1)  →  { __gnb_t1 := t; __gnb_t2 := x; __gnb_t3 := y + 1; defer __gnb_t1.M(__gnb_t2, __gnb_t3) }
//
// A receiver is taken as the method's receiver is: its address for a
// pointer method of an addressable value, a copy for a value method (of
// *p too). Function literals, declared functions, builtins and constant
// arguments stay as written. Top-level code cannot defer (the session
// refuses it).

// evalDeferred rewrites every defer statement in a function.
func evalDeferred(x *Cell, ps []*Run) error {
	// The loops around each defer statement, in its function.
	loops := map[*ast.DeferStmt][]ast.Node{}
	var stack []ast.Node
	inspect(ps, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		stack = append(stack, n)
		if d, ok := n.(*ast.DeferStmt); ok {
			for i := len(stack) - 1; i >= 0; i-- {
				switch s := stack[i].(type) {
				case *ast.ForStmt, *ast.RangeStmt:
					loops[d] = append(loops[d], s)
					continue
				case *ast.FuncLit, *ast.FuncDecl:
				default:
					continue
				}
				break
			}
		}
		return true
	})
	var err error
	for _, p := range ps {
		rewriteStmts(p.node(), func(st ast.Stmt, simple bool, depth int) ast.Stmt {
			d, ok := st.(*ast.DeferStmt)
			if !ok || depth == 0 || err != nil {
				return nil
			}
			if lit, ok := ast.Unparen(d.Call.Fun).(*ast.FuncLit); ok && len(loops[d]) > 0 {
				if err = x.iterationVars(d.Call, lit, loops[d]); err != nil {
					return nil
				}
			}
			l := x.newLowering(d.Pos(), depth)
			call := l.deferredCall(d.Call)
			if !l.ok || len(l.pre) == 0 {
				return nil
			}
			l.pre = append(l.pre, &ast.DeferStmt{Defer: d.Defer, Call: call})
			return l.stmt(false, d.End())
		})
	}
	return err
}

// iterationVars has a deferred function literal get the variables of the
// loops around it that it uses through pointer parameters: yaegi runs a
// deferred literal on the function's variables as they are when it runs,
// so each iteration's variable must be given to it at the defer
// statement (the loopvar pass then makes the variables the iteration's).
//
//	for _, v := range xs { defer func() { use(v) }() }
//	→  for _, v := range xs { defer func(__gnb_p1 *T) { use(*__gnb_p1) }(&v) }
func (x *Cell) iterationVars(call *ast.CallExpr, lit *ast.FuncLit, loops []ast.Node) error {
	info := x.cc.Info
	inLoop := func(v *types.Var) bool {
		for _, l := range loops {
			if v.Pos() >= l.Pos() && v.Pos() < l.End() {
				return true
			}
		}
		return false
	}
	var vars []*types.Var
	uses := map[*types.Var][]*ast.Ident{}
	ast.Inspect(lit.Body, func(n ast.Node) bool {
		id, ok := n.(*ast.Ident)
		if !ok {
			return true
		}
		v, ok := info.Uses[id].(*types.Var)
		if !ok || v.IsField() || (v.Pos() >= lit.Pos() && v.Pos() < lit.End()) || !inLoop(v) {
			return true
		}
		if uses[v] == nil {
			vars = append(vars, v)
		}
		uses[v] = append(uses[v], id)
		return true
	})
	if len(vars) == 0 {
		return nil
	}
	with := map[ast.Expr]ast.Expr{}
	for _, v := range vars {
		if !x.writable(v.Type()) {
			return newError("Unsupported", "a deferred function literal in a loop uses "+v.Name()+", whose type is declared in a function: yaegi, the interpreter, would run it with the variable of the last iteration; "+
				"declare the type at the top level, or pass "+v.Name()+" to the literal as an argument", x.at(uses[v][0]))
		}
		t, err := x.typeExpr(types.NewPointer(v.Type()))
		if err != nil {
			return err
		}
		pos := lit.Type.Func
		p := x.ci.tmpName("p")
		if lit.Type.Params == nil {
			lit.Type.Params = &ast.FieldList{Opening: pos, Closing: pos}
		}
		lit.Type.Params.List = append(lit.Type.Params.List, &ast.Field{Names: []*ast.Ident{ident(p, pos)}, Type: t})
		arg := ident(x.nameOf(v), call.Rparen)
		info.Uses[arg] = v
		addr := &ast.UnaryExpr{OpPos: call.Rparen, Op: token.AND, X: arg}
		info.Types[addr] = types.TypeAndValue{Type: types.NewPointer(v.Type())}
		call.Args = append(call.Args, addr)
		for _, id := range uses[v] {
			with[id] = &ast.ParenExpr{Lparen: id.Pos(), X: &ast.StarExpr{Star: id.Pos(), X: ident(p, id.Pos())}, Rparen: id.End()}
		}
	}
	replaceExprs(lit.Body, with)
	left := ""
	ast.Inspect(lit.Body, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && with[id] != nil {
			left = id.Name
		}
		return left == ""
	})
	if left != "" {
		return newError("Unsupported", "a deferred function literal in a loop uses "+left+" where the session cannot rewrite it: yaegi, the interpreter, would run it with the variable of the last iteration; pass "+left+" to the literal as an argument", x.at(lit))
	}
	return nil
}

// deferredCall evaluates the function value and the arguments of c and
// returns the call of what they evaluated to.
func (l *lowering) deferredCall(c *ast.CallExpr) *ast.CallExpr {
	info := l.x.cc.Info
	out := &ast.CallExpr{Fun: c.Fun, Lparen: c.Lparen, Ellipsis: c.Ellipsis, Rparen: c.Rparen}
	fun := ast.Unparen(c.Fun)
	var sig *types.Signature
	if tv, ok := info.Types[c.Fun]; ok {
		sig, _ = tv.Type.Underlying().(*types.Signature)
	}
	switch f := fun.(type) {
	case *ast.FuncLit:
	case *ast.Ident:
		switch info.Uses[f].(type) {
		case *types.Func, *types.Builtin:
		default:
			out.Fun = l.value(c.Fun, nil)
		}
	case *ast.SelectorExpr:
		sel := info.Selections[f]
		switch {
		case sel == nil: // a package's function (or variable)
			if _, isVar := info.Uses[f.Sel].(*types.Var); isVar {
				out.Fun = l.value(c.Fun, nil)
			}
		case sel.Kind() == types.MethodExpr:
		case sel.Kind() == types.MethodVal:
			out.Fun = l.receiver(f, sel)
		default: // a field of func type
			out.Fun = l.value(c.Fun, nil)
		}
	case *ast.IndexExpr, *ast.IndexListExpr:
		// An instantiated generic function stays; an element of a
		// slice or map of functions is evaluated.
		var x ast.Expr
		if ix, ok := f.(*ast.IndexExpr); ok {
			x = ix.X
		} else {
			x = f.(*ast.IndexListExpr).X
		}
		if id, ok := ast.Unparen(x).(*ast.Ident); !ok || !isFuncObj(info.Uses[id]) {
			if s, ok := ast.Unparen(x).(*ast.SelectorExpr); !ok || !isFuncObj(info.Uses[s.Sel]) || info.Selections[s] != nil {
				out.Fun = l.value(c.Fun, nil)
			}
		}
	default:
		out.Fun = l.value(c.Fun, nil)
	}
	// The arguments.
	if len(c.Args) == 1 {
		if tuple, ok := info.Types[c.Args[0]].Type.(*types.Tuple); ok {
			out.Args = l.tupleTemps(c.Args[0], tuple.Len())
			return out
		}
	}
	for i, a := range c.Args {
		var want types.Type
		if sig != nil {
			want = paramType(sig, i, c.Ellipsis.IsValid())
		}
		out.Args = append(out.Args, l.value(a, want))
	}
	return out
}

// receiver evaluates the receiver of a method value x.M as Go binds it
// and returns r.M for the fresh variable r.
func (l *lowering) receiver(f *ast.SelectorExpr, sel *types.Selection) ast.Expr {
	path := sel.Index()
	cur, t := l.fieldPath(f.X, path[:len(path)-1], nil)
	if !l.ok {
		return f
	}
	m, _ := sel.Obj().(*types.Func)
	if m == nil {
		l.ok = false
		return f
	}
	recv := m.Type().(*types.Signature).Recv()
	_, ptrRecv := recv.Type().Underlying().(*types.Pointer)
	_, ptrRecv2 := recv.Type().(*types.Pointer)
	ptrRecv = ptrRecv || ptrRecv2
	var r ast.Expr
	switch {
	case types.IsInterface(t):
		r = l.temp(cur, t, nil)
	case ptrRecv && isPointer(t):
		r = l.temp(cur, t, nil)
	case ptrRecv:
		r = l.temp(&ast.UnaryExpr{OpPos: cur.Pos(), Op: token.AND, X: cur}, types.NewPointer(t), nil)
	case isPointer(t):
		r = l.temp(&ast.StarExpr{Star: cur.Pos(), X: cur}, t.Underlying().(*types.Pointer).Elem(), nil)
	default:
		r = l.temp(cur, t, nil)
	}
	return &ast.SelectorExpr{X: r, Sel: f.Sel}
}

// isFuncObj reports whether obj is a declared function.
func isFuncObj(obj types.Object) bool {
	_, ok := obj.(*types.Func)
	return ok
}

// paramType is the type of the parameter the i-th argument of a call of
// sig goes to.
func paramType(sig *types.Signature, i int, ellipsis bool) types.Type {
	n := sig.Params().Len()
	if n == 0 {
		return nil
	}
	if sig.Variadic() && i >= n-1 {
		last := sig.Params().At(n - 1).Type()
		if ellipsis {
			return last
		}
		if s, ok := last.Underlying().(*types.Slice); ok {
			return s.Elem()
		}
		return nil
	}
	if i < n {
		return sig.Params().At(i).Type()
	}
	return nil
}
