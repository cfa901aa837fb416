package rewrite

import (
	"go/ast"
	"go/token"
	"go/types"
)

// Type switches: yaegi takes no case of a type declared in a cell, nor of
// a function type, when the value sits in an interface{} (switch
// v.(type) { case S: … } goes to default; the type assertion v.(S) is
// right). The pass writes a type switch as the assertions Go defines it
// by, then an expression switch on their results (break still leaves it):
//
//	switch x := v.(type) {      {
//	case A:                         __gnb_ts1 := v
//		…                           _, __gnb_tc2 := __gnb_ts1.(A)
//	case B, C:                      _, __gnb_tc3 := __gnb_ts1.(B)
//		…                           _, __gnb_tc4 := __gnb_ts1.(C)
//	case nil:                       switch {
//		…                           case __gnb_tc2:
//	default:                            x := __gnb_ts1.(A); _ = x; …
//		…                           case __gnb_tc3 || __gnb_tc4:
//	}                                   x := __gnb_ts1; _ = x; …
//	                                case __gnb_ts1 == nil:
//	                                    x := __gnb_ts1; _ = x; …
//	                                default:
//	                                    x := __gnb_ts1; _ = x; …
//	                                }
//	                            }
//
// A type switch written directly in a cell's top-level code becomes a
// function literal called at once around that block (func() { … }()):
// yaegi cannot compile the comma-ok definitions there. The pass runs before
// assertiface, which then writes the assertions to a cell's interface
// (values held in error, compiled values). A switch with an init
// statement keeps it first in the block; a label moves to the inner
// switch.
func rewriteTypeSwitches(x *Cell, ps []*Run) error {
	top := map[ast.Stmt]bool{} // the statements of the cell's top-level code
	for _, p := range ps {
		if !p.decl && p.body != nil {
			for _, st := range p.body.List {
				top[st] = true
			}
		}
	}
	rewrite := func(st ast.Stmt) ast.Stmt {
		ts, label := st, (*ast.LabeledStmt)(nil)
		if l, ok := st.(*ast.LabeledStmt); ok {
			ts, label = l.Stmt, l
		}
		sw, ok := ts.(*ast.TypeSwitchStmt)
		if !ok {
			return st
		}
		out := x.typeSwitchAsAssertions(sw)
		if out == nil {
			return st
		}
		if label != nil {
			inner := out.List[len(out.List)-1]
			label.Stmt = inner
			out.List[len(out.List)-1] = label
		}
		if top[st] {
			pos := out.Pos()
			lit := &ast.FuncLit{Type: &ast.FuncType{Func: pos, Params: &ast.FieldList{Opening: pos, Closing: pos}}, Body: out}
			return &ast.ExprStmt{X: &ast.CallExpr{Fun: lit, Lparen: out.End(), Rparen: out.End()}}
		}
		return out
	}
	rewriteStmtLists(ps, rewrite)
	return nil
}

// typeSwitchAsAssertions returns the block that replaces sw, or nil when
// it is left as it is.
func (x *Cell) typeSwitchAsAssertions(sw *ast.TypeSwitchStmt) *ast.BlockStmt {
	var subject ast.Expr
	var name *ast.Ident
	switch a := sw.Assign.(type) {
	case *ast.AssignStmt:
		if len(a.Lhs) != 1 || len(a.Rhs) != 1 {
			return nil
		}
		subject = a.Rhs[0]
		name, _ = a.Lhs[0].(*ast.Ident)
	case *ast.ExprStmt:
		subject = a.X
	}
	ta, ok := unparen(subject).(*ast.TypeAssertExpr)
	if !ok || ta.Type != nil {
		return nil
	}
	if t := x.cc.Info.Types[ta.X].Type; t == nil || t.Underlying().(*types.Interface).NumMethods() > 0 && !types.IsInterface(t) {
		return nil
	}
	pos := sw.Pos()
	id := func(n string) *ast.Ident { return &ast.Ident{Name: n, NamePos: pos} }
	block := &ast.BlockStmt{Lbrace: pos, Rbrace: sw.End()}
	if sw.Init != nil {
		block.List = append(block.List, sw.Init)
	}
	tsName := x.ci.tmpName("ts")
	// The subject's uses in the assertions carry its type, for the
	// assertion passes after this one (assertiface).
	subjectID := func() *ast.Ident {
		i := id(tsName)
		if tv, ok := x.cc.Info.Types[ta.X]; ok {
			x.cc.Info.Types[i] = tv
		}
		return i
	}
	block.List = append(block.List, &ast.AssignStmt{Lhs: []ast.Expr{id(tsName)}, TokPos: pos, Tok: token.DEFINE, Rhs: []ast.Expr{ta.X}})
	inner := &ast.SwitchStmt{Switch: pos, Body: &ast.BlockStmt{Lbrace: sw.Body.Lbrace, Rbrace: sw.Body.Rbrace}}
	for _, c := range sw.Body.List {
		cc := c.(*ast.CaseClause)
		var conds []ast.Expr
		var single ast.Expr // the one type of a clause of one type
		for _, e := range cc.List {
			if tv, ok := x.cc.Info.Types[e]; ok && tv.IsNil() {
				conds = append(conds, &ast.BinaryExpr{X: id(tsName), OpPos: e.Pos(), Op: token.EQL, Y: id("nil")})
				continue
			}
			ok := x.ci.tmpName("tc")
			block.List = append(block.List, &ast.AssignStmt{
				Lhs: []ast.Expr{id("_"), id(ok)}, TokPos: e.Pos(), Tok: token.DEFINE,
				Rhs: []ast.Expr{&ast.TypeAssertExpr{X: subjectID(), Lparen: e.Pos(), Type: e, Rparen: e.End()}},
			})
			conds = append(conds, id(ok))
			if len(cc.List) == 1 {
				single = e
			}
		}
		clause := &ast.CaseClause{Case: cc.Case, Colon: cc.Colon}
		if len(conds) > 0 {
			cond := conds[0]
			for _, c := range conds[1:] {
				cond = &ast.BinaryExpr{X: cond, OpPos: cc.Case, Op: token.LOR, Y: c}
			}
			clause.List = []ast.Expr{cond}
		}
		if name != nil && name.Name != "_" {
			var value ast.Expr = id(tsName)
			if single != nil {
				value = &ast.TypeAssertExpr{X: subjectID(), Lparen: cc.Colon, Type: single, Rparen: cc.Colon}
			}
			clause.Body = append(clause.Body,
				&ast.AssignStmt{Lhs: []ast.Expr{&ast.Ident{Name: name.Name, NamePos: cc.Colon}}, TokPos: cc.Colon, Tok: token.DEFINE, Rhs: []ast.Expr{value}},
				&ast.AssignStmt{Lhs: []ast.Expr{id("_")}, TokPos: cc.Colon, Tok: token.ASSIGN, Rhs: []ast.Expr{&ast.Ident{Name: name.Name, NamePos: cc.Colon}}})
		}
		clause.Body = append(clause.Body, cc.Body...)
		inner.Body.List = append(inner.Body.List, clause)
	}
	block.List = append(block.List, inner)
	return block
}
