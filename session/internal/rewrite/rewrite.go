package rewrite

import (
	"go/ast"
	"go/constant"
	"go/token"
	"reflect"
	"strconv"
)

// Rewrites of cell code, done on the parsed AST before yaegi compiles it.
// Generated nodes carry the position of the code they replace, so errors
// still point at the cell's lines, and generated names start with
// "__gnb_", which cells must not use.
//
//   - range over an integer (Go 1.22), which yaegi lacks:
//     `for i := range n {…}` becomes `{ __gnb_n1 := n; for i := __gnb_n1 - __gnb_n1; i < __gnb_n1; i++ {…} }`
//     (so i has n's type and n is evaluated once), when n is clearly an
//     integer: an integer or rune literal or constant, len/cap(…), a
//     conversion to an integer type, arithmetic of those, a call of a
//     function whose single result is an integer, or an identifier whose
//     declared type or current value is an integer. Labels stay on the loop.
//   - per-iteration loop variables (Go 1.22), which yaegi lacks: in a loop
//     whose body has a function literal that mentions a loop variable, or
//     takes its address, the body starts with a copy of the loop variables
//     under new names (`__gnb_lv_i_1 := i`) and uses those. A three-clause
//     loop whose body also assigns the variable, or a body that redeclares
//     it, is left as is (pre-1.22 semantics).
//   - go statements: `go f(x, y)` evaluates f and its arguments at the go
//     statement, as Go does, and runs the call under a deferred recover
//     that reports a panic through the cell's AsyncError (yaegi would let it
//     kill the process).
//   - select statements: branch statements in cases are rewritten around
//     yaegi's bugs (see fixSelect), and a top-level statement holding a
//     select runs inside a function literal.
//   - min(x) and max(x) with one argument become min(x, x) (yaegi fails
//     on a generic variadic call with no variadic argument).

// FuncExtent is where a function of a cell is.
type FuncExtent struct {
	Name     string // "" for a function literal
	From, To int    // lines
}

// tri is a three-valued answer.
type tri int8

const (
	no      tri = -1
	unknown tri = 0
	yes     tri = 1
)

// cellInfo is what the session learned about a cell's code: the names it
// declares (for automatic imports and the final expression) and the state
// of the rewrites.
type cellInfo struct {
	env    Env
	fset   *token.FileSet
	serial int

	declared  map[string]bool          // every name declared anywhere in the cell
	defs      map[string][]def         // their declarations
	visiting  map[string]bool          // names identInt is looking at
	funcs     map[string]*ast.FuncType // top-level functions of the cell
	types     map[string]ast.Expr      // types declared in the cell (their definitions)
	consts    map[string]bool          // constants declared in the cell
	selectors map[string]bool          // x of every selector x.y with x an identifier

	funcExtents []FuncExtent    // where the cell's functions are
	renders     map[string]bool // render methods (String, HTML, …) the cell declares

	ranges    int // range statements whose operand may be an integer, not rewritten
	tmp       int
	generated map[*ast.GoStmt]bool

	sawIndex      bool                     // the cell has an index expression
	sawCommaOk    bool                     // the cell has a comma-ok definition (v, ok := m[k] …)
	sawDefineX    bool                     // the cell defines several variables from one value somewhere
	calls         map[string]bool          // f of every call f(…) with f an identifier, or f[T]
	staleDone     map[*ast.AssignStmt]bool // comma-ok statements fixStale handled
	declaredTypes []*ast.TypeSpec          // the cell's type declarations
	fix           *fixer                   // the index and comma-ok rewrites (index.go), when needed
	methods       *fixer                   // the method-value rewrites (methodvalue.go), when the cell has selectors
}

func newCellInfo(env Env, fset *token.FileSet, serial int) *cellInfo {
	return &cellInfo{
		env: env, fset: fset, serial: serial,
		declared: map[string]bool{}, defs: map[string][]def{}, visiting: map[string]bool{}, funcs: map[string]*ast.FuncType{},
		types: map[string]ast.Expr{}, consts: map[string]bool{}, selectors: map[string]bool{},
	}
}

// A def is one declaration of a name, for isInt: a known answer, or the
// expression to look at (lazily: most names never need it).
type def struct {
	t       tri
	val     ast.Expr // the initial value, when t is unknown
	rangeOf ast.Expr // the operand of a range whose key this is
	call    ast.Expr // a multi-value call whose index-th result this is
	index   int
}

// declare records a declaration of name.
func (ci *cellInfo) declare(name string, d def) {
	if name == "_" || name == "" {
		return
	}
	ci.declared[name] = true
	ci.defs[name] = append(ci.defs[name], d)
}

// identInt says whether the declarations of name in the cell make it an
// integer; ok is false when the cell does not declare name.
func (ci *cellInfo) identInt(name string) (t tri, ok bool) {
	ds, ok := ci.defs[name]
	if !ok {
		return unknown, false
	}
	if ci.visiting[name] {
		return unknown, true
	}
	ci.visiting[name] = true
	defer delete(ci.visiting, name)
	for i, d := range ds {
		dt := d.t
		switch {
		case d.val != nil:
			dt = ci.isInt(d.val)
		case d.call != nil:
			if t := ci.funcType(callFun(d.call)); t != nil && d.index < t.NumOut() {
				dt = kindIsInt(t.Out(d.index).Kind())
			}
		case d.rangeOf != nil:
			if ci.isInt(d.rangeOf) == yes {
				dt = yes
			}
		}
		if i == 0 {
			t = dt
		} else if t != dt {
			t = unknown
		}
	}
	return t, true
}

// collect walks a parsed run and records its declarations and selectors.
func (ci *cellInfo) collect(root ast.Node) {
	ast.Inspect(root, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncDecl:
			ci.extent(n.Name.Name, n)
			if n.Recv == nil {
				ci.declare(n.Name.Name, def{t: no})
				ci.funcs[n.Name.Name] = n.Type
			} else {
				ci.fields(n.Recv)
				if ValidRender(n) {
					if ci.renders == nil {
						ci.renders = map[string]bool{}
					}
					ci.renders[n.Name.Name] = true
				}
			}
			ci.fields(n.Type.Params)
			ci.fields(n.Type.Results)
		case *ast.FuncLit:
			ci.extent("", n)
			ci.fields(n.Type.Params)
			ci.fields(n.Type.Results)
		case *ast.GenDecl:
			for _, sp := range n.Specs {
				switch sp := sp.(type) {
				case *ast.ValueSpec:
					if len(sp.Names) > 1 && len(sp.Values) == 1 {
						ci.sawDefineX = true
					}
					for i, id := range sp.Names {
						d := def{}
						if sp.Type != nil {
							d.t = ci.typeIsInt(sp.Type)
						} else if len(sp.Values) == len(sp.Names) {
							d.val = sp.Values[i]
						} else if len(sp.Values) == 1 {
							d.call, d.index = sp.Values[0], i
						}
						ci.declare(id.Name, d)
						if n.Tok == token.CONST {
							ci.consts[id.Name] = true
						}
					}
				case *ast.TypeSpec:
					ci.declare(sp.Name.Name, def{t: no})
					ci.types[sp.Name.Name] = sp.Type
					ci.declaredTypes = append(ci.declaredTypes, sp)
				case *ast.ImportSpec:
					name := ""
					if sp.Name != nil {
						name = sp.Name.Name
					} else if p, err := strconv.Unquote(sp.Path.Value); err == nil {
						name = ci.env.PkgName(p)
					}
					ci.declared[name] = true
				}
			}
		case *ast.IndexExpr:
			ci.sawIndex = true
		case *ast.CallExpr:
			fun := unparen(n.Fun)
			switch x := fun.(type) {
			case *ast.IndexExpr:
				fun = x.X
			case *ast.IndexListExpr:
				fun = x.X
			}
			if id, ok := fun.(*ast.Ident); ok {
				if ci.calls == nil {
					ci.calls = map[string]bool{}
				}
				ci.calls[id.Name] = true
			}
		case *ast.AssignStmt:
			if isCommaOk(n) || (n.Tok == token.ASSIGN && len(n.Lhs) == 2 && len(n.Rhs) == 1) {
				ci.sawCommaOk = true
			}
			if isDefineX(n) {
				ci.sawDefineX = true
			}
			if isDefineX(n) {
				ci.sawDefineX = true
			}
			if n.Tok == token.DEFINE {
				for i, l := range n.Lhs {
					if id, ok := l.(*ast.Ident); ok {
						d := def{}
						if len(n.Rhs) == len(n.Lhs) {
							d.val = n.Rhs[i]
						} else if len(n.Rhs) == 1 {
							d.call, d.index = n.Rhs[0], i
						}
						ci.declare(id.Name, d)
					}
				}
			}
		case *ast.RangeStmt:
			if n.Tok == token.DEFINE {
				if id, ok := n.Key.(*ast.Ident); ok {
					ci.declare(id.Name, def{rangeOf: n.X})
				}
				if id, ok := n.Value.(*ast.Ident); ok {
					ci.declare(id.Name, def{})
				}
			}
		case *ast.TypeSwitchStmt:
			if a, ok := n.Assign.(*ast.AssignStmt); ok {
				for _, l := range a.Lhs {
					if id, ok := l.(*ast.Ident); ok {
						ci.declare(id.Name, def{})
					}
				}
			}
		case *ast.SelectorExpr:
			if id, ok := n.X.(*ast.Ident); ok {
				ci.selectors[id.Name] = true
			}
		}
		return true
	})
}

// extent records where a function is.
func (ci *cellInfo) extent(name string, n ast.Node) {
	fset := ci.fset
	if fset.Position(n.Pos()).Filename != CellFile(ci.serial) {
		return // an earlier cell's declaration, compiled again
	}
	ci.funcExtents = append(ci.funcExtents, FuncExtent{Name: name, From: fset.Position(n.Pos()).Line, To: fset.Position(n.End()).Line})
}

// fields declares the names of a parameter, result or receiver list.
func (ci *cellInfo) fields(fl *ast.FieldList) {
	if fl == nil {
		return
	}
	for _, f := range fl.List {
		t := ci.typeIsInt(f.Type)
		for _, id := range f.Names {
			ci.declare(id.Name, def{t: t})
		}
	}
}

// intTypes are the predeclared integer types.
var intTypes = map[string]bool{
	"int": true, "int8": true, "int16": true, "int32": true, "int64": true,
	"uint": true, "uint8": true, "uint16": true, "uint32": true, "uint64": true,
	"uintptr": true, "byte": true, "rune": true,
}

// typeIsInt says whether a type expression denotes an integer type.
func (ci *cellInfo) typeIsInt(t ast.Expr) tri {
	switch t := t.(type) {
	case *ast.Ident:
		if !ci.userName(t.Name) {
			if intTypes[t.Name] {
				return yes
			}
			if predeclaredTypes[t.Name] {
				return no
			}
		}
		if def := ci.types[t.Name]; def != nil && !ci.visiting[t.Name] {
			ci.visiting[t.Name] = true
			defer delete(ci.visiting, t.Name)
			return ci.typeIsInt(def)
		}
		return unknown
	case *ast.SelectorExpr:
		if x, ok := t.X.(*ast.Ident); ok {
			if v, ok := ci.member(x.Name, t.Sel.Name); ok && v.Kind() == reflect.Ptr && v.IsNil() {
				return kindIsInt(v.Type().Elem().Kind())
			}
		}
		return unknown
	case *ast.ParenExpr:
		return ci.typeIsInt(t.X)
	}
	return no
}

// userName reports whether name is declared by the cell or an earlier one.
func (ci *cellInfo) userName(name string) bool {
	return ci.declared[name] || ci.env.Kind(name) != ""
}

// isPackage reports whether the identifier name denotes a package here.
func (ci *cellInfo) isPackage(name string) bool {
	if ci.declared[name] || ci.env.Kind(name) != "" {
		return false
	}
	return ci.env.ImportPath(name) != ""
}

// member returns the compiled symbol pkg.name, if pkg is a package.
func (ci *cellInfo) member(pkg, name string) (reflect.Value, bool) {
	if !ci.isPackage(pkg) {
		return reflect.Value{}, false
	}
	v, ok := ci.env.Members(ci.env.ImportPath(pkg))[name]
	return v, ok
}

var constantType = reflect.TypeOf((*constant.Value)(nil)).Elem()

// isConstant reports whether a symbol table value is an untyped constant.
func isConstant(v reflect.Value) bool { return v.IsValid() && v.Type().Implements(constantType) }

// isInt says whether e is clearly an integer.
func (ci *cellInfo) isInt(e ast.Expr) tri {
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind == token.INT || e.Kind == token.CHAR {
			return yes
		}
		return no
	case *ast.ParenExpr:
		return ci.isInt(e.X)
	case *ast.UnaryExpr:
		switch e.Op {
		case token.ADD, token.SUB, token.XOR:
			return ci.isInt(e.X)
		case token.ARROW:
			return unknown
		}
		return no
	case *ast.BinaryExpr:
		switch e.Op {
		case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ, token.LAND, token.LOR:
			return no
		case token.SHL, token.SHR:
			return ci.isInt(e.X)
		}
		x, y := ci.isInt(e.X), ci.isInt(e.Y)
		if x == yes || y == yes {
			return yes
		}
		if x == no || y == no {
			return no
		}
		return unknown
	case *ast.Ident:
		switch e.Name {
		case "true", "false", "nil":
			if !ci.userName(e.Name) {
				return no
			}
		case "iota":
			if !ci.userName(e.Name) {
				return yes
			}
		}
		if t, ok := ci.identInt(e.Name); ok {
			return t
		}
		if v, ok := ci.env.Value(e.Name); ok {
			return kindIsInt(v.Kind())
		}
		return unknown
	case *ast.SelectorExpr:
		if x, ok := e.X.(*ast.Ident); ok {
			if v, ok := ci.member(x.Name, e.Sel.Name); ok {
				if isConstant(v) {
					if c, ok := v.Interface().(constant.Value); ok && c.Kind() == constant.Int {
						return yes
					}
					return no
				}
				if v.Kind() == reflect.Func || v.Kind() == reflect.Ptr && v.IsNil() {
					return no
				}
				return kindIsInt(v.Kind())
			}
		}
		return unknown
	case *ast.CallExpr:
		return ci.callIsInt(e)
	}
	return unknown
}

// kindIsInt says whether k is an integer kind.
func kindIsInt(k reflect.Kind) tri {
	switch k {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return yes
	case reflect.Invalid:
		return unknown
	}
	return no
}

// callIsInt says whether a call's single result is an integer.
func (ci *cellInfo) callIsInt(c *ast.CallExpr) tri {
	switch f := unparen(c.Fun).(type) {
	case *ast.Ident:
		if !ci.userName(f.Name) {
			switch f.Name {
			case "len", "cap":
				return yes
			case "min", "max":
				t := no
				for _, a := range c.Args {
					switch ci.isInt(a) {
					case yes:
						return yes
					case unknown:
						t = unknown
					}
				}
				return t
			}
			if intTypes[f.Name] {
				return yes
			}
			if predeclaredTypes[f.Name] {
				return no
			}
			return unknown
		}
		if ci.types[f.Name] != nil {
			return ci.typeIsInt(f)
		}
		if ft := ci.funcs[f.Name]; ft != nil {
			if ft.Results != nil && len(ft.Results.List) == 1 && len(ft.Results.List[0].Names) <= 1 {
				return ci.typeIsInt(ft.Results.List[0].Type)
			}
			return no
		}
		if t, ok := ci.env.FuncInt(f.Name); ok {
			return t
		}
	case *ast.SelectorExpr:
		if x, ok := f.X.(*ast.Ident); ok {
			if v, ok := ci.member(x.Name, f.Sel.Name); ok && v.Kind() == reflect.Ptr && v.IsNil() {
				return kindIsInt(v.Type().Elem().Kind()) // a conversion
			}
		}
	}
	if t := ci.funcType(c.Fun); t != nil {
		return funcTypeIsInt(t)
	}
	return unknown
}

// callFun returns the function of a call expression, or nil.
func callFun(e ast.Expr) ast.Expr {
	if c, ok := unparen(e).(*ast.CallExpr); ok {
		return c.Fun
	}
	return nil
}

// typeOf returns the compiled type of e when the symbol tables and the
// values of earlier cells tell it, else nil. Types declared in cells have
// no methods in reflect, so they are of little use here.
func (ci *cellInfo) typeOf(e ast.Expr) reflect.Type {
	switch e := unparen(e).(type) {
	case *ast.Ident:
		if ds, ok := ci.defs[e.Name]; ok {
			if len(ds) != 1 || ci.visiting[e.Name] {
				return nil
			}
			ci.visiting[e.Name] = true
			defer delete(ci.visiting, e.Name)
			d := ds[0]
			switch {
			case d.val != nil:
				return ci.typeOf(d.val)
			case d.call != nil:
				if t := ci.funcType(callFun(d.call)); t != nil && d.index < t.NumOut() {
					return t.Out(d.index)
				}
			}
			return nil
		}
		if v, ok := ci.env.Value(e.Name); ok {
			return v.Type()
		}
	case *ast.CallExpr:
		if t := ci.funcType(e.Fun); t != nil && t.NumOut() >= 1 {
			return t.Out(0)
		}
	case *ast.SelectorExpr:
		if x, ok := e.X.(*ast.Ident); ok {
			if v, ok := ci.member(x.Name, e.Sel.Name); ok {
				if v.Kind() == reflect.Ptr && v.IsNil() || isConstant(v) {
					return nil
				}
				return v.Type()
			}
		}
		if t := ci.typeOf(e.X); t != nil {
			if t.Kind() == reflect.Ptr {
				t = t.Elem()
			}
			if t.Kind() == reflect.Struct {
				if f, ok := t.FieldByName(e.Sel.Name); ok {
					return f.Type
				}
			}
		}
	}
	return nil
}

// funcType returns the type of a function expression: a package's
// function, a method of a value of known type, or a function variable.
func (ci *cellInfo) funcType(f ast.Expr) reflect.Type {
	switch f := unparen(f).(type) {
	case *ast.SelectorExpr:
		if x, ok := f.X.(*ast.Ident); ok {
			if v, ok := ci.member(x.Name, f.Sel.Name); ok {
				if v.Kind() == reflect.Func {
					return v.Type()
				}
				return nil
			}
		}
		if t := ci.typeOf(f.X); t != nil {
			if m, ok := t.MethodByName(f.Sel.Name); ok {
				return m.Type
			}
			if t.Kind() != reflect.Ptr && t.Kind() != reflect.Interface {
				if m, ok := reflect.PointerTo(t).MethodByName(f.Sel.Name); ok {
					return m.Type
				}
			}
		}
	case *ast.Ident:
		if t := ci.typeOf(f); t != nil && t.Kind() == reflect.Func {
			return t
		}
	}
	return nil
}

// funcTypeIsInt says whether a function type has a single integer result.
func funcTypeIsInt(t reflect.Type) tri {
	if t.NumOut() == 1 {
		return kindIsInt(t.Out(0).Kind())
	}
	return no
}

func unparen(e ast.Expr) ast.Expr {
	for {
		p, ok := e.(*ast.ParenExpr)
		if !ok {
			return e
		}
		e = p.X
	}
}

// tmpName returns a fresh generated name.
func (ci *cellInfo) tmpName(kind string) string {
	ci.tmp++
	return "__gnb_" + kind + strconv.Itoa(ci.tmp)
}

func ident(name string, pos token.Pos) *ast.Ident { return &ast.Ident{Name: name, NamePos: pos} }

// rewrite applies the rewrites to a parsed run, in place.
func (ci *cellInfo) rewrite(root ast.Node) {
	ast.Inspect(root, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BlockStmt:
			ci.rewriteList(n.List)
		case *ast.CaseClause:
			ci.rewriteList(n.Body)
		case *ast.CommClause:
			ci.rewriteList(n.Body)
		case *ast.CallExpr:
			ci.minmax(n)
		}
		return true
	})
}

// rewriteList replaces the statements of a list that need it.
func (ci *cellInfo) rewriteList(list []ast.Stmt) {
	for i, st := range list {
		switch st := st.(type) {
		case *ast.RangeStmt:
			if r := ci.rangeInt(st, nil); r != nil {
				list[i] = r
			}
		case *ast.LabeledStmt:
			switch inner := st.Stmt.(type) {
			case *ast.RangeStmt:
				if r := ci.rangeInt(inner, st); r != nil {
					list[i] = r
				}
			case *ast.GoStmt:
				if !ci.generated[inner] {
					st.Stmt = ci.goStmt(inner)
				}
			}
		case *ast.GoStmt:
			if !ci.generated[st] {
				list[i] = ci.goStmt(st)
			}
		case *ast.SelectStmt:
			if r := ci.fixSelect(st); r != nil {
				list[i] = r
			}
		}
	}
}

// fixSelect works around yaegi's handling of branch statements in select
// cases: an unlabeled break (which must leave the select) becomes a goto
// to a label after the select; a continue, or a labeled break, that is a
// case's own statement is put in a block. It returns the replacement of
// the select statement, or nil when it changed nothing or only in place.
func (ci *cellInfo) fixSelect(sel *ast.SelectStmt) ast.Stmt {
	label := ""
	gotoLabel := func(br *ast.BranchStmt) {
		if label == "" {
			label = ci.tmpName("sel")
		}
		br.Tok = token.GOTO
		br.Label = ident(label, br.TokPos)
	}
	for _, c := range sel.Body.List {
		cc, ok := c.(*ast.CommClause)
		if !ok {
			continue
		}
		for i, st := range cc.Body {
			if br, ok := st.(*ast.BranchStmt); ok {
				switch {
				case br.Tok == token.BREAK && br.Label == nil:
					gotoLabel(br)
				case br.Tok == token.BREAK || br.Tok == token.CONTINUE:
					cc.Body[i] = &ast.BlockStmt{Lbrace: br.Pos(), List: []ast.Stmt{br}, Rbrace: br.End()}
				}
				continue
			}
			ast.Inspect(st, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.ForStmt, *ast.RangeStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt, *ast.FuncLit:
					return false
				case *ast.BranchStmt:
					if n.Tok == token.BREAK && n.Label == nil {
						gotoLabel(n)
					}
				}
				return true
			})
		}
	}
	if label == "" {
		return nil
	}
	pos := sel.Select
	return &ast.BlockStmt{Lbrace: pos, List: []ast.Stmt{
		sel,
		&ast.LabeledStmt{Label: ident(label, sel.End()), Colon: sel.End(), Stmt: &ast.EmptyStmt{Semicolon: sel.End(), Implicit: true}},
	}, Rbrace: sel.End()}
}

// hasSelect reports whether st contains a select statement outside
// function literals.
func hasSelect(st ast.Stmt) bool {
	found := false
	ast.Inspect(st, func(n ast.Node) bool {
		switch n.(type) {
		case *ast.SelectStmt:
			found = true
		case *ast.FuncLit:
			return false
		}
		return !found
	})
	return found
}

// inFunc wraps a top-level statement in "func() { st }()": yaegi
// mishandles select statements in top-level code (variables declared by
// a case are undefined, labeled breaks hang), not in functions.
func inFunc(st ast.Stmt) ast.Stmt {
	pos := st.Pos()
	return &ast.ExprStmt{X: &ast.CallExpr{
		Fun: &ast.FuncLit{
			Type: &ast.FuncType{Func: pos, Params: &ast.FieldList{Opening: pos, Closing: pos}},
			Body: &ast.BlockStmt{Lbrace: pos, List: []ast.Stmt{st}, Rbrace: st.End()},
		},
		Lparen: st.End(), Rparen: st.End(),
	}}
}

// rangeInt rewrites a range over an integer into a three-clause loop, or
// returns nil.
func (ci *cellInfo) rangeInt(rs *ast.RangeStmt, label *ast.LabeledStmt) ast.Stmt {
	if rs.Value != nil {
		return nil
	}
	switch ci.isInt(rs.X) {
	case no:
		return nil
	case unknown:
		ci.ranges++
		return nil
	}
	pos := rs.For
	n := ci.tmpName("n")
	key := rs.Key
	tok := rs.Tok
	if key == nil || isBlank(key) {
		key, tok = ident(ci.tmpName("i"), pos), token.DEFINE
	}
	if tok == token.ILLEGAL {
		tok = token.DEFINE
	}
	copyKey := func() ast.Expr {
		if id, ok := key.(*ast.Ident); ok {
			return ident(id.Name, id.NamePos)
		}
		return key
	}
	loop := &ast.ForStmt{
		For: pos,
		Init: &ast.AssignStmt{Lhs: []ast.Expr{copyKey()}, TokPos: pos, Tok: tok,
			Rhs: []ast.Expr{&ast.BinaryExpr{X: ident(n, pos), OpPos: pos, Op: token.SUB, Y: ident(n, pos)}}},
		Cond: &ast.BinaryExpr{X: copyKey(), OpPos: pos, Op: token.LSS, Y: ident(n, pos)},
		Post: &ast.IncDecStmt{X: copyKey(), TokPos: pos, Tok: token.INC},
		Body: rs.Body,
	}
	var st ast.Stmt = loop
	if label != nil {
		label.Stmt = loop
		st = label
	}
	return &ast.BlockStmt{Lbrace: pos, List: []ast.Stmt{
		&ast.AssignStmt{Lhs: []ast.Expr{ident(n, pos)}, TokPos: pos, Tok: token.DEFINE, Rhs: []ast.Expr{rs.X}},
		st,
	}, Rbrace: rs.Body.Rbrace}
}

func isBlank(e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == "_"
}

// builtins are the predeclared functions (with the prelude's min, max and
// clear), and whether a call of each has a result.
var builtins = map[string]bool{
	"append": true, "cap": true, "complex": true, "copy": true, "imag": true, "len": true,
	"make": true, "new": true, "real": true, "recover": true, "min": true, "max": true,
	"clear": false, "close": false, "delete": false, "panic": false, "print": false, "println": false,
}

// predeclaredTypes are the predeclared type names (a call is a conversion).
var predeclaredTypes = map[string]bool{
	"bool": true, "byte": true, "complex64": true, "complex128": true, "error": true,
	"float32": true, "float64": true, "int": true, "int8": true, "int16": true, "int32": true,
	"int64": true, "rune": true, "string": true, "uint": true, "uint8": true, "uint16": true,
	"uint32": true, "uint64": true, "uintptr": true, "any": true,
}

// goStmt rewrites `go f(a, b)` into
//
//	{
//		__gnb_f1, __gnb_a2 := f, a          // what Go evaluates at the go statement
//		__gnb_h3 := __gnb.GoStart(serial, line)
//		func() {
//			go func() {
//				__gnb.GoWatch(__gnb_h3)            // its stack is watched (stack.go)
//				defer func() { __gnb.GoEnd(__gnb_h3, recover()) }()
//				__gnb_f1(__gnb_a2, b)          // b is a constant
//			}()
//		}()
//	}
//
// The go statement sits in a function literal called at once because
// yaegi keeps a function literal's value in a slot of the frame it is
// made in, and a call of that value puts the slot's earlier value back
// when it returns. A goroutine of a loop's go statement that ends while
// the next iteration's go statement runs would hand it a nil function (a
// crash no recover can catch) or the earlier iteration's closure. Made
// in a frame of its own, each goroutine's function has a slot no other
// go statement reads.
func (ci *cellInfo) goStmt(g *ast.GoStmt) ast.Stmt {
	pos := g.Go
	call := g.Call
	var lhs, rhs []ast.Expr
	copyExpr := func(e ast.Expr, kind string) ast.Expr {
		name := ci.tmpName(kind)
		lhs = append(lhs, ident(name, e.Pos()))
		rhs = append(rhs, e)
		return ident(name, e.Pos())
	}
	fun := call.Fun
	if ci.funNeedsCopy(fun) {
		fun = copyExpr(fun, "f")
	}
	args := make([]ast.Expr, len(call.Args))
	for i, a := range call.Args {
		if ci.isConstLike(a) {
			args[i] = a
		} else {
			args[i] = copyExpr(a, "a")
		}
	}
	line := ci.fset.Position(pos).Line
	h := ci.tmpName("h")
	sel := func(x, y string) ast.Expr {
		return &ast.SelectorExpr{X: ident(x, pos), Sel: ident(y, pos)}
	}
	intLit := func(n int) ast.Expr {
		return &ast.BasicLit{ValuePos: pos, Kind: token.INT, Value: strconv.Itoa(n)}
	}
	funcLit := func(list ...ast.Stmt) *ast.FuncLit {
		return &ast.FuncLit{
			Type: &ast.FuncType{Func: pos, Params: &ast.FieldList{Opening: pos, Closing: pos}},
			Body: &ast.BlockStmt{Lbrace: pos, List: list, Rbrace: pos},
		}
	}
	end := &ast.DeferStmt{Defer: pos, Call: &ast.CallExpr{Fun: funcLit(
		&ast.ExprStmt{X: &ast.CallExpr{Fun: sel("__gnb", "GoEnd"), Lparen: pos, Rparen: pos, Args: []ast.Expr{
			ident(h, pos),
			&ast.CallExpr{Fun: ident("recover", pos), Lparen: pos, Rparen: pos},
		}}},
	), Lparen: pos, Rparen: pos}}
	inner := &ast.CallExpr{Fun: fun, Lparen: call.Lparen, Args: args, Ellipsis: call.Ellipsis, Rparen: call.Rparen}
	watch := &ast.ExprStmt{X: &ast.CallExpr{Fun: sel("__gnb", "GoWatch"), Lparen: pos, Rparen: pos, Args: []ast.Expr{ident(h, pos)}}}
	goSt := &ast.GoStmt{Go: pos, Call: &ast.CallExpr{Fun: funcLit(watch, end, &ast.ExprStmt{X: inner}), Lparen: pos, Rparen: pos}}
	if ci.generated == nil {
		ci.generated = map[*ast.GoStmt]bool{}
	}
	ci.generated[goSt] = true
	var list []ast.Stmt
	if len(lhs) > 0 {
		list = append(list, &ast.AssignStmt{Lhs: lhs, TokPos: pos, Tok: token.DEFINE, Rhs: rhs})
	}
	list = append(list,
		&ast.AssignStmt{Lhs: []ast.Expr{ident(h, pos)}, TokPos: pos, Tok: token.DEFINE, Rhs: []ast.Expr{
			&ast.CallExpr{Fun: sel("__gnb", "GoStart"), Lparen: pos, Rparen: pos, Args: []ast.Expr{intLit(ci.serial), intLit(line)}},
		}},
		&ast.ExprStmt{X: &ast.CallExpr{Fun: funcLit(goSt), Lparen: pos, Rparen: pos}})
	return &ast.BlockStmt{Lbrace: pos, List: list, Rbrace: call.Rparen}
}

// funNeedsCopy reports whether the function of a go statement must be
// evaluated before the goroutine starts (a variable may change later; a
// declared function, a package's function, a builtin or a literal cannot).
func (ci *cellInfo) funNeedsCopy(fun ast.Expr) bool {
	switch f := unparen(fun).(type) {
	case *ast.FuncLit, *ast.IndexExpr, *ast.IndexListExpr:
		return false
	case *ast.Ident:
		if _, ok := builtins[f.Name]; ok && !ci.userName(f.Name) {
			return false
		}
		if ci.funcs[f.Name] != nil || (!ci.declared[f.Name] && ci.env.Kind(f.Name) == KindFunc) {
			return false
		}
	case *ast.SelectorExpr:
		if x, ok := f.X.(*ast.Ident); ok && ci.isPackage(x.Name) {
			return false
		}
	}
	return true
}

// isConstLike reports whether e is a constant expression (kept in place:
// an untyped constant copied into a variable would lose its flexibility).
func (ci *cellInfo) isConstLike(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.BasicLit:
		return true
	case *ast.Ident:
		switch e.Name {
		case "nil", "true", "false", "iota":
			return !ci.userName(e.Name)
		}
		return ci.consts[e.Name] || (!ci.declared[e.Name] && ci.env.Kind(e.Name) == KindConst)
	case *ast.SelectorExpr:
		if x, ok := e.X.(*ast.Ident); ok {
			v, ok := ci.member(x.Name, e.Sel.Name)
			return ok && isConstant(v)
		}
	case *ast.ParenExpr:
		return ci.isConstLike(e.X)
	case *ast.UnaryExpr:
		return e.Op != token.AND && e.Op != token.ARROW && ci.isConstLike(e.X)
	case *ast.BinaryExpr:
		return ci.isConstLike(e.X) && ci.isConstLike(e.Y)
	}
	return false
}

// minmax turns min(x) and max(x) into min(x, x) when x has no side
// effects.
func (ci *cellInfo) minmax(c *ast.CallExpr) {
	f, ok := c.Fun.(*ast.Ident)
	if !ok || (f.Name != "min" && f.Name != "max") || len(c.Args) != 1 || c.Ellipsis.IsValid() || ci.userName(f.Name) {
		return
	}
	switch a := c.Args[0].(type) {
	case *ast.Ident, *ast.BasicLit:
		c.Args = append(c.Args, a)
	case *ast.SelectorExpr:
		if _, ok := a.X.(*ast.Ident); ok {
			c.Args = append(c.Args, a)
		}
	}
}

// isPure reports whether evaluating e twice is harmless: no call but
// conversions, no receive.
func (ci *cellInfo) isPure(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.Ident, *ast.BasicLit:
		return true
	case *ast.ParenExpr:
		return ci.isPure(e.X)
	case *ast.SelectorExpr:
		return ci.isPure(e.X)
	case *ast.StarExpr:
		return ci.isPure(e.X)
	case *ast.UnaryExpr:
		return e.Op != token.ARROW && ci.isPure(e.X)
	case *ast.BinaryExpr:
		return ci.isPure(e.X) && ci.isPure(e.Y)
	case *ast.IndexExpr:
		return ci.isPure(e.X) && ci.isPure(e.Index)
	case *ast.KeyValueExpr:
		return ci.isPure(e.Key) && ci.isPure(e.Value)
	case *ast.CompositeLit:
		for _, el := range e.Elts {
			if !ci.isPure(el) {
				return false
			}
		}
		return true
	case *ast.CallExpr:
		if len(e.Args) != 1 || !ci.isPure(e.Args[0]) {
			return false
		}
		switch f := unparen(e.Fun).(type) {
		case *ast.Ident: // a conversion to a predeclared or declared type
			if !ci.userName(f.Name) {
				return predeclaredTypes[f.Name]
			}
			return ci.types[f.Name] != nil || (!ci.declared[f.Name] && ci.env.Kind(f.Name) == KindType)
		case *ast.SelectorExpr:
			if x, ok := f.X.(*ast.Ident); ok {
				v, ok := ci.member(x.Name, f.Sel.Name)
				return ok && v.Kind() == reflect.Ptr && v.IsNil()
			}
		case *ast.ArrayType, *ast.MapType, *ast.StarExpr:
			return true
		}
	}
	return false
}

// topLevelDefer returns a defer statement of top-level code (outside
// function literals), or nil.
func topLevelDefer(st ast.Stmt) *ast.DeferStmt {
	var d *ast.DeferStmt
	ast.Inspect(st, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.DeferStmt:
			if d == nil {
				d = n
			}
		case *ast.FuncLit:
			return false
		}
		return d == nil
	})
	return d
}

// countFields counts the values of a result list.
func countFields(fl *ast.FieldList) int {
	if fl == nil {
		return 0
	}
	n := 0
	for _, f := range fl.List {
		if len(f.Names) == 0 {
			n++
		} else {
			n += len(f.Names)
		}
	}
	return n
}
