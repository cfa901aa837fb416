package rewrite

import (
	"go/ast"
	"go/token"
	"go/types"
)

// Values stored into interfaces: yaegi fails to store some operands into
// a variable (or a map or slice element, or a result) of an interface
// type:
//   - it writes the result of -x, ^x or !x straight into the
//     destination: !x panics ("reflect: call of reflect.Value.SetBool on
//     interface Value"), -x and ^x silently end the function there (a =
//     -x; println("after") prints nothing), a returned -x is nil;
//   - a composite literal of an array, slice or map type with methods,
//     assigned to an interface with methods, panics ("reflect.Set: value
//     of type [2]string is not assignable to type interp.valueInterface").
// The pass converts such an operand explicitly: the unary result to its
// own type (a = int(-x)), the literal to the interface (var i I =
// I(T{})); yaegi stores a conversion correctly.

// convertStoresToIface converts the operands yaegi cannot store into an
// interface.
func convertStoresToIface(x *Cell, ps []*Run) error {
	var err error
	var results []*types.Tuple // result types of the enclosing functions
	conv := func(e *ast.Expr, target types.Type) {
		if err != nil || target == nil || !types.IsInterface(target) {
			return
		}
		var to types.Type
		switch u := unparen(*e).(type) {
		case *ast.UnaryExpr:
			if u.Op != token.SUB && u.Op != token.XOR && u.Op != token.NOT {
				return
			}
			tv := x.cc.Info.Types[u]
			if tv.Value != nil || tv.Type == nil || isUntyped(tv.Type) {
				return
			}
			to = tv.Type
		case *ast.CompositeLit:
			t := x.cc.Info.TypeOf(u)
			if t == nil || target.Underlying().(*types.Interface).NumMethods() == 0 || types.NewMethodSet(t).Len() == 0 {
				return
			}
			switch t.Underlying().(type) {
			case *types.Array, *types.Slice, *types.Map:
				to = target
			default:
				return
			}
		default:
			return
		}
		if !x.writable(to) {
			return
		}
		te, e2 := x.typeExpr(to)
		if e2 != nil {
			err = e2
			return
		}
		old := *e
		*e = &ast.CallExpr{Fun: &ast.ParenExpr{Lparen: old.Pos(), X: te, Rparen: old.Pos()}, Lparen: old.Pos(), Args: []ast.Expr{old}, Rparen: old.End()}
	}
	var stack []ast.Node
	inspect(ps, func(n ast.Node) bool {
		if n == nil {
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			switch top.(type) {
			case *ast.FuncDecl, *ast.FuncLit:
				results = results[:len(results)-1]
			}
			return true
		}
		stack = append(stack, n)
		switch n := n.(type) {
		case *ast.FuncDecl:
			var res *types.Tuple
			if obj, ok := x.cc.Info.Defs[n.Name].(*types.Func); ok {
				res = obj.Type().(*types.Signature).Results()
			}
			results = append(results, res)
		case *ast.FuncLit:
			var res *types.Tuple
			if sig, ok := x.cc.Info.TypeOf(n).(*types.Signature); ok {
				res = sig.Results()
			}
			results = append(results, res)
		case *ast.AssignStmt:
			if n.Tok == token.ASSIGN && len(n.Lhs) == 1 && len(n.Rhs) == 1 {
				conv(&n.Rhs[0], x.cc.Info.TypeOf(n.Lhs[0]))
			}
		case *ast.ValueSpec:
			if n.Type != nil && len(n.Values) == len(n.Names) {
				t := x.cc.Info.TypeOf(n.Type)
				for i := range n.Values {
					conv(&n.Values[i], t)
				}
			}
		case *ast.ReturnStmt:
			if len(results) == 0 || results[len(results)-1] == nil {
				return true
			}
			res := results[len(results)-1]
			if res.Len() == len(n.Results) {
				for i := range n.Results {
					conv(&n.Results[i], res.At(i).Type())
				}
			}
		}
		return err == nil
	})
	return err
}
