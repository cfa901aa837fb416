// Package rewrite rewrites the source of a notebook cell into a form that
// yaegi v0.16.1, the interpreter, runs as Go would, or refuses what it
// cannot run with a message that says how to write it instead.
//
// The session cuts a cell into runs (Split) and parses them (Parse),
// checks them with go/types, and hands the runs and the checker's facts to
// a Cell: Typed applies the passes that need the facts, Syntactic the
// older ones that work from the syntax and the interpreter's values. Every
// pass is a named value with a one-line reason (passes.go); each works
// around one gap of yaegi. What the passes need from the session (what
// earlier cells declared, the interpreter's values, the symbol tables)
// they ask through Env.
//
// Generated nodes carry the position of the code they replace, so errors
// still point at the cell's lines; generated names start with "__gnb_",
// which cells must not use, and calls of the compiled helpers (Helpers)
// go through the package name "__gnb".
package rewrite

import (
	"go/ast"
	"go/token"
	"go/types"
	"reflect"
	"regexp"
	"strconv"
)

// Kinds of the names earlier cells declared (Env.Kind).
const (
	KindVar   = "var"
	KindConst = "const"
	KindFunc  = "func"
	KindType  = "type"
)

// Env is what the passes need from the session. Names are those earlier
// cells declared or imported; the methods may be called from any of the
// passes, one cell at a time.
type Env interface {
	// Describe names a position of cell serial for a traceback line
	// ("cell[3] line 2: x := f()"); col 0: the line.
	Describe(serial, line, col int) string
	// NodeText returns the source of a node of cell serial, with spaces
	// normalised.
	NodeText(serial int, n ast.Node) string

	// Kind is KindVar, KindConst, KindFunc or KindType for a name, "" for
	// a name no earlier cell declared.
	Kind(name string) string
	// Value is the interpreter's value of a variable, constant or
	// function.
	Value(name string) (reflect.Value, bool)
	// Eval evaluates a name in the interpreter.
	Eval(name string) (reflect.Value, error)
	// FuncInt says whether the single result of a function is an integer.
	FuncInt(name string) (Tri, bool)
	// Generic is the type of a generic function, or nil.
	Generic(name string) *ast.FuncType
	// PlainTypes reports whether cells declared a type that is neither a
	// struct nor an interface (yaegi then gives values of such types an
	// unnamed type).
	PlainTypes() bool
	// Object is the checker's object of a package-level name, or nil.
	Object(name string) types.Object
	// CallsRecover reports whether a function calls recover.
	CallsRecover(name string) bool

	// ImportPath is the package a bare name denotes: a bound import, or
	// the automatic import; "" if none.
	ImportPath(name string) string
	// BoundPackage reports whether name is bound to a package in the
	// interpreter.
	BoundPackage(name string) bool
	// ImportNames are the names bound to an import path, sorted.
	ImportNames(path string) []string

	// PkgName is the name of the package at an import path.
	PkgName(path string) string
	// Members is the symbol table of a compiled package (nil for a path
	// outside the tables); Paths lists the tables' paths.
	Members(path string) map[string]reflect.Value
	Paths() []string
	// TypeRef names a compiled type by its package and name.
	TypeRef(t reflect.Type) (path, name string, ok bool)
	// Extra reports whether a package comes from the session's own symbol
	// tables (Options.Symbols) rather than the embedded export data.
	Extra(path string) bool
}

// Facts is what Go's type checker found in a cell.
type Facts struct {
	Info *types.Info
	Pkg  *types.Package
	// Renamed maps the names the interpreter knows some of the cell's
	// declarations by (typed_universe.go) to their names in Go; the
	// passes fill it.
	Renamed map[string]string
}

// A Cell is one cell being rewritten.
type Cell struct {
	env    Env
	fset   *token.FileSet
	serial int
	slots  *Slots

	ci      *cellInfo
	cc      *Facts
	here    map[string]string          // packages the cell imports: name → path
	slotted map[*ast.FuncDecl]slotDecl // methods declared through slots (methodslot.go)

	typeImports map[string]string       // packages the typed passes name in written types: name → path
	renamed     map[types.Object]string // objects the typed passes renamed (typed_shadow.go): their names in the code

	recoverFuncs map[string]bool // the cell's functions, and whether they call recover
	keepSource   bool            // later tracebacks may point into the cell (a guarded callback)
}

// NewCell starts the rewriting of cell serial, whose runs are parsed in
// fset. slots are the session's method slots (NewSlots).
func NewCell(env Env, fset *token.FileSet, serial int, slots *Slots) *Cell {
	return &Cell{env: env, fset: fset, serial: serial, slots: slots, ci: newCellInfo(env, fset, serial)}
}

// Typed applies the passes that need the checker's facts, in order (see
// typedPasses), then declares the cell's methods through slots. It
// returns the runs, with a statement run after each declaration run that
// declares methods again.
func (c *Cell) Typed(runs []*Run, facts *Facts) ([]*Run, error) {
	c.cc = facts
	for _, p := range runs {
		c.ci.collect(p.node())
	}
	for _, p := range typedPasses {
		if err := p.run(c, runs); err != nil {
			return nil, err
		}
	}
	c.slotted = map[*ast.FuncDecl]slotDecl{}
	return c.slotMethods(runs)
}

// Syntactic applies the syntactic passes (see syntaxPasses). here holds
// the packages the cell's import declarations bind (name → path).
func (c *Cell) Syntactic(runs []*Run, here map[string]string) error {
	c.here = here
	for _, p := range syntaxPasses {
		if err := p.run(c, runs); err != nil {
			return err
		}
	}
	return nil
}

// Serial is the cell's serial number.
func (c *Cell) Serial() int { return c.serial }

// Tri is a three-valued answer.
type Tri = tri

// An Error is a refusal of code yaegi cannot run ("Unsupported"), or a
// failure of a pass ("InternalError"). Trace is the traceback: "Name:
// Value" first, then the cell locations (Env.Describe).
type Error struct {
	Name  string
	Value string
	Trace []string
}

func (e *Error) Error() string { return e.Name + ": " + e.Value }

// newError returns an error whose traceback is its header followed by the
// given location lines.
func newError(name, value string, locs ...string) *Error {
	return &Error{Name: name, Value: value, Trace: append([]string{name + ": " + value}, locs...)}
}

// position is a location in a cell.
type position struct {
	serial int // 0: not in a cell
	line   int
	col    int
}

// describe names a cell position for a traceback line.
func (c *Cell) describe(p position) string { return c.env.Describe(p.serial, p.line, p.col) }

// nodeText returns the source of a node of the cell.
func (c *Cell) nodeText(n ast.Node) string { return c.env.NodeText(c.serial, n) }

// Source positions. Every run of a cell is parsed under a line directive
// naming the file "cellN/_.go" (N is the session's serial number of the
// cell), so yaegi's messages carry cell coordinates. All files share the
// base name "_.go" because yaegi scopes imports by base file name.

// CellFile is the file name of the cell with the given serial number.
func CellFile(serial int) string { return "cell" + strconv.Itoa(serial) + "/_.go" }

// CellPosRE finds cell positions anywhere in a message.
var CellPosRE = regexp.MustCompile(`cell(\d+)/_\.go:(\d+):(\d+)`)

// GeneratedFile is the file name of code the passes write; panics
// located in it are not shown in tracebacks.
const GeneratedFile = "gnb_generated/_.go"

// CellFuncName is the function the checker puts the cell's top-level
// statements in.
const CellFuncName = "__gnb_cell"

// yaegiInterp is yaegi's interpreter package: the package of
// valueInterface, how yaegi boxes a value of a cell's interface type, and
// of _error, its wrapper of a cell's value held in an error.
const yaegiInterp = "github.com/traefik/yaegi/interp"

// What the session needs of a rewritten cell.

// FuncExtents are where the cell's functions are, for tracebacks.
func (c *Cell) FuncExtents() []FuncExtent { return c.ci.funcExtents }

// KeepSource reports whether later tracebacks may point into the cell:
// it declares functions, starts guarded goroutines or gives callbacks.
func (c *Cell) KeepSource() bool {
	return c.keepSource || len(c.ci.funcExtents) > 0 || len(c.ci.generated) > 0
}

// RecoverFuncs are the cell's functions, and whether they call recover;
// the session records them once the cell's declarations have compiled
// (Env.CallsRecover).
func (c *Cell) RecoverFuncs() map[string]bool { return c.recoverFuncs }

// VarStmts takes out of a declaration run the var declarations that
// yaegi cannot initialize from earlier cells' variables (vars.go): the
// definitions to run before the run and after it. earlier holds the
// variables that earlier units of the cell define.
func (c *Cell) VarStmts(f *ast.File, earlier map[string]bool) (before, after []ast.Stmt) {
	return c.varStmts(f, earlier)
}

// TopStmt is a top-level statement as the interpreter compiles it: inside
// a function literal when it holds a select (yaegi's select fails at the
// top level) or code the index fixer needs in a function.
func (c *Cell) TopStmt(st ast.Stmt) ast.Stmt {
	if hasSelect(st) || c.ci.needsFunc(st) {
		return inFunc(st)
	}
	return st
}

// FinalExpr is the cell's final expression as the interpreter evaluates
// it (converted to its type, see index.go, when needed).
func (c *Cell) FinalExpr(e ast.Expr) ast.Expr {
	if c.ci.fix != nil {
		return c.ci.fix.fixTop(e, "")
	}
	return e
}

// IsPure reports whether evaluating e twice has no effect.
func (c *Cell) IsPure(e ast.Expr) bool { return c.ci.isPure(e) }

// UserName reports whether name is declared by the cell or an earlier one.
func (c *Cell) UserName(name string) bool { return c.ci.userName(name) }

// IsPackage reports whether name denotes a package in the cell.
func (c *Cell) IsPackage(name string) bool { return c.ci.isPackage(name) }

// Renders are the render methods (String, HTML, …) the cell declares.
func (c *Cell) Renders() map[string]bool { return c.ci.renders }

// ResultInt says whether the single result of a function declaration is
// an integer (Env.FuncInt of later cells).
func (c *Cell) ResultInt(d *ast.FuncDecl) Tri {
	if countFields(d.Type.Results) != 1 {
		return no
	}
	return c.ci.typeIsInt(d.Type.Results.List[0].Type)
}

// Imports are the packages the cell needs imported: those it names
// without declaring or importing them (bound to the automatic import
// auto gives, "" for none), and those the passes name in the code they
// write. name → path.
func (c *Cell) Imports(auto func(name string) string) map[string]string {
	imports := map[string]string{}
	for name := range c.ci.selectors {
		if c.ci.declared[name] || c.env.Kind(name) != "" || c.env.BoundPackage(name) {
			continue
		}
		if p := auto(name); p != "" {
			imports[name] = p
		}
	}
	for name, p := range c.typeImports {
		if !c.env.BoundPackage(name) {
			imports[name] = p
		}
	}
	for _, f := range []*fixer{c.ci.fix, c.ci.methods} {
		if f == nil {
			continue
		}
		for name, p := range f.imports {
			if !c.env.BoundPackage(name) {
				imports[name] = p
			}
		}
	}
	return imports
}

// Explain replaces yaegi's compile error (name, value) of a unit n of
// the cell by an Unsupported error when the unit holds code the passes
// had to leave as it was (index.go, methodvalue.go); nil keeps it.
func (c *Cell) Explain(n ast.Node, name, value string) *Error {
	return c.explain(n, &Error{Name: name, Value: value})
}

// Helpers are the compiled helpers the rewritten code calls that need no
// session, by name (the session adds its own and installs them as
// package "__gnb").
func Helpers() map[string]reflect.Value {
	return map[string]reflect.Value{
		// Recovered unwraps what recover returns (typed_recover.go).
		"Recovered": reflect.ValueOf(recovered),
		// make's size checks (typed_make.go).
		"MakeChan":     reflect.ValueOf(makeChanSize),
		"MakeSliceLen": reflect.ValueOf(makeSliceLen),
		"MakeSlice":    reflect.ValueOf(makeSlice),
		// The length check of a slice converted to an array (typed_slicearray.go).
		"SliceToArray": reflect.ValueOf(sliceToArray),
		// The panic of a failed assertion to a cell's interface (typed_assertiface.go).
		"AssertFailed":      reflect.ValueOf(assertFailed),
		"AssertCompiled":    reflect.ValueOf(assertCompiled),
		"ErrorsIs":          reflect.ValueOf(errorsIs),
		"AssertFailedNamed": reflect.ValueOf(assertFailedNamed),
		// The Go names of the cells' types (typenames.go).
		"NameType": reflect.ValueOf(nameType),
		// Package unsafe's functions yaegi lacks (typed_unsafe.go).
		"UnsafeSlice":      reflect.ValueOf(unsafeSlice),
		"UnsafeSliceData":  reflect.ValueOf(unsafeSliceData),
		"UnsafeString":     reflect.ValueOf(unsafeString),
		"UnsafeStringData": reflect.ValueOf(unsafeStringData),
		// Comparisons of interface values (typed_ifaceequal.go).
		"Equal": reflect.ValueOf(interfaceEqual),
	}
}

// PredeclaredNames are Go's predeclared functions and types, with the
// prelude's min, max and clear.
func PredeclaredNames() []string {
	var names []string
	for k := range builtins {
		names = append(names, k)
	}
	for k := range predeclaredTypes {
		names = append(names, k)
	}
	return names
}

// RangesLeft counts the ranges whose operand may be an integer that the
// passes could not rewrite (yaegi then fails with "nil type").
func (c *Cell) RangesLeft() int { return c.ci.ranges }
