package rewrite

import (
	"go/ast"
	"go/token"
	"go/types"
	"reflect"
	"strings"
	"sync"
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
// A comparison of values whose type holds blank fields (in a struct, its
// fields or array elements) goes through the same helper, which leaves
// the blank fields out as Go does (the interpreter would compare them).
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
		if isTypeParam(xt.Type) || isTypeParam(yt.Type) {
			return true
		}
		blanks := hasBlankFields(xt.Type) || hasBlankFields(yt.Type)
		if !blanks && (!types.IsInterface(xt.Type) && !types.IsInterface(yt.Type) || isCompiledInterface(xt.Type) || isCompiledInterface(yt.Type)) {
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

// hasBlankFields reports whether values of t hold blank struct fields
// (in t, its fields or its elements), which Go's == ignores.
func hasBlankFields(t types.Type) bool {
	seen := map[types.Type]bool{}
	var has func(t types.Type) bool
	has = func(t types.Type) bool {
		if seen[t] {
			return false
		}
		seen[t] = true
		switch u := t.Underlying().(type) {
		case *types.Struct:
			for i := 0; i < u.NumFields(); i++ {
				if f := u.Field(i); f.Name() == "_" || has(f.Type()) {
					return true
				}
			}
		case *types.Array:
			return has(u.Elem())
		}
		return false
	}
	return has(t)
}

// isTypeParam reports whether t is a type parameter (its interface is a
// constraint, its values are not interfaces).
func isTypeParam(t types.Type) bool {
	_, ok := types.Unalias(t).(*types.TypeParam)
	return ok
}

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
		if t.PkgPath() == yaegiInterp && t.Name() == "valueInterface" {
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
// after unwrap, with the blank fields of struct values left out (yaegi
// names a blank field X_, the blankfields pass the others __gnb_blankN).
func interfaceEqual(a, b any) bool {
	a, b = unwrap(a), unwrap(b)
	if a != nil && b != nil {
		if t := reflect.TypeOf(a); t == reflect.TypeOf(b) && blankFieldsIn(t) {
			a, b = withoutBlanks(a), withoutBlanks(b)
		}
	}
	return a == b
}

// blankFieldsOf caches blankFieldsIn by type.
var blankFieldsOf sync.Map // reflect.Type → bool

// isBlankField reports whether a field of a struct type yaegi built was
// blank in the cell.
func isBlankField(f reflect.StructField) bool {
	return f.Name == "X_" || strings.HasPrefix(f.Name, "X__gnb_blank")
}

// blankFieldsIn reports whether values of t hold blank fields.
func blankFieldsIn(t reflect.Type) bool {
	if v, ok := blankFieldsOf.Load(t); ok {
		return v.(bool)
	}
	has := false
	switch t.Kind() {
	case reflect.Struct:
		for i := 0; i < t.NumField() && !has; i++ {
			has = isBlankField(t.Field(i)) || blankFieldsIn(t.Field(i).Type)
		}
	case reflect.Array:
		has = blankFieldsIn(t.Elem())
	}
	blankFieldsOf.Store(t, has)
	return has
}

// withoutBlanks returns a copy of v with its blank fields zeroed.
func withoutBlanks(v any) any {
	c := reflect.New(reflect.TypeOf(v)).Elem()
	c.Set(reflect.ValueOf(v))
	var zero func(v reflect.Value)
	zero = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Struct:
			for i := 0; i < v.NumField(); i++ {
				f := v.Field(i)
				if isBlankField(v.Type().Field(i)) && f.CanSet() {
					f.SetZero()
				} else if blankFieldsIn(f.Type()) {
					zero(f)
				}
			}
		case reflect.Array:
			for i := 0; i < v.Len(); i++ {
				zero(v.Index(i))
			}
		}
	}
	zero(c)
	return c.Interface()
}
