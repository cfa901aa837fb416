package rewrite

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/printer"
	"go/token"
	"go/types"
	"reflect"
	"strings"
	"testing"
)

// nullEnv is a session with no earlier cells and no symbol tables.
type nullEnv struct{}

func (nullEnv) Describe(serial, line, col int) string { return fmt.Sprintf("cell line %d", line) }
func (nullEnv) NodeText(int, ast.Node) string         { return "" }
func (nullEnv) Kind(string) string                    { return "" }
func (nullEnv) Value(string) (reflect.Value, bool)    { return reflect.Value{}, false }
func (nullEnv) Eval(name string) (reflect.Value, error) {
	return reflect.Value{}, fmt.Errorf("%s: undefined", name)
}
func (nullEnv) FuncInt(string) (Tri, bool)                  { return unknown, false }
func (nullEnv) Generic(string) *ast.FuncType                { return nil }
func (nullEnv) PlainTypes() bool                            { return false }
func (nullEnv) Object(string) types.Object                  { return nil }
func (nullEnv) CallsRecover(string) bool                    { return false }
func (nullEnv) ImportPath(string) string                    { return "" }
func (nullEnv) BoundPackage(string) bool                    { return false }
func (nullEnv) ImportNames(string) []string                 { return nil }
func (nullEnv) PkgName(path string) string                  { return path }
func (nullEnv) Members(string) map[string]reflect.Value     { return nil }
func (nullEnv) Paths() []string                             { return nil }
func (nullEnv) TypeRef(reflect.Type) (string, string, bool) { return "", "", false }
func (nullEnv) Extra(string) bool                           { return false }

// checked splits, parses and type-checks a cell without imports as the
// session does: declarations at package level, statements in the body of
// CellFuncName.
func checked(t *testing.T, code string) (*Cell, []*Run) {
	t.Helper()
	fset := token.NewFileSet()
	var runs []*Run
	file := &ast.File{Name: ast.NewIdent("main")}
	body := &ast.BlockStmt{}
	for _, sp := range Split(code, nil) {
		r, err := Parse(fset, CellFile(1), code, sp)
		if err != nil {
			t.Fatalf("%q: %v", code, err)
		}
		runs = append(runs, r)
		if r.Decl() {
			file.Decls = append(file.Decls, r.File().Decls...)
		} else {
			body.List = append(body.List, r.Body().List...)
		}
	}
	file.Decls = append(file.Decls, &ast.FuncDecl{Name: ast.NewIdent(CellFuncName), Type: &ast.FuncType{Params: &ast.FieldList{}}, Body: body})
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Defs: map[*ast.Ident]types.Object{}, Uses: map[*ast.Ident]types.Object{},
		Implicits: map[ast.Node]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{}, Scopes: map[ast.Node]*types.Scope{}}
	conf := types.Config{GoVersion: "go1.22", Error: func(error) {}}
	pkg, _ := conf.Check("main", fset, []*ast.File{file}, info)
	c := NewCell(nullEnv{}, fset, 1, NewSlots())
	c.cc = &Facts{Info: info, Pkg: pkg}
	for _, r := range runs {
		c.ci.collect(r.node())
	}
	return c, runs
}

func source(t *testing.T, runs []*Run) string {
	t.Helper()
	var b bytes.Buffer
	for _, r := range runs {
		if err := printer.Fprint(&b, token.NewFileSet(), r.node()); err != nil {
			t.Fatal(err)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func passNamed(t *testing.T, name string) pass {
	for _, list := range [][]pass{typedPasses, syntaxPasses} {
		for _, p := range list {
			if p.name == name {
				return p
			}
		}
	}
	t.Fatalf("no pass %q", name)
	return pass{}
}

func TestPassesNamed(t *testing.T) {
	seen := map[string]bool{}
	for _, list := range [][]pass{typedPasses, syntaxPasses} {
		for _, p := range list {
			if p.name == "" || seen[p.name] || p.why == "" || strings.Contains(p.why, "\n") || p.run == nil {
				t.Errorf("pass %q: want a unique name, a one-line reason and a function", p.name)
			}
			seen[p.name] = true
		}
	}
}

// TestPasses runs single passes on small cells: what they write, or why
// they refuse.
func TestPasses(t *testing.T) {
	cases := []struct {
		pass, code string
		want       []string // substrings of the rewritten cell
		refused    string   // or a substring of the refusal
	}{
		{pass: "main", code: "func main() {}\nmain()", want: []string{"func __gnb_main()", "__gnb_main()"}},
		{pass: "universe", code: "const append = 1\nx := append\n_ = x", want: []string{"const __gnb_u_append = 1", "x := __gnb_u_append"}},
		{pass: "print", code: `println(1, "a")`, want: []string{`__gnb.Println("`}},
		{pass: "stringrange", code: "for i := range \"héllo\" {\n_ = i\n}", want: []string{"__gnb_unicode_utf8.DecodeRuneInString(", "i := __gnb_i"}},
		{pass: "topdefer", code: "defer println()", refused: "defer in the top-level code of a cell"},
		{pass: "blankfields", code: "type T struct{ _ int; x, _ int; _ int }", want: []string{"_\t\tint", "x, __gnb_blank2\tint", "__gnb_blank3\tint"}},
	}
	for _, c := range cases {
		t.Run(c.pass, func(t *testing.T) {
			x, runs := checked(t, c.code)
			err := passNamed(t, c.pass).run(x, runs)
			if c.refused != "" {
				var e *Error
				if !errorsAs(err, &e) || e.Name != "Unsupported" || !strings.Contains(e.Value, c.refused) {
					t.Fatalf("error %v, want Unsupported: …%s…", err, c.refused)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := source(t, runs)
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("%q rewritten:\n%s\nwant %q in it", c.code, got, w)
				}
			}
		})
	}
}

func errorsAs(err error, e **Error) bool {
	v, ok := err.(*Error)
	*e = v
	return ok
}
