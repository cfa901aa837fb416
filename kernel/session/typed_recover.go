package session

import (
	"go/ast"
	"go/types"
	"reflect"
)

// recover: yaegi's recover returns the value an interpreted panic was
// called with wrapped in a reflect.Value (panic(1) recovers a
// reflect.Value holding 1: r == 1 is false, r.(int) fails, %T prints
// reflect.Value). The pass rewrites every call of the builtin recover()
// into __gnb.Recovered(recover()), which unwraps it.

// rewriteRecover wraps every call of the builtin recover.
func rewriteRecover(x *execution, ps []*parsed) error {
	isRecover := func(e ast.Expr) bool {
		id, ok := unparen(e).(*ast.Ident)
		if !ok {
			return false
		}
		b, ok := x.cc.info.Uses[id].(*types.Builtin)
		return ok && b.Name() == "recover"
	}
	var err error
	inspect(ps, func(n ast.Node) bool {
		if d, ok := n.(*ast.DeferStmt); ok && isRecover(d.Call.Fun) && err == nil {
			err = newError("Unsupported", "yaegi, the interpreter, does not run `defer recover()` as Go does (in a function that panics, it recovers the panic of the function's caller); "+
				"call recover from a deferred function instead: defer func() { recover() }() (which also recovers the function's own panic)", x.at(d))
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	inspect(ps, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		if !isRecover(c.Fun) {
			return true
		}
		// The call node stays (the checker's facts are keyed by it);
		// what it calls changes.
		pos := c.Pos()
		inner := &ast.CallExpr{Fun: c.Fun, Lparen: c.Lparen, Rparen: c.Rparen}
		c.Fun = &ast.SelectorExpr{X: &ast.Ident{Name: "__gnb", NamePos: pos}, Sel: &ast.Ident{Name: "Recovered", NamePos: pos}}
		c.Args = []ast.Expr{inner}
		return false
	})
	return nil
}

// recovered unwraps what yaegi's recover returns: the value of an
// interpreted panic comes as the reflect.Value of panic's operand.
func recovered(r any) any {
	if rv, ok := r.(reflect.Value); ok && rv.IsValid() && rv.CanInterface() {
		return rv.Interface()
	}
	return r
}
