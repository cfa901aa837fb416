package rewrite

import (
	"go/ast"
	"go/parser"
	"go/types"
)

// Function literals made in a loop.
//
// yaegi keeps the value of a function literal in a slot of the frame it
// is made in, and a call of that value, when it returns, puts back what
// the slot held when the value was made. In a loop the same literal is
// made again in the same frame each iteration: a call of an earlier
// iteration's value that returns on another goroutine (time.AfterFunc, a
// compiled worker pool, a goroutine) between the making of the next value
// and its use hands that use the earlier value or a nil function — the
// wrong closure runs, silently, or the process crashes. A literal made
// by a function literal called at once gets a frame of its own each time,
// so the pass writes every function literal of a loop that is not called
// where it stands (its value escapes) as
//
//	func(k int) { body }  →  func() func(k int) { return func(k int) { body } }()
//
// A literal called where it stands (func() { … }(), defer and go of one)
// cannot run on another goroutine while the loop makes the next one;
// go statements get a frame of their own in rewrite.go (goStmt). A loop
// written with goto is not seen.
func wrapLoopLiterals(x *Cell, ps []*Run) error {
	var stack []ast.Node
	with := map[ast.Expr]ast.Expr{}
	var err error
	inspect(ps, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		stack = append(stack, n)
		lit, ok := n.(*ast.FuncLit)
		if !ok || err != nil || calledInPlace(stack) || !inLoop(stack[:len(stack)-1]) {
			return true
		}
		src := types.ExprString(lit.Type)
		result, perr := parser.ParseExprFrom(x.fset, GeneratedFile, src, 0)
		if perr != nil {
			err = newError("InternalError", "writing the type "+src+" of a function literal in a loop: "+perr.Error())
			return false
		}
		pos := lit.Pos()
		inner := *lit // a node of its own: the replacement is searched again
		maker := &ast.FuncLit{
			Type: &ast.FuncType{Func: pos, Params: &ast.FieldList{Opening: pos, Closing: pos},
				Results: &ast.FieldList{List: []*ast.Field{{Type: result}}}},
			Body: &ast.BlockStmt{Lbrace: pos, List: []ast.Stmt{&ast.ReturnStmt{Return: pos, Results: []ast.Expr{&inner}}}, Rbrace: pos},
		}
		with[lit] = &ast.CallExpr{Fun: maker, Lparen: pos, Rparen: pos}
		return true
	})
	if err != nil {
		return err
	}
	replaceAll(ps, with)
	return nil
}

// calledInPlace reports whether the function literal on top of stack is
// the function of a call (through parentheses).
func calledInPlace(stack []ast.Node) bool {
	child := stack[len(stack)-1]
	for i := len(stack) - 2; i >= 0; i-- {
		switch p := stack[i].(type) {
		case *ast.ParenExpr:
			child = p
			continue
		case *ast.CallExpr:
			return p.Fun == child
		}
		return false
	}
	return false
}

// inLoop reports whether the innermost function of stack (a cell's top
// level included) runs the node above stack in a for or range loop.
func inLoop(stack []ast.Node) bool {
	for i := len(stack) - 1; i >= 0; i-- {
		switch stack[i].(type) {
		case *ast.ForStmt, *ast.RangeStmt:
			return true
		case *ast.FuncLit, *ast.FuncDecl:
			return false
		}
	}
	return false
}
