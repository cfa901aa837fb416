package rewrite

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"math"
	"reflect"
	"strconv"
	"unsafe"
)

// Package unsafe: yaegi computes unsafe.Sizeof, Offsetof and Alignof at
// run time from its own layout of the value (Offsetof of a field of a
// struct declared in a cell fails to compile), and its table lacks
// unsafe.Slice, SliceData, String and StringData. The pass writes the
// three constants with the values Go's checker computed (gc's sizes for
// this architecture), and turns the four functions into calls of
// compiled helpers that call Go's own, asserted back to their type.

// rewriteUnsafe rewrites the cell's uses of package unsafe's builtins.
func rewriteUnsafe(x *Cell, ps []*Run) error {
	var err error
	rewrite := map[ast.Expr]ast.Expr{}
	inspect(ps, func(n ast.Node) bool {
		if err != nil {
			return false
		}
		c, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := unparen(c.Fun).(*ast.SelectorExpr)
		if !ok {
			return true
		}
		b, ok := x.cc.Info.Uses[sel.Sel].(*types.Builtin)
		if !ok {
			return true
		}
		pos := c.Pos()
		helper := func(name string) ast.Expr {
			return &ast.SelectorExpr{X: &ast.Ident{Name: "__gnb", NamePos: pos}, Sel: &ast.Ident{Name: name, NamePos: pos}}
		}
		switch b.Name() {
		case "Sizeof", "Offsetof", "Alignof":
			tv := x.cc.Info.Types[c]
			if tv.Value == nil {
				return true // of a type parameter: yaegi's run-time value
			}
			// The call node stays (a constant may be an array length);
			// it becomes the conversion uintptr(value).
			c.Fun = &ast.Ident{Name: "uintptr", NamePos: pos}
			c.Args = []ast.Expr{&ast.BasicLit{ValuePos: pos, Kind: token.INT, Value: tv.Value.ExactString()}}
			return false
		case "String":
			// unsafe.String(p, n) → __gnb.UnsafeString((*byte)(p), n)
			rewrite[c] = &ast.CallExpr{Fun: helper("UnsafeString"), Lparen: c.Lparen, Rparen: c.Rparen, Args: []ast.Expr{
				&ast.CallExpr{Fun: &ast.ParenExpr{X: &ast.StarExpr{X: &ast.Ident{Name: "byte", NamePos: pos}, Star: pos}}, Args: []ast.Expr{c.Args[0]}, Lparen: pos, Rparen: pos},
				c.Args[1],
			}}
		case "StringData":
			rewrite[c] = &ast.CallExpr{Fun: helper("UnsafeStringData"), Lparen: c.Lparen, Rparen: c.Rparen, Args: []ast.Expr{
				&ast.CallExpr{Fun: &ast.Ident{Name: "string", NamePos: pos}, Args: []ast.Expr{c.Args[0]}, Lparen: pos, Rparen: pos},
			}}
		case "Slice", "SliceData":
			// unsafe.Slice(p, n) → __gnb.UnsafeSlice(p, n, []T(nil)).([]T);
			// unsafe.SliceData(s) → __gnb.UnsafeSliceData(s, (*T)(nil)).(*T)
			t := x.cc.Info.TypeOf(c)
			if t == nil || !x.writable(t) {
				err = newError("Unsupported", fmt.Sprintf("unsafe.%s of a type declared in a function: the kernel cannot name its result type for yaegi, the interpreter; declare the type at the top level of a cell", b.Name()), x.at(c))
				return false
			}
			te, e := x.typeExpr(t)
			if e != nil {
				err = e
				return false
			}
			witness := &ast.CallExpr{Fun: &ast.ParenExpr{X: te, Lparen: pos, Rparen: pos}, Args: []ast.Expr{&ast.Ident{Name: "nil", NamePos: pos}}, Lparen: pos, Rparen: pos}
			args := append(append([]ast.Expr{}, c.Args...), witness)
			name := "UnsafeSlice"
			if b.Name() == "SliceData" {
				name = "UnsafeSliceData"
			}
			te2, e := x.typeExpr(t)
			if e != nil {
				err = e
				return false
			}
			rewrite[c] = &ast.TypeAssertExpr{X: &ast.CallExpr{Fun: helper(name), Lparen: c.Lparen, Args: args, Rparen: c.Rparen}, Type: te2, Lparen: c.Rparen, Rparen: c.Rparen}
		}
		return true
	})
	if err != nil {
		return err
	}
	replaceAll(ps, rewrite)
	return nil
}

// unsafeLen converts the length operand of unsafe.Slice or unsafe.String
// (any integer type) to an int, or to -1 when it does not fit (Go's
// check then panics with "len out of range").
func unsafeLen(n any) int {
	v := reflect.ValueOf(n)
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		i := v.Int()
		if i < math.MinInt || i > math.MaxInt {
			return -1
		}
		return int(i)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		u := v.Uint()
		if u > math.MaxInt {
			return -1
		}
		return int(u)
	}
	panic("unsafe: len is not an integer: " + strconv.Quote(fmt.Sprintf("%T", n)))
}

// unsafeSlice is unsafe.Slice(p, n) for a pointer p of the element type
// of witness (a nil []T): Go's checks panic as Go's do.
func unsafeSlice(p, n, witness any) any {
	st := reflect.TypeOf(witness)
	var ptr unsafe.Pointer
	if p != nil {
		ptr = reflect.ValueOf(p).UnsafePointer()
	}
	l := unsafeLen(n)
	if ptr == nil && l == 0 {
		return reflect.Zero(st).Interface() // nil, as Go's
	}
	// reflect.SliceAt checks as unsafe.Slice does (the runtime's
	// unsafeslice), with its messages.
	return reflect.SliceAt(st.Elem(), ptr, l).Interface()
}

// unsafeSliceData is unsafe.SliceData(s) for s a slice of the type of
// witness's element (witness is a nil *T).
func unsafeSliceData(s, witness any) any {
	pt := reflect.TypeOf(witness)
	v := reflect.ValueOf(s)
	if !v.IsValid() || v.IsNil() {
		return reflect.Zero(pt).Interface()
	}
	return reflect.NewAt(pt.Elem(), v.UnsafePointer()).Interface()
}

// unsafeString is unsafe.String(p, n).
func unsafeString(p *byte, n any) string {
	return unsafe.String(p, unsafeLen(n))
}

// unsafeStringData is unsafe.StringData(s).
func unsafeStringData(s string) *byte {
	return unsafe.StringData(s)
}
