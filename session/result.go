package session

import (
	"encoding/base64"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"reflect"
	"strconv"
	"strings"
	"unsafe"

	"github.com/traefik/yaegi/interp"

	"github.com/graphnb/graphnb/display"
)

// resultVar is the interpreter variable that holds a cell's result while
// its render methods are probed (and afterwards, until the next such
// result).
const resultVar = "__gnb_r"

// How a final expression is evaluated.
const (
	finalNil   = iota // the literal nil
	finalPlain        // run as a statement; its value (if any) is what yaegi returns
	finalMulti        // several values: assigned to __gnb_r0, __gnb_r1, …
	finalProbe        // one value to probe: assigned to __gnb_r
)

// A finalPlan says how the cell's final expression statement runs.
//
// Whether it has a value, and how many, is what Go's type checker found for
// the statement as written (cellCheck.final), not what yaegi returns (which
// is stale after a statement without a value, and holds only the first
// value of a multi-value call), nor what the expression the typed passes
// left in its place looks like.
type finalPlan struct {
	kind   int
	n      int      // number of values
	names  []string // finalMulti's variables
	probes []string // render methods to probe
	target ast.Expr // what probes call methods on: the expression if pure, else resultVar
}

// printFuncs are fmt's printing functions: their results (bytes written,
// error) are not shown.
var printFuncs = map[string]bool{
	"Print": true, "Println": true, "Printf": true, "Fprint": true, "Fprintln": true, "Fprintf": true,
}

// planFinal prepares the unit of the final expression statement es.
func (x *execution) planFinal(u *unit, es *ast.ExprStmt) {
	e := es.X
	pos := es.Pos()
	f := &finalPlan{}
	u.final = f
	if id, ok := ast.Unparen(e).(*ast.Ident); ok && id.Name == "nil" && !x.rw.UserName("nil") {
		f.kind = finalNil
		return
	}
	f.n = x.finalCount()
	if c, ok := ast.Unparen(e).(*ast.CallExpr); ok {
		if sel, ok := c.Fun.(*ast.SelectorExpr); ok && printFuncs[sel.Sel.Name] {
			if id, ok := sel.X.(*ast.Ident); ok && x.rw.IsPackage(id.Name) && x.s.importPath(id.Name) == "fmt" {
				f.n = 0
			}
		}
	}
	f.probes = x.s.renderProbes(x.rw.Renders())
	assign := func(lhs ...ast.Expr) ast.Node {
		rhs := x.rw.FinalExpr(e) // a top-level definition: see rewrite/index.go
		return x.block(&ast.AssignStmt{Lhs: lhs, TokPos: pos, Tok: token.DEFINE, Rhs: []ast.Expr{rhs}})
	}
	pure := x.rw.IsPure(e)
	switch {
	case x.cell.Silent || f.n == 0 || (f.n == 1 && (len(f.probes) == 0 || pure)):
		f.kind = finalPlain
		u.node = x.block(es)
		if pure {
			f.target = e
		}
	case f.n >= 2:
		f.kind = finalMulti
		lhs := make([]ast.Expr, f.n)
		for i := range lhs {
			f.names = append(f.names, resultVar+strconv.Itoa(i))
			lhs[i] = ident(f.names[i], pos)
		}
		u.node = assign(lhs...)
	default:
		f.kind = finalProbe
		f.target = ident(resultVar, pos)
		u.node = assign(ident(resultVar, pos))
	}
}

// runFinal runs the final expression and returns its bundle, or nil when
// it has no value or the cell is silent.
func (x *execution) runFinal(u *unit) (display.Bundle, error) {
	f := u.final
	if f.kind == finalNil {
		if x.cell.Silent {
			return nil, nil
		}
		return display.Bundle{"text/plain": "nil"}, nil
	}
	v, err := x.execute(u.prog)
	if err != nil {
		return nil, err
	}
	if x.cell.Silent || f.n == 0 {
		return nil, nil
	}
	switch f.kind {
	case finalPlain:
		b := x.s.bundle(v)
		if len(f.probes) > 0 && f.target != nil {
			x.probe(b, f.probes, f.target)
		}
		return b, nil
	case finalMulti:
		texts := make([]string, len(f.names))
		for i, name := range f.names {
			v, err := x.s.evalIdent(name)
			if err != nil {
				return nil, x.s.compileError(err)
			}
			texts[i] = plainText(x.s.bundle(v))
		}
		return display.Bundle{"text/plain": "(" + strings.Join(texts, ", ") + ")"}, nil
	}
	v, err = x.s.evalIdent(resultVar)
	if err != nil {
		return nil, x.s.compileError(err)
	}
	b := x.s.bundle(v)
	if len(f.probes) > 0 {
		x.probe(b, f.probes, f.target)
	}
	return b, nil
}

// finalCount is how many values the cell's final expression statement
// has, as Go's checker found it before any pass rewrote the cell: 0 for a
// call without results (wg.Wait(), mu.Lock()), or when the statement the
// cell ends with is not the one the cell was written with (a lowered
// assignment).
func (x *execution) finalCount() int {
	switch t := x.cc.final.(type) {
	case nil:
		return 0
	case *types.Tuple:
		return t.Len()
	}
	return 1
}

// plainText is a bundle's text/plain.
func plainText(b display.Bundle) string {
	s, _ := b["text/plain"].(string)
	return s
}

// bundle renders a value computed by the interpreter: display.Render, and
// the render methods of struct types declared in cells (see render).
func (s *Session) bundle(v reflect.Value) display.Bundle {
	v = unwrap(v)
	if !v.IsValid() {
		return display.Bundle{"text/plain": "nil"}
	}
	if !v.CanInterface() {
		return display.Bundle{"text/plain": fmt.Sprint(v)}
	}
	return s.render(v.Interface())
}

// probe adds what the result's interpreted render methods give: methods
// of types declared in cells are invisible to display.Render, so they are
// called in the interpreter (x.HTML(), resultVar.HTML() and so on), where
// the static type is known (a cell's `type celsius float64` is a plain
// float64 outside). A method the value lacks fails to compile and is
// skipped; one that panics is skipped.
func (x *execution) probe(b display.Bundle, methods []string, target ast.Expr) {
	for _, m := range methods {
		pos := target.Pos()
		call := &ast.CallExpr{Fun: &ast.SelectorExpr{X: target, Sel: ident(m, pos)}, Lparen: pos, Rparen: pos}
		prog, err := x.compileQuiet(&ast.BlockStmt{Lbrace: pos, List: []ast.Stmt{&ast.ExprStmt{X: call}}, Rbrace: pos})
		if err != nil || prog == nil {
			continue
		}
		v, err, interrupted := x.s.runProgram(x.ctx, prog)
		x.s.filter.take()
		if err != nil || interrupted {
			continue
		}
		v = unwrap(v)
		if !v.IsValid() || !v.CanInterface() {
			continue
		}
		switch r := v.Interface().(type) {
		case string:
			switch m {
			case "String":
				if _, isErr := b["text/plain/error"]; !isErr {
					b["text/plain"] = r
				}
			case "Error":
				b["text/plain"] = r
				b["text/plain/error"] = true
			case "HTML":
				b["text/html"] = r
			case "Markdown":
				b["text/markdown"] = r
			case "SVG":
				b["image/svg+xml"] = r
			}
		case []byte:
			if m == "PNG" && r != nil {
				b["image/png"] = base64.StdEncoding.EncodeToString(r)
			}
		case map[string]any:
			if m == "MIMEBundle" {
				for k, d := range r {
					if raw, ok := d.([]byte); ok && strings.HasPrefix(k, "image/") && !strings.HasPrefix(k, "image/svg") {
						d = base64.StdEncoding.EncodeToString(raw)
					}
					b[k] = d
				}
			}
		}
	}
	delete(b, "text/plain/error")
}

// compileQuiet compiles generated code whose failure is expected.
func (x *execution) compileQuiet(n ast.Node) (prog *interp.Program, err error) {
	return x.s.compileNode(n)
}

// compileNode compiles n, turning a panic of yaegi into an error.
func (s *Session) compileNode(n ast.Node) (prog *interp.Program, err error) {
	defer func() {
		if r := recover(); r != nil {
			prog, err = nil, fmt.Errorf("%v", r)
		}
	}()
	defer dropRoots(s.in)
	return s.in.CompileAST(n)
}

// evalIdent returns the value of a variable of the interpreter. The
// caller holds s.mu.
func (s *Session) evalIdent(name string) (reflect.Value, error) {
	pos := s.anchor
	prog, err := s.compileNode(&ast.BlockStmt{Lbrace: pos, List: []ast.Stmt{&ast.ExprStmt{X: ident(name, pos)}}, Rbrace: pos})
	if err != nil {
		return reflect.Value{}, err
	}
	if prog == nil {
		return reflect.Value{}, fmt.Errorf("%s: no value", name)
	}
	v, err := s.in.Execute(prog)
	s.filter.take()
	return v, err
}

// yaegiInterp is the package of valueInterface, how yaegi boxes a value
// of an interface type declared in a cell.
const yaegiInterp = "github.com/traefik/yaegi/interp"

// unwrap returns the dynamic value inside interface values, including
// yaegi's boxes for interfaces declared in cells; an invalid Value for nil.
func unwrap(v reflect.Value) reflect.Value {
	for i := 0; i < 16 && v.IsValid(); i++ {
		switch {
		case v.Kind() == reflect.Interface:
			if v.IsNil() {
				return reflect.Value{}
			}
			v = v.Elem()
		case v.Kind() == reflect.Struct && v.Type().Name() == "valueInterface" && v.Type().PkgPath() == yaegiInterp:
			f, ok := v.Type().FieldByName("value")
			if !ok || f.Type != reflect.TypeOf(reflect.Value{}) {
				return v
			}
			c := reflect.New(v.Type()).Elem()
			c.Set(v)
			v = *(*reflect.Value)(unsafe.Pointer(c.Field(f.Index[0]).UnsafeAddr()))
		default:
			return v
		}
	}
	return v
}
