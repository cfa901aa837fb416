package rewrite

import (
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
)

// Callbacks that compiled code runs on a goroutine of its own: a panic
// there has no cell to unwind into, and Go ends the process (the kernel
// died, every variable was lost: issue 13, case 6). The pass hands each
// such callback to a compiled guard that runs it as the session runs a
// cell's goroutine (see goStmt): a panic fails the running cell, or is
// reported through AsyncError of the cell that gave the callback.
//
//	time.AfterFunc(d, f)         → time.AfterFunc(d, __gnb.GuardFunc(serial, line, "time.AfterFunc", f))
//	context.AfterFunc(ctx, f)    → context.AfterFunc(ctx, __gnb.GuardFunc(…, f))
//	runtime.SetFinalizer(p, fin) → runtime.SetFinalizer(p, __gnb.GuardFinalizer(…, fin))
//
// A call of such a function through a function value (g := time.AfterFunc)
// is not seen.

// asyncCallbacks maps a package path and function name to the index of
// the argument that the function calls on another goroutine.
var asyncCallbacks = map[string]map[string]int{
	"time":    {"AfterFunc": 1},
	"context": {"AfterFunc": 1},
	"runtime": {"SetFinalizer": 1},
}

// guardCallbacks wraps the callbacks of asyncCallbacks in their guards.
func guardCallbacks(x *Cell, ps []*Run) error {
	inspect(ps, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		fn := calledFunc(x.cc.Info, c)
		if fn == nil || fn.Pkg() == nil || fn.Type().(*types.Signature).Recv() != nil {
			return true
		}
		i, ok := asyncCallbacks[fn.Pkg().Path()][fn.Name()]
		if !ok || i >= len(c.Args) {
			return true
		}
		arg := c.Args[i]
		if tv, ok := x.cc.Info.Types[arg]; ok && tv.IsNil() {
			return true // SetFinalizer(p, nil) removes the finalizer
		}
		guard := "GuardFunc"
		if fn.Name() == "SetFinalizer" {
			guard = "GuardFinalizer"
		}
		pos := arg.Pos()
		serial, line := x.cellLine(c)
		intLit := func(n int) ast.Expr { return &ast.BasicLit{ValuePos: pos, Kind: token.INT, Value: strconv.Itoa(n)} }
		c.Args[i] = &ast.CallExpr{
			Fun:    &ast.SelectorExpr{X: &ast.Ident{Name: "__gnb", NamePos: pos}, Sel: &ast.Ident{Name: guard, NamePos: pos}},
			Lparen: pos,
			Args: []ast.Expr{intLit(serial), intLit(line),
				&ast.BasicLit{ValuePos: pos, Kind: token.STRING, Value: strconv.Quote(fn.Pkg().Name() + "." + fn.Name())}, arg},
			Rparen: arg.End(),
		}
		x.keepSource = true
		return true
	})
	return nil
}

// cellLine returns the serial number of the cell that n was written in
// (a declaration checked again may come from an earlier cell) and its line.
func (x *Cell) cellLine(n ast.Node) (serial, line int) {
	pos := x.fset.Position(n.Pos())
	serial = x.serial
	if m := CellPosRE.FindStringSubmatch(pos.Filename + ":1:1"); m != nil {
		serial, _ = strconv.Atoi(m[1])
	}
	return serial, pos.Line
}
