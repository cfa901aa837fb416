package rewrite

import (
	"go/ast"
	"go/constant"
	"go/token"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// Index expressions, generic calls and comma-ok definitions in
// top-level code.
//
// yaegi v0.16.1 types the right-hand side of a definition of top-level
// code (x := …, var x = …, and the definitions that start an if, for or
// switch statement there) before it compiles it, and its type inference
// has no case for indexing a value of a compiled type (a slice, array or
// map that a compiled function returned, or a compiled struct's field),
// a pointer to an array, or a string: `y := g.Roots(1, 1)[0]` fails with
// the baffling "constant definition loop" (or a nil-pointer panic when
// the index is the operand of a selector or an operator). Nor can it type
// a call of a generic function there (`lo := min(a, b)`: "nil reflect
// type"). Inside a function, and when the value is converted
// (`y := int32(…[0])`), the same code compiles. So the session converts
// such index expressions and calls to their type, which it infers from
// the symbol tables, the cell's declarations and the values of earlier
// cells:
//
//	y := g.Roots(1, 1)[0]     →  y := int32(g.Roots(1, 1)[0])
//	e := m.Edges[0].W         →  e := mst.Edge(m.Edges[0]).W
//	p := s[1]                 →  p := byte(s[1])
//	q := pa[1]  (*[3]int32)   →  q := int32((*pa)[1])
//	a := &r[0]                →  a := &[]int32(r)[0]  (stays addressable)
//	lo := min(x, 5)  (int32)  →  lo := int32(min(x, 5))
//
// A package that a printed type needs is imported (under an alias
// "__gnb_name" when its name is taken). An expression the session cannot
// type is left alone: yaegi's error is then replaced by an Unsupported
// error that names the expression and says how to write it.
//
// yaegi also fails on a definition of several variables from one value
// (a, b := f(), v, ok := m[k], <-ch, x.(T)) in top-level code outside
// top-level definitions themselves; the session runs the compound
// statement that holds one inside a function literal (needsFunc). A
// comma-ok definition that is itself a top-level statement fails too
// ("nil type"); it becomes a call of a function literal:
//
//	v, ok := m[k]  →  v, ok := func() (V, bool) { __gnb_v1, __gnb_ok2 := m[k]; return __gnb_v1, __gnb_ok2 }()
//
// which needs the value type V (explicit in a type assertion). A map
// index whose value type is unknown but whose operands have no side
// effects becomes `v, ok := m[k], false` followed by `v, ok = m[k]`.
// Otherwise the statement is left alone and its error replaced by an
// Unsupported error with the fix.
//
// The pass runs only on cells that have an index expression, a comma-ok
// definition or a call of a generic function (collect notes them), so
// "1+1" pays nothing.

// scopeEntry is what the fixer knows of a name declared by the cell.
type scopeEntry struct {
	t      reflect.Type // its type; nil when unknown
	isType bool         // the name is a type
	fn     *ast.FuncType
}

// unresolvedExpr is an index expression or a generic call of a top-level
// definition that was left as it was: its type is unknown.
type unresolvedExpr struct {
	expr ast.Expr
	name string // the variable it defines, or ""
}

// fixer rewrites the index expressions, generic calls and comma-ok
// definitions of one cell's top-level code.
type fixer struct {
	ci     *cellInfo
	here   map[string]string       // packages the cell imports: name → path
	scopes []map[string]scopeEntry // innermost last
	vals   map[string]reflect.Type // types of earlier cells' values (nil: unknown)
	plain  int8                    // 0: not computed, 1: cells declared a non-struct type, -1: none

	imports    map[string]string // packages the printed types need: name → path
	unresolved []unresolvedExpr
	commaOk    []*ast.AssignStmt // comma-ok definitions left as they were
	visiting   int               // recursion guard
}

func newFixer(ci *cellInfo, here map[string]string) *fixer {
	return &fixer{ci: ci, here: here, scopes: []map[string]scopeEntry{{}}, vals: map[string]reflect.Type{}}
}

// needsFix reports whether a cell has code the fixer rewrites: an index
// expression, a comma-ok definition or a call of a generic function.
func (ci *cellInfo) needsFix() bool {
	if ci.sawIndex || ci.sawCommaOk {
		return true
	}
	for name := range ci.calls {
		if name == "min" || name == "max" {
			return true
		}
		if ft := ci.funcs[name]; ft != nil && ft.TypeParams != nil {
			return true
		}
		if ci.env.Generic(name) != nil {
			return true
		}
	}
	return false
}

// fixRuns rewrites the parsed runs of a cell in order: what a run
// declares is known to the runs after it.
func (f *fixer) fixRuns(ps []*Run) {
	for _, p := range ps {
		if p.decl {
			f.declRun(p.file)
		} else {
			p.body.List = f.stmts(p.body.List)
		}
	}
}

// declRun records the declarations of a declaration run and fixes the
// initial values of its var declarations (yaegi types them as it does
// top-level definitions).
func (f *fixer) declRun(file *ast.File) {
	f.declareFuncsAndTypes(file)
	for _, d := range file.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || (g.Tok != token.VAR && g.Tok != token.CONST) {
			continue
		}
		for _, sp := range g.Specs {
			vs := sp.(*ast.ValueSpec)
			f.valueSpec(vs, g.Tok == token.VAR)
		}
	}
}

// declareFuncsAndTypes records the functions and types a declaration run
// declares (they may be used before their declaration).
func (f *fixer) declareFuncsAndTypes(file *ast.File) {
	for _, d := range file.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				f.declare(d.Name.Name, scopeEntry{fn: d.Type})
			}
		case *ast.GenDecl:
			for _, sp := range d.Specs {
				if ts, ok := sp.(*ast.TypeSpec); ok {
					f.declare(ts.Name.Name, scopeEntry{isType: true})
				}
			}
		}
	}
}

// valueSpec fixes (when fix is set) and records a var or const spec.
func (f *fixer) valueSpec(vs *ast.ValueSpec, fix bool) {
	types := make([]reflect.Type, len(vs.Names))
	switch {
	case vs.Type != nil:
		t, _ := f.typeExpr(vs.Type)
		for i := range types {
			types[i] = t
		}
	case len(vs.Values) == len(vs.Names):
		for i, v := range vs.Values {
			types[i] = f.exprType(v)
		}
	case len(vs.Values) == 1:
		if c, ok := unparen(vs.Values[0]).(*ast.CallExpr); ok {
			for i := range types {
				types[i] = f.callType(c, i)
			}
		}
	}
	if fix && len(vs.Values) == len(vs.Names) {
		for i, v := range vs.Values {
			vs.Values[i] = f.fixTop(v, vs.Names[i].Name)
		}
	}
	for i, id := range vs.Names {
		f.declare(id.Name, scopeEntry{t: types[i]})
	}
}

func (f *fixer) declare(name string, e scopeEntry) {
	if name != "_" {
		f.scopes[len(f.scopes)-1][name] = e
	}
}

func (f *fixer) push() { f.scopes = append(f.scopes, map[string]scopeEntry{}) }
func (f *fixer) pop()  { f.scopes = f.scopes[:len(f.scopes)-1] }

// lookup finds a name the cell declared in an enclosing scope.
func (f *fixer) lookup(name string) (scopeEntry, bool) {
	for i := len(f.scopes) - 1; i >= 0; i-- {
		if e, ok := f.scopes[i][name]; ok {
			return e, true
		}
	}
	return scopeEntry{}, false
}

// stmts fixes the top-level statements of a run.
func (f *fixer) stmts(list []ast.Stmt) []ast.Stmt {
	var out []ast.Stmt
	for i, st := range list {
		repl := f.stmt(st, true)
		if repl == nil {
			if out != nil {
				out = append(out, st)
			}
			continue
		}
		if out == nil {
			out = append(make([]ast.Stmt, 0, len(list)+1), list[:i]...)
		}
		out = append(out, repl...)
	}
	if out == nil {
		return list
	}
	return out
}

// stmt fixes a top-level statement and records what it declares: its
// definitions and those of the init statements of if, for and switch
// statements, which yaegi types ahead too (nested blocks are compiled
// like function bodies: they need nothing). It returns the statements
// that replace st, or nil to keep it. inList says st may be replaced by
// several statements.
func (f *fixer) stmt(st ast.Stmt, inList bool) []ast.Stmt {
	switch st := st.(type) {
	case *ast.AssignStmt:
		if st.Tok != token.DEFINE {
			return nil
		}
		if isCommaOk(st) {
			return f.commaOkDef(st, inList)
		}
		return f.define(st)
	case *ast.LabeledStmt:
		if repl := f.stmt(st.Stmt, false); len(repl) == 1 {
			st.Stmt = repl[0]
		}
	case *ast.IfStmt:
		f.ifStmt(st)
	case *ast.ForStmt:
		f.push()
		f.init(&st.Init)
		f.pop()
	case *ast.SwitchStmt:
		f.push()
		f.init(&st.Init)
		f.pop()
	case *ast.TypeSwitchStmt:
		f.push()
		f.init(&st.Init)
		f.pop()
	}
	return nil
}

func (f *fixer) ifStmt(st *ast.IfStmt) {
	f.push()
	defer f.pop()
	f.init(&st.Init)
	if e, ok := st.Else.(*ast.IfStmt); ok {
		f.ifStmt(e) // an else-if is typed ahead like its if
	}
}

// init fixes the init statement of an if, for or switch statement. (A
// comma-ok definition there makes the session run the whole statement
// inside a function: see needsFunc.)
func (f *fixer) init(p *ast.Stmt) {
	if a, ok := (*p).(*ast.AssignStmt); ok && a.Tok == token.DEFINE && !isCommaOk(a) {
		f.define(a)
	}
}

// define fixes a definition (x := …) and records its variables.
func (f *fixer) define(st *ast.AssignStmt) []ast.Stmt {
	types := make([]reflect.Type, len(st.Lhs))
	if len(st.Rhs) == len(st.Lhs) {
		for i, r := range st.Rhs {
			types[i] = f.exprType(r)
		}
	} else if len(st.Rhs) == 1 {
		if c, ok := unparen(st.Rhs[0]).(*ast.CallExpr); ok {
			for i := range types {
				types[i] = f.callType(c, i)
			}
		}
	}
	for i, r := range st.Rhs {
		name := ""
		if i < len(st.Lhs) {
			if id, ok := st.Lhs[i].(*ast.Ident); ok {
				name = id.Name
			}
		}
		st.Rhs[i] = f.fixTop(r, name)
	}
	for i, l := range st.Lhs {
		if id, ok := l.(*ast.Ident); ok {
			f.declare(id.Name, scopeEntry{t: types[i]})
		}
	}
	return nil
}

// isCommaOk reports whether st is `a, b := X` with X a map index, a
// receive or a type assertion.
func isCommaOk(st *ast.AssignStmt) bool {
	if st.Tok != token.DEFINE || len(st.Lhs) != 2 || len(st.Rhs) != 1 {
		return false
	}
	switch r := unparen(st.Rhs[0]).(type) {
	case *ast.IndexExpr:
		return true
	case *ast.UnaryExpr:
		return r.Op == token.ARROW
	case *ast.TypeAssertExpr:
		return r.Type != nil
	}
	return false
}

// commaOkDef rewrites a comma-ok definition of top-level code (see the
// comment at the top of the file).
func (f *fixer) commaOkDef(st *ast.AssignStmt, inList bool) []ast.Stmt {
	pos := st.Pos()
	rhs := unparen(st.Rhs[0])
	var valType reflect.Type
	var valExpr ast.Expr
	isMap := false
	switch r := rhs.(type) {
	case *ast.IndexExpr:
		t := f.exprType(r.X)
		if t != nil && t.Kind() != reflect.Map {
			return nil // not a comma-ok form: yaegi reports the mistake
		}
		isMap = true
		if t != nil {
			valType = t.Elem()
			valExpr = f.typeAST(valType, pos)
		}
	case *ast.UnaryExpr:
		if t := f.exprType(r.X); t != nil && t.Kind() == reflect.Chan {
			valType = t.Elem()
			valExpr = f.typeAST(valType, pos)
		}
	case *ast.TypeAssertExpr:
		valType, _ = f.typeExpr(r.Type)
		valExpr = r.Type
	}
	defer func() {
		for i, l := range st.Lhs {
			if id, ok := l.(*ast.Ident); ok {
				t := valType
				if i == 1 {
					t = reflect.TypeOf(false)
				}
				f.declare(id.Name, scopeEntry{t: t})
			}
		}
	}()
	boolType := f.predeclared("bool", pos)
	if valExpr != nil && boolType != nil {
		v, ok := f.ci.tmpName("v"), f.ci.tmpName("ok")
		lit := &ast.FuncLit{
			Type: &ast.FuncType{Func: pos, Params: &ast.FieldList{Opening: pos, Closing: pos},
				Results: &ast.FieldList{Opening: pos, List: []*ast.Field{{Type: valExpr}, {Type: boolType}}, Closing: pos}},
			Body: &ast.BlockStmt{Lbrace: pos, List: []ast.Stmt{
				&ast.AssignStmt{Lhs: []ast.Expr{ident(v, pos), ident(ok, pos)}, TokPos: pos, Tok: token.DEFINE, Rhs: []ast.Expr{st.Rhs[0]}},
				&ast.ReturnStmt{Return: pos, Results: []ast.Expr{ident(v, pos), ident(ok, pos)}},
			}, Rbrace: st.End()},
		}
		call := &ast.CallExpr{Fun: lit, Lparen: st.End(), Rparen: st.End()}
		return []ast.Stmt{&ast.AssignStmt{Lhs: st.Lhs, TokPos: st.TokPos, Tok: token.DEFINE, Rhs: []ast.Expr{call}}}
	}
	falseLit := f.predeclared("false", pos)
	if isMap && inList && falseLit != nil && f.ci.isPure(rhs) {
		first := &ast.AssignStmt{Lhs: st.Lhs, TokPos: st.TokPos, Tok: token.DEFINE, Rhs: []ast.Expr{f.fixTop(st.Rhs[0], ""), falseLit}}
		lhs := make([]ast.Expr, len(st.Lhs))
		for i, l := range st.Lhs {
			if id, ok := l.(*ast.Ident); ok {
				lhs[i] = ident(id.Name, id.NamePos)
			} else {
				lhs[i] = l
			}
		}
		second := &ast.AssignStmt{Lhs: lhs, TokPos: st.TokPos, Tok: token.ASSIGN, Rhs: []ast.Expr{st.Rhs[0]}}
		return []ast.Stmt{first, second}
	}
	f.commaOk = append(f.commaOk, st)
	return nil
}

// predeclared returns an identifier for a predeclared name, or nil when
// the cell or an earlier one redeclared it.
func (f *fixer) predeclared(name string, pos token.Pos) ast.Expr {
	if _, ok := f.lookup(name); ok || f.ci.userName(name) {
		return nil
	}
	return ident(name, pos)
}

// fixTop rewrites the value of a top-level definition of name.
func (f *fixer) fixTop(e ast.Expr, name string) ast.Expr {
	return f.fix(e, false, name)
}

// fix returns e with its index expressions converted to their element
// type (see the comment at the top of the file). addr says the result
// must stay addressable. e itself is not modified: changed nodes are
// copied.
func (f *fixer) fix(e ast.Expr, addr bool, name string) ast.Expr {
	switch e := e.(type) {
	case *ast.ParenExpr:
		if x := f.fix(e.X, addr, name); x != e.X {
			c := *e
			c.X = x
			return &c
		}
	case *ast.IndexExpr:
		return f.fixIndex(e, addr, name)
	case *ast.SelectorExpr:
		needAddr := false
		t := f.exprType(e.X)
		if t != nil && t.Kind() != reflect.Ptr && t.Kind() != reflect.Interface {
			if addr {
				needAddr = true // a field of an addressable struct
			} else if _, ok := t.MethodByName(e.Sel.Name); !ok {
				_, needAddr = reflect.PointerTo(t).MethodByName(e.Sel.Name)
			}
		} else if t == nil {
			needAddr = addr
		}
		if x := f.fix(e.X, needAddr, name); x != e.X {
			c := *e
			c.X = x
			return &c
		}
	case *ast.StarExpr:
		if x := f.fix(e.X, false, name); x != e.X {
			c := *e
			c.X = x
			return &c
		}
	case *ast.UnaryExpr:
		if x := f.fix(e.X, e.Op == token.AND, name); x != e.X {
			c := *e
			c.X = x
			return &c
		}
	case *ast.BinaryExpr:
		x, y := f.fix(e.X, false, name), f.fix(e.Y, false, name)
		if x != e.X || y != e.Y {
			c := *e
			c.X, c.Y = x, y
			return &c
		}
	case *ast.CallExpr:
		fun := e.Fun
		if _, isType := f.typeExpr(e.Fun); !isType {
			fun = f.fix(e.Fun, false, name)
		}
		args, changed := f.fixList(e.Args, name)
		var n ast.Expr = e
		if fun != e.Fun || changed {
			c := *e
			c.Fun, c.Args = fun, args
			n = &c
		}
		if addr {
			return n
		}
		if t, generic := f.genericCall(e); generic {
			var typ ast.Expr
			if t != nil {
				typ = f.typeAST(t, e.Pos())
			}
			if typ == nil {
				f.unresolved = append(f.unresolved, unresolvedExpr{expr: e, name: name})
				return n
			}
			return conversion(typ, n)
		}
		return n
	case *ast.CompositeLit:
		if elts, changed := f.fixList(e.Elts, name); changed {
			c := *e
			c.Elts = elts
			return &c
		}
	case *ast.KeyValueExpr:
		k, v := f.fix(e.Key, false, name), f.fix(e.Value, false, name)
		if k != e.Key || v != e.Value {
			c := *e
			c.Key, c.Value = k, v
			return &c
		}
	case *ast.SliceExpr:
		t := f.exprType(e.X)
		x := f.fix(e.X, t != nil && t.Kind() == reflect.Array, name)
		lo, hi, mx := f.fixOpt(e.Low, name), f.fixOpt(e.High, name), f.fixOpt(e.Max, name)
		if x != e.X || lo != e.Low || hi != e.High || mx != e.Max {
			c := *e
			c.X, c.Low, c.High, c.Max = x, lo, hi, mx
			return &c
		}
	case *ast.TypeAssertExpr:
		if x := f.fix(e.X, false, name); x != e.X {
			c := *e
			c.X = x
			return &c
		}
	}
	return e
}

func (f *fixer) fixOpt(e ast.Expr, name string) ast.Expr {
	if e == nil {
		return nil
	}
	return f.fix(e, false, name)
}

func (f *fixer) fixList(list []ast.Expr, name string) ([]ast.Expr, bool) {
	var out []ast.Expr
	for i, a := range list {
		n := f.fix(a, false, name)
		if n != a && out == nil {
			out = append([]ast.Expr(nil), list...)
		}
		if out != nil {
			out[i] = n
		}
	}
	if out == nil {
		return list, false
	}
	return out, true
}

// fixIndex converts an index expression to its element type; with addr,
// it converts the operand to an unnamed slice type instead, so that the
// element stays addressable.
func (f *fixer) fixIndex(e *ast.IndexExpr, addr bool, name string) ast.Expr {
	t := f.exprType(e.X)
	c := *e
	c.X = f.fix(e.X, addr && t != nil && t.Kind() == reflect.Array, name)
	c.Index = f.fix(e.Index, false, name)
	if t == nil {
		if !f.notIndexable(e.X) {
			f.unresolved = append(f.unresolved, unresolvedExpr{expr: e, name: name})
		}
		return &c
	}
	et := elemOf(t)
	if et == nil {
		return &c // a generic instantiation, or a mistake yaegi reports
	}
	pos := e.Pos()
	if addr {
		var x ast.Expr
		switch t.Kind() {
		case reflect.Slice:
			x = c.X
		case reflect.Array:
			x = &ast.SliceExpr{X: c.X, Lbrack: e.Lbrack, Rbrack: e.Lbrack}
		case reflect.Ptr: // yaegi mistypes p[:] for a compiled pointer to an array: (*p)[:]
			x = &ast.SliceExpr{X: &ast.ParenExpr{Lparen: pos, X: &ast.StarExpr{Star: pos, X: c.X}, Rparen: e.Lbrack}, Lbrack: e.Lbrack, Rbrack: e.Lbrack}
		}
		st := f.typeAST(reflect.SliceOf(et), pos)
		if x == nil || st == nil {
			f.unresolved = append(f.unresolved, unresolvedExpr{expr: e, name: name})
			return &c
		}
		c.X = conversion(st, x)
		return &c
	}
	typ := f.typeAST(et, pos)
	if typ == nil {
		f.unresolved = append(f.unresolved, unresolvedExpr{expr: e, name: name})
		return &c
	}
	if t.Kind() == reflect.Ptr {
		// yaegi also mistypes p[i] for a pointer to an array: (*p)[i].
		c.X = &ast.ParenExpr{Lparen: pos, X: &ast.StarExpr{Star: pos, X: c.X}, Rparen: e.Lbrack}
	}
	return conversion(typ, &c)
}

// notIndexable reports whether x, the operand of an index expression, is
// a type or a generic function (an instantiation, not an index).
func (f *fixer) notIndexable(x ast.Expr) bool {
	if _, isType := f.typeExpr(x); isType {
		return true
	}
	if id, ok := unparen(x).(*ast.Ident); ok {
		if e, ok := f.lookup(id.Name); ok {
			return e.isType || (e.fn != nil && e.fn.TypeParams != nil)
		}
		if !f.ci.userName(id.Name) {
			if _, ok := builtins[id.Name]; ok {
				return true
			}
		}
		if f.ci.env.Kind(id.Name) == KindFunc && f.ci.env.Generic(id.Name) != nil {
			return true
		}
	}
	return false
}

// conversion returns typ(x).
func conversion(typ, x ast.Expr) ast.Expr {
	switch typ.(type) {
	case *ast.Ident, *ast.SelectorExpr, *ast.ArrayType, *ast.MapType, *ast.InterfaceType, *ast.StructType:
	default:
		typ = &ast.ParenExpr{Lparen: x.Pos(), X: typ, Rparen: x.Pos()}
	}
	end := x.End() - 1
	if !end.IsValid() {
		end = x.Pos()
	}
	return &ast.CallExpr{Fun: typ, Lparen: x.Pos(), Args: []ast.Expr{x}, Rparen: end}
}

// elemOf returns the type of an index of a value of type t, or nil.
func elemOf(t reflect.Type) reflect.Type {
	switch t.Kind() {
	case reflect.Slice, reflect.Array, reflect.Map:
		return t.Elem()
	case reflect.String:
		return byteType
	case reflect.Ptr:
		if t.Elem().Kind() == reflect.Array {
			return t.Elem().Elem()
		}
	}
	return nil
}

var (
	byteType   = reflect.TypeOf(byte(0))
	stringType = reflect.TypeOf("")
	boolType   = reflect.TypeOf(false)
	intType    = reflect.TypeOf(0)
	anyType    = reflect.TypeOf((*any)(nil)).Elem()
	errorType  = reflect.TypeOf((*error)(nil)).Elem()
)

// basicTypes are the predeclared types by name.
var basicTypes = map[string]reflect.Type{
	"bool": boolType, "string": stringType, "error": errorType, "any": anyType,
	"int": intType, "int8": reflect.TypeOf(int8(0)), "int16": reflect.TypeOf(int16(0)),
	"int32": reflect.TypeOf(int32(0)), "rune": reflect.TypeOf(int32(0)), "int64": reflect.TypeOf(int64(0)),
	"uint": reflect.TypeOf(uint(0)), "uint8": byteType, "byte": byteType, "uint16": reflect.TypeOf(uint16(0)),
	"uint32": reflect.TypeOf(uint32(0)), "uint64": reflect.TypeOf(uint64(0)), "uintptr": reflect.TypeOf(uintptr(0)),
	"float32": reflect.TypeOf(float32(0)), "float64": reflect.TypeOf(float64(0)),
	"complex64": reflect.TypeOf(complex64(0)), "complex128": reflect.TypeOf(complex128(0)),
}

// exprType infers the static type of an expression from the symbol
// tables, the cell's declarations and the values of earlier cells; nil
// when it cannot tell (untyped constants included).
func (f *fixer) exprType(e ast.Expr) reflect.Type {
	if f.visiting > 64 {
		return nil
	}
	f.visiting++
	defer func() { f.visiting-- }()
	switch e := e.(type) {
	case *ast.ParenExpr:
		return f.exprType(e.X)
	case *ast.BasicLit:
		if e.Kind == token.STRING {
			return stringType
		}
	case *ast.Ident:
		return f.identType(e.Name)
	case *ast.SelectorExpr:
		return f.selectorType(e)
	case *ast.CallExpr:
		return f.callType(e, 0)
	case *ast.IndexExpr:
		if t := f.exprType(e.X); t != nil {
			return elemOf(t)
		}
	case *ast.SliceExpr:
		t := f.exprType(e.X)
		if t == nil {
			return nil
		}
		switch t.Kind() {
		case reflect.String, reflect.Slice:
			return t
		case reflect.Array:
			return reflect.SliceOf(t.Elem())
		case reflect.Ptr:
			if t.Elem().Kind() == reflect.Array {
				return reflect.SliceOf(t.Elem().Elem())
			}
		}
	case *ast.StarExpr:
		if t := f.exprType(e.X); t != nil && t.Kind() == reflect.Ptr {
			return t.Elem()
		}
	case *ast.UnaryExpr:
		switch e.Op {
		case token.ARROW:
			if t := f.exprType(e.X); t != nil && t.Kind() == reflect.Chan {
				return t.Elem()
			}
		case token.AND:
			if t := f.exprType(e.X); t != nil {
				return reflect.PointerTo(t)
			}
		case token.NOT:
			return boolType
		default:
			return f.exprType(e.X)
		}
	case *ast.BinaryExpr:
		switch e.Op {
		case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ, token.LAND, token.LOR:
			return boolType
		case token.SHL, token.SHR:
			return f.exprType(e.X)
		}
		if t := f.exprType(e.X); t != nil {
			return t
		}
		return f.exprType(e.Y)
	case *ast.TypeAssertExpr:
		if e.Type != nil {
			t, _ := f.typeExpr(e.Type)
			return t
		}
	case *ast.CompositeLit:
		if e.Type != nil {
			t, _ := f.typeExpr(e.Type)
			return t
		}
	case *ast.FuncLit:
		t, _ := f.typeExpr(e.Type)
		return t
	}
	return nil
}

// identType is the type of a variable, constant or function.
func (f *fixer) identType(name string) reflect.Type {
	if e, ok := f.lookup(name); ok {
		if e.fn != nil {
			t, _ := f.typeExpr(e.fn)
			return t
		}
		return e.t
	}
	switch f.ci.env.Kind(name) {
	case KindVar, KindConst, KindFunc:
		return f.valueType(name)
	}
	return nil
}

// valueType returns the static type of a variable of an earlier cell:
// the type of its value as the interpreter holds it (an interface
// variable reads as its interface type), when that type is exact (see
// trusted).
func (f *fixer) valueType(name string) reflect.Type {
	if t, ok := f.vals[name]; ok {
		return t
	}
	var t reflect.Type
	if v, err := f.ci.env.Eval(name); err == nil && v.IsValid() {
		t = v.Type()
		if !f.trusted(t) {
			t = nil
		}
	}
	f.vals[name] = t
	return t
}

// trusted says whether a type read from an interpreted value is the
// value's static type. yaegi represents a type declared in a cell by an
// unnamed type (a struct for a struct type, its own box for an interface,
// the underlying type for the others), so unnamed structs are never
// trusted, and unnamed types at all once cells declared a type that is
// neither a struct nor an interface. Named compiled types are exact.
func (f *fixer) trusted(t reflect.Type) bool {
	if t.Name() != "" {
		if t.PkgPath() == yaegiInterp {
			return false // valueInterface & co: a cell's interface type
		}
		return t.PkgPath() != "" || !f.plainTypes()
	}
	switch t.Kind() {
	case reflect.Struct:
		return false
	case reflect.Ptr, reflect.Slice, reflect.Array, reflect.Chan:
		return f.trusted(t.Elem())
	case reflect.Map:
		return f.trusted(t.Key()) && f.trusted(t.Elem())
	case reflect.Func:
		for i := 0; i < t.NumIn(); i++ {
			if !f.trusted(t.In(i)) {
				return false
			}
		}
		for i := 0; i < t.NumOut(); i++ {
			if !f.trusted(t.Out(i)) {
				return false
			}
		}
		return !f.plainTypes()
	case reflect.Interface:
		return t.NumMethod() == 0 && !f.plainTypes()
	}
	return !f.plainTypes()
}

// plainTypes reports whether cells declared a type that is neither a
// struct nor an interface: its values look like values of its underlying
// type.
func (f *fixer) plainTypes() bool {
	if f.plain == 0 {
		f.plain = -1
		if f.ci.env.PlainTypes() {
			f.plain = 1
		}
		for _, def := range f.ci.declaredTypes {
			if PlainType(def) {
				f.plain = 1
			}
		}
	}
	return f.plain > 0
}

// PlainType reports whether a type declaration declares a type that is
// neither a struct nor an interface (generic types included).
func PlainType(ts *ast.TypeSpec) bool {
	if ts.TypeParams != nil || ts.Assign.IsValid() {
		return true
	}
	switch ts.Type.(type) {
	case *ast.StructType, *ast.InterfaceType:
		return false
	}
	return true
}

// selectorType is the type of x.sel: a package member, a field or a
// method value.
func (f *fixer) selectorType(e *ast.SelectorExpr) reflect.Type {
	if v, ok := f.member(e); ok {
		switch {
		case isConstant(v):
			if c, ok := v.Interface().(constant.Value); ok && c.Kind() == constant.String {
				return stringType
			}
			return nil
		case v.Kind() == reflect.Ptr && v.IsNil():
			return nil // a type
		}
		return v.Type()
	}
	t := f.exprType(e.X)
	if t == nil {
		return nil
	}
	st := t
	if st.Kind() == reflect.Ptr {
		st = st.Elem()
	}
	if st.Kind() == reflect.Struct {
		if fl, ok := st.FieldByName(e.Sel.Name); ok && fl.IsExported() {
			return fl.Type
		}
	}
	return methodType(t, e.Sel.Name)
}

// member returns the compiled symbol pkg.name when e is one.
func (f *fixer) member(e *ast.SelectorExpr) (reflect.Value, bool) {
	id, ok := e.X.(*ast.Ident)
	if !ok {
		return reflect.Value{}, false
	}
	if _, shadowed := f.lookup(id.Name); shadowed {
		return reflect.Value{}, false
	}
	if p, ok := f.here[id.Name]; ok {
		v, ok := f.ci.env.Members(p)[e.Sel.Name]
		return v, ok
	}
	return f.ci.member(id.Name, e.Sel.Name)
}

// methodType returns the type of the method value x.name for x of type
// t (the receiver not included), or nil.
func methodType(t reflect.Type, name string) reflect.Type {
	if t.Kind() == reflect.Interface {
		if m, ok := t.MethodByName(name); ok {
			return m.Type
		}
		return nil
	}
	m, ok := t.MethodByName(name)
	if !ok && t.Kind() != reflect.Ptr {
		m, ok = reflect.PointerTo(t).MethodByName(name)
	}
	if !ok {
		return nil
	}
	ft := m.Type
	in := make([]reflect.Type, 0, ft.NumIn())
	for i := 1; i < ft.NumIn(); i++ {
		in = append(in, ft.In(i))
	}
	out := make([]reflect.Type, ft.NumOut())
	for i := range out {
		out[i] = ft.Out(i)
	}
	return reflect.FuncOf(in, out, ft.IsVariadic())
}

// callType is the type of the i-th result of a call (or conversion).
func (f *fixer) callType(c *ast.CallExpr, i int) reflect.Type {
	if t, isType := f.typeExpr(c.Fun); isType {
		if i == 0 {
			return t
		}
		return nil
	}
	if id, ok := unparen(c.Fun).(*ast.Ident); ok {
		if _, declared := f.lookup(id.Name); !declared && !f.ci.userName(id.Name) {
			if _, ok := builtins[id.Name]; ok {
				if i > 0 {
					return nil
				}
				return f.builtinType(id.Name, c.Args)
			}
		}
	}
	ft := f.exprType(c.Fun)
	if ft == nil || ft.Kind() != reflect.Func || i >= ft.NumOut() {
		return nil
	}
	return ft.Out(i)
}

// builtinType is the type of a call of a builtin function.
func (f *fixer) builtinType(name string, args []ast.Expr) reflect.Type {
	switch name {
	case "len", "cap", "copy":
		return intType
	case "append":
		if len(args) > 0 {
			return f.exprType(args[0])
		}
	case "make":
		if len(args) > 0 {
			t, _ := f.typeExpr(args[0])
			return t
		}
	case "new":
		if len(args) > 0 {
			if t, _ := f.typeExpr(args[0]); t != nil {
				return reflect.PointerTo(t)
			}
		}
	case "min", "max":
		for _, a := range args {
			if t := f.exprType(a); t != nil {
				return t
			}
		}
	}
	return nil
}

// typeExpr resolves a type expression; isType says whether e denotes a
// type at all (its reflect type may still be unknown: a type declared in
// a cell).
func (f *fixer) typeExpr(e ast.Expr) (t reflect.Type, isType bool) {
	defer func() {
		if recover() != nil { // reflect refused a type (an invalid map key…)
			t = nil
		}
	}()
	switch e := e.(type) {
	case *ast.ParenExpr:
		return f.typeExpr(e.X)
	case *ast.Ident:
		if en, ok := f.lookup(e.Name); ok {
			if en.isType {
				return en.t, true // a type parameter's binding, or nil
			}
			return nil, false
		}
		if f.ci.env.Kind(e.Name) == KindType || f.ci.types[e.Name] != nil {
			return nil, true
		}
		if !f.ci.userName(e.Name) {
			if t, ok := basicTypes[e.Name]; ok {
				return t, true
			}
		}
		return nil, false
	case *ast.SelectorExpr:
		if v, ok := f.member(e); ok && v.Kind() == reflect.Ptr && v.IsNil() {
			return v.Type().Elem(), true
		}
		return nil, false
	case *ast.StarExpr:
		t, isType := f.typeExpr(e.X)
		if t != nil {
			t = reflect.PointerTo(t)
		}
		return t, isType
	case *ast.ArrayType:
		elt, _ := f.typeExpr(e.Elt)
		if elt == nil {
			return nil, true
		}
		if e.Len == nil {
			return reflect.SliceOf(elt), true
		}
		if lit, ok := e.Len.(*ast.BasicLit); ok && lit.Kind == token.INT {
			if n, err := strconv.ParseInt(lit.Value, 0, 32); err == nil && n >= 0 {
				return reflect.ArrayOf(int(n), elt), true
			}
		}
		return nil, true
	case *ast.MapType:
		k, _ := f.typeExpr(e.Key)
		v, _ := f.typeExpr(e.Value)
		if k == nil || v == nil || !k.Comparable() {
			return nil, true
		}
		return reflect.MapOf(k, v), true
	case *ast.ChanType:
		v, _ := f.typeExpr(e.Value)
		if v == nil {
			return nil, true
		}
		dir := reflect.BothDir
		switch e.Dir {
		case ast.SEND:
			dir = reflect.SendDir
		case ast.RECV:
			dir = reflect.RecvDir
		}
		return reflect.ChanOf(dir, v), true
	case *ast.FuncType:
		if e.TypeParams != nil {
			return nil, true
		}
		in, variadic, ok := f.fieldTypes(e.Params)
		out, _, ok2 := f.fieldTypes(e.Results)
		if !ok || !ok2 {
			return nil, true
		}
		return reflect.FuncOf(in, out, variadic), true
	case *ast.InterfaceType:
		if e.Methods == nil || len(e.Methods.List) == 0 {
			return anyType, true
		}
		return nil, true
	case *ast.StructType:
		return nil, true
	}
	return nil, false
}

// fieldTypes resolves the types of a parameter or result list.
func (f *fixer) fieldTypes(fl *ast.FieldList) (ts []reflect.Type, variadic, ok bool) {
	if fl == nil {
		return nil, false, true
	}
	for _, fd := range fl.List {
		te := fd.Type
		if el, ok := te.(*ast.Ellipsis); ok {
			variadic = true
			te = &ast.ArrayType{Elt: el.Elt}
		}
		t, _ := f.typeExpr(te)
		if t == nil {
			return nil, false, false
		}
		n := len(fd.Names)
		if n == 0 {
			n = 1
		}
		for range n {
			ts = append(ts, t)
		}
	}
	return ts, variadic, true
}

// typeAST returns a type expression that denotes t in the cell, or nil
// when t cannot be written there. Packages it needs are noted in
// f.imports.
func (f *fixer) typeAST(t reflect.Type, pos token.Pos) ast.Expr {
	if t.Name() != "" {
		if t.PkgPath() == "" {
			names := []string{t.Name()}
			switch t.Name() {
			case "uint8":
				names = []string{"byte", "uint8"}
			case "int32":
				names = []string{"int32", "rune"}
			}
			for _, n := range names {
				if id := f.predeclared(n, pos); id != nil {
					return id
				}
			}
			return nil
		}
		if strings.ContainsAny(t.Name(), "[]") {
			return nil // an instance of a generic type
		}
		q, name := f.qualifier(t)
		if q == "" {
			return nil
		}
		return &ast.SelectorExpr{X: ident(q, pos), Sel: ident(name, pos)}
	}
	switch t.Kind() {
	case reflect.Slice:
		if elt := f.typeAST(t.Elem(), pos); elt != nil {
			return &ast.ArrayType{Lbrack: pos, Elt: elt}
		}
	case reflect.Array:
		if elt := f.typeAST(t.Elem(), pos); elt != nil {
			return &ast.ArrayType{Lbrack: pos, Len: &ast.BasicLit{ValuePos: pos, Kind: token.INT, Value: strconv.Itoa(t.Len())}, Elt: elt}
		}
	case reflect.Ptr:
		if elt := f.typeAST(t.Elem(), pos); elt != nil {
			return &ast.StarExpr{Star: pos, X: elt}
		}
	case reflect.Map:
		k, v := f.typeAST(t.Key(), pos), f.typeAST(t.Elem(), pos)
		if k != nil && v != nil {
			return &ast.MapType{Map: pos, Key: k, Value: v}
		}
	case reflect.Chan:
		v := f.typeAST(t.Elem(), pos)
		if v == nil {
			return nil
		}
		dir := ast.SEND | ast.RECV
		switch t.ChanDir() {
		case reflect.SendDir:
			dir = ast.SEND
		case reflect.RecvDir:
			dir = ast.RECV
		}
		return &ast.ChanType{Begin: pos, Arrow: pos, Dir: dir, Value: v}
	case reflect.Func:
		params := &ast.FieldList{Opening: pos, Closing: pos}
		for i := 0; i < t.NumIn(); i++ {
			var p ast.Expr
			if t.IsVariadic() && i == t.NumIn()-1 {
				if elt := f.typeAST(t.In(i).Elem(), pos); elt != nil {
					p = &ast.Ellipsis{Ellipsis: pos, Elt: elt}
				}
			} else {
				p = f.typeAST(t.In(i), pos)
			}
			if p == nil {
				return nil
			}
			params.List = append(params.List, &ast.Field{Type: p})
		}
		ft := &ast.FuncType{Func: pos, Params: params}
		if t.NumOut() > 0 {
			ft.Results = &ast.FieldList{Opening: pos, Closing: pos}
			for i := 0; i < t.NumOut(); i++ {
				r := f.typeAST(t.Out(i), pos)
				if r == nil {
					return nil
				}
				ft.Results.List = append(ft.Results.List, &ast.Field{Type: r})
			}
		}
		return ft
	case reflect.Interface:
		if t.NumMethod() == 0 {
			return &ast.InterfaceType{Interface: pos, Methods: &ast.FieldList{Opening: pos, Closing: pos}}
		}
	case reflect.Struct:
		fields := &ast.FieldList{Opening: pos, Closing: pos}
		for i := 0; i < t.NumField(); i++ {
			fl := t.Field(i)
			if fl.Anonymous || !fl.IsExported() {
				return nil
			}
			ft := f.typeAST(fl.Type, pos)
			if ft == nil {
				return nil
			}
			field := &ast.Field{Names: []*ast.Ident{ident(fl.Name, pos)}, Type: ft}
			if fl.Tag != "" {
				field.Tag = &ast.BasicLit{ValuePos: pos, Kind: token.STRING, Value: strconv.Quote(string(fl.Tag))}
			}
			fields.List = append(fields.List, field)
		}
		return &ast.StructType{Struct: pos, Fields: fields}
	}
	return nil
}

// qualifier returns the name under which the cell reaches the package of
// the named compiled type t, and the type's name there; "" when the
// symbol tables lack the type.
// The package is imported if needed: by its name when that is free, else
// as "__gnb_name".
func (f *fixer) qualifier(t reflect.Type) (string, string) {
	path, tname, ok := f.ci.env.TypeRef(t)
	if !ok {
		return "", ""
	}
	free := func(name string) bool {
		_, shadowed := f.lookup(name)
		return !shadowed && !f.ci.declared[name] && f.ci.env.Kind(name) == ""
	}
	// The cell's own imports, then the session's.
	var names []string
	for name, p := range f.here {
		if p == path {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		if _, shadowed := f.lookup(name); !shadowed {
			return name, tname
		}
	}
	for _, name := range f.ci.env.ImportNames(path) {
		if free(name) || strings.HasPrefix(name, "__gnb_") {
			return name, tname
		}
	}
	// Already requested by this cell.
	for name, p := range f.imports {
		if p == path {
			return name, tname
		}
	}
	name := f.ci.env.PkgName(path)
	if free(name) && !f.ci.env.BoundPackage(name) && f.here[name] == "" {
		f.need(name, path)
		return name, tname
	}
	alias := "__gnb_" + name
	f.need(alias, path)
	return alias, tname
}

func (f *fixer) need(name, path string) {
	if f.imports == nil {
		f.imports = map[string]string{}
	}
	f.imports[name] = path
}

// explain replaces a compile error of a unit by an Unsupported error when
// the unit holds code the fixer had to leave as it was: an expression
// whose type it could not infer ("constant definition loop", "nil
// reflect type"…), or a comma-ok definition ("nil type"). A "constant
// definition loop" of a statement (the undefined names are reported
// before) gets a general explanation. It returns nil to keep e.
func (x *Cell) explain(n ast.Node, e *Error) *Error {
	if n == nil {
		return nil
	}
	if better := x.explainMethodValue(n, e); better != nil {
		return better
	}
	within := func(m ast.Node) bool { return m.Pos() >= n.Pos() && m.End() <= n.End() }
	where := func(m ast.Node) string {
		line := x.fset.Position(m.Pos()).Line
		return x.describe(position{serial: x.serial, line: line})
	}
	loop := strings.Contains(e.Value, "constant definition loop")
	if f := x.ci.fix; f != nil {
		for _, st := range f.commaOk {
			if within(st) {
				return newError("Unsupported", "yaegi, the interpreter, cannot compile `"+x.nodeText(st)+"` outside a function, and the kernel could not tell the type of its value; "+
					"declare the variables first ("+commaOkFix(st, x.nodeText(st.Rhs[0]))+"), or move the code into a function", where(st))
			}
		}
		// The failures of a top-level definition whose type yaegi cannot
		// infer.
		if loop || e.Name == "InternalError" || strings.Contains(e.Value, "not a generic type") {
			for _, u := range f.unresolved {
				if within(u.expr) {
					text := x.nodeText(u.expr)
					name := u.name
					if name == "" || name == "_" {
						name = "y"
					}
					return newError("Unsupported", "yaegi, the interpreter, cannot infer the type of `"+text+"` at the top level of a cell; "+
						"write `"+name+" := T("+text+")` with its type T, or declare `var "+name+" T` first", where(u.expr))
				}
			}
		}
	}
	if b, ok := n.(*ast.BlockStmt); ok && loop && len(b.List) == 1 {
		if a, ok := b.List[0].(*ast.AssignStmt); ok && a.Tok == token.DEFINE {
			return newError("Unsupported", "yaegi, the interpreter, cannot infer the type of this definition's value at the top level of a cell; "+
				"convert the value to its type (x := T(…)), declare the variable first (var x T), or move the code into a function", where(a))
		}
	}
	return nil
}

// commaOkFix spells the fix of a comma-ok definition: "var v T; var ok
// bool; v, ok = m[k]".
func commaOkFix(st *ast.AssignStmt, rhs string) string {
	var names []string
	for _, l := range st.Lhs {
		if id, ok := l.(*ast.Ident); ok {
			names = append(names, id.Name)
		} else {
			names = append(names, "_")
		}
	}
	var b strings.Builder
	if names[0] != "_" {
		b.WriteString("var " + names[0] + " T; ")
	}
	if names[1] != "_" {
		b.WriteString("var " + names[1] + " bool; ")
	}
	b.WriteString(strings.Join(names, ", ") + " = " + rhs)
	return b.String()
}

// needsFunc reports whether a top-level statement must run inside a
// function literal: a compound statement (if, for, switch, block…) that
// holds a definition of several variables from one value (a, b := f(),
// v, ok := m[k], var a, b = f()), in its blocks or its init statement.
// yaegi declares those variables only in functions and in top-level
// definitions themselves ("undefined: a" otherwise). The statement
// declares nothing visible after it, so running it in a function changes
// nothing else.
func (ci *cellInfo) needsFunc(st ast.Stmt) bool {
	if !ci.sawDefineX {
		return false
	}
	for {
		l, ok := st.(*ast.LabeledStmt)
		if !ok {
			break
		}
		st = l.Stmt
	}
	switch st.(type) {
	case *ast.IfStmt, *ast.ForStmt, *ast.RangeStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.BlockStmt:
	default:
		return false
	}
	found := false
	ast.Inspect(st, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.AssignStmt:
			found = found || isDefineX(n)
		case *ast.ValueSpec:
			found = found || (len(n.Names) > 1 && len(n.Values) == 1)
		}
		return !found
	})
	return found
}

// isDefineX reports whether st defines several variables from one value.
func isDefineX(st *ast.AssignStmt) bool {
	return st.Tok == token.DEFINE && len(st.Rhs) == 1 && len(st.Lhs) > 1
}

// genericCall reports whether c calls a generic function (the prelude's
// min and max, or one declared in a cell), and the type of its result
// when the session can infer it.
//
// yaegi cannot type such a call in a top-level definition ("nil reflect
// type"): `y := min(a, b)` fails where `y := int(min(a, b))` works.
func (f *fixer) genericCall(c *ast.CallExpr) (t reflect.Type, generic bool) {
	fun := unparen(c.Fun)
	var typeArgs []ast.Expr
	switch x := fun.(type) {
	case *ast.IndexExpr:
		typeArgs, fun = []ast.Expr{x.Index}, unparen(x.X)
	case *ast.IndexListExpr:
		typeArgs, fun = x.Indices, unparen(x.X)
	}
	id, ok := fun.(*ast.Ident)
	if !ok {
		return nil, false
	}
	var ft *ast.FuncType
	if e, ok := f.lookup(id.Name); ok {
		ft = e.fn
	} else if !f.ci.userName(id.Name) {
		if (id.Name == "min" || id.Name == "max") && typeArgs == nil && !c.Ellipsis.IsValid() {
			return f.minMaxType(c.Args), true
		}
		return nil, false
	} else if f.ci.env.Kind(id.Name) == KindFunc {
		ft = f.ci.env.Generic(id.Name)
	}
	if ft == nil || ft.TypeParams == nil {
		return nil, false
	}
	if countFields(ft.Results) != 1 {
		return nil, false // no value, or several: nothing to convert
	}
	return f.instantiate(ft, typeArgs, c.Args, c.Ellipsis.IsValid()), true
}

// minMaxType is the type of min(args…) or max(args…): the type of its
// typed arguments, else the default type of its untyped constants.
func (f *fixer) minMaxType(args []ast.Expr) reflect.Type {
	var def reflect.Type
	for _, a := range args {
		if t := f.exprType(a); t != nil {
			if _, lit := unparen(a).(*ast.BasicLit); !lit {
				return t
			}
		}
		u := f.untypedDefault(a)
		if u == nil {
			return nil
		}
		if def == nil || untypedRank(u) > untypedRank(def) {
			def = u
		}
	}
	return def
}

// untypedDefault is the default type of an untyped constant expression
// made of literals, or nil.
func (f *fixer) untypedDefault(e ast.Expr) reflect.Type {
	switch e := e.(type) {
	case *ast.BasicLit:
		switch e.Kind {
		case token.INT:
			return intType
		case token.FLOAT:
			return reflect.TypeOf(0.0)
		case token.IMAG:
			return reflect.TypeOf(complex128(0))
		case token.CHAR:
			return reflect.TypeOf(rune(0))
		case token.STRING:
			return stringType
		}
	case *ast.ParenExpr:
		return f.untypedDefault(e.X)
	case *ast.UnaryExpr:
		if e.Op == token.ADD || e.Op == token.SUB || e.Op == token.XOR {
			return f.untypedDefault(e.X)
		}
	case *ast.BinaryExpr:
		x, y := f.untypedDefault(e.X), f.untypedDefault(e.Y)
		if x == nil || y == nil {
			return nil
		}
		switch e.Op {
		case token.SHL, token.SHR:
			return x
		case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ:
			return boolType
		}
		if untypedRank(y) > untypedRank(x) {
			return y
		}
		return x
	}
	return nil
}

// untypedRank orders the kinds of untyped numeric constants: an
// operation on two of them has the kind that comes later.
func untypedRank(t reflect.Type) int {
	switch t.Kind() {
	case reflect.Int:
		return 1
	case reflect.Int32:
		return 2
	case reflect.Float64:
		return 3
	case reflect.Complex128:
		return 4
	}
	return 0
}

// instantiate infers the result type of a call of a generic function: it
// binds the type parameters to the explicit type arguments, then unifies
// the parameter types with the argument types (an untyped constant
// argument of a bare type parameter gives its default type), and
// resolves the result type. nil when a type stays unknown.
func (f *fixer) instantiate(ft *ast.FuncType, typeArgs, args []ast.Expr, spread bool) reflect.Type {
	var tparams []string
	for _, fl := range ft.TypeParams.List {
		for _, n := range fl.Names {
			tparams = append(tparams, n.Name)
		}
	}
	bound := map[string]reflect.Type{}
	isParam := map[string]bool{}
	for i, name := range tparams {
		isParam[name] = true
		if i < len(typeArgs) {
			t, _ := f.typeExpr(typeArgs[i])
			if t == nil {
				return nil
			}
			bound[name] = t
		}
	}
	// The parameters, one per argument.
	var params []ast.Expr
	for _, fl := range ft.Params.List {
		n := len(fl.Names)
		if n == 0 {
			n = 1
		}
		for range n {
			params = append(params, fl.Type)
		}
	}
	untyped := map[string]reflect.Type{}
	for i, a := range args {
		var p ast.Expr
		switch {
		case i < len(params)-1 || (i == len(params)-1 && !isEllipsis(params[i])):
			p = params[i]
		case len(params) > 0 && isEllipsis(params[len(params)-1]):
			p = params[len(params)-1].(*ast.Ellipsis).Elt
			if spread {
				p = &ast.ArrayType{Elt: p}
			}
		default:
			return nil
		}
		at := f.exprType(a)
		if _, lit := unparen(a).(*ast.BasicLit); lit {
			at = nil // untyped
		}
		if at == nil {
			if id, ok := p.(*ast.Ident); ok && isParam[id.Name] {
				if u := f.untypedDefault(a); u != nil && (untyped[id.Name] == nil || untypedRank(u) > untypedRank(untyped[id.Name])) {
					untyped[id.Name] = u
				}
			}
			continue
		}
		unify(p, at, isParam, bound)
	}
	for name, t := range untyped {
		if bound[name] == nil {
			bound[name] = t
		}
	}
	f.push()
	defer f.pop()
	for _, name := range tparams {
		if t := bound[name]; t != nil {
			f.declare(name, scopeEntry{t: t, isType: true})
		} else {
			f.declare(name, scopeEntry{isType: true})
		}
	}
	t, _ := f.typeExpr(ft.Results.List[0].Type)
	return t
}

func isEllipsis(e ast.Expr) bool {
	_, ok := e.(*ast.Ellipsis)
	return ok
}

// unify binds the type parameters that appear in the type expression p
// by matching it with the type t.
func unify(p ast.Expr, t reflect.Type, isParam map[string]bool, bound map[string]reflect.Type) {
	switch p := p.(type) {
	case *ast.ParenExpr:
		unify(p.X, t, isParam, bound)
	case *ast.Ident:
		if isParam[p.Name] && bound[p.Name] == nil {
			bound[p.Name] = t
		}
	case *ast.ArrayType:
		if (p.Len == nil && t.Kind() == reflect.Slice) || (p.Len != nil && t.Kind() == reflect.Array) {
			unify(p.Elt, t.Elem(), isParam, bound)
		}
	case *ast.StarExpr:
		if t.Kind() == reflect.Ptr {
			unify(p.X, t.Elem(), isParam, bound)
		}
	case *ast.MapType:
		if t.Kind() == reflect.Map {
			unify(p.Key, t.Key(), isParam, bound)
			unify(p.Value, t.Elem(), isParam, bound)
		}
	case *ast.ChanType:
		if t.Kind() == reflect.Chan {
			unify(p.Value, t.Elem(), isParam, bound)
		}
	case *ast.FuncType:
		if t.Kind() != reflect.Func {
			return
		}
		i := 0
		if p.Params != nil {
			for _, fl := range p.Params.List {
				n := max(len(fl.Names), 1)
				for range n {
					if i < t.NumIn() {
						unify(fl.Type, t.In(i), isParam, bound)
					}
					i++
				}
			}
		}
		i = 0
		if p.Results != nil {
			for _, fl := range p.Results.List {
				n := max(len(fl.Names), 1)
				for range n {
					if i < t.NumOut() {
						unify(fl.Type, t.Out(i), isParam, bound)
					}
					i++
				}
			}
		}
	}
}
