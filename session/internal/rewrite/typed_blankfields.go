package rewrite

import (
	"go/ast"
	"go/token"
	"strconv"
)

// Blank fields: yaegi builds a struct type with reflect.StructOf and names
// every blank field X_, so a struct with two blank fields fails to
// compile ("reflect.StructOf: duplicate field X_"). The pass names every
// blank field after the first by its position, the same in every struct:
//
//	struct{ x int; _ string; y float64; _ float64 }
//	→ struct{ x int; _ string; y float64; __gnb_blank3 float64 }
//
// Nothing in Go can name a blank field, so no code sees the new name.
// Comparisons stay Go's while the fields stay zero, which only package
// unsafe could change (Go ignores blank fields in ==; the interpreter
// compares them). Two struct types with blank fields at the same
// positions stay identical, so conversions between them work.
//
// A type declared as _ (type _ int: checked, then unusable) fails in
// yaegi too ("cannot use _ as value"); the pass drops its declaration.
// A package-level variable named _ (var _ = f()) gets a fresh name:
// yaegi takes a later one for a variable that depends on an earlier one
// and refuses the cell ("variable definition loop").
func checkBlankFields(x *Cell, ps []*Run) error {
	for _, p := range ps {
		if !p.decl {
			continue
		}
		for _, d := range p.file.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.VAR {
				for _, sp := range g.Specs {
					for _, id := range sp.(*ast.ValueSpec).Names {
						if id.Name == "_" {
							id.Name = x.ci.tmpName("blank")
						}
					}
				}
			}
		}
	}
	inspect(ps, func(n ast.Node) bool {
		if g, ok := n.(*ast.GenDecl); ok && g.Tok == token.TYPE {
			specs := g.Specs[:0]
			for _, sp := range g.Specs {
				if sp.(*ast.TypeSpec).Name.Name != "_" {
					specs = append(specs, sp)
				}
			}
			g.Specs = specs
		}
		st, ok := n.(*ast.StructType)
		if !ok {
			return true
		}
		blanks, index := 0, 0
		for _, f := range st.Fields.List {
			if len(f.Names) == 0 { // embedded
				index++
				continue
			}
			for _, id := range f.Names {
				if id.Name == "_" {
					if blanks++; blanks > 1 {
						id.Name = "__gnb_blank" + strconv.Itoa(index)
					}
				}
				index++
			}
		}
		return true
	})
	return nil
}
