package session

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"reflect"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/graphnb/graphnb/session/internal/rewrite"
	"github.com/graphnb/graphnb/session/typedata"
)

// Go's type checker in front of the interpreter.
//
// Every cell is type-checked with go/types before anything of it runs, in
// the context of the session: the names earlier cells declared, the real
// types of the standard library and of graphnb's packages (typedata), and
// the language of Go 1.22 (what yaegi implements). A cell Go would reject
// is refused with Go's message at the cell's line; what the checker learns
// (the type of every expression, what every name denotes) drives the
// rewrites the interpreter needs.
//
// The session is checked as one package, "main". A cell becomes a file of
// that package: its declarations at package level, its statements in the
// body of a function. Names declared by earlier cells are not checked
// again: their objects are inserted into the package's scope, so a cell
// costs what its own code costs. Variables a cell's statements define
// (x := …) become package-level names for the cells after it.
//
// Redefinitions. A cell may declare a name again (a function, a method, a
// type, a constant, a variable). The latest definition is what later code
// sees, and the declarations that use the name (its dependents, found from
// what the checker resolved) are checked again with the new definition in
// the same check: if one no longer compiles, the cell is refused with the
// dependent's error and where it is; if all do, the interpreter compiles
// the dependent functions, methods and constants again, right after the
// code that declares the name again (yaegi binds a name to the definition
// it saw when it compiled the code that uses it). Variables are values:
// they are not recomputed.

// checkGoVersion is the language version cells are checked against: the
// Go that built the kernel (its go/types). yaegi v0.16.1 implements Go
// 1.22 (with the kernel's help for range over int and per-iteration loop
// variables); the "language" pass writes what came later in Go 1.22
// (new(expr)) or refuses it by name (range over a function, generic
// aliases).
var checkGoVersion = goVersionOf(runtime.Version())

// goVersionOf is the language version ("go1.26") of a toolchain version
// ("go1.26.8", "go1.27rc1"); go1.22 when it cannot tell.
func goVersionOf(v string) string {
	if m := regexp.MustCompile(`^go1\.(\d+)`).FindStringSubmatch(v); m != nil {
		return "go1." + m[1]
	}
	return "go1.22"
}

// cellFuncName is the function whose body holds a cell's statements in
// the checked file.
const cellFuncName = rewrite.CellFuncName

// checker is the session as Go's type checker sees it.
type checker struct {
	fset       *token.FileSet
	imp        *typedata.Importer
	extra      map[string]*types.Package // packages of Options.Symbols that the data lacks
	importPath func(name string) string  // the package a bare name denotes in a cell, or ""

	// mu guards names and methods for readers outside the cell that runs
	// (completion, inspection); the running cell changes them under it.
	mu      sync.RWMutex
	names   map[string]*binding            // package-level names of the session
	methods map[string]map[string]*binding // receiver base type name → method name → declaration

	last time.Duration // how long the last cell's check took (for benchmarks)
}

// binding is a package-level name (or a method) of the session.
type binding struct {
	obj  types.Object
	decl *declSource     // its declaration, to check again; nil: a variable, declared again from its type
	deps map[string]bool // the session's names its declaration uses
}

// declSource is the source of a top-level declaration of a cell.
type declSource struct {
	text   string // the declaration, starting with its keyword
	file   string // the cell's file name (cellFile)
	line   int    // where the declaration starts in that cell
	col    int
	kind   string // kindFunc, kindType, kindConst, or kindMethod
	serial int    // the cell's serial number
}

// kindMethod marks the declaration of a method.
const kindMethod = "method"

// newChecker returns the checker of a session whose extra packages are
// syms (Options.Symbols).
func newChecker(fset *token.FileSet, syms map[string]map[string]reflect.Value, importPath func(string) string) (*checker, error) {
	c := &checker{
		fset: fset, imp: typedata.Default(), importPath: importPath, extra: map[string]*types.Package{},
		names: map[string]*binding{}, methods: map[string]map[string]*binding{},
	}
	for key, table := range syms {
		i := strings.LastIndexByte(key, '/')
		if i <= 0 {
			continue
		}
		path, name := key[:i], key[i+1:]
		if c.imp.Name(path) != "" {
			continue
		}
		pkg, err := c.imp.FromSymbols(path, name, table)
		if err != nil {
			return nil, err
		}
		c.extra[path] = pkg
	}
	return c, nil
}

// Import implements types.Importer for the checks: the extra packages,
// then the embedded data.
func (c *checker) Import(path string) (*types.Package, error) {
	if p := c.extra[path]; p != nil {
		return p, nil
	}
	if path == "unsafe" {
		return types.Unsafe, nil
	}
	if c.imp.Name(path) == "" {
		return nil, fmt.Errorf("package %q is not available: cells can import the standard library (as of Go 1.22, yaegi's tables) and graphnb's packages", path)
	}
	return c.imp.Import(path)
}

// cellCheck is what checking one cell found.
type cellCheck struct {
	*rewrite.Facts // the types, and the names the passes rename

	// final is the type of the cell's final expression statement: nil
	// when it has no value, a *types.Tuple for a call with several
	// results. finalOK: the cell ends with an expression statement.
	final   types.Type
	finalOK bool

	// redo maps a name the cell declares again to the earlier
	// declarations (functions, methods, constants) that use it, directly
	// or not, parsed and checked: the interpreter compiles them again
	// after the code that declares the name.
	redo map[string][]*ast.File

	// commit records what a unit of the cell (a declaration run, or a
	// top-level statement) declared; the session calls it once the unit
	// has compiled.
	commit func(unit ast.Node)
}

// cellDecls is what a cell declares.
type cellDecls struct {
	names   map[string]bool            // package-level names (functions, types, constants, variables)
	methods map[string]map[string]bool // receiver base type → its methods the cell declares
	defs    map[string]bool            // variables its top-level statements define
	imports map[string]bool            // package names its import declarations bind
}

// declared lists what the declarations and top-level statements of a
// cell declare.
func declared(decls []ast.Decl, stmts []ast.Stmt) *cellDecls {
	d := &cellDecls{names: map[string]bool{}, methods: map[string]map[string]bool{}, defs: map[string]bool{}, imports: map[string]bool{}}
	for _, decl := range decls {
		switch decl := decl.(type) {
		case *ast.FuncDecl:
			if decl.Recv == nil {
				if decl.Name.Name != "_" && decl.Name.Name != "init" {
					d.names[decl.Name.Name] = true
				}
				continue
			}
			if base := rewrite.RecvBase(decl); base != "" {
				if d.methods[base] == nil {
					d.methods[base] = map[string]bool{}
				}
				d.methods[base][decl.Name.Name] = true
			}
		case *ast.GenDecl:
			for _, sp := range decl.Specs {
				switch sp := sp.(type) {
				case *ast.ImportSpec:
					if sp.Name != nil {
						d.imports[sp.Name.Name] = true
					} else if p, err := strconv.Unquote(sp.Path.Value); err == nil {
						d.imports[path2name(p)] = true
					}
				case *ast.TypeSpec:
					d.names[sp.Name.Name] = true
				case *ast.ValueSpec:
					for _, id := range sp.Names {
						if id.Name != "_" {
							d.names[id.Name] = true
						}
					}
				}
			}
		}
	}
	for id := range rewrite.TopLevelDefs(stmts) {
		d.defs[id.Name] = true
	}
	return d
}

// path2name is the name a package of that path is imported under by
// default (the data knows names exactly; this is for the checks' own
// bookkeeping): the last element, or the one before a major version.
func path2name(p string) string {
	name := p[strings.LastIndexByte(p, '/')+1:]
	if len(name) >= 2 && name[0] == 'v' && strings.Trim(name[1:], "0123456789") == "" && len(p) > len(name) {
		rest := p[:len(p)-len(name)-1]
		return rest[strings.LastIndexByte(rest, '/')+1:]
	}
	return name
}

// goError is one error of the type checker.
type goError struct {
	msg  string
	pos  token.Position
	soft bool
	more []goError // continuation lines ("\tother declaration of x")
}

// plan is the file a check builds and what it needs to know about it.
type plan struct {
	d        *cellDecls
	affected map[string]bool // earlier names checked again (their old objects left out)
	decls    []ast.Decl      // the cell's declarations
	stmts    []ast.Stmt      // the cell's top-level statements
	again    []*again        // earlier declarations checked again
	hoisted  map[string]types.Type
}

// again is an earlier declaration checked again.
type again struct {
	name string // "f", "T", "T.M", or a variable's name
	file *ast.File
	src  *declSource // nil: a variable declared from its type
}

// check type-checks a cell: decls are its declaration runs' declarations,
// stmts its top-level statements. A Go error is returned as an *Error
// (CompileError) with Go's message.
func (x *execution) check(decls []ast.Decl, stmts []ast.Stmt) (*cellCheck, error) {
	c := x.s.check
	start := time.Now()
	defer func() { c.last = time.Since(start) }()
	p := &plan{d: declared(decls, stmts), decls: decls, stmts: stmts}

	// The names the cell declares again, and the earlier types that get
	// methods.
	changed := map[string]bool{}
	for n := range p.d.names {
		if c.names[n] != nil {
			changed[n] = true
		}
	}
	for n := range p.d.defs {
		if c.names[n] != nil {
			changed[n] = true
		}
	}
	for base, ms := range p.d.methods {
		if p.d.names[base] || c.names[base] == nil {
			continue
		}
		changed[base] = true // its method set changes: it is declared again
		for m := range ms {
			if c.methods[base][m] != nil {
				changed[base+"."+m] = true
			}
		}
	}
	p.affected = c.dependents(changed)

	// Variables the cell's statements define that its declarations, or
	// the earlier ones checked again, use are declared at package level
	// too, with the types a first check finds.
	var hoist map[string]bool
	if len(p.d.defs) > 0 {
		hoist = c.usedDefs(p)
	}
	if len(hoist) > 0 {
		first, _, err := x.runCheck(p)
		if err != nil {
			return nil, err
		}
		p.hoisted = map[string]types.Type{}
		for id := range rewrite.TopLevelDefs(stmts) {
			if hoist[id.Name] {
				if obj := first.Info.Defs[id]; obj != nil && obj.Type() != nil && obj.Type() != types.Typ[types.Invalid] {
					p.hoisted[id.Name] = obj.Type()
				}
			}
		}
	}
	cc, errs, err := x.runCheck(p)
	if err != nil {
		return nil, err
	}
	// Each cell is checked in a package object of its own, and go/types
	// compares those by identity where it refuses an unexported field set
	// by position (it compares by path elsewhere): a struct of an earlier
	// cell with unexported fields written S{1, 2} would be refused. Such a
	// literal is written with its field names, which means the same, and
	// checked again.
	for round := 0; round < 4 && len(errs) > 0 && x.keyLiterals(p, cc.Info, errs); round++ {
		if cc, errs, err = x.runCheck(p); err != nil {
			return nil, err
		}
	}
	if len(errs) > 0 {
		return nil, x.checkFailure(errs, changed)
	}

	// What the interpreter compiles again, after the code that declares
	// each changed name.
	cc.redo = map[string][]*ast.File{}
	for n := range changed {
		for _, a := range p.again {
			if a.src == nil || a.src.kind == kindType || !c.dependsOn(a.name, n) {
				continue
			}
			cc.redo[n] = append(cc.redo[n], a.file)
		}
	}
	cc.commit = c.bindings(cc, p, x.sourceText)
	return cc, nil
}

// usedDefs returns the variables defined by the cell's top-level
// statements that its declarations or the earlier declarations checked
// again use.
func (c *checker) usedDefs(p *plan) map[string]bool {
	used := map[string]bool{}
	for _, decl := range p.decls {
		ast.Inspect(decl, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && p.d.defs[id.Name] {
				used[id.Name] = true
			}
			return true
		})
	}
	for n := range p.affected {
		if b := c.lookup(n); b != nil {
			for dep := range b.deps {
				if p.d.defs[dep] {
					used[dep] = true
				}
			}
		}
	}
	return used
}

// runCheck builds the plan's file and checks it. It returns the errors
// Go reports, less those of notebook semantics: top-level variables need
// no use, and the final expression statement is the cell's result.
func (x *execution) runCheck(p *plan) (*cellCheck, []goError, error) {
	c := x.s.check
	qual := &qualifier{c: c, cell: p.d, extra: map[string]string{}}

	// Earlier declarations checked again.
	p.again = nil
	names := make([]string, 0, len(p.affected))
	for n := range p.affected {
		names = append(names, n)
	}
	sort.Strings(names)
	var varLines []string
	seen := map[*declSource]bool{}
	for _, n := range names {
		if p.d.names[n] || p.d.defs[n] {
			continue // the cell declares it
		}
		if base, m, ok := strings.Cut(n, "."); ok && p.d.methods[base][m] {
			continue
		}
		b := c.lookup(n)
		if b == nil {
			continue
		}
		if b.decl == nil {
			varLines = append(varLines, fmt.Sprintf("var %s %s", n, types.TypeString(b.obj.Type(), qual.qualify)))
			p.again = append(p.again, &again{name: n})
			continue
		}
		if seen[b.decl] {
			continue
		}
		seen[b.decl] = true
		f, err := b.decl.parse(c.fset)
		if err != nil {
			return nil, nil, newError("InternalError", "checking "+n+" again: "+err.Error())
		}
		p.again = append(p.again, &again{name: n, file: f, src: b.decl})
	}
	hoisted := make([]string, 0, len(p.hoisted))
	for n := range p.hoisted {
		hoisted = append(hoisted, n)
	}
	sort.Strings(hoisted)
	for _, n := range hoisted {
		varLines = append(varLines, fmt.Sprintf("var %s %s", n, types.TypeString(p.hoisted[n], qual.qualify)))
	}
	var varDecls []ast.Decl
	if len(varLines) > 0 {
		src := "package main\n" + strings.Join(varLines, "\n")
		f, err := parser.ParseFile(c.fset, "__gnb_vars.go", src, parser.SkipObjectResolution)
		if err != nil {
			return nil, nil, newError("InternalError", "declaring variables for the type checker: "+err.Error())
		}
		varDecls = f.Decls
	}

	// The file: imports, the cell's declarations, the earlier ones, the
	// variables, and the cell's statements in a function.
	body := &ast.FuncDecl{
		Name: &ast.Ident{Name: cellFuncName},
		Type: &ast.FuncType{Params: &ast.FieldList{}},
		Body: &ast.BlockStmt{List: p.stmts},
	}
	all := append([]ast.Decl{}, p.decls...)
	for _, a := range p.again {
		if a.file != nil {
			all = append(all, a.file.Decls...)
		}
	}
	all = append(append(all, varDecls...), body)
	file := &ast.File{Name: &ast.Ident{Name: "main"}}
	file.Decls = append(qual.importDecls(all), all...)

	// The package: the session's names, less those declared here.
	declaredHere := map[string]bool{}
	for _, decl := range all {
		for _, n := range rewrite.DeclNames(decl) {
			declaredHere[n] = true
		}
	}
	pkg := types.NewPackage("main", "main")
	for n, b := range c.names {
		if !declaredHere[n] {
			pkg.Scope().Insert(b.obj)
		}
	}
	info := &types.Info{
		Types:      map[ast.Expr]types.TypeAndValue{},
		Instances:  map[*ast.Ident]types.Instance{},
		Defs:       map[*ast.Ident]types.Object{},
		Uses:       map[*ast.Ident]types.Object{},
		Implicits:  map[ast.Node]types.Object{},
		Selections: map[*ast.SelectorExpr]*types.Selection{},
		Scopes:     map[ast.Node]*types.Scope{},
	}
	var errs []goError
	conf := types.Config{
		GoVersion:                checkGoVersion,
		Sizes:                    types.SizesFor("gc", runtime.GOARCH), // unsafe.Sizeof as the compiler has it
		Importer:                 c,
		DisableUnusedImportCheck: true,
		Error: func(err error) {
			te, ok := err.(types.Error)
			if !ok {
				return
			}
			e := goError{msg: te.Msg, pos: c.fset.Position(te.Pos), soft: te.Soft}
			if strings.HasPrefix(te.Msg, "\t") && len(errs) > 0 {
				// The continuation of the error before ("\tother
				// declaration of x").
				last := &errs[len(errs)-1]
				last.more = append(last.more, e)
				return
			}
			errs = append(errs, e)
		},
	}
	failed := func() (err error) {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("%v", r)
			}
		}()
		types.NewChecker(&conf, c.fset, pkg, info).Files([]*ast.File{file})
		return nil
	}()
	if failed != nil {
		return nil, nil, newError("InternalError", "Go's type checker failed on this cell ("+failed.Error()+"); write the construct more plainly")
	}

	topVars := map[token.Pos]bool{}
	for id := range rewrite.TopLevelDefs(p.stmts) {
		topVars[id.Pos()] = true
	}
	var final ast.Expr
	if n := len(p.stmts); n > 0 {
		if es, ok := p.stmts[n-1].(*ast.ExprStmt); ok {
			final = es.X
		}
	}
	finalPos := token.Position{}
	if final != nil {
		finalPos = c.fset.Position(final.Pos())
	}
	var real []goError
	for _, e := range errs {
		switch {
		case strings.HasPrefix(e.msg, "declared and not used: ") && topVarAt(c.fset, topVars, e.pos):
			continue
		case final != nil && strings.HasSuffix(e.msg, " is not used") && e.pos == finalPos:
			continue
		}
		real = append(real, e)
	}
	cc := &cellCheck{Facts: &rewrite.Facts{Info: info, Pkg: pkg}}
	if final != nil {
		cc.finalOK = true
		if tv, ok := info.Types[final]; ok && !tv.IsVoid() {
			cc.final = tv.Type
		}
	}
	return cc, real, nil
}

// topVarAt reports whether a top-level variable of the cell is declared at
// pos.
func topVarAt(fset *token.FileSet, vars map[token.Pos]bool, pos token.Position) bool {
	for p := range vars {
		if fset.Position(p) == pos {
			return true
		}
	}
	return false
}

// lookup returns the binding of a name or of a method ("T.M").
func (c *checker) lookup(n string) *binding {
	if base, m, ok := strings.Cut(n, "."); ok {
		return c.methods[base][m]
	}
	return c.names[n]
}

// dependents returns the names whose declarations must be checked again
// when those in changed are declared again: those names and everything
// that uses one of them, transitively; a type takes its methods along.
func (c *checker) dependents(changed map[string]bool) map[string]bool {
	affected := map[string]bool{}
	var queue []string
	add := func(n string) {
		if !affected[n] {
			affected[n] = true
			queue = append(queue, n)
		}
	}
	for n := range changed {
		add(n)
	}
	if len(queue) == 0 {
		return affected
	}
	users := c.users()
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, u := range users[n] {
			add(u)
		}
		if b := c.names[n]; b != nil && b.decl != nil && b.decl.kind == kindType {
			for m := range c.methods[n] {
				add(n + "." + m)
			}
		}
	}
	return affected
}

// users maps each name to the names whose declarations use it.
func (c *checker) users() map[string][]string {
	users := map[string][]string{}
	for n, b := range c.names {
		for dep := range b.deps {
			users[dep] = append(users[dep], n)
		}
	}
	for t, ms := range c.methods {
		for m, b := range ms {
			for dep := range b.deps {
				users[dep] = append(users[dep], t+"."+m)
			}
		}
	}
	return users
}

// dependsOn reports whether the declaration of a uses b, directly or not.
func (c *checker) dependsOn(a, b string) bool {
	seen := map[string]bool{}
	var walk func(n string) bool
	walk = func(n string) bool {
		if n == b {
			return true
		}
		if seen[n] {
			return false
		}
		seen[n] = true
		bind := c.lookup(n)
		if bind == nil {
			return false
		}
		for dep := range bind.deps {
			if walk(dep) {
				return true
			}
		}
		if base, _, ok := strings.Cut(n, "."); ok && walk(base) {
			return true
		}
		return false
	}
	return walk(a)
}

// checkFailure turns the checker's errors into the cell's error: Go's
// message at the cell's line, or, for an error in an earlier declaration
// checked again, that declaration, where it is and what broke it.
func (x *execution) checkFailure(errs []goError, changed map[string]bool) *Error {
	own := cellFile(x.serial)
	// Go's order, the cell's own errors first, hard errors before soft
	// ones (an unused variable matters less than a wrong type).
	sort.SliceStable(errs, func(i, j int) bool {
		a, b := errs[i], errs[j]
		if (a.pos.Filename == own) != (b.pos.Filename == own) {
			return a.pos.Filename == own
		}
		return !a.soft && b.soft
	})
	var locs []string
	where := func(e goError) string {
		p := position{line: e.pos.Line, col: e.pos.Column}
		if m := cellPosRE.FindStringSubmatch(e.pos.Filename + ":1:1"); m != nil {
			p.serial, _ = strconv.Atoi(m[1])
		}
		return x.s.describe(p)
	}
	for i, e := range errs {
		if i == 3 {
			break
		}
		loc := where(e)
		if i > 0 {
			loc += "  (" + x.s.goMessage(e.msg) + ")"
		}
		locs = append(locs, loc)
		if i == 0 {
			for _, m := range e.more {
				locs = append(locs, where(m)+"  ("+strings.TrimSpace(x.s.goMessage(m.msg))+")")
			}
		}
	}
	first := errs[0]
	msg := x.s.goMessage(first.msg)
	if first.pos.Filename != own {
		var what []string
		for n := range changed {
			what = append(what, n)
		}
		sort.Strings(what)
		msg = fmt.Sprintf("%s (in an earlier cell's declaration that uses %s, which this cell declares again: "+
			"declare that one again in this cell too, so that it fits, or keep the old definition)", msg, strings.Join(what, ", "))
	}
	return newError("CompileError", msg, locs...)
}

// parse parses a declaration's source again, at its place in its cell.
func (d *declSource) parse(fset *token.FileSet) (*ast.File, error) {
	src := fmt.Sprintf("package main\n//line %s:%d:%d\n%s", d.file, d.line, d.col, d.text)
	return parser.ParseFile(fset, "_.go", src, parser.SkipObjectResolution)
}

// bindings computes what a checked cell declares — the bindings that
// replace the session's — and returns the function that records those of
// one compiled unit. It runs before the session's rewrites change the
// cell's syntax trees.
func (c *checker) bindings(cc *cellCheck, p *plan, text sourceText) func(ast.Node) {
	info := cc.Info
	names := map[string]*binding{}
	methods := map[string]map[string]*binding{}
	record := func(decl ast.Decl, src *declSource) {
		switch decl := decl.(type) {
		case *ast.FuncDecl:
			obj := info.Defs[decl.Name]
			if obj == nil || src == nil {
				return
			}
			deps := c.uses(cc.Pkg, info, decl)
			if decl.Recv == nil {
				if decl.Name.Name == "_" || decl.Name.Name == "init" {
					return
				}
				src.kind = kindFunc
				names[decl.Name.Name] = &binding{obj: obj, decl: src, deps: deps}
				return
			}
			base := rewrite.RecvBase(decl)
			if base == "" {
				return
			}
			src.kind = kindMethod
			deps[base] = true
			if methods[base] == nil {
				methods[base] = map[string]*binding{}
			}
			methods[base][decl.Name.Name] = &binding{obj: obj, decl: src, deps: deps}
		case *ast.GenDecl:
			if decl.Tok == token.IMPORT {
				return
			}
			for i, sp := range decl.Specs {
				var ids []*ast.Ident
				switch sp := sp.(type) {
				case *ast.TypeSpec:
					ids = []*ast.Ident{sp.Name}
				case *ast.ValueSpec:
					ids = sp.Names
				}
				for _, id := range ids {
					obj := info.Defs[id]
					if obj == nil || id.Name == "_" {
						continue
					}
					b := &binding{obj: obj}
					switch decl.Tok {
					case token.VAR:
						b.deps = typeDeps(obj.Type())
					case token.CONST:
						// A constant is declared again with its whole group
						// (iota, implicit repetition).
						b.decl, b.deps = src, c.uses(cc.Pkg, info, decl)
						if src != nil {
							src.kind = kindConst
						}
					case token.TYPE:
						b.decl, b.deps = typeSource(c.fset, text, decl, i, src), c.uses(cc.Pkg, info, sp)
					}
					names[id.Name] = b
				}
			}
		}
	}
	for _, decl := range p.decls {
		record(decl, sourceOf(c.fset, text, decl))
	}
	for _, a := range p.again {
		if a.file == nil {
			if obj := cc.Pkg.Scope().Lookup(a.name); obj != nil {
				names[a.name] = &binding{obj: obj, deps: typeDeps(obj.Type())}
			}
			continue
		}
		for _, decl := range a.file.Decls {
			if g, ok := decl.(*ast.GenDecl); ok && g.Tok == token.TYPE {
				// A type keeps its own source.
				for _, sp := range g.Specs {
					ts := sp.(*ast.TypeSpec)
					if obj := info.Defs[ts.Name]; obj != nil {
						names[ts.Name.Name] = &binding{obj: obj, decl: a.src, deps: c.uses(cc.Pkg, info, ts)}
					}
				}
				continue
			}
			cp := *a.src
			record(decl, &cp)
		}
	}
	for id := range rewrite.TopLevelDefs(p.stmts) {
		obj := info.Defs[id]
		if obj == nil {
			continue // assigned, not defined (x, err := … with x declared)
		}
		if _, ok := obj.(*types.TypeName); ok {
			continue // a type declared in a statement
		}
		names[id.Name] = &binding{obj: obj, deps: typeDeps(obj.Type())}
	}
	return func(unit ast.Node) {
		c.mu.Lock()
		defer c.mu.Unlock()
		commit := func(n string) {
			if orig, ok := cc.Renamed[n]; ok {
				n = orig // a name the interpreter knows under another
			}
			if b := names[n]; b != nil {
				c.names[n] = b
			}
		}
		switch unit := unit.(type) {
		case *ast.File:
			for _, decl := range unit.Decls {
				if fd, ok := decl.(*ast.FuncDecl); ok && fd.Recv == nil {
					if obj := info.Defs[fd.Name]; obj != nil {
						commit(obj.Name()) // main, which the interpreter calls __gnb_main
					}
					continue
				}
				for _, n := range rewrite.DeclNames(decl) {
					commit(n)
				}
				if fd, ok := decl.(*ast.FuncDecl); ok && fd.Recv != nil {
					t := rewrite.RecvBase(fd)
					if b := methods[t][fd.Name.Name]; b != nil {
						if c.methods[t] == nil {
							c.methods[t] = map[string]*binding{}
						}
						c.methods[t][fd.Name.Name] = b
					}
				}
			}
			// Variables checked again with a type that changed under
			// them, and the types a cell's methods reopened, change
			// with the cell's declarations.
			for _, a := range p.again {
				if a.file == nil || a.src.kind == kindType {
					commit(a.name)
				}
			}
		case ast.Stmt:
			for id := range rewrite.TopLevelDefs([]ast.Stmt{unit}) {
				commit(id.Name)
			}
		}
	}
}

// sourceText returns the source between two positions of the cell's
// syntax trees.
type sourceText func(from, to token.Pos) (string, bool)

// sourceOf returns the source of a declaration of the cell.
func sourceOf(fset *token.FileSet, text sourceText, decl ast.Decl) *declSource {
	src, ok := text(decl.Pos(), decl.End())
	if !ok {
		return nil
	}
	start := fset.Position(decl.Pos())
	m := cellPosRE.FindStringSubmatch(start.Filename + ":1:1")
	if m == nil {
		return nil
	}
	serial, _ := strconv.Atoi(m[1])
	return &declSource{text: src, file: start.Filename, line: start.Line, col: start.Column, serial: serial}
}

// typeSource returns the source of one type of a declaration: the whole
// declaration when it has one spec, else "type" and the spec.
func typeSource(fset *token.FileSet, text sourceText, decl *ast.GenDecl, i int, whole *declSource) *declSource {
	if whole == nil {
		return nil
	}
	cp := *whole
	cp.kind = kindType
	if len(decl.Specs) == 1 {
		return &cp
	}
	sp := decl.Specs[i]
	src, ok := text(sp.Pos(), sp.End())
	if !ok {
		return nil
	}
	start := fset.Position(sp.Pos())
	cp.text = fmt.Sprintf("type /*line %s:%d:%d*/%s", start.Filename, start.Line, start.Column, src)
	return &cp
}

// uses returns the session's package-level names that a declaration refers
// to.
func (c *checker) uses(pkg *types.Package, info *types.Info, n ast.Node) map[string]bool {
	deps := map[string]bool{}
	ast.Inspect(n, func(m ast.Node) bool {
		id, ok := m.(*ast.Ident)
		if !ok {
			return true
		}
		if obj := info.Uses[id]; obj != nil && pkg.Scope().Lookup(id.Name) == obj {
			deps[id.Name] = true
		}
		return true
	})
	return deps
}

// typeDeps returns the session's types that t mentions.
func typeDeps(t types.Type) map[string]bool {
	deps := map[string]bool{}
	rewrite.TypeParts(t, func(t types.Type) bool {
		if n, ok := t.(*types.Named); ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "main" {
			deps[n.Obj().Name()] = true
		}
		return true
	})
	return deps
}

// qualifier prints the package part of types in the file a check builds,
// and collects the imports the file needs.
type qualifier struct {
	c     *checker
	cell  *cellDecls
	extra map[string]string // path → import name, for printed types
}

// qualify names a package in a printed type: the session's own package
// needs no name; another gets a private import name.
func (q *qualifier) qualify(p *types.Package) string {
	if p.Path() == "main" {
		return ""
	}
	if n, ok := q.extra[p.Path()]; ok {
		return n
	}
	n := "__gnb_pkg" + strconv.Itoa(len(q.extra))
	q.extra[p.Path()] = n
	return n
}

// importDecls returns the import declaration of a checked file: every
// package name the declarations use as a qualifier that the session has
// bound (by an import, or automatically) and the file does not declare,
// and the packages of printed types.
func (q *qualifier) importDecls(decls []ast.Decl) []ast.Decl {
	used := map[string]bool{}
	for _, d := range decls {
		ast.Inspect(d, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if id, ok := sel.X.(*ast.Ident); ok {
					used[id.Name] = true
				}
			}
			return true
		})
	}
	declaredHere := map[string]bool{}
	for _, d := range decls {
		for _, n := range rewrite.DeclNames(d) {
			declaredHere[n] = true
		}
	}
	names := make([]string, 0, len(used))
	for n := range used {
		names = append(names, n)
	}
	sort.Strings(names)
	var specs []ast.Spec
	for _, n := range names {
		if q.cell.imports[n] || declaredHere[n] || q.c.names[n] != nil {
			continue
		}
		if p := q.c.importPath(n); p != "" {
			specs = append(specs, importSpec(n, p))
		}
	}
	paths := make([]string, 0, len(q.extra))
	for p := range q.extra {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		specs = append(specs, importSpec(q.extra[p], p))
	}
	if len(specs) == 0 {
		return nil
	}
	return []ast.Decl{&ast.GenDecl{Tok: token.IMPORT, Specs: specs}}
}

func importSpec(name, path string) *ast.ImportSpec {
	return &ast.ImportSpec{Name: &ast.Ident{Name: name}, Path: &ast.BasicLit{Kind: token.STRING, Value: strconv.Quote(path)}}
}

// goMessage is a message of Go's type checker as the cell shows it: cell
// labels for file names, the reason an import failed without the
// checker's wrapping.
func (s *Session) goMessage(msg string) string {
	if rest, ok := strings.CutPrefix(msg, "could not import "); ok {
		if i := strings.Index(rest, " ("); i >= 0 && strings.HasSuffix(rest, ")") {
			return rest[i+2 : len(rest)-1]
		}
	}
	return s.cleanMessage(msg)
}

// keyLiterals writes with field names the positional struct literals that
// the checker refused for an unexported field of an earlier cell's type
// (see check); it reports whether it changed one.
func (x *execution) keyLiterals(p *plan, info *types.Info, errs []goError) bool {
	at := map[token.Position]bool{}
	for _, e := range errs {
		if strings.HasPrefix(e.msg, "implicit assignment to unexported field ") {
			at[e.pos] = true
		}
	}
	if len(at) == 0 {
		return false
	}
	fset := x.s.in.FileSet()
	changed := false
	visit := func(n ast.Node) bool {
		lit, ok := n.(*ast.CompositeLit)
		if !ok || len(lit.Elts) == 0 {
			return true
		}
		hit := false
		for _, e := range lit.Elts {
			if _, keyed := e.(*ast.KeyValueExpr); keyed {
				return true
			}
			hit = hit || at[fset.Position(e.Pos())]
		}
		if !hit {
			return true
		}
		tv, ok := info.Types[lit]
		if !ok {
			return true
		}
		t := tv.Type
		if ptr, ok := t.Underlying().(*types.Pointer); ok {
			t = ptr.Elem() // &S{…} elided in a literal of pointers
		}
		st, ok := t.Underlying().(*types.Struct)
		if !ok || st.NumFields() != len(lit.Elts) {
			return true
		}
		for i, e := range lit.Elts {
			lit.Elts[i] = &ast.KeyValueExpr{Key: &ast.Ident{Name: st.Field(i).Name(), NamePos: e.Pos()}, Colon: e.Pos(), Value: e}
		}
		changed = true
		return true
	}
	for _, d := range p.decls {
		ast.Inspect(d, visit)
	}
	for _, st := range p.stmts {
		ast.Inspect(st, visit)
	}
	return changed
}
