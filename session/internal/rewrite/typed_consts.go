package rewrite

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"math"
	"reflect"
	"strconv"
	"strings"
)

// Constant expressions: yaegi computes them with machine arithmetic and
// types some untyped constants wrongly (1<<100 - 1 overflows int64, the
// untyped 1 of val|1<<n is an int beside a uint64, a shift count 1. or
// 1+0i fails); the pass writes every constant expression outside constant
// declarations as the literal of the exact value Go's checker computed,
// converted to its type where the literal alone would not have it.
//
//	f = chuge - 1                →  f = 1.2676506002282294e+30
//	gen(val|1<<uint(pos))        →  gen(val|uint64(1)<<uint(pos))
//	x << (M + 0.)                →  x << uint(18446744073709551615)
//	d := 2 * time.Second         →  d := time.Duration(2000000000)
//
// Literals are left as written, but for the untyped left operand of a
// non-constant shift and a float or complex literal of an integer type.

// foldConstExprs replaces the cell's constant expressions by literals.
func foldConstExprs(x *Cell, ps []*Run) error {
	w := x.newLiteralWriter()
	for _, p := range ps {
		walkExprs(p.node(), func(slot *ast.Expr, parent ast.Node) bool {
			e := *slot
			tv, ok := x.cc.Info.Types[e]
			if !ok || tv.Value == nil {
				return true
			}
			if r := w.replacement(e, tv, roleOf(x.cc.Info, slot, parent)); r != nil {
				x.cc.Info.Types[r] = tv
				*slot = r
				return false
			}
			return true // kept: its parts may still be written
		})
	}
	return nil
}

// constRole is where a constant expression stands, for what its literal
// must say.
type constRole int

const (
	roleValue      constRole = iota
	roleShiftLeft            // the left operand of a non-constant shift: it has the type the shift has
	roleShiftCount           // the count of a non-constant shift: an integer
	roleKey                  // a key of a composite literal: yaegi wants a plain literal there
)

// roleOf says where the expression in slot stands in parent.
func roleOf(info *types.Info, slot *ast.Expr, parent ast.Node) constRole {
	switch p := parent.(type) {
	case *ast.BinaryExpr:
		if (p.Op == token.SHL || p.Op == token.SHR) && info.Types[p].Value == nil {
			if slot == &p.X {
				return roleShiftLeft
			}
			return roleShiftCount
		}
	case *ast.AssignStmt:
		if p.Tok == token.SHL_ASSIGN || p.Tok == token.SHR_ASSIGN {
			if len(p.Rhs) == 1 && slot == &p.Rhs[0] {
				return roleShiftCount
			}
		}
	case *ast.KeyValueExpr:
		if slot == &p.Key {
			return roleKey
		}
	}
	return roleValue
}

// literalWriter writes constant values as expressions of a cell.
type literalWriter struct {
	x *Cell
	// local holds the names the cell declares in a function or block,
	// and all it declares for predeclared names: a written type or
	// literal that names one of them would mean something else there.
	local map[string]bool
	// pkgLevel holds the package-level names of the session and the cell.
	pkgLevel func(name string) bool
}

func (x *Cell) newLiteralWriter() *literalWriter {
	w := &literalWriter{x: x, local: map[string]bool{}}
	scope := x.cc.Pkg.Scope()
	for id, obj := range x.cc.Info.Defs {
		if obj == nil || obj.Parent() != scope {
			w.local[id.Name] = true
		}
	}
	w.pkgLevel = func(name string) bool { return scope.Lookup(name) != nil }
	return w
}

// free reports whether a predeclared name means itself everywhere in the
// cell.
func (w *literalWriter) free(name string) bool {
	return !w.local[name] && !w.pkgLevel(name)
}

// replacement returns the literal that replaces the constant expression e
// in its role, or nil to keep e.
func (w *literalWriter) replacement(e ast.Expr, tv types.TypeAndValue, role constRole) ast.Expr {
	if id, ok := e.(*ast.Ident); ok && id.Name != "_" {
		if obj, ok := w.x.cc.Info.Uses[id].(*types.Const); ok && obj.Parent() == types.Universe {
			return nil // true, false
		}
	}
	if lit, ok := unparen(e).(*ast.BasicLit); ok && !w.rewriteLiteral(lit, tv, role) {
		return nil
	}
	t := tv.Type
	if isUntyped(t) {
		switch role {
		case roleShiftLeft:
			// It keeps its untyped kind only in a shift count; there Go
			// takes it as an int.
			t = types.Typ[types.Int]
		case roleShiftCount:
			t = types.Typ[types.Uint]
		default:
			return w.untyped(e.Pos(), tv.Value, t)
		}
	}
	return w.typed(e, tv.Value, t, role)
}

// rewriteLiteral reports whether a literal must be written again: the
// untyped left operand of a non-constant shift (yaegi gives it its
// default type, not the shift's), and a float or complex literal of an
// integer type or an imaginary one of a float type (a shift count 1.).
func (w *literalWriter) rewriteLiteral(lit *ast.BasicLit, tv types.TypeAndValue, role constRole) bool {
	b, _ := tv.Type.Underlying().(*types.Basic)
	if b == nil {
		return false
	}
	switch role {
	case roleKey:
		return false
	case roleShiftLeft:
		return true
	}
	switch lit.Kind {
	case token.FLOAT:
		return b.Info()&types.IsInteger != 0 || (role == roleShiftCount && isUntyped(b))
	case token.IMAG:
		return b.Info()&(types.IsInteger|types.IsFloat) != 0 || (role == roleShiftCount && isUntyped(b))
	}
	return false
}

// untyped writes an untyped constant as a literal of its kind, or nil.
func (w *literalWriter) untyped(pos token.Pos, v constant.Value, t types.Type) ast.Expr {
	b := t.(*types.Basic)
	switch b.Kind() {
	case types.UntypedBool:
		return w.boolLit(pos, constant.BoolVal(v))
	case types.UntypedString:
		return &ast.BasicLit{ValuePos: pos, Kind: token.STRING, Value: strconv.Quote(constant.StringVal(v))}
	case types.UntypedRune:
		r, ok := constant.Int64Val(constant.ToInt(v))
		if !ok || r < 0 || r > 0x10FFFF || (r >= 0xD800 && r < 0xE000) {
			return nil
		}
		return &ast.BasicLit{ValuePos: pos, Kind: token.CHAR, Value: strconv.QuoteRune(rune(r))}
	case types.UntypedInt:
		i := constant.ToInt(v)
		if i.Kind() != constant.Int {
			return nil
		}
		return intLit(pos, i)
	case types.UntypedFloat:
		// Exactly, when float64 holds it; the checker's value otherwise.
		if f, exact := constant.Float64Val(constant.ToFloat(v)); exact {
			return floatLit(pos, f)
		}
		if s, ok := constLiteral(v, t); ok && !strings.Contains(s, "/") {
			return &ast.BasicLit{ValuePos: pos, Kind: token.FLOAT, Value: strings.Trim(s, "()")}
		}
	}
	return nil // complex, and fractions float64 does not hold: kept
}

// typed writes a constant of type t as an expression of that type, or nil.
func (w *literalWriter) typed(e ast.Expr, v constant.Value, t types.Type, role constRole) ast.Expr {
	pos := e.Pos()
	b, _ := t.Underlying().(*types.Basic)
	if b == nil {
		return nil
	}
	var lit ast.Expr
	var dflt types.BasicKind // the type the literal alone has
	info := b.Info()
	switch {
	case info&types.IsBoolean != 0:
		lit, dflt = w.boolLit(pos, constant.BoolVal(v)), types.Bool
	case info&types.IsString != 0:
		lit, dflt = &ast.BasicLit{ValuePos: pos, Kind: token.STRING, Value: strconv.Quote(constant.StringVal(v))}, types.String
	case info&types.IsInteger != 0:
		i := constant.ToInt(v)
		if i.Kind() != constant.Int {
			return nil
		}
		lit, dflt = intLit(pos, i), types.Int
	case b.Kind() == types.Float32:
		f, _ := constant.Float32Val(constant.ToFloat(v))
		lit, dflt = floatLit(pos, float64(f)), types.Float64
	case b.Kind() == types.Float64:
		f, _ := constant.Float64Val(constant.ToFloat(v))
		lit, dflt = floatLit(pos, f), types.Float64
	case info&types.IsComplex != 0:
		c := constant.ToComplex(v)
		re, _ := constant.Float64Val(constant.Real(c))
		im, _ := constant.Float64Val(constant.Imag(c))
		if b.Kind() == types.Complex64 {
			r32, _ := constant.Float32Val(constant.Real(c))
			i32, _ := constant.Float32Val(constant.Imag(c))
			re, im = float64(r32), float64(i32)
		}
		if !w.free("complex") {
			return nil
		}
		r, i := floatLit(pos, re), floatLit(pos, im)
		if r == nil || i == nil {
			return nil
		}
		lit, dflt = &ast.CallExpr{Fun: ident("complex", pos), Lparen: pos, Args: []ast.Expr{r, i}, Rparen: pos}, types.Complex128
	default:
		return nil
	}
	if lit == nil {
		return nil
	}
	if t == types.Typ[dflt] && role != roleShiftLeft {
		return lit // the literal has the type
	}
	if role == roleKey {
		return nil
	}
	typ := w.typeNode(t, pos)
	if typ == nil {
		return nil
	}
	return &ast.CallExpr{Fun: typ, Lparen: pos, Args: []ast.Expr{lit}, Rparen: e.End() - 1}
}

// typeNode writes a constant's type (basic, or named with a basic
// underlying type) for a conversion, or nil where the cell cannot name it.
func (w *literalWriter) typeNode(t types.Type, pos token.Pos) ast.Expr {
	x := w.x
	switch t := types.Unalias(t).(type) {
	case *types.Basic:
		if !w.free(t.Name()) {
			return nil
		}
		return ident(t.Name(), pos)
	case *types.Named:
		if t.TypeArgs() != nil || !x.writable(t) {
			return nil
		}
		obj := t.Obj()
		if obj.Pkg() == nil {
			return nil
		}
		if obj.Pkg().Path() == "main" {
			if w.local[obj.Name()] {
				return nil // a local declaration hides it somewhere in the cell
			}
			return ident(obj.Name(), pos)
		}
		pkg := x.qualify(obj.Pkg())
		if w.local[pkg] {
			return nil
		}
		return &ast.SelectorExpr{X: ident(pkg, pos), Sel: ident(obj.Name(), pos)}
	}
	return nil
}

// boolLit writes true or false, or nil where the cell declares the name.
func (w *literalWriter) boolLit(pos token.Pos, b bool) ast.Expr {
	name := strconv.FormatBool(b)
	if !w.free(name) {
		return nil
	}
	return ident(name, pos)
}

// intLit writes an integer value.
func intLit(pos token.Pos, v constant.Value) ast.Expr {
	s := v.ExactString()
	if neg, ok := strings.CutPrefix(s, "-"); ok {
		return &ast.UnaryExpr{OpPos: pos, Op: token.SUB, X: &ast.BasicLit{ValuePos: pos, Kind: token.INT, Value: neg}}
	}
	return &ast.BasicLit{ValuePos: pos, Kind: token.INT, Value: s}
}

// floatLit writes a float64 exactly, as a float literal.
func floatLit(pos token.Pos, f float64) ast.Expr {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return nil
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eIN") {
		s += ".0"
	}
	if neg, ok := strings.CutPrefix(s, "-"); ok {
		return &ast.UnaryExpr{OpPos: pos, Op: token.SUB, X: &ast.BasicLit{ValuePos: pos, Kind: token.FLOAT, Value: neg}}
	}
	return &ast.BasicLit{ValuePos: pos, Kind: token.FLOAT, Value: s}
}

// walkExprs calls f with every expression slot of n (a field or element
// of type ast.Expr) and the node that holds it, outside constant
// declarations; it descends into the slot's expression when f returns
// true. f may replace the expression in the slot.
func walkExprs(n ast.Node, f func(slot *ast.Expr, parent ast.Node) bool) {
	switch n := n.(type) {
	case nil:
		return
	case *ast.File:
		for _, d := range n.Decls {
			walkExprs(d, f)
		}
		return
	case *ast.GenDecl:
		if n.Tok == token.CONST || n.Tok == token.IMPORT {
			return // written by foldConstants
		}
	}
	v := reflect.ValueOf(n)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return
	}
	s := v.Elem()
	for i := 0; i < s.NumField(); i++ {
		fv := s.Field(i)
		switch {
		case fv.Type() == exprType:
			walkSlot(fv, n, f)
		case fv.Kind() == reflect.Slice && fv.Type().Elem() == exprType:
			for j := 0; j < fv.Len(); j++ {
				walkSlot(fv.Index(j), n, f)
			}
		case fv.Kind() == reflect.Slice && fv.Type().Elem().Implements(nodeType):
			for j := 0; j < fv.Len(); j++ {
				walkNode(fv.Index(j), f)
			}
		case fv.Type().Implements(nodeType):
			walkNode(fv, f)
		}
	}
}

var (
	exprType = reflect.TypeFor[ast.Expr]()
	nodeType = reflect.TypeFor[ast.Node]()
)

func walkSlot(fv reflect.Value, parent ast.Node, f func(*ast.Expr, ast.Node) bool) {
	if fv.IsNil() {
		return
	}
	slot := fv.Addr().Interface().(*ast.Expr)
	if f(slot, parent) {
		walkExprs(*slot, f)
	}
}

func walkNode(fv reflect.Value, f func(*ast.Expr, ast.Node) bool) {
	if (fv.Kind() == reflect.Interface || fv.Kind() == reflect.Pointer) && fv.IsNil() {
		return
	}
	if _, ok := fv.Interface().(*ast.CommentGroup); ok {
		return
	}
	walkExprs(fv.Interface().(ast.Node), f)
}
