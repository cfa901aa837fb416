package rewrite

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"reflect"
	"strconv"
	"strings"
)

// Method values of compiled pointer types.
//
// yaegi v0.16.1 gives a method value whose receiver is a pointer to a
// compiled type the type of the method expression: `bb.String` with bb a
// *bytes.Buffer is typed func(*bytes.Buffer) string, so `fn = bb.String`,
// `return c.Close` or passing `dc.Close` where a func() error is wanted
// fail to compile ("cannot use type func(*gpu.COO) error as type func()
// error"), and `fn := bb.String` inside a function panics when it runs.
// (Value receivers, interfaces and the cells' own types work.)
//
// The pass below rewrites every such method value, wherever it is in the
// cell, into a closure bound to the receiver when the expression is
// evaluated, as a method value is:
//
//	bb.String  →  func(__gnb_recv *bytes.Buffer) func() string {
//	                  return func() string { return __gnb_recv.String() }
//	              }(bb)
//
// It needs the receiver's type, which it infers as the index rewrites do
// (index.go: symbol tables, earlier cells' values, the cell's
// declarations), and it follows the cell's scopes into function bodies:
// parameters, var declarations, definitions, range variables. A receiver
// whose type it cannot tell is left alone (yaegi's error then stands).

// methodValuer walks a cell and rewrites its method values.
type methodValuer struct {
	f *fixer // types, scopes and printed types (its imports are the pass's)
}

// fixMethodValues rewrites the method values of compiled pointer types in
// the parsed runs of a cell, in place; the packages the closures' types
// need are left in ci.methods.imports for autoImport.
func (ci *cellInfo) fixMethodValues(ps []*Run, here map[string]string) {
	if !hasSelectorValue(ps) {
		return
	}
	m := &methodValuer{f: newFixer(ci, here)}
	if ci.fix != nil {
		m.f.vals = ci.fix.vals // earlier cells' value types, already looked up
	}
	for _, p := range ps {
		if p.decl {
			m.file(p.file)
		} else {
			m.stmts(p.body.List)
		}
	}
	ci.methods = m.f
}

// hasSelectorValue reports whether a cell has a selector x.y that is not
// called (a field, a method value or a package's function used as a
// value). Cells without one skip the pass.
func hasSelectorValue(ps []*Run) bool {
	found := false
	called := map[*ast.SelectorExpr]bool{}
	for _, p := range ps {
		ast.Inspect(p.node(), func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				if sel, ok := n.Fun.(*ast.SelectorExpr); ok {
					called[sel] = true
				}
			case *ast.SelectorExpr:
				if !called[n] {
					found = true
				}
			}
			return !found
		})
		if found {
			return true
		}
	}
	return false
}

// file walks a declaration run: functions (and methods) and var
// declarations.
func (m *methodValuer) file(file *ast.File) {
	f := m.f
	f.declareFuncsAndTypes(file)
	for _, d := range file.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Body == nil {
				continue
			}
			f.push()
			m.fields(d.Recv)
			m.fields(d.Type.Params)
			m.fields(d.Type.Results)
			m.stmts(d.Body.List)
			f.pop()
		case *ast.GenDecl:
			m.genDecl(d)
		}
	}
}

// fields declares the parameters, results or receiver of a function.
func (m *methodValuer) fields(fl *ast.FieldList) {
	if fl == nil {
		return
	}
	for _, field := range fl.List {
		t, _ := m.f.typeExpr(field.Type)
		if e, ok := field.Type.(*ast.Ellipsis); ok {
			if elt, _ := m.f.typeExpr(e.Elt); elt != nil {
				t = reflect.SliceOf(elt)
			}
		}
		for _, id := range field.Names {
			m.f.declare(id.Name, scopeEntry{t: t})
		}
	}
}

// genDecl rewrites the values of var and const declarations and declares
// their names (and those of type declarations).
func (m *methodValuer) genDecl(d *ast.GenDecl) {
	for _, sp := range d.Specs {
		switch sp := sp.(type) {
		case *ast.ValueSpec:
			for i, v := range sp.Values {
				sp.Values[i] = m.expr(v)
			}
			m.f.valueSpec(sp, false)
		case *ast.TypeSpec:
			m.f.declare(sp.Name.Name, scopeEntry{isType: true})
		}
	}
}

func (m *methodValuer) stmts(list []ast.Stmt) {
	for _, st := range list {
		m.stmt(st)
	}
}

// block walks a block in a scope of its own.
func (m *methodValuer) block(b *ast.BlockStmt) {
	if b == nil {
		return
	}
	m.f.push()
	m.stmts(b.List)
	m.f.pop()
}

func (m *methodValuer) stmt(st ast.Stmt) {
	f := m.f
	switch st := st.(type) {
	case *ast.ExprStmt:
		st.X = m.expr(st.X)
	case *ast.AssignStmt:
		for i, r := range st.Rhs {
			st.Rhs[i] = m.expr(r)
		}
		if st.Tok != token.DEFINE {
			for i, l := range st.Lhs {
				st.Lhs[i] = m.target(l)
			}
			return
		}
		types := make([]reflect.Type, len(st.Lhs))
		if len(st.Rhs) == len(st.Lhs) {
			for i, r := range st.Rhs {
				types[i] = f.exprType(r)
			}
		} else if c, ok := unparen(st.Rhs[0]).(*ast.CallExpr); ok && len(st.Rhs) == 1 && !isCommaOk(st) {
			for i := range types {
				types[i] = f.callType(c, i)
			}
		}
		for i, l := range st.Lhs {
			if id, ok := l.(*ast.Ident); ok {
				f.declare(id.Name, scopeEntry{t: types[i]})
			}
		}
	case *ast.DeclStmt:
		if d, ok := st.Decl.(*ast.GenDecl); ok {
			m.genDecl(d)
		}
	case *ast.ReturnStmt:
		for i, r := range st.Results {
			st.Results[i] = m.expr(r)
		}
	case *ast.IncDecStmt:
		st.X = m.target(st.X)
	case *ast.SendStmt:
		st.Chan, st.Value = m.expr(st.Chan), m.expr(st.Value)
	case *ast.GoStmt:
		m.call(st.Call)
	case *ast.DeferStmt:
		m.call(st.Call)
	case *ast.LabeledStmt:
		m.stmt(st.Stmt)
	case *ast.BlockStmt:
		m.block(st)
	case *ast.IfStmt:
		f.push()
		if st.Init != nil {
			m.stmt(st.Init)
		}
		st.Cond = m.expr(st.Cond)
		m.block(st.Body)
		if st.Else != nil {
			m.stmt(st.Else)
		}
		f.pop()
	case *ast.ForStmt:
		f.push()
		if st.Init != nil {
			m.stmt(st.Init)
		}
		if st.Cond != nil {
			st.Cond = m.expr(st.Cond)
		}
		if st.Post != nil {
			m.stmt(st.Post)
		}
		m.block(st.Body)
		f.pop()
	case *ast.RangeStmt:
		st.X = m.expr(st.X)
		f.push()
		if st.Tok == token.DEFINE {
			key, value := rangeTypes(f.exprType(st.X))
			if id, ok := st.Key.(*ast.Ident); ok {
				f.declare(id.Name, scopeEntry{t: key})
			}
			if id, ok := st.Value.(*ast.Ident); ok {
				f.declare(id.Name, scopeEntry{t: value})
			}
		}
		m.block(st.Body)
		f.pop()
	case *ast.SwitchStmt:
		f.push()
		if st.Init != nil {
			m.stmt(st.Init)
		}
		if st.Tag != nil {
			st.Tag = m.expr(st.Tag)
		}
		for _, c := range st.Body.List {
			cc := c.(*ast.CaseClause)
			for i, e := range cc.List {
				cc.List[i] = m.expr(e)
			}
			f.push()
			m.stmts(cc.Body)
			f.pop()
		}
		f.pop()
	case *ast.TypeSwitchStmt:
		f.push()
		if st.Init != nil {
			m.stmt(st.Init)
		}
		var name string
		switch a := st.Assign.(type) {
		case *ast.AssignStmt: // name := x.(type)
			if ta, ok := a.Rhs[0].(*ast.TypeAssertExpr); ok {
				ta.X = m.expr(ta.X)
			}
			name = a.Lhs[0].(*ast.Ident).Name
		case *ast.ExprStmt:
			if ta, ok := a.X.(*ast.TypeAssertExpr); ok {
				ta.X = m.expr(ta.X)
			}
		}
		for _, c := range st.Body.List {
			cc := c.(*ast.CaseClause)
			f.push()
			if name != "" {
				var t reflect.Type
				if len(cc.List) == 1 {
					t, _ = f.typeExpr(cc.List[0])
				}
				f.declare(name, scopeEntry{t: t})
			}
			m.stmts(cc.Body)
			f.pop()
		}
		f.pop()
	case *ast.SelectStmt:
		for _, c := range st.Body.List {
			cc := c.(*ast.CommClause)
			f.push()
			if cc.Comm != nil {
				if a, ok := cc.Comm.(*ast.AssignStmt); ok && a.Tok == token.DEFINE {
					a.Rhs[0] = m.expr(a.Rhs[0])
					for _, l := range a.Lhs {
						if id, ok := l.(*ast.Ident); ok {
							f.declare(id.Name, scopeEntry{}) // the received value: not typed here
						}
					}
				} else {
					m.stmt(cc.Comm)
				}
			}
			m.stmts(cc.Body)
			f.pop()
		}
	}
}

// rangeTypes returns the types of the key and value of a range over a
// value of type t (nil where unknown).
func rangeTypes(t reflect.Type) (key, value reflect.Type) {
	if t == nil {
		return nil, nil
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		return intType, t.Elem()
	case reflect.Ptr:
		if t.Elem().Kind() == reflect.Array {
			return intType, t.Elem().Elem()
		}
	case reflect.String:
		return intType, reflect.TypeOf(rune(0))
	case reflect.Map:
		return t.Key(), t.Elem()
	case reflect.Chan:
		return t.Elem(), nil
	case reflect.Int:
		return t, nil
	}
	return nil, nil
}

// target walks the operands of an assignment's left-hand side (x.f = …,
// a[i] = …), which is not itself a value.
func (m *methodValuer) target(e ast.Expr) ast.Expr {
	switch e := e.(type) {
	case *ast.SelectorExpr:
		e.X = m.expr(e.X)
	case *ast.IndexExpr:
		e.X, e.Index = m.expr(e.X), m.expr(e.Index)
	case *ast.StarExpr:
		e.X = m.expr(e.X)
	case *ast.ParenExpr:
		e.X = m.target(e.X)
	}
	return e
}

// call walks a call: its function (a called selector is a method call,
// not a method value) and its arguments.
func (m *methodValuer) call(c *ast.CallExpr) {
	if sel, ok := c.Fun.(*ast.SelectorExpr); ok {
		sel.X = m.expr(sel.X)
	} else {
		c.Fun = m.expr(c.Fun)
	}
	for i, a := range c.Args {
		c.Args[i] = m.expr(a)
	}
}

// expr walks an expression and returns it with its method values
// rewritten.
func (m *methodValuer) expr(e ast.Expr) ast.Expr {
	switch e := e.(type) {
	case *ast.SelectorExpr:
		if r := m.methodValue(e); r != nil {
			return r
		}
		e.X = m.expr(e.X)
	case *ast.CallExpr:
		m.call(e)
	case *ast.FuncLit:
		m.f.push()
		m.fields(e.Type.Params)
		m.fields(e.Type.Results)
		m.stmts(e.Body.List)
		m.f.pop()
	case *ast.ParenExpr:
		e.X = m.expr(e.X)
	case *ast.UnaryExpr:
		e.X = m.expr(e.X)
	case *ast.BinaryExpr:
		e.X, e.Y = m.expr(e.X), m.expr(e.Y)
	case *ast.StarExpr:
		e.X = m.expr(e.X)
	case *ast.IndexExpr:
		e.X, e.Index = m.expr(e.X), m.expr(e.Index)
	case *ast.SliceExpr:
		e.X = m.expr(e.X)
		for _, p := range []*ast.Expr{&e.Low, &e.High, &e.Max} {
			if *p != nil {
				*p = m.expr(*p)
			}
		}
	case *ast.TypeAssertExpr:
		e.X = m.expr(e.X)
	case *ast.CompositeLit:
		for i, el := range e.Elts {
			e.Elts[i] = m.expr(el)
		}
	case *ast.KeyValueExpr:
		if _, field := e.Key.(*ast.Ident); !field {
			e.Key = m.expr(e.Key)
		}
		e.Value = m.expr(e.Value)
	}
	return e
}

// methodValue returns the closure that replaces e when e is a method
// value of a compiled pointer type whose types the kernel can print, and
// nil otherwise.
func (m *methodValuer) methodValue(e *ast.SelectorExpr) ast.Expr {
	f := m.f
	t := f.exprType(e.X)
	if t == nil || t.Kind() != reflect.Ptr {
		return nil
	}
	if st := t.Elem(); st.Kind() == reflect.Struct {
		if _, isField := st.FieldByName(e.Sel.Name); isField {
			return nil
		}
	}
	if _, ok := t.MethodByName(e.Sel.Name); !ok {
		return nil // not a method, or a cell type's (reflect lists none)
	}
	pos := e.Pos()
	ft := methodType(t, e.Sel.Name)
	sig, _ := f.typeAST(ft, pos).(*ast.FuncType)
	recvType := f.typeAST(t, pos)
	if sig == nil || recvType == nil {
		return nil
	}
	recv := ident("__gnb_recv", pos)

	// func(__gnb_a0 A0, __gnb_a1 ...A1) (R…) { [return] __gnb_recv.M(__gnb_a0, __gnb_a1...) }
	inner := &ast.FuncType{Func: pos, Params: &ast.FieldList{Opening: pos, Closing: pos}, Results: sig.Results}
	call := &ast.CallExpr{Fun: &ast.SelectorExpr{X: recv, Sel: ident(e.Sel.Name, e.Sel.Pos())}, Lparen: pos, Rparen: pos}
	for i, p := range sig.Params.List {
		name := ident("__gnb_a"+strconv.Itoa(i), pos)
		inner.Params.List = append(inner.Params.List, &ast.Field{Names: []*ast.Ident{name}, Type: p.Type})
		call.Args = append(call.Args, name)
		if _, variadic := p.Type.(*ast.Ellipsis); variadic {
			call.Ellipsis = pos
		}
	}
	var body ast.Stmt = &ast.ExprStmt{X: call}
	if ft.NumOut() > 0 {
		body = &ast.ReturnStmt{Return: pos, Results: []ast.Expr{call}}
	}
	closure := &ast.FuncLit{Type: inner, Body: &ast.BlockStmt{Lbrace: pos, List: []ast.Stmt{body}, Rbrace: pos}}

	// func(__gnb_recv *T) func(A0, ...A1) (R…) { return closure }(x)
	outer := &ast.FuncLit{
		Type: &ast.FuncType{Func: pos,
			Params:  &ast.FieldList{Opening: pos, List: []*ast.Field{{Names: []*ast.Ident{recv}, Type: recvType}}, Closing: pos},
			Results: &ast.FieldList{Opening: pos, List: []*ast.Field{{Type: sig}}, Closing: pos}},
		Body: &ast.BlockStmt{Lbrace: pos, List: []ast.Stmt{&ast.ReturnStmt{Return: pos, Results: []ast.Expr{closure}}}, Rbrace: pos},
	}
	return &ast.CallExpr{Fun: outer, Lparen: pos, Args: []ast.Expr{m.expr(e.X)}, Rparen: e.End()}
}

// explainMethodValue turns yaegi's error about a method value the pass
// left alone ("cannot use type func(*bytes.Buffer) string as type func()
// string in assignment") into one that names the expression and spells
// the closure to write instead. It returns nil for other errors.
func (x *Cell) explainMethodValue(n ast.Node, e *Error) *Error {
	const prefix = "cannot use type func("
	i := strings.Index(e.Value, prefix)
	as := strings.Index(e.Value, " as type func(")
	in := strings.LastIndex(e.Value, " in ")
	if i < 0 || as < i || in < as {
		return nil
	}
	recvText := e.Value[i+len(prefix):]
	recvText = recvText[:strings.IndexAny(recvText, ",)")]
	recv := x.compiledPointer(recvText)
	if recv == nil {
		return nil
	}
	want, err := parser.ParseExpr(e.Value[as+len(" as type ") : in])
	ft, ok := want.(*ast.FuncType)
	if err != nil || !ok {
		return nil
	}
	var sel *ast.SelectorExpr // the first uncalled selector naming a method of recv
	called := map[*ast.SelectorExpr]bool{}
	ast.Inspect(n, func(m ast.Node) bool {
		switch m := m.(type) {
		case *ast.CallExpr:
			if s, ok := m.Fun.(*ast.SelectorExpr); ok {
				called[s] = true
			}
		case *ast.SelectorExpr:
			if _, isMethod := recv.MethodByName(m.Sel.Name); isMethod && !called[m] && sel == nil {
				sel = m
			}
		}
		return sel == nil
	})
	if sel == nil {
		return nil
	}
	// func(a0 A0, a1 ...A1) (R…) { return x.M(a0, a1...) }
	var params, args []string
	for _, field := range ft.Params.List {
		name := "a" + strconv.Itoa(len(params))
		params = append(params, name+" "+types.ExprString(field.Type))
		if _, variadic := field.Type.(*ast.Ellipsis); variadic {
			name += "..."
		}
		args = append(args, name)
	}
	results, ret := "", ""
	if ft.Results != nil && len(ft.Results.List) > 0 {
		results = strings.TrimPrefix(types.ExprString(&ast.FuncType{Params: &ast.FieldList{}, Results: ft.Results}), "func()")
		ret = "return "
	}
	text := x.nodeText(sel)
	closure := "func(" + strings.Join(params, ", ") + ")" + results + " { " + ret + text + "(" + strings.Join(args, ", ") + ") }"
	line := x.fset.Position(sel.Pos()).Line
	return newError("Unsupported", "yaegi, the interpreter, gives the method value `"+text+"` of the compiled type "+recvText+
		" a wrong type, and the kernel could not tell the receiver's type to rewrite it; write "+closure+" instead",
		x.describe(position{serial: x.serial, line: line}))
}

// compiledPointer returns the pointer type named by text ("*bytes.Buffer",
// with the package's name) when a compiled package has it, else nil.
func (x *Cell) compiledPointer(text string) reflect.Type {
	pkg, name, ok := strings.Cut(strings.TrimPrefix(text, "*"), ".")
	if !ok || !strings.HasPrefix(text, "*") {
		return nil
	}
	for _, path := range x.env.Paths() {
		if x.env.PkgName(path) != pkg {
			continue
		}
		if v, ok := x.env.Members(path)[name]; ok && v.Kind() == reflect.Ptr && v.IsNil() {
			return v.Type() // the table holds (*T)(nil) for type T
		}
	}
	return nil
}
