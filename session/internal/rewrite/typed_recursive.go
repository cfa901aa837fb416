package rewrite

import (
	"fmt"
	"go/ast"
	"go/types"
)

// Recursive types: yaegi builds a type that refers to itself only through
// a named struct (type Node struct{ next *Node }) or an interface; a
// type defined in terms of itself through slices, pointers, maps,
// channels, arrays, functions or unnamed structs (type T []T, type N *N,
// type stateFn func(*L) stateFn) fails when used: an internal error, a
// nil dereference, or a stack overflow that ends the process. The pass
// refuses such a declaration, and says how to write it.

// refuseRecursiveTypes refuses a type declaration of the cell whose type
// reaches itself other than through a named struct or an interface.
func refuseRecursiveTypes(x *Cell, ps []*Run) error {
	var err error
	inspect(ps, func(n ast.Node) bool {
		ts, ok := n.(*ast.TypeSpec)
		if !ok || err != nil || ts.Assign.IsValid() {
			return err == nil
		}
		obj, _ := x.cc.Info.Defs[ts.Name].(*types.TypeName)
		if obj == nil {
			return true
		}
		named, _ := obj.Type().(*types.Named)
		if named == nil || breaksCycle(named) {
			return true
		}
		if via := cycleThrough(named); via != "" {
			def := types.TypeString(named.Underlying(), types.RelativeTo(x.cc.Pkg))
			err = newError("Unsupported", fmt.Sprintf("type %s is defined in terms of itself through %s: yaegi, the interpreter, cannot build such a type "+
				"(only a named struct or an interface may refer to itself); make it a struct with a field of that type, e.g. type %s struct{ v %s }",
				ts.Name.Name, via, ts.Name.Name, def), x.at(ts))
			return false
		}
		return true
	})
	return err
}

// breaksCycle reports whether yaegi builds a named type's references to
// itself: a struct or an interface.
func breaksCycle(t *types.Named) bool {
	switch t.Underlying().(type) {
	case *types.Struct, *types.Interface:
		return true
	}
	return false
}

// cycleThrough returns what the underlying type of t reaches t through
// (a slice, a pointer, …) without passing a named struct or an interface,
// or "" when it does not.
func cycleThrough(target *types.Named) string {
	seen := map[types.Type]bool{}
	var reach func(t types.Type, via string) string
	reach = func(t types.Type, via string) string {
		if seen[t] {
			return ""
		}
		seen[t] = true
		switch t := t.(type) {
		case *types.Named:
			if t.Origin() == target.Origin() {
				return via
			}
			if breaksCycle(t) {
				return ""
			}
			return reach(t.Underlying(), via)
		case *types.Alias:
			return reach(types.Unalias(t), via)
		case *types.Pointer:
			return reach(t.Elem(), or(via, "a pointer"))
		case *types.Slice:
			return reach(t.Elem(), or(via, "a slice"))
		case *types.Array:
			return reach(t.Elem(), or(via, "an array"))
		case *types.Map:
			if v := reach(t.Key(), or(via, "a map")); v != "" {
				return v
			}
			return reach(t.Elem(), or(via, "a map"))
		case *types.Chan:
			return reach(t.Elem(), or(via, "a channel"))
		case *types.Signature:
			if v := reach(t.Params(), or(via, "a function type")); v != "" {
				return v
			}
			return reach(t.Results(), or(via, "a function type"))
		case *types.Tuple:
			for i := 0; i < t.Len(); i++ {
				if v := reach(t.At(i).Type(), via); v != "" {
					return v
				}
			}
		case *types.Struct:
			for i := 0; i < t.NumFields(); i++ {
				if v := reach(t.Field(i).Type(), or(via, "an unnamed struct")); v != "" {
					return v
				}
			}
		}
		return ""
	}
	return reach(target.Underlying(), "")
}

// or returns a, or b when a is empty.
func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
