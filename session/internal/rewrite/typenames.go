package rewrite

import (
	"go/ast"
	"go/token"
	"go/types"
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// Go's names of the types the interpreter built for the cells. yaegi
// builds a cell's type with reflect, which cannot name it: a panic message
// that compiled code writes names the structure ("hash of unhashable type
// struct { A int; B []int }"). Each named type a cell declares is
// recorded here, by the reflect type the interpreter made for it, once
// its declaration has run; a name two types share is not used.

var typeNames sync.Map // reflect.Type → string ("main.T"), or "" when several types share it

// nameType is __gnb.NameType: records the name of the type p points to.
// It returns true: it is called in a declaration var _ = ….
func nameType(p any, name string) bool {
	t := reflect.TypeOf(p)
	if t == nil || t.Kind() != reflect.Pointer {
		return true
	}
	if old, loaded := typeNames.LoadOrStore(t.Elem(), name); loaded && old != name {
		typeNames.Store(t.Elem(), "")
	}
	return true
}

// goTypeName returns the Go name of the type whose reflect string is s,
// when one cell type and only one has it.
func goTypeName(s string) (string, bool) {
	name := ""
	typeNames.Range(func(k, v any) bool {
		if k.(reflect.Type).String() == s {
			if name != "" || v.(string) == "" {
				name = ""
				return false
			}
			name = v.(string)
		}
		return true
	})
	return name, name != ""
}

// unhashablePrefixes start the messages of a map key of an unhashable
// type, reflect's and the runtime's.
var unhashablePrefixes = []string{"runtime error: hash of unhashable type ", "hash of unhashable type: ", "hash of unhashable type "}

// renameUnhashable rewrites a message about an unhashable map key with
// the Go name of the cell's type it names, as Go's runtime says it.
func renameUnhashable(msg string) (string, bool) {
	for _, p := range unhashablePrefixes {
		if rest, ok := strings.CutPrefix(msg, p); ok {
			if name, ok := goTypeName(rest); ok {
				return "runtime error: hash of unhashable type " + name, true
			}
		}
	}
	return "", false
}

// nameTypes returns the declarations (var __gnb_typenameN =
// __gnb.NameType((*T)(nil), "main.T")) that record the Go names of the
// named types a declaration declares (not interfaces, not generic types).
func (x *Cell) nameTypes(g *ast.GenDecl) []ast.Decl {
	var out []ast.Decl
	for _, sp := range g.Specs {
		ts := sp.(*ast.TypeSpec)
		if ts.TypeParams != nil || ts.Assign.IsValid() || ts.Name.Name == "_" {
			continue
		}
		obj, _ := x.cc.Info.Defs[ts.Name].(*types.TypeName)
		if obj == nil || types.IsInterface(obj.Type()) {
			continue
		}
		pos := ts.Pos()
		ptr := &ast.CallExpr{Fun: &ast.ParenExpr{Lparen: pos, X: &ast.StarExpr{Star: pos, X: &ast.Ident{Name: ts.Name.Name, NamePos: pos}}, Rparen: pos},
			Lparen: pos, Args: []ast.Expr{&ast.Ident{Name: "nil", NamePos: pos}}, Rparen: pos}
		call := &ast.CallExpr{Fun: &ast.SelectorExpr{X: &ast.Ident{Name: "__gnb", NamePos: pos}, Sel: &ast.Ident{Name: "NameType", NamePos: pos}},
			Lparen: pos, Args: []ast.Expr{ptr, &ast.BasicLit{ValuePos: pos, Kind: token.STRING, Value: strconv.Quote("main." + obj.Name())}}, Rparen: pos}
		out = append(out, &ast.GenDecl{TokPos: pos, Tok: token.VAR, Specs: []ast.Spec{
			// not _: yaegi takes a later var _ for one that depends on
			// this one ("variable definition loop")
			&ast.ValueSpec{Names: []*ast.Ident{{Name: x.ci.tmpName("typename"), NamePos: pos}}, Values: []ast.Expr{call}},
		}})
	}
	return out
}
