package rewrite

import (
	"go/ast"
	"go/types"
	"reflect"
	"regexp"
	"strings"
)

// recover: yaegi's recover returns the value an interpreted panic was
// called with wrapped in a reflect.Value (panic(1) recovers a
// reflect.Value holding 1: r == 1 is false, r.(int) fails, %T prints
// reflect.Value); and yaegi runs indexing, slicing, calls and type
// assertions through reflect and its own code, so a run-time failure Go
// reports with a runtime.Error panics with reflect's string ("reflect:
// slice index out of range"), a *reflect.ValueError (a nil pointer) or
// yaegi's own error type, and r.(error) fails where Go's code expects a
// runtime.Error. The pass rewrites every call of the builtin recover()
// into __gnb.Recovered(recover()), which unwraps the value and replaces
// those failures by runtime errors with Go's messages (without the
// indexes Go gives).

// rewriteRecover wraps every call of the builtin recover.
func rewriteRecover(x *Cell, ps []*Run) error {
	isRecover := func(e ast.Expr) bool {
		id, ok := unparen(e).(*ast.Ident)
		if !ok {
			return false
		}
		b, ok := x.cc.Info.Uses[id].(*types.Builtin)
		return ok && b.Name() == "recover"
	}
	// defer recover() does nothing in Go: recover is not called by a
	// deferred function there, it is the deferred call, so it returns nil
	// and stops no panic. yaegi's recovers the caller's panic instead; the
	// statement is dropped.
	rewriteStmtLists(ps, func(st ast.Stmt) ast.Stmt {
		if d, ok := st.(*ast.DeferStmt); ok && isRecover(d.Call.Fun) {
			return &ast.EmptyStmt{Semicolon: d.Pos(), Implicit: true}
		}
		return st
	})
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

// recovered is __gnb.Recovered: what yaegi's recover returned, unwrapped
// from its reflect.Value, with yaegi's run-time failures made the runtime
// errors Go panics with.
func recovered(r any) any {
	if rv, ok := r.(reflect.Value); ok && rv.IsValid() && rv.CanInterface() {
		r = rv.Interface()
	}
	return recoveredValue(r)
}

// runtimeError is a run-time error with Go's message.
type runtimeError struct{ msg string }

func (e runtimeError) Error() string { return e.msg }

// RuntimeError marks it a runtime.Error.
func (runtimeError) RuntimeError() {}

// reflectPanics are reflect's panics for what Go reports as run-time
// errors, and the message of the error Go panics with.
var reflectPanics = map[string]string{
	"reflect: slice index out of range":                     "runtime error: index out of range",
	"reflect: array index out of range":                     "runtime error: index out of range",
	"reflect: string index out of range":                    "runtime error: index out of range",
	"reflect.Value.Slice: slice index out of bounds":        "runtime error: slice bounds out of range",
	"reflect.Value.Slice: string slice index out of bounds": "runtime error: slice bounds out of range",
	"reflect.Value.Slice3: slice index out of bounds":       "runtime error: slice bounds out of range",
	"reflect.Value.Call: call of nil function":              "runtime error: invalid memory address or nil pointer dereference",
	"reflect.MakeSlice: negative len":                       "runtime error: makeslice: len out of range",
	"reflect.MakeSlice: negative cap":                       "runtime error: makeslice: cap out of range",
	"reflect.MakeSlice: len > cap":                          "runtime error: makeslice: cap out of range",
}

// yaegiPosition is the position yaegi puts before its messages.
var yaegiPosition = regexp.MustCompile(`^(\S+:)?\d+:\d+: `)

// recoveredValue is __gnb.Recovered: the value recover returned, with
// yaegi's run-time failures made the runtime errors Go panics with.
func recoveredValue(v any) any {
	if e, ok := v.(error); ok {
		if msg, ok := renameUnhashable(e.Error()); ok {
			return runtimeError{msg}
		}
	}
	switch e := v.(type) {
	case nil:
		return nil
	case string:
		if msg, ok := reflectPanics[e]; ok {
			return runtimeError{msg}
		}
	case *reflect.ValueError:
		// An operation on the zero Value: what a nil pointer gives yaegi.
		return runtimeError{"runtime error: invalid memory address or nil pointer dereference"}
	case error:
		t := reflect.TypeOf(e)
		if t.Kind() == reflect.Pointer && t.Elem().PkgPath() == yaegiInterp {
			// yaegi's compile-time error type, raised by a failed type
			// assertion.
			msg := yaegiPosition.ReplaceAllString(e.Error(), "")
			if strings.HasPrefix(msg, "interface conversion: ") {
				return runtimeError{msg}
			}
		}
	}
	return v
}
