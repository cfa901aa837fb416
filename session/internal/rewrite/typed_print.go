package rewrite

import (
	"go/ast"
	"go/token"
	"go/types"
	"io"
	"reflect"
	"strconv"
)

// The builtins print and println: yaegi writes them to standard output
// with fmt's formatting; Go writes them to standard error with the
// runtime's (nil pointers, maps and funcs as 0x0, slices as [len/cap]0x…,
// interfaces as (0x…,0x…), no space between print's operands). The pass
// rewrites every call into a call of a compiled helper given, for each
// argument, how Go prints it (from its static type, which the argument
// loses once passed as an any).

// Print kinds, one byte per argument of a rewritten call.
const (
	printBool    = 'b'
	printInt     = 'i'
	printUint    = 'u'
	printFloat32 = 'f'
	printFloat64 = 'F'
	printCplx64  = 'c'
	printCplx128 = 'C'
	printString  = 's'
	printPointer = 'p' // pointers, channels, maps, funcs, unsafe.Pointer
	printSlice   = 'S'
	printEface   = 'e' // an empty interface
	printIface   = 'I' // an interface with methods
	printDynamic = '?' // a type parameter: the dynamic value decides
)

// rewritePrint turns print(a, b) into __gnb.Print("kinds", a, b) and
// println into __gnb.Println, in deferred calls and go statements too.
func rewritePrint(x *Cell, ps []*Run) error {
	inspect(ps, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		id, ok := unparen(c.Fun).(*ast.Ident)
		if !ok {
			return true
		}
		b, ok := x.cc.Info.Uses[id].(*types.Builtin)
		if !ok || (b.Name() != "print" && b.Name() != "println") {
			return true
		}
		kinds := make([]byte, len(c.Args))
		for i, a := range c.Args {
			kinds[i] = printKind(x.cc.Info.TypeOf(a))
		}
		name := "Print"
		if b.Name() == "println" {
			name = "Println"
		}
		pos := id.Pos()
		c.Fun = &ast.SelectorExpr{X: &ast.Ident{Name: "__gnb", NamePos: pos}, Sel: &ast.Ident{Name: name, NamePos: pos}}
		lit := &ast.BasicLit{ValuePos: pos, Kind: token.STRING, Value: strconv.Quote(string(kinds))}
		c.Args = append([]ast.Expr{lit}, c.Args...)
		c.Ellipsis = token.NoPos
		return true
	})
	return nil
}

// printKind says how Go's print writes a value of type t.
func printKind(t types.Type) byte {
	if t == nil {
		return printDynamic
	}
	if isUntyped(t) {
		t = types.Default(t)
	}
	if _, ok := types.Unalias(t).(*types.TypeParam); ok {
		return printDynamic
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		switch {
		case u.Kind() == types.Bool:
			return printBool
		case u.Kind() == types.UnsafePointer:
			return printPointer
		case u.Info()&types.IsUnsigned != 0:
			return printUint
		case u.Info()&types.IsInteger != 0:
			return printInt
		case u.Kind() == types.Float32:
			return printFloat32
		case u.Info()&types.IsFloat != 0:
			return printFloat64
		case u.Kind() == types.Complex64:
			return printCplx64
		case u.Info()&types.IsComplex != 0:
			return printCplx128
		case u.Info()&types.IsString != 0:
			return printString
		}
	case *types.Pointer, *types.Chan, *types.Map, *types.Signature:
		return printPointer
	case *types.Slice:
		return printSlice
	case *types.Interface:
		if u.NumMethods() == 0 {
			return printEface
		}
		return printIface
	}
	return printDynamic
}

// PrintHelper returns the helper that the rewritten calls of print
// (ln false) or println (ln true) call: it formats its arguments as Go's
// runtime does and writes them to w in one
// write.
func PrintHelper(w io.Writer, ln bool) func(kinds string, args ...any) {
	return func(kinds string, args ...any) {
		var buf []byte
		for i, a := range args {
			if ln && i > 0 {
				buf = append(buf, ' ')
			}
			k := byte(printDynamic)
			if i < len(kinds) {
				k = kinds[i]
			}
			buf = appendPrint(buf, k, a)
		}
		if ln {
			buf = append(buf, '\n')
		}
		w.Write(buf)
	}
}

// appendPrint formats one operand of print as Go's runtime does
// (runtime/print.go): numbers in decimal, floats as strconv's 'g' with
// the shortest exact digits, pointers in hex (0x0 for nil), slices as
// [len/cap]pointer, interfaces as (type,data).
func appendPrint(buf []byte, k byte, a any) []byte {
	v := reflect.ValueOf(a)
	if k == printDynamic {
		k = dynamicPrintKind(v)
	}
	switch k {
	case printEface, printIface:
		if a == nil {
			return append(buf, "(0x0,0x0)"...)
		}
		// Go prints the addresses of the type descriptor (or itab) and
		// of the data: neither is reproducible, these are the closest.
		buf = append(buf, '(')
		buf = appendHex(buf, uint64(reflect.ValueOf(v.Type()).Pointer()))
		buf = append(buf, ',')
		buf = appendHex(buf, dataPointer(v))
		return append(buf, ')')
	}
	if !v.IsValid() {
		// A nil of a pointer-like kind that reached the helper as a nil
		// interface.
		if k == printSlice {
			return append(buf, "[0/0]0x0"...)
		}
		return append(buf, "0x0"...)
	}
	switch k {
	case printBool:
		return strconv.AppendBool(buf, v.Bool())
	case printInt:
		return strconv.AppendInt(buf, v.Int(), 10)
	case printUint:
		return strconv.AppendUint(buf, v.Uint(), 10)
	case printFloat32:
		return strconv.AppendFloat(buf, v.Float(), 'g', -1, 32)
	case printFloat64:
		return strconv.AppendFloat(buf, v.Float(), 'g', -1, 64)
	case printCplx64:
		return append(buf, strconv.FormatComplex(v.Complex(), 'g', -1, 64)...)
	case printCplx128:
		return append(buf, strconv.FormatComplex(v.Complex(), 'g', -1, 128)...)
	case printString:
		return append(buf, v.String()...)
	case printPointer:
		return appendHex(buf, uint64(v.Pointer()))
	case printSlice:
		buf = append(buf, '[')
		buf = strconv.AppendInt(buf, int64(v.Len()), 10)
		buf = append(buf, '/')
		buf = strconv.AppendInt(buf, int64(v.Cap()), 10)
		buf = append(buf, ']')
		return appendHex(buf, uint64(v.Pointer()))
	}
	return buf
}

// dynamicPrintKind is the print kind of a value whose static type is a
// type parameter.
func dynamicPrintKind(v reflect.Value) byte {
	if !v.IsValid() {
		return printEface
	}
	switch v.Kind() {
	case reflect.Bool:
		return printBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return printInt
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return printUint
	case reflect.Float32:
		return printFloat32
	case reflect.Float64:
		return printFloat64
	case reflect.Complex64:
		return printCplx64
	case reflect.Complex128:
		return printCplx128
	case reflect.String:
		return printString
	case reflect.Pointer, reflect.Chan, reflect.Map, reflect.Func, reflect.UnsafePointer:
		return printPointer
	case reflect.Slice:
		return printSlice
	}
	return printEface
}

// dataPointer is the data word of an interface holding v, as near as it
// can be told.
func dataPointer(v reflect.Value) uint64 {
	switch v.Kind() {
	case reflect.Pointer, reflect.Chan, reflect.Map, reflect.Func, reflect.UnsafePointer:
		return uint64(v.Pointer())
	}
	// Go boxes other values: the address of a copy.
	p := reflect.New(v.Type())
	p.Elem().Set(v)
	return uint64(p.Pointer())
}

// appendHex writes v as the runtime's printhex does: 0x and the hex
// digits.
func appendHex(buf []byte, v uint64) []byte {
	buf = append(buf, '0', 'x')
	return strconv.AppendUint(buf, v, 16)
}
