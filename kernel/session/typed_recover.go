package session

import (
	"go/ast"
	"go/types"
	"reflect"
	"regexp"
	"strings"
)

// Recovered runtime errors: yaegi runs indexing, slicing, calls and type
// assertions through reflect and its own code, so a run-time failure Go
// reports with a runtime.Error panics with reflect's string ("reflect:
// slice index out of range"), a *reflect.ValueError (a nil pointer) or
// yaegi's own error type; r.(error) then fails where Go's code expects a
// runtime.Error. The pass hands what recover() returns to a compiled
// helper that replaces those values by runtime errors with Go's messages
// (without the indexes Go gives):
//
//	recover()  →  __gnb.Recovered(recover())
//
// recover is still called by the deferred function itself.
func fixRecovered(x *execution, ps []*parsed) error {
	direct := map[ast.Expr]bool{} // calls deferred or started themselves
	rewrite := map[ast.Expr]ast.Expr{}
	inspect(ps, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.DeferStmt:
			direct[n.Call] = true
		case *ast.GoStmt:
			direct[n.Call] = true
		case *ast.CallExpr:
			id, ok := unparen(n.Fun).(*ast.Ident)
			if !ok || direct[n] || len(n.Args) != 0 {
				return true
			}
			if b, ok := x.cc.info.Uses[id].(*types.Builtin); !ok || b.Name() != "recover" {
				return true
			}
			pos := n.Pos()
			fun := &ast.SelectorExpr{X: &ast.Ident{Name: "__gnb", NamePos: pos}, Sel: &ast.Ident{Name: "Recovered", NamePos: pos}}
			rewrite[n] = &ast.CallExpr{Fun: fun, Lparen: pos, Args: []ast.Expr{shallowCopy(n)}, Rparen: n.End()}
		}
		return true
	})
	for _, p := range ps {
		replaceExprs(p.node(), rewrite)
	}
	return nil
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
		if t.Kind() == reflect.Pointer && t.Elem().PkgPath() == "github.com/traefik/yaegi/interp" {
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
