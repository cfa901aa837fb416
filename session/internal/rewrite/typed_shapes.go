package rewrite

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
)

// Types yaegi cannot tell apart in an interface. yaegi builds a cell's
// struct type with reflect from its fields, so two struct types with the
// same fields are one type to it: once a value is in an interface, an
// assertion to one is true for a value of the other, and a type switch
// takes the first of their cases (var a any = V{1, 2}; a.(P) is true for
// P and V both struct{ X, Y int }). The pass refuses a type assertion and
// a type switch case whose type is such a struct type (or a pointer to
// one) when another type of the session has the same structure, naming
// both.
func refuseSameShapes(x *Cell, ps []*Run) error {
	var err error
	check := func(e ast.Expr) {
		t := x.cc.Info.Types[e].Type
		if err != nil || t == nil {
			return
		}
		if other := x.sameShape(t, e.Pos()); other != nil {
			shown := func(t types.Type) string { return types.TypeString(t, x.qualifyName) }
			shape := shown(t.Underlying())
			if p, ok := t.Underlying().(*types.Pointer); ok {
				shape = "*" + shown(p.Elem().Underlying())
			}
			err = newError("Unsupported", fmt.Sprintf("yaegi, the interpreter, cannot tell %s from %s once they are in an interface: both are %s to it, so this test would also be true for a %s; "+
				"give one of the types a field the other lacks, or test a field that tells them apart",
				shown(t), shown(other), shape, shown(other)), x.at(e))
		}
	}
	inspect(ps, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.TypeAssertExpr:
			if n.Type != nil {
				check(n.Type)
			}
		case *ast.TypeSwitchStmt:
			for _, c := range n.Body.List {
				for _, e := range c.(*ast.CaseClause).List {
					check(e)
				}
			}
		}
		return err == nil
	})
	return err
}

// sameShape returns another named type of the session, in scope at pos,
// whose values yaegi cannot tell from t's: t is a cell's struct type, or
// a pointer to one, and the other has the same underlying type (or is a
// pointer to such a type). nil when there is none.
func (x *Cell) sameShape(t types.Type, pos token.Pos) types.Type {
	ptr := false
	if p, ok := types.Unalias(t).(*types.Pointer); ok {
		t, ptr = p.Elem(), true
	}
	named, ok := types.Unalias(t).(*types.Named)
	if !ok || !declaredInCell(named) || x.cc.Pkg == nil {
		return nil
	}
	if _, ok := named.Underlying().(*types.Struct); !ok {
		return nil
	}
	inner := x.cc.Pkg.Scope().Innermost(pos)
	if inner == nil {
		inner = x.cc.Pkg.Scope()
	}
	for s := inner; s != nil && s != types.Universe; s = s.Parent() {
		for _, name := range s.Names() {
			tn, ok := s.Lookup(name).(*types.TypeName)
			if !ok || tn.IsAlias() || tn == named.Obj() {
				continue
			}
			o, ok := tn.Type().(*types.Named)
			if !ok || o.TypeParams().Len() > 0 || !types.Identical(o.Underlying(), named.Underlying()) {
				continue
			}
			if ptr {
				return types.NewPointer(o)
			}
			return o
		}
	}
	return nil
}
