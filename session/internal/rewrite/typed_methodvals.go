package rewrite

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"
)

// Method values: yaegi evaluates the receiver of x.M when the function is
// called, not when x.M is evaluated: the value bound is not a copy (v.M
// sees later changes of v) and a nil pointer the method needs
// dereferenced (p.M with a value method, t.M through a nil embedded
// pointer) does not panic there. The pass writes each method value of a
// concrete receiver as a closure bound, when the expression is evaluated,
// to the receiver the method takes, spelled out (embedded fields, * and &
// made explicit):
//
//	p.M  →  func(__gnb_r T) func(int) int {
//	            return func(__gnb_p0 int) int { return __gnb_r.M(__gnb_p0) }
//	        }(*p)
//
// A method reached through an embedded interface binds that interface's
// method value. Method values of interfaces are left to yaegi (it binds
// them when evaluated).
func rewriteMethodValues(x *Cell, ps []*Run) error {
	called := map[ast.Expr]bool{}
	inspect(ps, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok {
			called[unparen(c.Fun)] = true
		}
		return true
	})
	rewrite := map[ast.Expr]ast.Expr{}
	var err error
	inspect(ps, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok || err != nil || called[sel] {
			return err == nil
		}
		s := x.cc.Info.Selections[sel]
		if s == nil || s.Kind() != types.MethodVal || isInterfaceLike(s.Recv()) {
			return true
		}
		var e ast.Expr
		if e, err = x.boundMethod(sel, s); err != nil {
			return false
		}
		if e != nil {
			rewrite[sel] = e
		}
		return true
	})
	if err != nil {
		return err
	}
	replaceAll(ps, rewrite)
	return nil
}

// isInterfaceLike reports whether t is an interface or a type parameter.
func isInterfaceLike(t types.Type) bool {
	if _, ok := types.Unalias(t).(*types.TypeParam); ok {
		return true
	}
	return types.IsInterface(t)
}

// boundMethod returns the closure that replaces the method value sel, or
// nil where the receiver's path cannot be written.
func (x *Cell) boundMethod(sel *ast.SelectorExpr, s *types.Selection) (ast.Expr, error) {
	fn, ok := s.Obj().(*types.Func)
	if !ok {
		return nil, nil
	}
	// The receiver, along the embedded fields.
	cur, curT := sel.X, s.Recv()
	path := s.Index()
	for _, i := range path[:len(path)-1] {
		st, ok := deref(curT).Underlying().(*types.Struct)
		if !ok || i >= st.NumFields() {
			return nil, nil
		}
		f := st.Field(i)
		if !f.Exported() && f.Pkg() != nil && f.Pkg().Path() != "main" {
			return nil, nil
		}
		cur = &ast.SelectorExpr{X: cur, Sel: &ast.Ident{Name: f.Name(), NamePos: sel.Sel.Pos()}}
		curT = f.Type()
	}
	at := sel.Pos()
	valueType := s.Type().(*types.Signature)
	if !x.writableAt(valueType, at) || !x.writableAt(curT, at) || hasTypeParam(valueType) || hasTypeParam(curT) {
		return nil, nil // left to yaegi (generic code: its generics are fragile)
	}
	fType := "func(" + paramTypes(x, valueType) + ")" + x.resultsText(valueType.Results())
	var src string
	if isInterfaceLike(curT) {
		// An embedded interface: its method value, bound now.
		src = "func(__gnb_r " + types.TypeString(curT, x.qualify) + ") " + fType + " { return __gnb_r." + sel.Sel.Name + " }(__gnb_recv)"
	} else {
		recvT := curT
		_, ptrMethod := fn.Type().(*types.Signature).Recv().Type().(*types.Pointer)
		_, ptrRecv := curT.(*types.Pointer)
		switch {
		case ptrMethod && !ptrRecv:
			cur = &ast.UnaryExpr{OpPos: cur.Pos(), Op: token.AND, X: cur}
			recvT = types.NewPointer(curT)
		case !ptrMethod && ptrRecv:
			cur = &ast.StarExpr{Star: cur.Pos(), X: cur}
			recvT = curT.(*types.Pointer).Elem()
		}
		params, args := x.signatureParams(valueType.Params(), valueType.Variadic(), false)
		call := "__gnb_r." + sel.Sel.Name + "(" + strings.Join(args, ", ") + ")"
		inner := "func(" + params + ")" + x.resultsText(valueType.Results()) + " { " + returnOf(valueType.Results(), call) + " }"
		src = "func(__gnb_r " + types.TypeString(recvT, x.qualify) + ") " + fType + " { return " + inner + " }(__gnb_recv)"
	}
	e, err := x.parseGenerated(src, sel)
	if err != nil {
		return nil, err
	}
	c := e.(*ast.CallExpr)
	c.Args[0] = cur
	return c, nil
}

// hasTypeParam reports whether a type parameter appears in t.
func hasTypeParam(t types.Type) bool {
	found := false
	TypeParts(t, func(t types.Type) bool {
		_, isParam := t.(*types.TypeParam)
		found = found || isParam
		return !found
	})
	return found
}

// paramTypes writes the parameter types of a signature, the variadic one
// with "...".
func paramTypes(x *Cell, sig *types.Signature) string {
	var ts []string
	for i := 0; i < sig.Params().Len(); i++ {
		t := sig.Params().At(i).Type()
		if sig.Variadic() && i == sig.Params().Len()-1 {
			ts = append(ts, "..."+types.TypeString(t.(*types.Slice).Elem(), x.qualify))
			continue
		}
		ts = append(ts, types.TypeString(t, x.qualify))
	}
	return strings.Join(ts, ", ")
}
