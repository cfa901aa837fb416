package rewrite

import (
	"fmt"
	"go/ast"
	"go/types"
)

// reflect and the cells' methods: yaegi builds the types declared in
// cells with reflect (a cell's type M with methods is an int, or a struct,
// to reflect), and reflect cannot give a type methods. So reflect's
// Method, MethodByName and NumMethod see none of a cell's methods
// ("reflect: Method index out of range"; MethodByName says false), and
// Implements says false where Go says true. The pass refuses these calls
// (and their method values and expressions, and Method and MethodByName
// of an interface that returns reflect.Method) once the session has a
// type with methods declared in a cell, unless the value inspected is
// plainly reflect.TypeOf(v) or reflect.ValueOf(v) of a v whose static type
// has none of the cells' types in it.
func refuseReflectMethods(x *Cell, ps []*Run) error {
	if !x.cellTypesWithMethods() {
		return nil
	}
	var err error
	inspect(ps, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok || err != nil {
			return err == nil
		}
		s := x.cc.Info.Selections[sel]
		if s == nil || (s.Kind() != types.MethodVal && s.Kind() != types.MethodExpr) || !isReflectMethodSet(s.Obj()) {
			return true
		}
		if s.Kind() == types.MethodVal && x.plainReflectOf(sel.X) {
			return true
		}
		err = newError("Unsupported", fmt.Sprintf("reflect's %s does not see the methods of the types declared in cells: yaegi, the interpreter, builds those types without methods for reflect; "+
			"call the methods directly, or keep the functions you need in a map (map[string]func(…){\"Name\": T.Name})", sel.Sel.Name), x.at(sel))
		return false
	})
	return err
}

// cellTypesWithMethods reports whether a type declared in a cell, this
// one or an earlier one, has methods.
func (x *Cell) cellTypesWithMethods() bool {
	scope := x.cc.Pkg.Scope()
	for _, name := range scope.Names() {
		if tn, ok := scope.Lookup(name).(*types.TypeName); ok {
			if n, ok := tn.Type().(*types.Named); ok && n.NumMethods() > 0 && !types.IsInterface(n) {
				return true
			}
		}
	}
	return false
}

// isReflectMethodSet reports whether obj is reflect's Method, MethodByName,
// NumMethod or Implements (of reflect.Type or reflect.Value), or a Method
// or MethodByName that returns a reflect.Method (an interface holding a
// reflect.Type).
func isReflectMethodSet(obj types.Object) bool {
	fn, ok := obj.(*types.Func)
	if !ok {
		return false
	}
	switch fn.Name() {
	case "Method", "MethodByName", "NumMethod", "Implements":
	default:
		return false
	}
	if fn.Pkg() != nil && fn.Pkg().Path() == "reflect" {
		return true
	}
	res := fn.Type().(*types.Signature).Results()
	if res.Len() == 0 {
		return false
	}
	n, ok := res.At(0).Type().(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "reflect" && n.Obj().Name() == "Method"
}

// plainReflectOf reports whether e is reflect.TypeOf(v) or
// reflect.ValueOf(v) (or .Elem() or .Type() of one) with v of a static
// type that is not an interface and has none of the cells' types in it.
func (x *Cell) plainReflectOf(e ast.Expr) bool {
	call, ok := unparen(e).(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return false
	}
	fn, ok := x.cc.Info.Uses[sel.Sel].(*types.Func)
	if !ok || fn.Pkg() == nil || fn.Pkg().Path() != "reflect" {
		return false
	}
	switch {
	case (fn.Name() == "TypeOf" || fn.Name() == "ValueOf") && len(call.Args) == 1:
		t := x.cc.Info.Types[call.Args[0]].Type
		return t != nil && !types.IsInterface(t) && !involvesCellType(t)
	case (fn.Name() == "Elem" || fn.Name() == "Type") && len(call.Args) == 0:
		return x.plainReflectOf(sel.X)
	}
	return false
}
