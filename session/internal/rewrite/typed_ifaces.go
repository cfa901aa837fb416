package rewrite

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"reflect"
)

// Values of the cells' types in interfaces.
//
// yaegi puts a value of a type declared in a cell into a compiled
// interface (error, fmt.Stringer, …) through a wrapper that carries its
// methods, except in two places: a composite literal assigned to a
// variable of interface type lands there bare (var e error = E{}: e.Error()
// panics "reflect: Method index out of range", fmt prints {} and the
// session shows another type's message), and a conversion error(v) panics
// ("reflect.Set: value of type struct {} is not assignable to type
// error"; the session writes some top-level var declarations as such
// conversions). Returning the value from a function wraps it; the pass
// writes conversions and values assigned to variables of compiled
// interface types so:
//
//	var e error = E{}  →  var e error = func(__gnb_v E) error { return __gnb_v }(E{})
//	error(v)           →  func(__gnb_v E) error { return __gnb_v }(v)
//
// (a composite literal assigned to a variable of another interface type
// is parenthesized, which makes yaegi convert it). A comparison of such a
// value with an interface value compares yaegi's wrappers (false where Go
// says true); it is written with the type assertion Go defines it by:
//
//	v == i  →  func(__gnb_a T, __gnb_b I) bool { __gnb_x, __gnb_ok := __gnb_b.(T); return __gnb_ok && __gnb_x == __gnb_a }(v, i)
//
// What the wrapper hides cannot be recovered: a type assertion from a
// compiled interface to a cell's type that is not a pointer (yaegi says
// false), a comparison of such a value with a compiled interface (the
// same assertion; a type switch's cases are such assertions once the
// typeswitch pass has run), and errors.As with a target of a cell's type
// (compiled code sees no methods: a panic) are refused. errors.Is is
// written as __gnb.ErrorsIs (typed_errors.go); errors.Is, As and Unwrap
// are refused while a cell's error type has methods the errors package
// would need and cannot see.
func fixCellValuesInInterfaces(x *Cell, ps []*Run) error {
	rewrite := map[ast.Expr]ast.Expr{}
	var err error
	// into converts e, of a cell's concrete type, to the compiled
	// interface type t through a function's result.
	into := func(e ast.Expr, t types.Type) {
		et := x.cc.Info.Types[e].Type
		if err != nil || et == nil || !x.writableAt(et, e.Pos()) || !x.writableAt(t, e.Pos()) {
			return
		}
		var f ast.Expr
		if f, err = x.parseGenerated("func(__gnb_v "+types.TypeString(et, x.qualify)+") "+types.TypeString(t, x.qualify)+" { return __gnb_v }", e); err != nil {
			return
		}
		rewrite[e] = &ast.CallExpr{Fun: f, Lparen: e.Pos(), Args: []ast.Expr{shallowCopy(e)}, Rparen: e.End()}
	}
	// assigned handles a value assigned to a variable of type t.
	assigned := func(e ast.Expr, t types.Type) {
		if t == nil || !types.IsInterface(t) {
			return
		}
		if isCompiledInterface(t) && cellConcrete(x.cc.Info.Types[e].Type) {
			into(e, t)
			return
		}
		if _, ok := e.(*ast.CompositeLit); ok {
			rewrite[e] = &ast.ParenExpr{Lparen: e.Pos(), X: shallowCopy(e), Rparen: e.End()}
		}
	}
	inspect(ps, func(n ast.Node) bool {
		if err != nil {
			return false
		}
		switch n := n.(type) {
		case *ast.AssignStmt:
			if n.Tok == token.ASSIGN && len(n.Lhs) == len(n.Rhs) {
				for i, l := range n.Lhs {
					assigned(n.Rhs[i], x.exprType(l))
				}
			}
		case *ast.ValueSpec:
			if n.Type != nil {
				for _, v := range n.Values {
					assigned(v, x.cc.Info.Types[n.Type].Type)
				}
			}
		case *ast.CallExpr:
			// A conversion to a compiled interface.
			if tv, ok := x.cc.Info.Types[n.Fun]; ok && tv.IsType() && len(n.Args) == 1 &&
				isCompiledInterface(tv.Type) && cellConcrete(x.cc.Info.Types[n.Args[0]].Type) {
				into(n.Args[0], tv.Type)
				if r, ok := rewrite[n.Args[0]]; ok {
					delete(rewrite, n.Args[0])
					rewrite[n] = r
				}
			}
			err = x.refuseErrorsAs(n)
			if err == nil {
				err = x.refuseHiddenChain(n)
			}
			if err == nil {
				if r := x.errorsIs(n); r != nil {
					rewrite[n] = r
				}
			}
		case *ast.BinaryExpr:
			if n.Op == token.EQL || n.Op == token.NEQ {
				if r, e := x.compareWithInterface(n); e != nil {
					err = e
				} else if r != nil {
					rewrite[n] = r
				}
			}
		case *ast.TypeAssertExpr:
			err = x.refuseHiddenAssertion(n)
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	replaceAll(ps, rewrite)
	return nil
}

// shallowCopy returns a copy of an expression node, for a replacement
// that holds the expression it replaces (replaceExprs would replace it
// again).
func shallowCopy(e ast.Expr) ast.Expr {
	v := reflect.ValueOf(e)
	c := reflect.New(v.Type().Elem())
	c.Elem().Set(v.Elem())
	return c.Interface().(ast.Expr)
}

// exprType is the type of an expression, or of the variable an identifier
// denotes.
func (x *Cell) exprType(e ast.Expr) types.Type {
	if tv, ok := x.cc.Info.Types[e]; ok {
		return tv.Type
	}
	if id, ok := e.(*ast.Ident); ok {
		if obj := x.cc.Info.ObjectOf(id); obj != nil {
			return obj.Type()
		}
	}
	return nil
}

// isCompiledInterface reports whether t is an interface type with methods
// that is not declared in a cell: error, fmt.Stringer, io.Reader, …
// (yaegi keeps a cell's value in one through a wrapper).
func isCompiledInterface(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	if !ok {
		return false
	}
	it, ok := n.Underlying().(*types.Interface)
	if !ok || it.NumMethods() == 0 {
		return false
	}
	return n.Obj().Pkg() == nil || n.Obj().Pkg().Path() != "main"
}

// cellConcrete reports whether t is a type declared in a cell that is not
// an interface, or a pointer to one.
func cellConcrete(t types.Type) bool {
	if t == nil {
		return false
	}
	t = deref(types.Unalias(t))
	return declaredInCell(t) && !types.IsInterface(t)
}

// hasMethods reports whether a cell's type (or the type a pointer points
// to) declares methods: yaegi keeps its values in interfaces in a form of
// its own.
func hasMethods(t types.Type) bool {
	n, ok := deref(types.Unalias(t)).(*types.Named)
	return ok && n.NumMethods() > 0
}

// compareWithInterface writes v == i (or i == v, or !=), v of a cell's
// type with methods and i an interface, as the type assertion Go defines
// it by.
func (x *Cell) compareWithInterface(b *ast.BinaryExpr) (ast.Expr, error) {
	xt, yt := x.cc.Info.Types[b.X].Type, x.cc.Info.Types[b.Y].Type
	if xt == nil || yt == nil {
		return nil, nil
	}
	concrete, iface := xt, yt
	if types.IsInterface(xt) {
		concrete, iface = yt, xt
	}
	if types.IsInterface(concrete) || !types.IsInterface(iface) || !cellConcrete(concrete) || !hasMethods(concrete) || isUntyped(iface) {
		return nil, nil
	}
	if _, isPtr := concrete.(*types.Pointer); isCompiledInterface(iface) && !isPtr {
		return nil, newError("Unsupported", fmt.Sprintf("comparing a %s with a value of %s, a type declared in a cell: yaegi, the interpreter, keeps the cell's value in a wrapper there and cannot compare them; "+
			"compare values of %s (declare the methods on *%s and use pointers: those compare)", types.TypeString(iface, x.qualifyName), types.TypeString(concrete, x.qualifyName),
			types.TypeString(concrete, x.qualifyName), types.TypeString(concrete, x.qualifyName)), x.at(b))
	}
	at := b.Pos()
	if !x.writableAt(concrete, at) || !x.writableAt(iface, at) {
		return nil, nil
	}
	ct, it := types.TypeString(concrete, x.qualify), types.TypeString(iface, x.qualify)
	params, test := "__gnb_a "+ct+", __gnb_b "+it, "__gnb_b"
	if types.IsInterface(xt) {
		params = "__gnb_b " + it + ", __gnb_a " + ct
	}
	src := "func(" + params + ") bool { __gnb_x, __gnb_ok := " + test + ".(" + ct + "); return __gnb_ok && __gnb_x == __gnb_a }"
	f, err := x.parseGenerated(src, b)
	if err != nil {
		return nil, err
	}
	var e ast.Expr = &ast.CallExpr{Fun: f, Lparen: b.Pos(), Args: []ast.Expr{b.X, b.Y}, Rparen: b.End()}
	if b.Op == token.NEQ {
		e = &ast.UnaryExpr{OpPos: b.Pos(), Op: token.NOT, X: e}
	}
	return e, nil
}

// refuseHiddenAssertion refuses x.(T), x of a compiled interface type and
// T a cell's type that is not a pointer: yaegi finds its wrapper there,
// not a T, and says false.
func (x *Cell) refuseHiddenAssertion(a *ast.TypeAssertExpr) error {
	if a.Type == nil {
		return nil
	}
	from, to := x.cc.Info.Types[a.X].Type, x.cc.Info.Types[a.Type].Type
	if from == nil || to == nil || !isCompiledInterface(from) || !cellConcrete(to) {
		return nil
	}
	if _, isPtr := to.(*types.Pointer); isPtr {
		return nil // yaegi finds those
	}
	t := types.TypeString(to, x.qualifyName)
	return newError("Unsupported", fmt.Sprintf("type assertion of a %s to %s, a type declared in a cell: yaegi, the interpreter, keeps the value in a wrapper there and the assertion would fail; "+
		"declare the methods on *%s and assert to *%s (put &%s{…} in the %s)", types.TypeString(from, x.qualifyName), t, t, t, t, types.TypeString(from, x.qualifyName)), x.at(a))
}

// refuseErrorsAs refuses errors.As with a target of a cell's type:
// compiled code does not see its methods ("errors: *target must be
// interface or implement error").
func (x *Cell) refuseErrorsAs(c *ast.CallExpr) error {
	sel, ok := unparen(c.Fun).(*ast.SelectorExpr)
	if !ok || len(c.Args) != 2 {
		return nil
	}
	fn, ok := x.cc.Info.Uses[sel.Sel].(*types.Func)
	if !ok || fn.Pkg() == nil || fn.Pkg().Path() != "errors" || fn.Name() != "As" {
		return nil
	}
	p, ok := x.cc.Info.Types[c.Args[1]].Type.(*types.Pointer)
	if !ok || !cellConcrete(p.Elem()) {
		return nil
	}
	t := types.TypeString(p.Elem(), x.qualifyName)
	test := "e.(" + t + ")"
	if _, isPtr := p.Elem().(*types.Pointer); !isPtr {
		test = "e.(*" + t + "), with the methods declared on *" + t
	}
	return newError("Unsupported", fmt.Sprintf("errors.As with a target of type *%s, a type declared in a cell: compiled code does not see the methods of the cells' types; "+
		"test the errors of the chain yourself: for e := err; e != nil; e = errors.Unwrap(e) { … } with %s", t, test), x.at(c))
}

// errorsFunc returns the name of the function of package errors that c
// calls, or "".
func (x *Cell) errorsFunc(c *ast.CallExpr) string {
	fn := calledFunc(x.cc.Info, c)
	if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "errors" {
		return ""
	}
	return fn.Name()
}

// refuseHiddenChain refuses errors.Is, errors.As and errors.Unwrap while a
// cell's error type has an Unwrap, Is or As method: yaegi hands compiled
// code a cell's error in a wrapper that has only Error, so the errors
// package would skip those methods and answer false or nil, silently.
func (x *Cell) refuseHiddenChain(c *ast.CallExpr) error {
	name := x.errorsFunc(c)
	if name != "Is" && name != "As" && name != "Unwrap" {
		return nil
	}
	if name == "Is" && len(c.Args) == 2 {
		if t := x.cc.Info.Types[c.Args[1]].Type; cellConcrete(t) && !isPointer(t) {
			return newError("Unsupported", fmt.Sprintf("errors.Is with a target of type %s, a type declared in a cell that is not a pointer: yaegi, the interpreter, keeps only part of such a value in an error, so nothing can compare it; "+
				"declare the error's methods on a pointer type (func (e *%s) Error() string) and use pointers, or test the chain yourself with type assertions", types.TypeString(t, x.qualifyName), types.TypeString(t, x.qualifyName)), x.at(c.Args[1]))
		}
	}
	errType := types.Universe.Lookup("error").Type().Underlying().(*types.Interface)
	scope := x.cc.Pkg.Scope()
	for _, tn := range scope.Names() {
		obj, ok := scope.Lookup(tn).(*types.TypeName)
		if !ok || obj.IsAlias() || types.IsInterface(obj.Type()) {
			continue
		}
		for _, t := range []types.Type{obj.Type(), types.NewPointer(obj.Type())} {
			if !types.Implements(t, errType) {
				continue
			}
			for _, m := range []string{"Unwrap", "Is", "As"} {
				if o, _, _ := types.LookupFieldOrMethod(t, true, nil, m); o != nil {
					if _, isFunc := o.(*types.Func); isFunc {
						return newError("Unsupported", fmt.Sprintf("errors.%s cannot see the %s method of %s, an error type declared in a cell: yaegi, the interpreter, hands compiled code a cell's error in a wrapper with only Error, "+
							"so errors.%s would skip the method and answer as if it were not there; call it yourself (if e, ok := err.(%s); ok { … e.%s(…) }), or wrap errors with fmt.Errorf(\"…: %%w\", err), which the errors package follows",
							name, m, obj.Name(), name, types.TypeString(t, x.qualifyName), m), x.at(c))
					}
				}
			}
		}
	}
	return nil
}

// errorsIs writes errors.Is(err, target) as __gnb.ErrorsIs(err, target):
// errors.Is compares with ==, and yaegi wraps each conversion of a cell's
// value to error in a wrapper of its own that == cannot compare, so a
// sentinel error of a cell's pointer type never matched.
func (x *Cell) errorsIs(c *ast.CallExpr) ast.Expr {
	if x.errorsFunc(c) != "Is" || len(c.Args) != 2 {
		return nil
	}
	pos := c.Pos()
	return &ast.CallExpr{
		Fun:    &ast.SelectorExpr{X: &ast.Ident{Name: "__gnb", NamePos: pos}, Sel: &ast.Ident{Name: "ErrorsIs", NamePos: pos}},
		Lparen: c.Lparen, Args: c.Args, Rparen: c.Rparen,
	}
}
