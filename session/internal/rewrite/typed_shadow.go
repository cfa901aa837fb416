package rewrite

import (
	"go/ast"
	"go/types"
)

// Declarations that shadow a name in the top-level code of a cell.
//
// In the code of a cell outside functions, yaegi binds a variable
// declared in a block, an if, for or switch header or a select case to
// the variable of the same name outside it: after `x := 1; { x := 2 }`
// x is 2, `for i := 0; i < 3; i++ {}` sets an i of an earlier cell to 3,
// `if y := 5; …` sets y, and a type switch `switch c := v.(type)` over an
// existing c fails to compile. Functions are not affected. The pass gives
// each such variable whose name is taken elsewhere (the package scope,
// which holds earlier cells, the cell's top-level definitions, another
// block of the top-level code) a fresh name, renaming exactly the
// identifiers the checker resolves to it.

// renameShadows renames the shadowing variables of top-level code.
func renameShadows(x *Cell, ps []*Run) error {
	info := x.cc.Info
	taken := map[string]int{}
	for _, n := range x.cc.Pkg.Scope().Names() {
		taken[n] = 2
	}
	for _, p := range ps {
		if !p.decl {
			for id := range TopLevelDefs(p.body.List) {
				taken[id.Name] = 2
			}
		}
	}
	// The candidates: variables declared in top-level code, below its
	// statement list, outside function literals; a type switch's
	// symbolic variable stands for the objects of its clauses.
	type candidate struct {
		def  *ast.Ident
		objs []types.Object
	}
	var cands []candidate
	for _, p := range ps {
		if p.decl {
			continue
		}
		topIDs := TopLevelDefs(p.body.List)
		ast.Inspect(p.body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				return false
			case *ast.TypeSwitchStmt:
				a, ok := n.Assign.(*ast.AssignStmt)
				if !ok || len(a.Lhs) != 1 {
					return true
				}
				id, ok := a.Lhs[0].(*ast.Ident)
				if !ok || id.Name == "_" {
					return true
				}
				c := candidate{def: id}
				for _, cl := range n.Body.List {
					if obj := info.Implicits[cl]; obj != nil {
						c.objs = append(c.objs, obj)
					}
				}
				cands = append(cands, c)
				taken[id.Name]++
			case *ast.Ident:
				if topIDs[n] || n.Name == "_" {
					return true
				}
				switch obj := info.Defs[n].(type) {
				case *types.Var:
					if obj.IsField() {
						return true
					}
					cands = append(cands, candidate{def: n, objs: []types.Object{obj}})
					taken[n.Name]++
				case *types.Const:
					cands = append(cands, candidate{def: n, objs: []types.Object{obj}})
					taken[n.Name]++
				}
			}
			return true
		})
	}
	rename := map[types.Object]string{}
	for _, c := range cands {
		if taken[c.def.Name] < 2 {
			continue
		}
		name := x.ci.tmpName(c.def.Name + "_")
		c.def.Name = name
		for _, obj := range c.objs {
			rename[obj] = name
		}
	}
	if len(rename) == 0 {
		return nil
	}
	if x.renamed == nil {
		x.renamed = map[types.Object]string{}
	}
	for obj, name := range rename {
		x.renamed[obj] = name
	}
	for _, p := range ps {
		if p.decl {
			continue
		}
		ast.Inspect(p.body, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				if name, ok := rename[info.Uses[id]]; ok {
					id.Name = name
				}
			}
			return true
		})
	}
	return nil
}

// nameOf is the name an object has in the code (see renameShadows).
func (x *Cell) nameOf(obj types.Object) string {
	if n, ok := x.renamed[obj]; ok {
		return n
	}
	return obj.Name()
}
