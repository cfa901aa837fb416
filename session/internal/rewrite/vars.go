package rewrite

import (
	"go/ast"
	"go/token"
)

// var declarations that read variables of earlier cells.
//
// yaegi v0.16.1 orders the initialization of a program's package-level
// variables by their dependencies, and a dependency on a variable that an
// earlier program declared (an earlier cell's `x := 1` or `var x = 1`)
// never counts as initialized: `var y = x` fails when it runs with
// "variable definition loop". A call of a generic function with a
// variadic parameter (the prelude's min and max) in such an initializer
// silently yields the zero value. So the session turns such a declaration
// into a definition run as a statement of its own:
//
//	var y = x        →  y := x
//	var y T = x      →  y := T(x)
//	var a, b = f()   →  a, b := f()
//
// It runs before the rest of its declaration run (whose functions may use
// it), or after it when its value uses a name that the run declares, and
// then only if no function of the run uses the variable. A declaration
// that reads a variable converted so becomes a definition too.

// varStmts takes out of a declaration run the var declarations that read
// a variable of an earlier program or call a generic function, and
// returns them as definitions to run before and after the run. earlier
// holds the variables that earlier programs of the cell declare; it is
// updated with the run's variables.
func (x *Cell) varStmts(f *ast.File, earlier map[string]bool) (before, after []ast.Stmt) {
	runNames := map[string]bool{}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				runNames[d.Name.Name] = true
			}
		case *ast.GenDecl:
			for _, sp := range d.Specs {
				switch sp := sp.(type) {
				case *ast.ValueSpec:
					for _, id := range sp.Names {
						runNames[id.Name] = true
					}
				case *ast.TypeSpec:
					runNames[sp.Name.Name] = true
				}
			}
		}
	}
	isEarlier := func(name string) bool {
		if runNames[name] {
			return false
		}
		return earlier[name] || x.env.Kind(name) == KindVar
	}
	isGeneric := func(name string) bool {
		if ft := x.ci.funcs[name]; ft != nil {
			return ft.TypeParams != nil
		}
		if !x.ci.userName(name) {
			return name == "min" || name == "max"
		}
		return x.env.Generic(name) != nil
	}
	later := map[string]bool{} // the variables of the definitions run after the run
	var keep []ast.Decl
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.VAR {
			keep = append(keep, d)
			continue
		}
		// The names of the declaration, by spec: a value may read those of
		// the specs before its own (the definitions run in order).
		own := map[string]int{}
		for i, sp := range g.Specs {
			for _, id := range sp.(*ast.ValueSpec).Names {
				own[id.Name] = i
			}
		}
		readsEarlier, readsRun, inOrder := false, false, true
		for i, sp := range g.Specs {
			for _, v := range sp.(*ast.ValueSpec).Values {
				for _, name := range identsOf(v) {
					if j, ok := own[name]; ok {
						inOrder = inOrder && j < i
						continue
					}
					readsEarlier = readsEarlier || isEarlier(name) || isGeneric(name)
					readsRun = readsRun || runNames[name] || later[name]
				}
			}
		}
		stmts := varDefs(g)
		if !readsEarlier || !inOrder || stmts == nil || (readsRun && funcsUse(f, g)) {
			keep = append(keep, d)
			for _, sp := range g.Specs {
				for _, id := range sp.(*ast.ValueSpec).Names {
					earlier[id.Name] = true // for the programs after this one
				}
			}
			continue
		}
		for _, sp := range g.Specs {
			for _, id := range sp.(*ast.ValueSpec).Names {
				delete(runNames, id.Name)
				earlier[id.Name] = true
			}
		}
		if readsRun {
			after = append(after, stmts...)
			for name := range own {
				later[name] = true
			}
		} else {
			before = append(before, stmts...)
		}
	}
	f.Decls = keep
	return before, after
}

// varDefs returns the definitions equivalent to a var declaration, or nil
// when it has no value or a typed multi-value one.
func varDefs(g *ast.GenDecl) []ast.Stmt {
	var out []ast.Stmt
	for _, sp := range g.Specs {
		vs := sp.(*ast.ValueSpec)
		if len(vs.Values) == 0 || (len(vs.Values) != len(vs.Names) && (vs.Type != nil || len(vs.Values) != 1)) {
			return nil
		}
		a := &ast.AssignStmt{TokPos: vs.Pos(), Tok: token.ASSIGN}
		for _, id := range vs.Names {
			a.Lhs = append(a.Lhs, id)
			if id.Name != "_" {
				a.Tok = token.DEFINE
			}
		}
		for _, v := range vs.Values {
			if vs.Type != nil {
				v = conversion(vs.Type, v)
			}
			a.Rhs = append(a.Rhs, v)
		}
		out = append(out, a)
	}
	return out
}

// identsOf lists the identifiers an expression mentions (not the names
// selected by selectors).
func identsOf(e ast.Expr) []string {
	var names []string
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			names = append(names, identsOf(n.X)...)
			return false
		case *ast.Ident:
			names = append(names, n.Name)
		}
		return true
	})
	return names
}

// funcsUse reports whether a function or method of the file mentions a
// variable of g.
func funcsUse(f *ast.File, g *ast.GenDecl) bool {
	vars := map[string]bool{}
	for _, sp := range g.Specs {
		for _, id := range sp.(*ast.ValueSpec).Names {
			vars[id.Name] = true
		}
	}
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
			found := false
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				if id, ok := n.(*ast.Ident); ok && vars[id.Name] {
					found = true
				}
				return !found
			})
			if found {
				return true
			}
		}
	}
	return false
}
