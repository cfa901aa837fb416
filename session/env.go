package session

import (
	"errors"
	"go/ast"
	"go/token"
	"go/types"
	"reflect"

	"github.com/graphnb/graphnb/session/internal/rewrite"
)

// Kinds of the names cells declared.
const (
	kindVar   = rewrite.KindVar
	kindConst = rewrite.KindConst
	kindFunc  = rewrite.KindFunc
	kindType  = rewrite.KindType
)

// rewriteEnv is what the rewriter (package rewrite) asks the session.
type rewriteEnv struct{ s *Session }

var _ rewrite.Env = rewriteEnv{}

func (e rewriteEnv) Describe(serial, line, col int) string {
	return e.s.describe(position{serial: serial, line: line, col: col})
}

func (e rewriteEnv) NodeText(serial int, n ast.Node) string {
	return (&execution{s: e.s, serial: serial}).nodeText(n)
}

func (e rewriteEnv) Kind(name string) string                 { return e.s.kind(name) }
func (e rewriteEnv) Value(name string) (reflect.Value, bool) { return e.s.value(name) }
func (e rewriteEnv) Eval(name string) (reflect.Value, error) { return e.s.evalIdent(name) }
func (e rewriteEnv) FuncInt(name string) (rewrite.Tri, bool) { return e.s.funcInt(name) }
func (e rewriteEnv) Generic(name string) *ast.FuncType       { return e.s.generic(name) }
func (e rewriteEnv) ImportPath(name string) string           { return e.s.importPath(name) }
func (e rewriteEnv) BoundPackage(name string) bool           { return e.s.boundPackage(name) }
func (e rewriteEnv) ImportNames(path string) []string        { return e.s.importNames(path) }
func (e rewriteEnv) PkgName(path string) string              { return e.s.tables.pkgName(path) }
func (e rewriteEnv) Extra(path string) bool                  { return e.s.check.extra[path] != nil }

func (e rewriteEnv) PlainTypes() bool {
	e.s.meta.RLock()
	defer e.s.meta.RUnlock()
	return e.s.plainTypes
}

func (e rewriteEnv) Object(name string) types.Object {
	c := e.s.check
	c.mu.RLock()
	defer c.mu.RUnlock()
	if b := c.names[name]; b != nil {
		return b.obj
	}
	return nil
}

func (e rewriteEnv) CallsRecover(name string) bool { return e.s.recoverFuncs[name] }

func (e rewriteEnv) Members(path string) map[string]reflect.Value { return e.s.tables.members[path] }

func (e rewriteEnv) Paths() []string {
	paths := make([]string, 0, len(e.s.tables.members))
	for p := range e.s.tables.members {
		paths = append(paths, p)
	}
	return paths
}

func (e rewriteEnv) TypeRef(t reflect.Type) (path, name string, ok bool) {
	ref, ok := e.s.tables.typeRef(t)
	return ref.path, ref.name, ok
}

// fromRewrite turns a refusal of the rewriter into the session's *Error.
func fromRewrite(err error) error {
	var e *rewrite.Error
	if errors.As(err, &e) {
		return &Error{Name: e.Name, Value: e.Value, Trace: e.Trace}
	}
	return err
}

// funcExtents converts the rewriter's function extents.
func funcExtents(fs []rewrite.FuncExtent) []funcExtent {
	out := make([]funcExtent, len(fs))
	for i, f := range fs {
		out[i] = funcExtent{name: f.Name, from: f.From, to: f.To}
	}
	return out
}

func ident(name string, pos token.Pos) *ast.Ident { return &ast.Ident{Name: name, NamePos: pos} }
