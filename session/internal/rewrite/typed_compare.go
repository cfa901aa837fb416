package rewrite

import (
	"go/ast"
	"go/token"
	"go/types"
)

// Comparisons of operands of different types: Go compares x == y when
// one operand is assignable to the other's type (a chan int with a
// <-chan int, a *int with a named pointer type); yaegi refuses them
// ("mismatched types chan int and <-chan int"). The pass converts the
// operand to the other's type, as Go's comparison does.

// convertComparisons converts one operand of == and != where the two
// (non-interface) types differ.
func convertComparisons(x *Cell, ps []*Run) error {
	var err error
	inspect(ps, func(n ast.Node) bool {
		if err != nil {
			return false
		}
		b, ok := n.(*ast.BinaryExpr)
		if !ok || (b.Op != token.EQL && b.Op != token.NEQ) {
			return true
		}
		tx, ty := x.cc.Info.TypeOf(b.X), x.cc.Info.TypeOf(b.Y)
		if tx == nil || ty == nil || isUntyped(tx) || isUntyped(ty) || types.Identical(tx, ty) || types.IsInterface(tx) || types.IsInterface(ty) {
			return true
		}
		// The operand assignable to the other's type takes that type; of
		// a named and an unnamed type, the unnamed one (yaegi fails on
		// some conversions to a named pointer type).
		target, operand := ty, &b.X
		if !types.AssignableTo(tx, ty) || (isNamed(ty) && !isNamed(tx) && types.AssignableTo(ty, tx)) {
			target, operand = tx, &b.Y
		}
		if !x.writable(target) {
			return true
		}
		te, e := x.typeExpr(target)
		if e != nil {
			err = e
			return false
		}
		o := *operand
		*operand = &ast.CallExpr{Fun: &ast.ParenExpr{Lparen: o.Pos(), X: te, Rparen: o.Pos()}, Lparen: o.Pos(), Args: []ast.Expr{o}, Rparen: o.End()}
		return true
	})
	return err
}
