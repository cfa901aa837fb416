package rewrite

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"strings"
)

// Method expressions: yaegi types T.M, (*T).M, I.M and the literal forms
// (interface{ M() }.M, struct{ T }.M) wrongly ("too many arguments",
// "reflect.Set: value of type func(string) string is not assignable to type
// func(S, string) string", "nil reflect type"); the pass writes each one as
// the function literal it denotes:
//
//	T.M  →  func(__gnb_r T, __gnb_p0 int) string { return __gnb_r.M(__gnb_p0) }
//
// The literal is parsed as generated code, so a panic's traceback does not
// show it.
func rewriteMethodExprs(x *Cell, ps []*Run) error {
	rewrite := map[ast.Expr]ast.Expr{}
	var err error
	inspect(ps, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok || err != nil {
			return err == nil
		}
		s := x.cc.Info.Selections[sel]
		if s == nil || s.Kind() != types.MethodExpr {
			return true
		}
		sig, ok := s.Type().(*types.Signature)
		if !ok || !x.writableAt(sig, sel.Pos()) || hasTypeParam(sig) {
			return true // left to yaegi
		}
		var lit ast.Expr
		lit, err = x.methodFunc(sig, sel.Sel.Name, sel)
		if err != nil {
			return false
		}
		rewrite[sel] = lit
		return true
	})
	if err != nil {
		return err
	}
	replaceAll(ps, rewrite)
	return nil
}

// methodFunc returns the function literal that calls method name on its
// first parameter with the others: sig is the method expression's type
// (the receiver first).
func (x *Cell) methodFunc(sig *types.Signature, name string, at ast.Node) (ast.Expr, error) {
	params, args := x.signatureParams(sig.Params(), sig.Variadic(), true)
	if len(args) == 0 {
		return nil, newError("InternalError", "a method expression without a receiver", x.at(at))
	}
	call := args[0] + "." + name + "(" + strings.Join(args[1:], ", ") + ")"
	src := "func(" + params + ")" + x.resultsText(sig.Results()) + " { " + returnOf(sig.Results(), call) + " }"
	return x.parseGenerated(src, at)
}

// signatureParams writes a parameter list with generated names (the first
// __gnb_r when it is a receiver), and the arguments that pass those
// parameters on (the variadic one with ...).
func (x *Cell) signatureParams(t *types.Tuple, variadic, recv bool) (string, []string) {
	var params, args []string
	for i := 0; i < t.Len(); i++ {
		name := fmt.Sprintf("__gnb_p%d", i)
		if i == 0 && recv {
			name = "__gnb_r"
		}
		typ := t.At(i).Type()
		if variadic && i == t.Len()-1 {
			params = append(params, name+" ..."+types.TypeString(typ.(*types.Slice).Elem(), x.qualify))
			args = append(args, name+"...")
			continue
		}
		params = append(params, name+" "+types.TypeString(typ, x.qualify))
		args = append(args, name)
	}
	return strings.Join(params, ", "), args
}

// resultsText writes the results of a signature: "", " T" or " (T, U)".
func (x *Cell) resultsText(t *types.Tuple) string {
	switch t.Len() {
	case 0:
		return ""
	case 1:
		return " " + types.TypeString(t.At(0).Type(), x.qualify)
	}
	var rs []string
	for i := 0; i < t.Len(); i++ {
		rs = append(rs, types.TypeString(t.At(i).Type(), x.qualify))
	}
	return " (" + strings.Join(rs, ", ") + ")"
}

// returnOf is the statement that ends a function whose body is call.
func returnOf(results *types.Tuple, call string) string {
	if results.Len() == 0 {
		return call
	}
	return "return " + call
}

// parseGenerated parses an expression the session writes, as generated
// code (see GeneratedFile).
func (x *Cell) parseGenerated(src string, at ast.Node) (ast.Expr, error) {
	e, err := parser.ParseExprFrom(x.fset, GeneratedFile, src, 0)
	if err != nil {
		return nil, newError("InternalError", "writing "+src+": "+err.Error(), x.at(at))
	}
	return e, nil
}

// writableAt reports whether t can be written at pos: as writable, and
// types declared in a function count when their name denotes them at pos
// (code written in place of an expression sees them).
func (x *Cell) writableAt(t types.Type, pos token.Pos) bool {
	return x.writableIn(t, func(obj *types.TypeName) bool {
		inner := obj.Parent().Innermost(pos)
		if inner == nil {
			return false
		}
		_, found := inner.LookupParent(obj.Name(), pos)
		return found == obj
	})
}
