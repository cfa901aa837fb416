package rewrite

import (
	"fmt"
	"go/ast"
	"go/types"
)

// Maps keyed by a cell's interface: yaegi keeps a key of such a map in a
// wrapper of its own (the value with its type's syntax node), and looks a
// key up by the wrapper, not the value: a key equal to one in the map
// misses (m[k] gives the zero value) and a key of a concrete type panics
// ("reflect.Value.MapIndex: … is not assignable to type
// interp.valueInterface"). The pass refuses a map type whose key is, or
// holds (a struct field, an array element), an interface declared in a
// cell.
func refuseCellInterfaceKeys(x *Cell, ps []*Run) error {
	var err error
	inspect(ps, func(n ast.Node) bool {
		mt, ok := n.(*ast.MapType)
		if !ok || err != nil {
			return err == nil
		}
		key := x.cc.Info.TypeOf(mt.Key)
		if key == nil {
			return true
		}
		if iface := cellInterfaceIn(key); iface != nil {
			name := types.TypeString(iface, x.qualifyName)
			err = newError("Unsupported", fmt.Sprintf("a map keyed by %s, an interface declared in a cell: yaegi, the interpreter, keys it by a wrapper of its own, so a key equal to one in the map misses; "+
				"key the map by a concrete type (the value's, or a key of comparable fields made from it)", name), x.at(mt))
		}
		return err == nil
	})
	return err
}

// cellInterfaceIn returns the first interface declared in a cell that t
// is or holds (struct fields, array elements), or nil.
func cellInterfaceIn(t types.Type) types.Type {
	seen := map[types.Type]bool{}
	var find func(t types.Type) types.Type
	find = func(t types.Type) types.Type {
		if seen[t] {
			return nil
		}
		seen[t] = true
		if types.IsInterface(t) {
			if declaredInCell(t) {
				return t
			}
			return nil
		}
		switch u := t.Underlying().(type) {
		case *types.Struct:
			for i := 0; i < u.NumFields(); i++ {
				if f := find(u.Field(i).Type()); f != nil {
					return f
				}
			}
		case *types.Array:
			return find(u.Elem())
		}
		return nil
	}
	return find(t)
}
