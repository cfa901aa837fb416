package rewrite

import (
	"go/ast"
	"go/token"
	"go/types"
	"reflect"
	"unsafe"
)

// Comparisons of interface values: yaegi keeps a value in an interface
// either bare or in a wrapper of its own (valueInterface: a value of a
// cell's interface type, or one stored through a variable), and ==
// compares the forms: two equal values compare unequal (var a any = S{3};
// var b any = S{3}; a == b was false; so were two Shape values holding
// Sq{2}). The pass writes every == and != with an operand of interface
// type (other than a comparison with nil, and other than one with a
// compiled interface with methods, error or fmt.Stringer, which the ifaces
// pass handles) as a call of a compiled helper that takes the values out
// of yaegi's wrapper and compares them as Go does (different dynamic
// types are unequal; an uncomparable dynamic type panics):
//
//	a == b  →  __gnb.Equal(a, b)
//	a != b  →  !__gnb.Equal(a, b)
//
// The dynamic type yaegi gives a value of a cell's type is built by
// reflect from its structure: values of two cell types of the same
// structure, or of a cell's type and the unnamed type of its structure,
// still compare equal.
func compareInterfaces(x *Cell, ps []*Run) error {
	with := map[ast.Expr]ast.Expr{}
	inspect(ps, func(n ast.Node) bool {
		b, ok := n.(*ast.BinaryExpr)
		if !ok || (b.Op != token.EQL && b.Op != token.NEQ) {
			return true
		}
		xt, yt := x.cc.Info.Types[b.X], x.cc.Info.Types[b.Y]
		if xt.Type == nil || yt.Type == nil || xt.IsNil() || yt.IsNil() {
			return true
		}
		if !types.IsInterface(xt.Type) && !types.IsInterface(yt.Type) {
			return true
		}
		if isTypeParam(xt.Type) || isTypeParam(yt.Type) || isCompiledInterface(xt.Type) || isCompiledInterface(yt.Type) {
			return true
		}
		pos := b.OpPos
		var e ast.Expr = &ast.CallExpr{
			Fun:    &ast.SelectorExpr{X: &ast.Ident{Name: "__gnb", NamePos: pos}, Sel: &ast.Ident{Name: "Equal", NamePos: pos}},
			Lparen: pos, Args: []ast.Expr{b.X, b.Y}, Rparen: pos,
		}
		if b.Op == token.NEQ {
			e = &ast.UnaryExpr{OpPos: pos, Op: token.NOT, X: e}
		}
		with[b] = &ast.ParenExpr{Lparen: b.Pos(), X: e, Rparen: b.End()}
		return true
	})
	replaceAll(ps, with)
	return nil
}

// isTypeParam reports whether t is a type parameter (its interface is a
// constraint, its values are not interfaces).
func isTypeParam(t types.Type) bool {
	_, ok := types.Unalias(t).(*types.TypeParam)
	return ok
}

// interpPath is yaegi's interpreter package, whose wrapper types unwrap
// takes values out of.
const interpPath = "github.com/traefik/yaegi/interp"

// unwrap takes a value out of yaegi's own wrapper, valueInterface (the
// value in its unexported field value, a reflect.Value). The wrappers of
// compiled interfaces are left alone: their field IValue holds a cell's
// struct value's last field instead of the value (yaegi's
// getConcreteValue), so nothing can compare what they hold.
func unwrap(v any) any {
	for v != nil {
		rv := reflect.ValueOf(v)
		t := rv.Type()
		if t.Kind() != reflect.Struct {
			return v
		}
		if t.PkgPath() == interpPath && t.Name() == "valueInterface" {
			c := reflect.New(t).Elem()
			c.Set(rv)
			f := c.FieldByName("value")
			if !f.IsValid() || f.Type() != reflect.TypeOf(reflect.Value{}) {
				return v
			}
			inner := *(*reflect.Value)(unsafe.Pointer(f.UnsafeAddr()))
			if !inner.IsValid() {
				return nil
			}
			if !inner.CanInterface() {
				return v
			}
			v = inner.Interface()
			continue
		}
		return v
	}
	return nil
}

// interfaceEqual is __gnb.Equal: a == b as Go compares interface values,
// after unwrap.
func interfaceEqual(a, b any) bool {
	return unwrap(a) == unwrap(b)
}
