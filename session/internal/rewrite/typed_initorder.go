package rewrite

import (
	"go/ast"
	"go/token"
	"go/types"
	"sort"
)

// Initialization order: yaegi initializes package-level variables in the
// order they are written, putting a variable after those its value names
// but not after those read by the functions it calls (var x = f() before
// var y = 5, with f reading y, gives x from a y still 0); the pass writes
// the var declarations of each declaration run in the order Go's checker
// found for their initialization (types.Info.InitOrder).
//
//	var x = f()        var y = 5
//	var y = 5      →   var x = f()

// orderVarInits reorders the initialized var declarations of each
// declaration run of the cell.
func orderVarInits(x *Cell, ps []*Run) error {
	rank := map[types.Object]int{}
	for i, in := range x.cc.Info.InitOrder {
		for _, v := range in.Lhs {
			rank[v] = i
		}
	}
	for _, p := range ps {
		if p.decl {
			orderFileInits(x.cc.Info, p.file, rank)
		}
	}
	return nil
}

// orderFileInits reorders the var declarations with values of f.
func orderFileInits(info *types.Info, f *ast.File, rank map[types.Object]int) {
	type spec struct {
		vs   *ast.ValueSpec
		rank int
	}
	var specs []spec
	first := -1 // the index in f.Decls of the first var declaration with values
	for i, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.VAR {
			continue
		}
		for _, sp := range g.Specs {
			vs := sp.(*ast.ValueSpec)
			if len(vs.Values) == 0 {
				continue
			}
			r, ok := rank[info.Defs[vs.Names[0]]]
			if !ok {
				return // not known: left as written
			}
			if first < 0 {
				first = i
			}
			specs = append(specs, spec{vs, r})
		}
	}
	if sort.SliceIsSorted(specs, func(i, j int) bool { return specs[i].rank < specs[j].rank }) {
		return
	}
	sort.SliceStable(specs, func(i, j int) bool { return specs[i].rank < specs[j].rank })

	// Each initialized spec becomes a declaration of its own, in that
	// order, where the first of them was; the others keep their place.
	var decls []ast.Decl
	for i, d := range f.Decls {
		if i == first {
			for _, s := range specs {
				decls = append(decls, &ast.GenDecl{TokPos: s.vs.Pos(), Tok: token.VAR, Specs: []ast.Spec{s.vs}})
			}
		}
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.VAR {
			decls = append(decls, d)
			continue
		}
		var keep []ast.Spec
		for _, sp := range g.Specs {
			if len(sp.(*ast.ValueSpec).Values) == 0 {
				keep = append(keep, sp)
			}
		}
		if len(keep) > 0 {
			g.Specs = keep
			if len(keep) == 1 {
				g.Lparen, g.Rparen = token.NoPos, token.NoPos
			}
			decls = append(decls, g)
		}
	}
	f.Decls = decls
}
