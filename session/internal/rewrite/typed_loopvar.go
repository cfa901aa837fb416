package rewrite

import (
	"go/ast"
	"go/token"
	"go/types"
)

// Per-iteration loop variables (Go 1.22).
//
// yaegi keeps one variable for the whole loop: closures made in the loop,
// and pointers taken to a loop variable, all see its last value. A
// variable defined in the loop body is new in each iteration in yaegi
// too, so the pass copies each loop variable that a function literal of
// the body uses, or whose address the body takes (&v, v[:] of an array,
// a pointer method of v), into a fresh variable at the start of the body
// and has the body use the copy — the checker's objects say which
// identifiers are the variable. A three-clause loop whose body may change
// the variable (an assignment, ++, its address) copies it back at the end
// of the iteration, where its continue statements now go, so that the
// post statement and the condition see the change:
//
//	for i := 0; i < n; i++ { body }
//	→
//	for i := 0; i < n; i++ {
//		__gnb_lv1 := i
//		{ body[i → __gnb_lv1]; continue → goto __gnb_next2 }
//	__gnb_next2:
//		i = __gnb_lv1
//	}
//
// Closures in the condition or the post statement still share the
// variable.

// loopVars gives loops per-iteration variables where it shows.
func loopVars(x *Cell, ps []*Run) error {
	labels := map[ast.Stmt]*ast.Ident{}
	inspect(ps, func(n ast.Node) bool {
		if l, ok := n.(*ast.LabeledStmt); ok {
			labels[l.Stmt] = l.Label
		}
		return true
	})
	for _, p := range ps {
		rewriteStmts(p.node(), func(st ast.Stmt, simple bool, depth int) ast.Stmt {
			switch st := st.(type) {
			case *ast.RangeStmt:
				if st.Tok == token.DEFINE {
					x.perIteration(st.For, []ast.Expr{st.Key, st.Value}, st.Body, false, nil)
				}
			case *ast.ForStmt:
				if a, ok := st.Init.(*ast.AssignStmt); ok && a.Tok == token.DEFINE {
					x.perIteration(st.For, a.Lhs, st.Body, true, labels[st])
				}
			}
			return nil
		})
	}
	return nil
}

// perIteration copies the loop variables that need it (defined by the
// identifiers of vars) at the start of body; back, where the loop is a
// three-clause one, label its label.
func (x *Cell) perIteration(pos token.Pos, vars []ast.Expr, body *ast.BlockStmt, back bool, label *ast.Ident) {
	info := x.cc.Info
	var objs []*types.Var
	for _, e := range vars {
		if id, ok := e.(*ast.Ident); ok && id.Name != "_" {
			if v, ok := info.Defs[id].(*types.Var); ok {
				objs = append(objs, v)
			}
		}
	}
	if len(objs) == 0 {
		return
	}
	u := x.varUses(body, objs)
	copyDef := &ast.AssignStmt{TokPos: pos, Tok: token.DEFINE}
	copyBack := &ast.AssignStmt{TokPos: pos, Tok: token.ASSIGN}
	renamed := map[*types.Var]string{}
	for _, v := range objs {
		if !u.captured[v] {
			continue
		}
		name := x.ci.tmpName("lv")
		renamed[v] = name
		orig := ident(x.nameOf(v), pos)
		info.Uses[orig] = v
		copyDef.Lhs = append(copyDef.Lhs, ident(name, pos))
		copyDef.Rhs = append(copyDef.Rhs, orig)
		if back && u.written[v] {
			back := ident(x.nameOf(v), pos)
			info.Uses[back] = v
			copyBack.Lhs = append(copyBack.Lhs, back)
			copyBack.Rhs = append(copyBack.Rhs, ident(name, pos))
		}
	}
	if len(renamed) == 0 {
		return
	}
	ast.Inspect(body, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			if v, ok := info.Uses[id].(*types.Var); ok && renamed[v] != "" {
				id.Name = renamed[v]
			}
		}
		return true
	})
	inner := &ast.BlockStmt{Lbrace: body.Lbrace, List: body.List, Rbrace: body.Rbrace}
	list := []ast.Stmt{copyDef, inner}
	if len(copyBack.Lhs) > 0 {
		next := x.ci.tmpName("next")
		continuesTo(inner, label, func(br *ast.BranchStmt) {
			br.Tok, br.Label = token.GOTO, ident(next, br.TokPos)
		})
		list = append(list, &ast.LabeledStmt{Label: ident(next, body.Rbrace), Colon: body.Rbrace, Stmt: copyBack})
	}
	body.List = list
}

// continuesTo calls f on the continue statements of body that continue
// the loop it is the body of (labeled label, if not nil).
func continuesTo(body *ast.BlockStmt, label *ast.Ident, f func(*ast.BranchStmt)) {
	var walk func(n ast.Node, nested bool)
	walk = func(n ast.Node, nested bool) {
		ast.Inspect(n, func(m ast.Node) bool {
			switch m := m.(type) {
			case *ast.FuncLit:
				return false
			case *ast.ForStmt:
				if m != n {
					walk(m.Body, true)
					return false
				}
			case *ast.RangeStmt:
				if m != n {
					walk(m.Body, true)
					return false
				}
			case *ast.BranchStmt:
				if m.Tok != token.CONTINUE {
					return true
				}
				if m.Label == nil && !nested || m.Label != nil && label != nil && m.Label.Name == label.Name {
					f(m)
				}
			}
			return true
		})
	}
	walk(body, false)
}

// varUsage tells, for loop variables, which ones the body captures (uses
// in a function literal, or takes the address of) and which ones it may
// change (assigns, increments, takes the address of).
type varUsage struct {
	captured, written map[*types.Var]bool
}

func (x *Cell) varUses(body ast.Node, objs []*types.Var) varUsage {
	info := x.cc.Info
	u := varUsage{captured: map[*types.Var]bool{}, written: map[*types.Var]bool{}}
	is := map[*types.Var]bool{}
	for _, v := range objs {
		is[v] = true
	}
	obj := func(e ast.Expr) *types.Var {
		if id, ok := e.(*ast.Ident); ok {
			if v, ok := info.Uses[id].(*types.Var); ok && is[v] {
				return v
			}
		}
		return nil
	}
	addressed := func(e ast.Expr) {
		if v := obj(x.addrBase(e)); v != nil {
			u.captured[v], u.written[v] = true, true
		}
	}
	written := func(e ast.Expr) {
		if v := obj(ast.Unparen(e)); v != nil {
			u.written[v] = true
		}
	}
	depth := 0
	var stack []ast.Node
	ast.Inspect(body, func(n ast.Node) bool {
		if n == nil {
			if _, ok := stack[len(stack)-1].(*ast.FuncLit); ok {
				depth--
			}
			stack = stack[:len(stack)-1]
			return true
		}
		stack = append(stack, n)
		switch n := n.(type) {
		case *ast.FuncLit:
			depth++
		case *ast.Ident:
			if v := obj(n); v != nil && depth > 0 {
				u.captured[v] = true
			}
		case *ast.UnaryExpr:
			if n.Op == token.AND {
				addressed(n.X)
			}
		case *ast.SliceExpr:
			if t := info.TypeOf(n.X); t != nil {
				if _, isArray := t.Underlying().(*types.Array); isArray {
					addressed(n.X)
				}
			}
		case *ast.SelectorExpr:
			if sel := info.Selections[n]; sel != nil && sel.Kind() == types.MethodVal && !sel.Indirect() {
				if m, ok := sel.Obj().(*types.Func); ok {
					if _, ptr := m.Type().(*types.Signature).Recv().Type().(*types.Pointer); ptr {
						if t := info.TypeOf(n.X); t != nil && !isPointer(t) {
							addressed(n.X)
						}
					}
				}
			}
		case *ast.AssignStmt:
			if n.Tok != token.DEFINE {
				for _, l := range n.Lhs {
					written(l)
				}
			}
		case *ast.IncDecStmt:
			written(n.X)
		case *ast.RangeStmt:
			if n.Tok == token.ASSIGN {
				if n.Key != nil {
					written(n.Key)
				}
				if n.Value != nil {
					written(n.Value)
				}
			}
		}
		return true
	})
	return u
}

// addrBase returns the variable whose storage e is part of, through
// fields of structs and elements of arrays (not through pointers or
// slices), or nil.
func (x *Cell) addrBase(e ast.Expr) ast.Expr {
	info := x.cc.Info
	for {
		switch v := ast.Unparen(e).(type) {
		case *ast.Ident:
			return v
		case *ast.SelectorExpr:
			sel := info.Selections[v]
			if sel == nil || sel.Kind() != types.FieldVal || sel.Indirect() {
				return nil
			}
			e = v.X
		case *ast.IndexExpr:
			t := info.TypeOf(v.X)
			if t == nil {
				return nil
			}
			if _, isArray := t.Underlying().(*types.Array); !isArray {
				return nil
			}
			e = v.X
		default:
			return nil
		}
	}
}
