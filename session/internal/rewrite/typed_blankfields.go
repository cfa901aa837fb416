package rewrite

import (
	"go/ast"
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
func checkBlankFields(x *Cell, ps []*Run) error {
	inspect(ps, func(n ast.Node) bool {
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
