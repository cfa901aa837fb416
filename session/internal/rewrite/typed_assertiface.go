package rewrite

import (
	"fmt"
	"go/ast"
	"go/types"
	"reflect"
	"strconv"
	"strings"
)

// Failed assertions to a cell's interface: x.(I) with I declared in a
// cell, when x holds no I, panics in yaegi with a message of its own
// ("interface conversion: nil is not main.I", whatever x holds), where Go
// panics with a runtime.Error that names x's dynamic type and the first
// method it lacks. The pass writes the one-value assertion as the
// two-value one, with a compiled helper that panics as Go does:
//
//	x.(I)  →  func(v T) I { r, ok := v.(I); if !ok { __gnb.AssertFailed(v, "main.I", "M", "N") }; return r }(x)
func fixInterfaceAssertions(x *Cell, ps []*Run) error {
	inAssign := map[ast.Expr]bool{} // two-value forms, and type switches
	inspect(ps, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if len(n.Lhs) == 2 && len(n.Rhs) == 1 {
				inAssign[unparen(n.Rhs[0])] = true
			}
		case *ast.ValueSpec:
			if len(n.Names) == 2 && len(n.Values) == 1 {
				inAssign[unparen(n.Values[0])] = true
			}
		}
		return true
	})
	rewrite := map[ast.Expr]ast.Expr{}
	var err error
	inspect(ps, func(n ast.Node) bool {
		ta, ok := n.(*ast.TypeAssertExpr)
		if !ok || ta.Type == nil || inAssign[ta] || err != nil {
			return err == nil
		}
		it := x.cc.Info.Types[ta.Type].Type
		if it == nil || !types.IsInterface(it) || !declaredInCell(it) {
			return true
		}
		from := x.cc.Info.Types[ta.X].Type
		if from == nil || !x.writableAt(from, ta.Pos()) || !x.writableAt(it, ta.Pos()) {
			return true
		}
		iface := it.Underlying().(*types.Interface)
		var names []string
		for i := 0; i < iface.NumMethods(); i++ {
			names = append(names, strconv.Quote(iface.Method(i).Name()))
		}
		ft, tt := types.TypeString(from, x.qualify), types.TypeString(it, x.qualify)
		src := fmt.Sprintf("func(__gnb_v %s) %s { __gnb_r, __gnb_ok := __gnb_v.(%s); if !__gnb_ok { __gnb.AssertFailed(__gnb_v, %q, %s) }; return __gnb_r }",
			ft, tt, tt, types.TypeString(it, func(p *types.Package) string { return p.Name() }), strings.Join(names, ", "))
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

// assertFailed is __gnb.AssertFailed: the panic of a failed assertion of v
// to the interface named iface, with the given methods, as Go's runtime
// words it.
func assertFailed(v any, iface string, methods ...string) {
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
