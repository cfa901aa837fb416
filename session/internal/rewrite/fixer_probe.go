package rewrite

import (
	"go/ast"
	"go/token"
	"reflect"
)

// A Probe exposes the index fixer (index.go) of a parsed cell to the
// session's tests: the fixer infers types from the values of earlier
// cells, so its tests need a live interpreter behind Env.
type Probe struct {
	f    *fixer
	Runs []*Run
}

// NewProbe splits and parses code as cell serial and readies its fixer
// (not yet run).
func NewProbe(env Env, fset *token.FileSet, serial int, code string) (*Probe, error) {
	ci := newCellInfo(env, fset, serial)
	var ps []*Run
	for _, r := range Split(code, nil) {
		p, err := Parse(fset, CellFile(serial), code, r)
		if err != nil {
			return nil, err
		}
		ci.collect(p.node())
		ps = append(ps, p)
	}
	ci.fix = newFixer(ci, nil)
	return &Probe{f: ci.fix, Runs: ps}, nil
}

// TypeAST writes a compiled type as an expression (nil when it cannot).
func (p *Probe) TypeAST(t reflect.Type, pos token.Pos) ast.Expr { return p.f.typeAST(t, pos) }

// ExprType is the type the fixer infers for e (nil: unknown).
func (p *Probe) ExprType(e ast.Expr) reflect.Type { return p.f.exprType(e) }

// FixRuns runs the fixer on the cell.
func (p *Probe) FixRuns() { p.f.fixRuns(p.Runs) }

// Lookup is the type the fixer's scopes give a name.
func (p *Probe) Lookup(name string) (reflect.Type, bool) {
	e, ok := p.f.lookup(name)
	return e.t, ok
}

// NeedsFunc reports whether a top-level statement must run in a function.
func (p *Probe) NeedsFunc(st ast.Stmt) bool { return p.f.ci.needsFunc(st) }

// FixStale applies the comma-ok fixes (commaok.go) to a run.
func (p *Probe) FixStale(r *Run) { p.f.ci.fixStale(r) }

// HasSelectorValue reports whether the cell has a method value the
// method-value pass (methodvalue.go) may rewrite.
func (p *Probe) HasSelectorValue() bool { return hasSelectorValue(p.Runs) }

// VarDefs is the definition a var declaration becomes (vars.go), or nil.
func VarDefs(g *ast.GenDecl) []ast.Stmt { return varDefs(g) }

// Imports are the packages the types the fixer wrote need: name → path.
func (p *Probe) Imports() map[string]string { return p.f.imports }

// SetHere sets the packages the cell imports (name → path).
func (p *Probe) SetHere(here map[string]string) { p.f.here = here }

// Unresolved counts the expressions whose type the fixer could not tell.
func (p *Probe) Unresolved() int { return len(p.f.unresolved) }
