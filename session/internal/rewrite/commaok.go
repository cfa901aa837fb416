package rewrite

import (
	"go/ast"
	"go/token"
)

// Stale comma-ok values.
//
// yaegi v0.16.1 leaves the value of a comma-ok map index or type
// assertion unchanged when the key is missing or the assertion fails,
// instead of setting it to the zero value. In a loop, `v, ok := m[k]`
// then keeps the previous iteration's v for a missing key (the variable's
// slot is reused), and `v, ok = m[k]` keeps v's old value. So the session
// follows each such statement with the assignment Go implies:
//
//	v, ok := m[k]     →  v, ok := m[k]; if !ok { v = m[k] }   (m and k have no side effects)
//	n, ok := x.(T)    →  n, ok := x.(T); if !ok { var __gnb_z1 T; n = __gnb_z1 }
//
// and turns `if v, ok := m[k]; ok {…} else {…}` (and a switch with such
// an init statement) into a block holding the definition, the fix and
// the if statement. A comma-ok definition of the top-level code itself
// is the fixer's (index.go); a value or status assigned to _ or to
// something other than a variable is left as it is.

// fixStale adds the zero-value assignments to the comma-ok statements of
// a parsed run (function bodies included).
func (ci *cellInfo) fixStale(p *Run) {
	if p.decl {
		ast.Inspect(p.file, func(n ast.Node) bool {
			ci.staleLists(n)
			return true
		})
		return
	}
	top := p.body
	ast.Inspect(top, func(n ast.Node) bool {
		if n == top {
			// The top-level statements: definitions are the fixer's.
			top.List = ci.staleList(top.List, true)
			return true
		}
		ci.staleLists(n)
		return true
	})
}

// staleLists fixes the statement lists n holds.
func (ci *cellInfo) staleLists(n ast.Node) {
	switch n := n.(type) {
	case *ast.BlockStmt:
		n.List = ci.staleList(n.List, false)
	case *ast.CaseClause:
		n.Body = ci.staleList(n.Body, false)
	case *ast.CommClause:
		n.Body = ci.staleList(n.Body, false)
	}
}

// staleList returns list with the fixes added; top says the list is the
// top-level code of the cell.
func (ci *cellInfo) staleList(list []ast.Stmt, top bool) []ast.Stmt {
	var out []ast.Stmt
	changed := false
	for _, st := range list {
		out = append(out, st)
		switch s := st.(type) {
		case *ast.AssignStmt:
			if top && s.Tok == token.DEFINE {
				continue
			}
			if fix := ci.staleFix(s); fix != nil {
				out = append(out, fix)
				changed = true
			}
		case *ast.IfStmt:
			if b := ci.staleInit(&s.Init, st); b != nil {
				out[len(out)-1] = b
				changed = true
			}
		case *ast.SwitchStmt:
			if b := ci.staleInit(&s.Init, st); b != nil {
				out[len(out)-1] = b
				changed = true
			}
		}
	}
	if !changed {
		return list
	}
	return out
}

// staleInit moves a comma-ok init statement out of an if or switch
// statement into a block that also holds its fix; nil when there is
// nothing to fix.
func (ci *cellInfo) staleInit(init *ast.Stmt, st ast.Stmt) ast.Stmt {
	a, ok := (*init).(*ast.AssignStmt)
	if !ok {
		return nil
	}
	fix := ci.staleFix(a)
	if fix == nil {
		return nil
	}
	*init = nil
	return &ast.BlockStmt{Lbrace: a.Pos(), List: []ast.Stmt{a, fix, st}, Rbrace: st.End()}
}

// staleFix returns the statement that gives the value of a comma-ok map
// index or type assertion its zero value when ok is false, or nil.
func (ci *cellInfo) staleFix(a *ast.AssignStmt) ast.Stmt {
	if (a.Tok != token.DEFINE && a.Tok != token.ASSIGN) || len(a.Lhs) != 2 || len(a.Rhs) != 1 || ci.staleDone[a] {
		return nil
	}
	v, ok1 := a.Lhs[0].(*ast.Ident)
	okv, ok2 := a.Lhs[1].(*ast.Ident)
	if !ok1 || !ok2 || v.Name == "_" || okv.Name == "_" {
		return nil
	}
	pos := a.Pos()
	var zero []ast.Stmt
	switch r := unparen(a.Rhs[0]).(type) {
	case *ast.IndexExpr:
		if !ci.isPure(r.X) || !ci.isPure(r.Index) {
			return nil
		}
		for _, name := range identsOf(r) {
			if name == v.Name || name == okv.Name {
				return nil // evaluated again, it would read the new variables
			}
		}
		zero = []ast.Stmt{&ast.AssignStmt{Lhs: []ast.Expr{ident(v.Name, pos)}, TokPos: pos, Tok: token.ASSIGN, Rhs: []ast.Expr{r}}}
	case *ast.TypeAssertExpr:
		if r.Type == nil {
			return nil
		}
		z := ci.tmpName("z")
		zero = []ast.Stmt{
			&ast.DeclStmt{Decl: &ast.GenDecl{TokPos: pos, Tok: token.VAR, Specs: []ast.Spec{
				&ast.ValueSpec{Names: []*ast.Ident{ident(z, pos)}, Type: r.Type},
			}}},
			&ast.AssignStmt{Lhs: []ast.Expr{ident(v.Name, pos)}, TokPos: pos, Tok: token.ASSIGN, Rhs: []ast.Expr{ident(z, pos)}},
		}
	default:
		return nil
	}
	if ci.staleDone == nil {
		ci.staleDone = map[*ast.AssignStmt]bool{}
	}
	ci.staleDone[a] = true
	return &ast.IfStmt{If: pos,
		Cond: &ast.UnaryExpr{OpPos: pos, Op: token.NOT, X: ident(okv.Name, pos)},
		Body: &ast.BlockStmt{Lbrace: pos, List: zero, Rbrace: a.End()},
	}
}
