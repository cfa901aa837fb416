package rewrite

import (
	"go/ast"
	"go/types"
	"strings"
)

// Predeclared names declared again: Go lets a program declare append,
// int, true, nil or iota as its own constant, variable, type or function
// (the universe's name is then shadowed); yaegi fails on such a
// declaration (an internal nil dereference, or the universe's meaning).
// The pass renames every such object of the cells, where it is declared
// and where it is used (the checker resolves each use), to
// __gnb_u_NAME; the session's own bookkeeping keeps the Go name.
func renameUniverse(x *Cell, ps []*Run) error {
	rename := func(id *ast.Ident, obj types.Object) {
		if obj == nil || obj.Pkg() == nil || obj.Pkg().Path() != "main" || types.Universe.Lookup(obj.Name()) == nil {
			return
		}
		switch o := obj.(type) {
		case *types.Var:
			if o.IsField() {
				return
			}
		case *types.Func:
			if o.Type().(*types.Signature).Recv() != nil {
				return
			}
		case *types.Const, *types.TypeName:
		default:
			return
		}
		if strings.HasPrefix(id.Name, "__gnb") {
			return
		}
		name := "__gnb_u_" + id.Name
		if x.cc.Renamed == nil {
			x.cc.Renamed = map[string]string{}
		}
		x.cc.Renamed[name] = id.Name
		id.Name = name
	}
	for id, obj := range x.cc.Info.Defs {
		rename(id, obj)
	}
	for id, obj := range x.cc.Info.Uses {
		rename(id, obj)
	}
	return nil
}
