package rewrite

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/parser"
	"go/token"
	"go/types"
	"strconv"
	"strings"
	"sync"

	"github.com/traefik/yaegi/stdlib/generic"
)

// inspect walks every run of the cell.
func inspect(ps []*Run, f func(ast.Node) bool) {
	for _, p := range ps {
		ast.Inspect(p.node(), f)
	}
}

// at describes the cell position of a node.
func (x *Cell) at(n ast.Node) string {
	pos := x.fset.Position(n.Pos())
	p := position{line: pos.Line, col: pos.Column, serial: x.serial}
	if m := CellPosRE.FindStringSubmatch(pos.Filename + ":1:1"); m != nil {
		p.serial, _ = strconv.Atoi(m[1])
	}
	return x.describe(p)
}

// genericNames holds the names of the generic standard-library functions
// and types yaegi provides as source (cmp, maps, slices), by package path.
var genericNames = sync.OnceValue(func() map[string]map[string]bool {
	m := map[string]map[string]bool{}
	for _, src := range generic.Sources {
		f, err := parser.ParseFile(token.NewFileSet(), "", src, parser.SkipObjectResolution)
		if err != nil {
			continue
		}
		names := map[string]bool{}
		for _, d := range f.Decls {
			for _, n := range DeclNames(d) {
				names[n] = true
			}
		}
		m[f.Name.Name] = names
	}
	return m
})

// checkAvailable refuses a cell that uses a function, variable, constant
// or type of a compiled package that yaegi's tables lack (Go's type data
// is newer than yaegi's tables: maps.Keys, slices.Sort, …).
func checkAvailable(x *Cell, ps []*Run) error {
	var missing *ast.Ident
	var missingObj types.Object
	inspect(ps, func(n ast.Node) bool {
		id, ok := n.(*ast.Ident)
		if !ok || missing != nil {
			return missing == nil
		}
		obj := x.cc.Info.Uses[id]
		if obj == nil || obj.Pkg() == nil || obj.Parent() != obj.Pkg().Scope() {
			return true
		}
		path := obj.Pkg().Path()
		if path == "main" || path == "unsafe" || x.env.Extra(path) {
			return true
		}
		if _, ok := x.env.Members(path)[obj.Name()]; ok {
			return true
		}
		if genericNames()[path][obj.Name()] {
			return true
		}
		missing, missingObj = id, obj
		return false
	})
	if missing == nil {
		return nil
	}
	name := missingObj.Pkg().Name() + "." + missingObj.Name()
	hint := ""
	switch missingObj.Pkg().Path() {
	case "slices":
		hint = "; its slices package lacks the sorting functions (Sort, SortFunc, Min, Max, BinarySearch, …): use sort.Ints, sort.Slice or a loop"
	case "maps":
		hint = "; maps.Keys and maps.Values (Go 1.23 iterators) are not there: range over the map"
	}
	return newError("Unsupported", fmt.Sprintf("%s is not in the interpreter's standard library (yaegi's tables are Go 1.22's)%s", name, hint), x.at(missing))
}

// foldConstants writes every constant declaration with the values Go's
// checker computed: each constant gets its type and its exact value, so
// iota and implicit repetition are gone before yaegi sees them.
func foldConstants(x *Cell, ps []*Run) error {
	var err error
	inspect(ps, func(n ast.Node) bool {
		g, ok := n.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST || err != nil {
			return err == nil
		}
		for _, sp := range g.Specs {
			vs := sp.(*ast.ValueSpec)
			values := make([]ast.Expr, len(vs.Names))
			var typ ast.Expr
			for i, id := range vs.Names {
				obj, _ := x.cc.Info.Defs[id].(*types.Const)
				if obj == nil {
					if id.Name == "_" {
						// A blank constant needs no value; keep it valid.
						values[i] = &ast.Ident{Name: "0", NamePos: id.Pos()}
						if i < len(vs.Values) {
							values[i] = vs.Values[i]
						}
						continue
					}
					return true
				}
				lit, ok := constLiteral(obj.Val(), obj.Type())
				if !ok {
					return true // kept as written (complex values)
				}
				e, perr := parser.ParseExprFrom(x.fset, GeneratedFile, lit, 0)
				if perr != nil {
					err = newError("InternalError", "constant "+id.Name+" = "+lit+": "+perr.Error(), x.at(id))
					return false
				}
				values[i] = e
				if !isUntyped(obj.Type()) && typ == nil {
					if typ, err = x.typeExpr(obj.Type()); err != nil {
						return false
					}
				}
			}
			if typ == nil && len(vs.Names) > 0 {
				// All untyped, or blank.
				vs.Type = nil
			} else {
				vs.Type = typ
			}
			vs.Values = values
		}
		return true
	})
	return err
}

// isUntyped reports whether t is an untyped basic type.
func isUntyped(t types.Type) bool {
	b, ok := t.(*types.Basic)
	return ok && b.Info()&types.IsUntyped != 0
}

// constLiteral writes a constant value as a Go constant expression that
// has exactly that value and, for an untyped constant, that kind (a rune
// stays a rune, a float a float). ok is false for what it does not write
// (complex values).
func constLiteral(v constant.Value, t types.Type) (string, bool) {
	b, _ := t.Underlying().(*types.Basic)
	if b == nil {
		return "", false
	}
	switch v.Kind() {
	case constant.Bool:
		return strconv.FormatBool(constant.BoolVal(v)), true
	case constant.String:
		return strconv.Quote(constant.StringVal(v)), true
	case constant.Int:
		if b.Kind() == types.UntypedRune {
			if r, ok := constant.Int64Val(v); ok && r >= 0 && r <= 0x10FFFF {
				return strconv.QuoteRune(rune(r)), true
			}
		}
		if b.Info()&types.IsFloat != 0 || b.Kind() == types.UntypedFloat {
			return "(" + v.ExactString() + ".0)", true
		}
		return v.ExactString(), true
	case constant.Float:
		if b.Info()&types.IsInteger != 0 {
			// An integer-valued float kept in an integer type.
			return constant.ToInt(v).ExactString(), constant.ToInt(v).Kind() == constant.Int
		}
		num, den := constant.Num(v), constant.Denom(v)
		if num.Kind() != constant.Int || den.Kind() != constant.Int {
			return "", false
		}
		if den.ExactString() == "1" {
			return "(" + num.ExactString() + ".0)", true
		}
		return "(" + num.ExactString() + ".0/" + den.ExactString() + ".0)", true
	}
	return "", false
}

// typeExpr returns a type as an expression the interpreter resolves in
// the cell: the session's own types by name, other packages' types
// through imports the cell gets (see autoImport).
func (x *Cell) typeExpr(t types.Type) (ast.Expr, error) {
	src := types.TypeString(t, x.qualify)
	e, err := parser.ParseExprFrom(x.fset, GeneratedFile, src, 0)
	if err != nil {
		return nil, newError("InternalError", "writing type "+src+": "+err.Error())
	}
	return e, nil
}

// qualify names a package for typeExpr: the name the session binds to its
// path, else its own name when that is free, else a private one. The
// import is added to the cell's automatic imports.
func (x *Cell) qualify(p *types.Package) string {
	if p.Path() == "main" {
		return ""
	}
	if x.typeImports == nil {
		x.typeImports = map[string]string{}
	}
	for name, path := range x.typeImports {
		if path == p.Path() {
			return name
		}
	}
	name := p.Name()
	if bound := x.env.ImportPath(name); (bound != "" && bound != p.Path()) || x.env.Object(name) != nil || x.cc.Pkg.Scope().Lookup(name) != nil || x.ci.declared[name] {
		name = "__gnb_" + strings.NewReplacer("/", "_", ".", "_", "-", "_").Replace(p.Path())
	}
	x.typeImports[name] = p.Path()
	return name
}

// explicitTypeArgs writes the type arguments of every generic call (and
// instantiated generic function value) explicitly, as Go's checker
// inferred them; the builtins min and max become constants or calls of
// the prelude's generic functions with their type.
func explicitTypeArgs(x *Cell, ps []*Run) error {
	var err error
	var stack []ast.Node
	rewrite := map[ast.Expr]ast.Expr{} // expression → its replacement
	inspect(ps, func(n ast.Node) bool {
		if err != nil {
			return false
		}
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		stack = append(stack, n)
		switch n := n.(type) {
		case *ast.CallExpr:
			if e, ok := x.builtinMinMax(n); ok {
				rewrite[n] = e
			}
		case *ast.Ident:
			inst, ok := x.cc.Info.Instances[n]
			if !ok {
				return true
			}
			if _, isFunc := x.cc.Info.Uses[n].(*types.Func); !isFunc {
				return true // a generic type: Go has no inference for those
			}
			// n, or the selector pkg.n, is the generic function; an
			// index expression around it writes some type arguments.
			var fun ast.Expr = n
			parent := stack[len(stack)-2]
			if sel, ok := parent.(*ast.SelectorExpr); ok && sel.Sel == n {
				fun = sel
				if len(stack) >= 3 {
					parent = stack[len(stack)-3]
				}
			}
			switch p := parent.(type) {
			case *ast.IndexExpr:
				if p.X == fun && inst.TypeArgs.Len() == 1 {
					return true
				}
			case *ast.IndexListExpr:
				if p.X == fun && inst.TypeArgs.Len() == len(p.Indices) {
					return true
				}
			}
			var args []ast.Expr
			for i := 0; i < inst.TypeArgs.Len(); i++ {
				a, e := x.typeExpr(inst.TypeArgs.At(i))
				if e != nil {
					err = e
					return false
				}
				args = append(args, a)
			}
			idx := &ast.IndexListExpr{X: fun, Lbrack: fun.End(), Indices: args, Rbrack: fun.End()}
			switch p := parent.(type) {
			case *ast.IndexExpr:
				if p.X == fun {
					rewrite[p] = idx
					return true
				}
			case *ast.IndexListExpr:
				if p.X == fun {
					rewrite[p] = idx
					return true
				}
			}
			rewrite[fun] = idx
		}
		return true
	})
	if err != nil {
		return err
	}
	replaceAll(ps, rewrite)
	return nil
}

// builtinMinMax returns what replaces a call of the builtin min or max: its
// constant value when it has one (Go computes those at compile time), else
// a call of the prelude's function of that name, instantiated at the
// call's type, with an explicit empty variadic part when it has one
// argument (yaegi fails on a generic variadic call without one).
func (x *Cell) builtinMinMax(c *ast.CallExpr) (ast.Expr, bool) {
	id, ok := unparen(c.Fun).(*ast.Ident)
	if !ok {
		return nil, false
	}
	b, ok := x.cc.Info.Uses[id].(*types.Builtin)
	if !ok || (b.Name() != "min" && b.Name() != "max") {
		return nil, false
	}
	tv := x.cc.Info.Types[c]
	if tv.Value != nil {
		lit, ok := constLiteral(tv.Value, tv.Type)
		if !ok {
			return nil, false
		}
		e, err := parser.ParseExprFrom(x.fset, GeneratedFile, lit, 0)
		if err != nil {
			return nil, false
		}
		if !isUntyped(tv.Type) {
			t, err := x.typeExpr(tv.Type)
			if err != nil {
				return nil, false
			}
			e = &ast.CallExpr{Fun: t, Args: []ast.Expr{e}, Lparen: c.Pos(), Rparen: c.End()}
		}
		return e, true
	}
	t, err := x.typeExpr(tv.Type)
	if err != nil {
		return nil, false
	}
	call := &ast.CallExpr{Fun: &ast.IndexExpr{X: id, Lbrack: id.End(), Index: t, Rbrack: id.End()}, Lparen: c.Lparen, Args: c.Args, Rparen: c.Rparen}
	if len(c.Args) == 1 {
		empty := &ast.CompositeLit{Type: &ast.ArrayType{Elt: t}, Lbrace: c.Rparen, Rbrace: c.Rparen}
		call.Args = []ast.Expr{c.Args[0], empty}
		call.Ellipsis = c.Rparen
	}
	return call, true
}

// replaceAll replaces the expressions of the map in every run of the cell
// (see replaceExprs).
func replaceAll(ps []*Run, with map[ast.Expr]ast.Expr) {
	if len(with) == 0 {
		return
	}
	for _, p := range ps {
		replaceExprs(p.node(), with)
	}
}

// replaceExprs replaces, in n, the expressions of the map by their
// values; a replacement is not searched again.
func replaceExprs(n ast.Node, with map[ast.Expr]ast.Expr) {
	if len(with) == 0 {
		return
	}
	var visit func(n ast.Node)
	swap := func(p *ast.Expr) {
		if *p == nil {
			return
		}
		if r, ok := with[*p]; ok {
			*p = r
			// The replacement's own subexpressions may hold more.
			visit(r)
			return
		}
		visit(*p)
	}
	swapList := func(list []ast.Expr) {
		for i := range list {
			swap(&list[i])
		}
	}
	visit = func(n ast.Node) {
		switch n := n.(type) {
		case nil:
		case *ast.IndexListExpr:
			// A replacement built around an original expression: visit
			// what it holds without replacing the node it wraps.
			if _, ok := with[n.X]; ok {
				visit(n.X)
			} else {
				swap(&n.X)
			}
			swapList(n.Indices)
		case *ast.CallExpr:
			swap(&n.Fun)
			swapList(n.Args)
		case *ast.BinaryExpr:
			swap(&n.X)
			swap(&n.Y)
		case *ast.UnaryExpr:
			swap(&n.X)
		case *ast.StarExpr:
			swap(&n.X)
		case *ast.ParenExpr:
			swap(&n.X)
		case *ast.SelectorExpr:
			swap(&n.X)
		case *ast.IndexExpr:
			swap(&n.X)
			swap(&n.Index)
		case *ast.SliceExpr:
			swap(&n.X)
			swap(&n.Low)
			swap(&n.High)
			swap(&n.Max)
		case *ast.TypeAssertExpr:
			swap(&n.X)
		case *ast.KeyValueExpr:
			swap(&n.Key)
			swap(&n.Value)
		case *ast.CompositeLit:
			swapList(n.Elts)
		case *ast.FuncLit:
			visit(n.Body)
		case *ast.ExprStmt:
			swap(&n.X)
		case *ast.AssignStmt:
			swapList(n.Lhs)
			swapList(n.Rhs)
		case *ast.ReturnStmt:
			swapList(n.Results)
		case *ast.SendStmt:
			swap(&n.Chan)
			swap(&n.Value)
		case *ast.IncDecStmt:
			swap(&n.X)
		case *ast.GoStmt:
			visit(n.Call)
		case *ast.DeferStmt:
			visit(n.Call)
		case *ast.ValueSpec:
			swapList(n.Values)
		case *ast.GenDecl:
			for _, sp := range n.Specs {
				visit(sp)
			}
		case *ast.DeclStmt:
			visit(n.Decl)
		case *ast.FuncDecl:
			visit(n.Body)
		case *ast.File:
			for _, d := range n.Decls {
				visit(d)
			}
		case *ast.BlockStmt:
			for _, st := range n.List {
				visit(st)
			}
		case *ast.IfStmt:
			visit(n.Init)
			swap(&n.Cond)
			visit(n.Body)
			visit(n.Else)
		case *ast.ForStmt:
			visit(n.Init)
			swap(&n.Cond)
			visit(n.Post)
			visit(n.Body)
		case *ast.RangeStmt:
			swap(&n.X)
			visit(n.Body)
		case *ast.SwitchStmt:
			visit(n.Init)
			swap(&n.Tag)
			visit(n.Body)
		case *ast.TypeSwitchStmt:
			visit(n.Init)
			visit(n.Assign)
			visit(n.Body)
		case *ast.CaseClause:
			swapList(n.List)
			for _, st := range n.Body {
				visit(st)
			}
		case *ast.SelectStmt:
			visit(n.Body)
		case *ast.CommClause:
			visit(n.Comm)
			for _, st := range n.Body {
				visit(st)
			}
		case *ast.LabeledStmt:
			visit(n.Stmt)
		}
	}
	visit(n)
}

// convertTopDefs converts the value of a top-level definition that holds
// an index expression or a generic call to its type, as Go's checker
// found it: x := T(e). yaegi types the right-hand side of a definition of
// top-level code before compiling it, and its inference has no case for
// indexing a compiled slice, array, map or string (`r := g.Roots(1, 1)[0]`
// fails with "constant definition loop") nor for a generic call ("nil
// reflect type"); converted, the same code compiles.
func convertTopDefs(x *Cell, ps []*Run) error {
	convert := func(e ast.Expr) (ast.Expr, error) {
		tv, ok := x.cc.Info.Types[e]
		if !ok || tv.Type == nil || tv.Value != nil || isUntyped(tv.Type) || !needsConversion(x.cc.Info, e) || !x.writable(tv.Type) {
			return e, nil
		}
		if _, isTuple := tv.Type.(*types.Tuple); isTuple {
			return e, nil
		}
		t, err := x.typeExpr(tv.Type)
		if err != nil {
			return nil, err
		}
		return &ast.CallExpr{Fun: &ast.ParenExpr{Lparen: e.Pos(), X: t, Rparen: e.Pos()}, Lparen: e.Pos(), Args: []ast.Expr{e}, Rparen: e.End()}, nil
	}
	convertAll := func(list []ast.Expr, lhs int) error {
		if len(list) != lhs {
			return nil // several variables from one value
		}
		for i, e := range list {
			c, err := convert(e)
			if err != nil {
				return err
			}
			list[i] = c
		}
		return nil
	}
	var stmt func(st ast.Stmt) error
	stmt = func(st ast.Stmt) error {
		switch st := st.(type) {
		case *ast.AssignStmt:
			if st.Tok == token.DEFINE {
				return convertAll(st.Rhs, len(st.Lhs))
			}
		case *ast.DeclStmt:
			return valueSpecs(st.Decl, convertAll)
		case *ast.IfStmt:
			if st.Init != nil {
				return stmt(st.Init)
			}
		case *ast.ForStmt:
			if st.Init != nil {
				return stmt(st.Init)
			}
		case *ast.SwitchStmt:
			if st.Init != nil {
				return stmt(st.Init)
			}
		case *ast.TypeSwitchStmt:
			if st.Init != nil {
				return stmt(st.Init)
			}
		case *ast.LabeledStmt:
			return stmt(st.Stmt)
		}
		return nil
	}
	for _, p := range ps {
		if p.decl {
			for _, d := range p.file.Decls {
				if err := valueSpecs(d, convertAll); err != nil {
					return err
				}
			}
			continue
		}
		for _, st := range p.body.List {
			if err := stmt(st); err != nil {
				return err
			}
		}
	}
	return nil
}

// valueSpecs applies f to the values of a var declaration's specs.
func valueSpecs(d ast.Decl, f func(values []ast.Expr, names int) error) error {
	g, ok := d.(*ast.GenDecl)
	if !ok || g.Tok != token.VAR {
		return nil
	}
	for _, sp := range g.Specs {
		vs := sp.(*ast.ValueSpec)
		if vs.Type != nil {
			continue // the type is written
		}
		if err := f(vs.Values, len(vs.Names)); err != nil {
			return err
		}
	}
	return nil
}

// needsConversion reports whether e holds, outside function literals, an
// index expression or a call of a generic function.
func needsConversion(info *types.Info, e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.IndexExpr:
			if tv, ok := info.Types[n.X]; ok && !tv.IsType() {
				if _, isFunc := info.Types[n.X].Type.(*types.Signature); !isFunc {
					found = true
				}
			}
		case *ast.IndexListExpr:
		case *ast.Ident:
			if _, ok := info.Instances[n]; ok {
				if _, isFunc := info.Uses[n].(*types.Func); isFunc {
					found = true
				}
			}
			if b, ok := info.Uses[n].(*types.Builtin); ok && (b.Name() == "min" || b.Name() == "max") {
				found = true
			}
		}
		return !found
	})
	return found
}

// writable reports whether a type can be written in the cell's code: every
// named type in it is the session's own (declared at package level), a
// predeclared one, or an exported type of a package the interpreter's
// tables hold; no struct in it has another package's unexported fields.
func (x *Cell) writable(t types.Type) bool {
	return x.writableIn(t, nil)
}

// writableIn is writable, where a type declared in a function counts when
// local says it does.
func (x *Cell) writableIn(t types.Type, local func(*types.TypeName) bool) bool {
	seen := map[types.Type]bool{}
	var ok func(t types.Type) bool
	ok = func(t types.Type) bool {
		if seen[t] {
			return true
		}
		seen[t] = true
		switch t := t.(type) {
		case *types.Basic:
			return t.Kind() != types.UntypedNil && t.Kind() != types.Invalid
		case *types.Named:
			obj := t.Obj()
			switch {
			case obj.Pkg() == nil:
			case obj.Pkg().Path() == "main":
				if obj.Parent() == nil || (obj.Parent() != obj.Pkg().Scope() && obj.Parent().Parent() != types.Universe) {
					if local == nil || obj.Parent() == nil || !local(obj) {
						return false // declared in a function
					}
				}
			default:
				if _, found := x.env.Members(obj.Pkg().Path())[obj.Name()]; !found {
					return false
				}
			}
			if args := t.TypeArgs(); args != nil {
				for i := 0; i < args.Len(); i++ {
					if !ok(args.At(i)) {
						return false
					}
				}
			}
			return true
		case *types.Alias:
			return ok(types.Unalias(t))
		case *types.Pointer:
			return ok(t.Elem())
		case *types.Slice:
			return ok(t.Elem())
		case *types.Array:
			return ok(t.Elem())
		case *types.Map:
			return ok(t.Key()) && ok(t.Elem())
		case *types.Chan:
			return ok(t.Elem())
		case *types.Signature:
			return t.TypeParams() == nil && ok(t.Params()) && ok(t.Results())
		case *types.Tuple:
			for i := 0; i < t.Len(); i++ {
				if !ok(t.At(i).Type()) {
					return false
				}
			}
			return true
		case *types.Struct:
			for i := 0; i < t.NumFields(); i++ {
				f := t.Field(i)
				if !f.Exported() && f.Pkg() != nil && f.Pkg().Path() != "main" {
					return false
				}
				if !ok(f.Type()) {
					return false
				}
			}
			return true
		case *types.Interface:
			for i := 0; i < t.NumExplicitMethods(); i++ {
				m := t.ExplicitMethod(i)
				if !m.Exported() && m.Pkg() != nil && m.Pkg().Path() != "main" {
					return false
				}
				if !ok(m.Type()) {
					return false
				}
			}
			for i := 0; i < t.NumEmbeddeds(); i++ {
				if !ok(t.EmbeddedType(i)) {
					return false
				}
			}
			return true
		case *types.TypeParam:
			return true
		}
		return false
	}
	return ok(t)
}

// wrapTopCommaOk writes a comma-ok definition of top-level code (v, ok :=
// m[k], <-ch, x.(T)) as a call of a function literal that returns the two
// values with their types: yaegi cannot compile the form outside a
// function ("nil type").
//
//	v, ok := <-ch  →  v, ok := func() (T, bool) { __gnb_v, __gnb_ok := <-ch; return __gnb_v, __gnb_ok }()
func wrapTopCommaOk(x *Cell, ps []*Run) error {
	for _, p := range ps {
		if p.decl {
			continue
		}
		for _, st := range p.body.List {
			a, ok := st.(*ast.AssignStmt)
			if !ok || a.Tok != token.DEFINE || len(a.Lhs) != 2 || len(a.Rhs) != 1 || !isCommaOkExpr(x.cc.Info, a.Rhs[0]) {
				continue
			}
			tuple, ok := x.cc.Info.Types[a.Rhs[0]].Type.(*types.Tuple)
			if !ok || tuple.Len() != 2 || !x.writable(tuple.At(0).Type()) {
				continue
			}
			t, err := x.typeExpr(tuple.At(0).Type())
			if err != nil {
				return err
			}
			pos := a.Rhs[0].Pos()
			v, okName := &ast.Ident{Name: "__gnb_v", NamePos: pos}, &ast.Ident{Name: "__gnb_ok", NamePos: pos}
			lit := &ast.FuncLit{
				Type: &ast.FuncType{Func: pos, Params: &ast.FieldList{}, Results: &ast.FieldList{List: []*ast.Field{
					{Type: t}, {Type: &ast.Ident{Name: "bool", NamePos: pos}},
				}}},
				Body: &ast.BlockStmt{Lbrace: pos, List: []ast.Stmt{
					&ast.AssignStmt{Lhs: []ast.Expr{v, okName}, TokPos: pos, Tok: token.DEFINE, Rhs: []ast.Expr{a.Rhs[0]}},
					&ast.ReturnStmt{Return: pos, Results: []ast.Expr{ast.NewIdent(v.Name), ast.NewIdent(okName.Name)}},
				}, Rbrace: a.Rhs[0].End()},
			}
			a.Rhs[0] = &ast.CallExpr{Fun: lit, Lparen: a.Rhs[0].End(), Rparen: a.Rhs[0].End()}
		}
	}
	return nil
}

// isCommaOkExpr reports whether e is a map index, a receive or a type
// assertion used in its two-value form.
func isCommaOkExpr(info *types.Info, e ast.Expr) bool {
	switch e := unparen(e).(type) {
	case *ast.IndexExpr:
		_, isMap := info.Types[e.X].Type.Underlying().(*types.Map)
		return isMap
	case *ast.UnaryExpr:
		return e.Op == token.ARROW
	case *ast.TypeAssertExpr:
		return e.Type != nil
	}
	return false
}
