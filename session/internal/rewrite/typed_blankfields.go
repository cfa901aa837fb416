package rewrite

import "go/ast"

// Blank fields: yaegi builds a struct type with reflect.StructOf and names
// every blank field X_, so a struct with two blank fields fails to
// compile ("reflect.StructOf: duplicate field X_", reported as an
// internal error). The pass refuses such a struct with a message that
// says so.

// checkBlankFields refuses struct types with several blank fields.
func checkBlankFields(x *Cell, ps []*Run) error {
	var err error
	inspect(ps, func(n ast.Node) bool {
		st, ok := n.(*ast.StructType)
		if !ok || err != nil {
			return err == nil
		}
		blanks := 0
		for _, f := range st.Fields.List {
			for _, id := range f.Names {
				if id.Name != "_" {
					continue
				}
				if blanks++; blanks == 2 {
					err = newError("Unsupported", "yaegi, the interpreter, cannot declare a struct type with several blank (_) fields; give all but one of them a name (e.g. pad1, pad2)", x.at(id))
					return false
				}
			}
		}
		return true
	})
	return err
}
