package rewrite

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"reflect"
	"strconv"
	"strings"
)

// Assertions to a cell's interface: x.(I) with I declared in a cell.
// yaegi asserts a value to a cell's interface by the methods its own
// wrapper carries, which a value stored bare in an interface lacks: the
// assertion says false where Go says true (v.(I) with v set from a
// variable, or holding *S where S has I's methods), or panics
// ("reflect.Set: value of type interface {} is not assignable to type
// interp.valueInterface"). When it fails, its panic has a message of its
// own where Go's names x's dynamic type and the first method it lacks.
// yaegi's assertions to a cell's concrete type are right where no other
// type has its structure, and its assertion to the interface is right
// when its value is not asked for, so the pass writes the assertion with
// those (assertionTests):
//
//	x.(I)           →  func(v X) I { r, ok := A(v); if !ok { __gnb.AssertFailed(v, "main.I", "M", "N") }; return r }(x)
//	r, ok := x.(I)  →  r, ok := A(x)
//	A = func(v X) (I, bool) {
//		if c, ok := any(v).(S); ok { return c, true }; …     // struct types
//		if _, ok := v.(I); !ok { return nil, false }
//		if c, ok := any(v).(C); ok { return c, true }; …     // other types
//		r, ok := v.(I); return r, ok
//	}
//
// A value of a type declared in another function or a later cell is left
// to yaegi's assertion.
func fixInterfaceAssertions(x *Cell, ps []*Run) error {
	twoValue := map[ast.Expr]bool{} // two-value forms
	inspect(ps, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if len(n.Lhs) == 2 && len(n.Rhs) == 1 {
				twoValue[unparen(n.Rhs[0])] = true
			}
		case *ast.ValueSpec:
			if len(n.Names) == 2 && len(n.Values) == 1 {
				twoValue[unparen(n.Values[0])] = true
			}
		}
		return true
	})
	rewrite := map[ast.Expr]ast.Expr{}
	var err error
	inspect(ps, func(n ast.Node) bool {
		ta, ok := n.(*ast.TypeAssertExpr)
		if !ok || ta.Type == nil || err != nil {
			return err == nil
		}
		it := x.cc.Info.Types[ta.Type].Type
		if it == nil || !sourceInterface(it) {
			return true
		}
		from := x.cc.Info.Types[ta.X].Type
		if from == nil || !x.writableAt(from, ta.Pos()) || !x.writableAt(it, ta.Pos()) {
			return true
		}
		iface := it.Underlying().(*types.Interface)
		ft, tt := types.TypeString(from, x.qualify), types.TypeString(it, x.qualify)
		assert := x.assertionTests(from, ft, tt, iface, ta.Pos())
		if assert == "" {
			assert = fmt.Sprintf("func(__gnb_v %s) (%s, bool) { %s }", ft, tt, compiledCheck(tt, iface))
		}
		if twoValue[ta] {
			f, e := x.parseGenerated(assert, ta)
			if e != nil {
				err = e
				return false
			}
			rewrite[ta] = &ast.CallExpr{Fun: f, Lparen: ta.Pos(), Args: []ast.Expr{ta.X}, Rparen: ta.End()}
			return true
		}
		var names []string
		for i := 0; i < iface.NumMethods(); i++ {
			names = append(names, strconv.Quote(iface.Method(i).Name()))
		}
		src := fmt.Sprintf("func(__gnb_v %s) %s { __gnb_r, __gnb_ok := (%s)(__gnb_v); if !__gnb_ok { %s__gnb.AssertFailed(__gnb_v, %q, %s) }; return __gnb_r }",
			ft, tt, assert, x.namedFailures(iface, runtimeName(it), ta.Pos()), runtimeName(it), strings.Join(names, ", "))
		f, e := x.parseGenerated(src, ta)
		if e != nil {
			err = e
			return false
		}
		rewrite[ta] = &ast.CallExpr{Fun: f, Lparen: ta.Pos(), Args: []ast.Expr{ta.X}, Rparen: ta.End()}
		return true
	})
	if err != nil {
		return err
	}
	replaceAll(ps, rewrite)
	return nil
}

// assertionTests writes the function that asserts a value of type ft
// (written) to the cell's interface iface (written tt) at pos: a test of
// each cell struct type in scope at pos that implements it; then yaegi's
// own assertion, without its value (that one does not panic); when it
// says yes, a test of each other cell type that implements iface and
// whose underlying type no other cell type in scope shares (yaegi's
// assertions cannot tell those apart), then yaegi's assertion with its
// value. "" when no cell type in scope implements iface.
func (x *Cell) assertionTests(from types.Type, ft, tt string, iface *types.Interface, pos token.Pos) string {
	structs, others := x.implementersAt(iface, pos)
	// A value held in a compiled interface (error, fmt.Stringer) is in
	// yaegi's wrapper of that interface: only an assertion from the
	// compiled interface itself finds the cell's value inside, and only a
	// type with the compiled interface's methods can be there.
	compiled := !declaredInCell(from) && !sourceInterface(from) && from.Underlying().(*types.Interface).NumMethods() > 0
	if compiled {
		fromIface := from.Underlying().(*types.Interface)
		keep := func(ts []types.Type) []types.Type {
			var out []types.Type
			for _, t := range ts {
				if types.Implements(t, fromIface) {
					out = append(out, t)
				}
			}
			return out
		}
		structs, others = keep(structs), keep(others)
	}
	if len(structs)+len(others) == 0 || iface.NumMethods() == 0 {
		return ""
	}
	var b strings.Builder
	test := func(t types.Type) {
		operand := "any(__gnb_v)"
		if compiled {
			operand = "__gnb_v"
		}
		fmt.Fprintf(&b, "if __gnb_c, __gnb_ok := %s.(%s); __gnb_ok { return __gnb_c, true }; ", operand, types.TypeString(t, x.qualify))
	}
	fmt.Fprintf(&b, "func(__gnb_v %s) (%s, bool) { ", ft, tt)
	for _, t := range structs {
		test(t)
	}
	fmt.Fprintf(&b, "if _, __gnb_ok := __gnb_v.(%s); !__gnb_ok { return nil, false }; ", tt)
	for _, t := range others {
		test(t)
	}
	fmt.Fprintf(&b, "%s }", compiledCheck(tt, iface))
	return b.String()
}

// compiledCheck writes the end of an assertion function: yaegi's own
// assertion to the interface iface (written tt), which says false for
// every value that is not in yaegi's own box (a compiled value: an
// *fmt.wrapError asked for interface{ Unwrap() error }, a time.Duration
// for a cell's interface with Hours); when it says false, a compiled
// helper panics, saying so, if the value's compiled type has every
// method iface names (Go would say true).
func compiledCheck(tt string, iface *types.Interface) string {
	names := make([]string, iface.NumMethods())
	for i := range names {
		names[i] = strconv.Quote(iface.Method(i).Name())
	}
	return fmt.Sprintf("__gnb_r, __gnb_ok := __gnb_v.(%s); if !__gnb_ok { __gnb.AssertCompiled(__gnb_v, %q, %s) }; return __gnb_r, __gnb_ok",
		tt, tt, strings.Join(names, ", "))
}

// sourceInterface reports whether yaegi builds the interface type t from
// source, with methods: an interface declared in a cell, or an interface
// literal (interface{ Unwrap() error }). yaegi asserts a value to such an
// interface only when the value is in its own box.
func sourceInterface(t types.Type) bool {
	if !types.IsInterface(t) {
		return false
	}
	if declaredInCell(t) {
		return true
	}
	it, literal := types.Unalias(t).(*types.Interface)
	return literal && it.NumMethods() > 0 && it.IsMethodSet()
}

// assertCompiled is __gnb.AssertCompiled: called when yaegi said v does
// not implement the interface iface (written as in the cell) with the
// given methods, it panics if v is a compiled value whose type has all
// of them: Go's assertion would succeed, yaegi's cannot.
func assertCompiled(v any, iface string, methods ...string) {
	v = unwrap(v)
	if v == nil {
		return
	}
	t := reflect.TypeOf(v)
	base := t
	if base.Kind() == reflect.Pointer {
		base = base.Elem()
	}
	if strings.HasPrefix(base.PkgPath(), "github.com/traefik/yaegi") {
		return // one of yaegi's wrappers: a cell's value, tested before
	}
	for _, m := range methods {
		if _, ok := t.MethodByName(m); !ok {
			return
		}
	}
	panic(fmt.Sprintf("yaegi, the interpreter, cannot assert a value of the compiled type %v to %s, an interface written in a cell, although it has its methods (Go's assertion succeeds; yaegi's says no): "+
		"assert to %v itself, or to an interface of a compiled package with these methods", t, iface, t))
}

// namedFailures writes the tests that name the dynamic type of a value
// that failed an assertion to iface (named ifaceName as Go's runtime
// names it), for Go's message: one per cell type in scope that yaegi
// tells apart from the others (implementersAt's rule) and lacks a method
// of iface.
func (x *Cell) namedFailures(iface *types.Interface, ifaceName string, pos token.Pos) string {
	var b strings.Builder
	for _, t := range x.distinctTypesAt(pos) {
		for _, tt := range []types.Type{t, types.NewPointer(t)} {
			if m, _ := types.MissingMethod(tt, iface, true); m != nil {
				fmt.Fprintf(&b, "if _, __gnb_ok := any(__gnb_v).(%s); __gnb_ok { __gnb.AssertFailedNamed(%q, %q, %q) }; ",
					types.TypeString(tt, x.qualify), runtimeName(tt), ifaceName, m.Name())
			}
		}
	}
	return b.String()
}

// implementersAt lists the types T and *T, T of distinctTypesAt, that
// implement iface: structs, T a struct type; others, the rest.
func (x *Cell) implementersAt(iface *types.Interface, pos token.Pos) (structs, others []types.Type) {
	for _, n := range x.distinctTypesAt(pos) {
		list := &others
		if _, ok := n.Underlying().(*types.Struct); ok {
			list = &structs
		}
		if types.Implements(n, iface) {
			*list = append(*list, n)
		}
		if ptr := types.NewPointer(n); types.Implements(ptr, iface) {
			*list = append(*list, ptr)
		}
	}
	return structs, others
}

// distinctTypesAt lists the cells' concrete types in scope at pos that
// can be written there and whose underlying type no other of them
// shares: yaegi's assertions to them are right.
func (x *Cell) distinctTypesAt(pos token.Pos) []*types.Named {
	if x.cc.Pkg == nil {
		return nil
	}
	inner := x.cc.Pkg.Scope().Innermost(pos)
	if inner == nil {
		inner = x.cc.Pkg.Scope()
	}
	var named []*types.Named
	seen := map[string]bool{}
	for s := inner; s != nil && s != types.Universe; s = s.Parent() {
		for _, name := range s.Names() {
			tn, ok := s.Lookup(name).(*types.TypeName)
			if !ok || tn.IsAlias() || seen[name] {
				continue
			}
			if _, found := inner.LookupParent(name, pos); found != tn {
				continue // shadowed, or declared after pos
			}
			seen[name] = true
			if n, ok := tn.Type().(*types.Named); ok && n.TypeParams().Len() == 0 && declaredInCell(n) && !types.IsInterface(n) {
				named = append(named, n)
			}
		}
	}
	var out []*types.Named
	for _, n := range named {
		shared := false
		for _, o := range named {
			shared = shared || (o != n && types.Identical(o.Underlying(), n.Underlying()))
		}
		if !shared && x.writableAt(n, pos) {
			out = append(out, n)
		}
	}
	return out
}

// runtimeName names t as Go's runtime does in its messages (main.S,
// *main.S).
func runtimeName(t types.Type) string {
	return types.TypeString(t, func(p *types.Package) string { return p.Name() })
}

// assertFailedNamed is __gnb.AssertFailedNamed: the panic of a failed
// assertion of a value of the type named dynamic to the interface named
// iface, which lacks the method missing, as Go's runtime words it.
func assertFailedNamed(dynamic, iface, missing string) {
	panic(runtimeError{fmt.Sprintf("interface conversion: %s is not %s: missing method %s", dynamic, iface, missing)})
}

// assertFailed is __gnb.AssertFailed: the panic of a failed assertion of v
// to the interface named iface, with the given methods, as Go's runtime
// words it.
func assertFailed(v any, iface string, methods ...string) {
	v = unwrap(v)
	if v == nil {
		panic(runtimeError{"interface conversion: interface is nil, not " + iface})
	}
	t := reflect.TypeOf(v)
	for _, m := range methods {
		if _, ok := t.MethodByName(m); !ok {
			panic(runtimeError{fmt.Sprintf("interface conversion: %v is not %s: missing method %s", t, iface, m)})
		}
	}
	panic(runtimeError{fmt.Sprintf("interface conversion: %v is not %s", t, iface)})
}
