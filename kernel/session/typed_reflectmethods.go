package session

import (
	"fmt"
	"go/ast"
	"go/types"
)

// Methods through reflect: compiled code does not see the methods of
// types declared in cells, so reflect.ValueOf(x).Method(0) of such an x
// panics in yaegi ("reflect: Method index out of range") and NumMethod
// says 0. The pass refuses reflect's method lookups (Method,
// MethodByName, NumMethod of a reflect.Value or reflect.Type) made
// directly on reflect.ValueOf(x) or reflect.TypeOf(x) where x's type is
// declared in a cell and has methods.

// reflectMethodLookups are the methods of reflect.Value and reflect.Type
// that list methods.
var reflectMethodLookups = map[string]bool{"Method": true, "MethodByName": true, "NumMethod": true}

// checkReflectMethods refuses a method lookup through reflect on a value
// of a type declared in a cell.
func checkReflectMethods(x *execution, ps []*parsed) error {
	var err error
	inspect(ps, func(n ast.Node) bool {
		if err != nil {
			return false
		}
		sel, ok := n.(*ast.SelectorExpr)
		if !ok || !reflectMethodLookups[sel.Sel.Name] {
			return true
		}
		s := x.cc.info.Selections[sel]
		if s == nil || s.Kind() != types.MethodVal || !isReflectType(s.Recv()) {
			return true
		}
		call, ok := unparen(sel.X).(*ast.CallExpr)
		if !ok || len(call.Args) != 1 {
			return true
		}
		fn := calledFunc(x.cc.info, call)
		if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "reflect" || (fn.Name() != "ValueOf" && fn.Name() != "TypeOf") {
			return true
		}
		t := x.cc.info.TypeOf(call.Args[0])
		named := cellNamedWithMethods(t)
		if named == nil {
			return true
		}
		err = newError("Unsupported", fmt.Sprintf("compiled code does not see the methods of types declared in cells: reflect's %s finds none of %s's in yaegi, the interpreter; call the method directly, or through an interface or a method value",
			sel.Sel.Name, types.TypeString(t, func(*types.Package) string { return "" })), x.at(sel.Sel))
		return false
	})
	return err
}

// isReflectType reports whether t is reflect.Value or reflect.Type.
func isReflectType(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	if !ok || n.Obj().Pkg() == nil || n.Obj().Pkg().Path() != "reflect" {
		return false
	}
	return n.Obj().Name() == "Value" || n.Obj().Name() == "Type"
}

// calledFunc returns the function a call calls by name (pkg.F or F), or
// nil.
func calledFunc(info *types.Info, c *ast.CallExpr) *types.Func {
	var id *ast.Ident
	switch f := unparen(c.Fun).(type) {
	case *ast.Ident:
		id = f
	case *ast.SelectorExpr:
		id = f.Sel
	default:
		return nil
	}
	fn, _ := info.Uses[id].(*types.Func)
	return fn
}

// cellNamedWithMethods returns the named type of t (or of what t points
// to) when a cell declared it and it has methods.
func cellNamedWithMethods(t types.Type) *types.Named {
	if t == nil {
		return nil
	}
	if p, ok := t.Underlying().(*types.Pointer); ok && !isNamed(t) {
		t = p.Elem()
	}
	n, ok := types.Unalias(t).(*types.Named)
	if !ok || n.Obj().Pkg() == nil || n.Obj().Pkg().Path() != "main" {
		return nil
	}
	if _, isIface := n.Underlying().(*types.Interface); isIface {
		return nil
	}
	if types.NewMethodSet(types.NewPointer(n)).Len() == 0 {
		return nil
	}
	return n
}

// isNamed reports whether t is a named (defined) type.
func isNamed(t types.Type) bool {
	_, ok := types.Unalias(t).(*types.Named)
	return ok
}
