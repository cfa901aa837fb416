package rewrite

import (
	"fmt"
	"go/ast"
)

// Unnamed parameters of function literals: yaegi gives an unnamed
// parameter of a closure the frame slot of a variable the closure uses
// from around it, so a call stores the argument over that variable:
//
//	func mk(b *bool) func(*int) { return func(*int) { *b = true } }
//	mk(&ok)(new(int))   // panic: reflect.Set: value of type *int is not assignable to type bool
//
// The pass names every unnamed parameter of a function literal
// (func(*int) → func(__gnb_a0 *int)); nothing can use the name.

// nameLiteralParams names the unnamed parameters of function literals.
func nameLiteralParams(x *Cell, ps []*Run) error {
	inspect(ps, func(n ast.Node) bool {
		if lit, ok := n.(*ast.FuncLit); ok && lit.Type.Params != nil {
			for i, f := range lit.Type.Params.List {
				if len(f.Names) == 0 {
					f.Names = []*ast.Ident{{Name: fmt.Sprintf("__gnb_a%d", i), NamePos: f.Pos()}}
				}
			}
		}
		return true
	})
	return nil
}
