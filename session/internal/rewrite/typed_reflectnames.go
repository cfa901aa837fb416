package rewrite

import (
	"fmt"
	"go/ast"
	"go/types"
)

// reflect's names of the cells' types: yaegi builds a cell's type with
// reflect, which cannot name it: reflect.TypeOf(p).Name() is "" for a
// cell's type P, String() is "struct { X int }" (or the underlying type's
// name), PkgPath() is "". The pass refuses Name, String and PkgPath of
// reflect.TypeOf(v) or reflect.ValueOf(v).Type() when v's static type
// involves a type declared in a cell.
func refuseReflectNames(x *Cell, ps []*Run) error {
	var err error
	inspect(ps, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || err != nil || len(call.Args) != 0 {
			return err == nil
		}
		sel, ok := unparen(call.Fun).(*ast.SelectorExpr)
		if !ok || (sel.Sel.Name != "Name" && sel.Sel.Name != "String" && sel.Sel.Name != "PkgPath") {
			return true
		}
		if s := x.cc.Info.Selections[sel]; s == nil || !isReflectTypeMethod(s.Obj()) {
			return true
		}
		v := reflectedOperand(x.cc.Info, sel.X)
		if v == nil {
			return true
		}
		if t := x.cc.Info.Types[v].Type; t != nil && !types.IsInterface(t) && involvesCellType(t) {
			err = newError("Unsupported", fmt.Sprintf("reflect's %s of %s, which involves a type declared in a cell: yaegi, the interpreter, builds the cells' types with reflect, which cannot name them (Name is \"\"); "+
				"write the name yourself (fmt.Sprintf(\"%%T\", v) gives it)", sel.Sel.Name, types.TypeString(t, x.qualifyName)), x.at(sel.Sel))
			return false
		}
		return true
	})
	return err
}

// isReflectTypeMethod reports whether obj is a method of reflect.Type.
func isReflectTypeMethod(obj types.Object) bool {
	f, ok := obj.(*types.Func)
	if !ok || f.Pkg() == nil || f.Pkg().Path() != "reflect" {
		return false
	}
	recv := f.Type().(*types.Signature).Recv()
	if recv == nil {
		return false
	}
	n, ok := types.Unalias(deref(recv.Type())).(*types.Named)
	return ok && (n.Obj().Name() == "Type" || n.Obj().Name() == "rtype")
}

// reflectedOperand returns v of reflect.TypeOf(v) or
// reflect.ValueOf(v).Type(), or nil.
func reflectedOperand(info *types.Info, e ast.Expr) ast.Expr {
	call, ok := unparen(e).(*ast.CallExpr)
	if !ok {
		return nil
	}
	if fn := calledFunc(info, call); fn != nil && fn.Pkg() != nil && fn.Pkg().Path() == "reflect" && fn.Name() == "TypeOf" && len(call.Args) == 1 {
		return call.Args[0]
	}
	sel, ok := unparen(call.Fun).(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "Type" || len(call.Args) != 0 {
		return nil
	}
	inner, ok := unparen(sel.X).(*ast.CallExpr)
	if !ok {
		return nil
	}
	if fn := calledFunc(info, inner); fn != nil && fn.Pkg() != nil && fn.Pkg().Path() == "reflect" && fn.Name() == "ValueOf" && len(inner.Args) == 1 {
		return inner.Args[0]
	}
	return nil
}
